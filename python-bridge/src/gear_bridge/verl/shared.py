"""Per-process state of the VERL glue: settings from call kwargs, one scorer per event loop, the server.

VERL calls the reward function from several worker processes, each running many calls at once on
one event loop; every call of a loop shares that loop's connection (and rubric registry). A loop
that is gone drops its scorer (weak keys); a forked child builds its own. With no ``url``, the
workers of one machine share one server (:mod:`gear_bridge.shared_server`), started with the judge
settings in its environment.
"""

from __future__ import annotations

import asyncio
import copy
import os
import threading
import weakref
from operator import is_
from typing import Any, Mapping

from ..asyncio.client import AsyncClient
from ..embedded_server import find_server_command, shared_server_url
from ..environment_watch import environment_stamp
from ..exceptions import ConfigError
from ..in_process import in_process_scorer
from ..judge import Judge
from ..plain_data import plain
from ..protocol import stable_json
from ..scoring import Scorer
from ..settings import ENVIRONMENT, Settings, load_settings
from ..shared_server import machine_server_url
from .rewarder import Rewarder

__all__ = ["VERL_EXTRA_KWARGS", "RouterInfo", "CallSettings", "call_settings", "settings_from_kwargs", "shared_scorer", "shared_rewarder", "server_launch"]

#: Keyword arguments VERL itself adds to reward-function calls when it runs a reward model.
VERL_EXTRA_KWARGS = frozenset({"reward_router_address", "reward_model_tokenizer"})

#: The judge variables a server reads at start (cli/options/judge-flags.ts).
_SERVER_JUDGE_ENV = {
    "judge_model": "GEAR_JUDGE_MODEL",
    "judge_api_key": "GEAR_JUDGE_API_KEY",
    "judge_max_concurrent": "GEAR_JUDGE_MAX_CONCURRENT",
    "judge_timeout": "GEAR_JUDGE_TIMEOUT",
    "judge_cache": "GEAR_JUDGE_CACHE",
}

_settings_cache: dict[tuple[str, tuple[str | None, ...]], Settings] = {}
_calls: dict[tuple[Any, ...], "CallSettings"] = {}
#: The last call's answer (any thread's): verl's calls repeat one set of keyword arguments.
_last_call: "CallSettings | None" = None
_settings_lock = threading.Lock()
_scorers_lock = threading.Lock()
_scorers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Scorer]] = weakref.WeakKeyDictionary()
_rewarders: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Rewarder]] = weakref.WeakKeyDictionary()


class RouterInfo:
    """verl's reward router, as passed to a reward function or manager: its address and model name."""

    __slots__ = ("address", "model")

    def __init__(self, address: str | None, tokenizer: Any) -> None:
        self.address = address if isinstance(address, str) and address else None
        name = getattr(tokenizer, "name_or_path", None)
        # verl serves the reward model under the local path its tokenizer was loaded from.
        self.model = name if isinstance(name, str) and name else None


_ENV_BYTES = getattr(os.environ, "_data", None)
_ENV_KEYS = tuple(os.fsencode(v) for v in ENVIRONMENT.values()) if isinstance(_ENV_BYTES, dict) else ()


def _environment_key() -> tuple[Any, ...]:
    """The GEAR_* variables settings read, as they are now (read raw where CPython allows: ~30x cheaper)."""
    if isinstance(_ENV_BYTES, dict):
        return tuple(map(_ENV_BYTES.get, _ENV_KEYS))
    return tuple([os.environ.get(v) for v in ENVIRONMENT.values()])


def settings_from_kwargs(kwargs: Mapping[str, Any]) -> tuple[Settings, Judge | None, RouterInfo]:
    """Settings, a custom judge (None: the row's judgments, else the service's judge) and verl's
    reward router, from a call's keyword arguments (VERL's ``reward_kwargs``) and the environment.

    Raises:
        ConfigError: an unknown keyword or a bad value (naming it).
    """
    call = call_settings(kwargs)
    return call.settings, call.judge, call.router


def call_settings(kwargs: Mapping[str, Any]) -> CallSettings:
    """:func:`settings_from_kwargs`'s answer, with the in-process scorer that goes with it.

    Raises:
        ConfigError: an unknown keyword or a bad value (naming it).
    """
    # verl calls this once per response with the same keyword arguments, the same objects every
    # time (its reward_kwargs, merged into each call), and the same environment. The last call's
    # answer first: the same names, the same objects (an identity test each, in C; equal texts
    # where every argument is one), no GEAR_* variable changed since (one integer: see
    # gear_bridge.environment_watch). Reading the 29 variables instead cost ~1 us a call, several
    # inside verl's loop.
    stamp = environment_stamp()
    global _last_call
    last = _last_call
    if stamp is not None and last is not None and last.stamp == stamp:
        texts = last.texts
        if texts is not None:
            # Arguments all text (or None), as a URL and names are: equal texts read alike, so one
            # comparison in C serves (a check that runs cold in verl's loop, where each operation
            # counts: ~2% of the legacy naive step for the identity test below).
            try:
                if kwargs == texts:
                    return last
            except Exception:  # a value whose comparison raises (a numpy array's truth): read below
                pass
        elif tuple(kwargs) == last.names and all(map(is_, kwargs.values(), last.values)) and (not last.plain or last.unchanged()):
            return last
    # Else the names and identities of the values and the variables are the key of the whole
    # answer (~1 us, where reading them is ~3). Hashing the values instead cost an OmegaConf
    # `options` ~3 us more per call (a DictConfig hashes its repr). The answer holds the values,
    # so their ids stay theirs.
    key = ((*kwargs, *map(id, kwargs.values())), _environment_key())
    found = _calls.get(key)
    if found is None or not found.unchanged():
        answer = _read_kwargs(kwargs)
        found = CallSettings.of(stamp, kwargs, answer)
        if found.plain is None:  # a value that cannot be copied: read every call
            return found
        with _settings_lock:
            if len(_calls) > 256:
                _calls.clear()
            _calls[key] = found
    elif found.stamp != stamp:
        found = found.restamped(stamp)
    _last_call = found
    return found


class CallSettings:
    """A call's settings, custom judge and reward router (as settings_from_kwargs gives them);
    ``known``, the in-process scorer of rows that carry their judgments (None where it is off or
    the judge makes every judgment); and the settings' ``judgments_key``.

    Kept for the calls that follow, with what the answer was read from: the names and values of the
    keyword arguments, the environment's stamp, and copies of the plain dicts and lists among the
    values: one changed in place since is read again. (An OmegaConf container is taken as it was
    first read: verl builds reward_kwargs once from its config, and comparing one costs what reading
    it does.)"""

    __slots__ = ("settings", "judge", "router", "known", "judgments_key", "stamp", "names", "values", "plain", "texts")

    def __init__(self, stamp: int | None, answer: tuple[Settings, Judge | None, RouterInfo], names: tuple[str, ...],
                 values: tuple[Any, ...], plain: tuple[tuple[Any, Any], ...] | None) -> None:
        settings, self.judge, self.router = answer
        self.settings = settings
        self.known = in_process_scorer(settings) if settings.in_process and settings.judgments != "judge" else None
        self.judgments_key = settings.judgments_key
        self.stamp = stamp
        self.names = names
        self.values = values
        self.plain = plain
        #: The arguments as a dict when every value is a str or None (None otherwise): equal ones read alike.
        self.texts = dict(zip(names, values)) if all([type(v) is str or v is None for v in values]) else None

    @classmethod
    def of(cls, stamp: int | None, kwargs: Mapping[str, Any], answer: tuple[Settings, Judge | None, RouterInfo]) -> CallSettings:
        try:
            plain: tuple[tuple[Any, Any], ...] | None = tuple((v, copy.deepcopy(v)) for v in kwargs.values() if type(v) in (dict, list))
        except Exception:  # a value that cannot be copied: not kept (plain None)
            plain = None
        return cls(stamp, answer, tuple(kwargs), tuple(kwargs.values()), plain)

    def restamped(self, stamp: int | None) -> CallSettings:
        """The same answer, found again under the environment of ``stamp`` (its key holds the variables)."""
        return CallSettings(stamp, (self.settings, self.judge, self.router), self.names, self.values, self.plain)

    def unchanged(self) -> bool:
        for value, was in self.plain or ():
            if value != was:
                return False
        return True


#: Keyword values that key the settings cache as they are (with their type): JSON's scalars.
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _read_kwargs(kwargs: Mapping[str, Any]) -> tuple[Settings, Judge | None, RouterInfo]:
    router = RouterInfo(kwargs.get("reward_router_address"), kwargs.get("reward_model_tokenizer"))
    own = {k: v for k, v in kwargs.items() if k not in VERL_EXTRA_KWARGS}
    judge = own.pop("judge", None)
    if judge is not None and not isinstance(judge, Judge):
        raise ConfigError(("judge",), f"must implement gear_bridge.judge.Judge (an async judge(call) method), got {type(judge).__name__}")
    text: Any
    if all([type(v) in _SCALARS for v in own.values()]):
        # verl calls this once per response: scalar kwargs are their own key (no JSON per call),
        # with their types (True == 1 == 1.0 in Python, and a flag takes only the first).
        text = tuple([(k, type(v), v) for k, v in own.items()])
    else:
        try:
            text = stable_json(plain(own))
        except (TypeError, ValueError):
            text = None
    if text is None:
        settings = load_settings(**own)
    else:
        key = (text, _environment_key())
        with _settings_lock:
            cached = _settings_cache.get(key)
        if cached is None:
            cached = load_settings(**own)
            with _settings_lock:
                if len(_settings_cache) > 256:
                    _settings_cache.clear()
                _settings_cache[key] = cached
        settings = cached
    return settings, judge, router


def server_launch(settings: Settings) -> tuple[dict[str, str], list[str]]:
    """The environment and extra flags an embedded server starts with: the judge of ``settings``.

    The parent's ``GEAR_JUDGE_*`` variables are replaced by the settings' (which read them anyway),
    so the server's judge is exactly the one configured.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEAR_JUDGE_")}
    args: list[str] = ["--log-level", "warn"]
    if settings.judge_url is not None:
        env["GEAR_JUDGE_URL"] = ",".join(settings.judge_url)
        for name, variable in _SERVER_JUDGE_ENV.items():
            value = getattr(settings, name)
            if value is not None:
                env[variable] = str(value)
        if settings.judge_rpm is not None:
            args += ["--rpm", repr(settings.judge_rpm)]
        if settings.judge_tpm is not None:
            args += ["--tpm", repr(settings.judge_tpm)]
    return env, args


def _server_url(settings: Settings) -> str:
    env, args = server_launch(settings)
    if not settings.shared_server:
        return shared_server_url(
            command=settings.server_command, token=settings.token, startup_timeout=settings.startup_timeout, env=env, extra_args=args
        )
    command = list(settings.server_command) if settings.server_command is not None else find_server_command()
    identity = {
        "command": command,
        "token": settings.token,
        "args": args,
        "judge": {k: env.get(k) for k in ("GEAR_JUDGE_URL", *_SERVER_JUDGE_ENV.values())},
    }
    return machine_server_url(
        command=command,
        token=settings.token,
        env=env,
        extra_args=args,
        identity=identity,
        run_dir=settings.run_dir,
        startup_timeout=settings.startup_timeout,
    )


async def shared_scorer(settings: Settings) -> Scorer:
    """The running loop's scorer for ``settings``' server (this machine's when ``url`` is None).

    Raises:
        EmbeddedServerError: no server address and no gear command to start one.
    """
    loop = asyncio.get_running_loop()
    key = settings.connection_key()
    with _scorers_lock:  # loops of other threads (the blocking paths' loop thread) share the map
        scorers = _scorers.get(loop)
        if scorers is not None and key in scorers:
            return scorers[key]
    url = settings.url
    if url is None:
        url = await loop.run_in_executor(None, _server_url, settings)
    with _scorers_lock:
        scorers = _scorers.setdefault(loop, {})
        if key not in scorers:  # another call of this loop may have got here first during the await
            client = AsyncClient(
                url,
                token=settings.token,
                timeout=settings.timeout,
                connect_timeout=settings.connect_timeout,
                reconnect_deadline=settings.reconnect_deadline,
                # This machine's server: if its keeper dies, the first worker to notice starts a new
                # one (on another port) and every other worker finds it the same way.
                locate=(lambda: _server_url(settings)) if settings.url is None and settings.shared_server else None,
            )
            scorers[key] = Scorer(client, max_rubrics=settings.max_rubrics)
        return scorers[key]


async def shared_rewarder(settings: Settings, endpoints: list[dict[str, Any]] | None) -> Rewarder:
    """The running loop's :class:`Rewarder` for ``settings`` and judge ``endpoints``."""
    loop = asyncio.get_running_loop()
    # Once per response: no JSON for the common case of no endpoints. The Rewarder holds settings,
    # so the id stays its own.
    key = (id(settings), None if endpoints is None else stable_json(endpoints))
    found = _rewarders.get(loop, {}).get(key)
    if found is not None:
        return found
    scorer = await shared_scorer(settings)
    with _scorers_lock:
        return _rewarders.setdefault(loop, {}).setdefault(key, Rewarder(scorer, settings, endpoints))
