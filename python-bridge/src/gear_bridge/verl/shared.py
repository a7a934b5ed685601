"""Per-process state of the VERL glue: settings from call kwargs, one scorer per event loop, the server.

VERL calls the reward function from several worker processes, each running many calls at once on
one event loop; every call of a loop shares that loop's connection (and rubric registry). A loop
that is gone drops its scorer (weak keys); a forked child builds its own. With no ``url``, the
workers of one machine share one server (:mod:`gear_bridge.server.machine`), started with the judge
settings in its environment.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from typing import Any, Mapping, NamedTuple

from ..asyncio.client import AsyncClient
from ..server import find_server_command, shared_server_url
from ..exceptions import ConfigError
from ..judge import Judge
from ..plain_data import plain
from ..protocol import stable_json
from ..scoring import Scorer
from ..settings import ENVIRONMENT, Settings, load_settings
from ..server import machine_server_url
from .rewarder import Rewarder

__all__ = ["VERL_EXTRA_KWARGS", "RouterInfo", "CallSettings", "call_settings", "settings_from_kwargs", "shared_scorer", "shared_rewarder", "server_launch"]

#: Keyword arguments VERL itself adds to reward-function calls when it runs a reward model.
VERL_EXTRA_KWARGS = frozenset({"reward_router_address", "reward_model_tokenizer"})

#: The judge variables a server reads at start (cli/options/judge-flags.ts).
_SERVER_JUDGE_ENV = {name: ENVIRONMENT[name] for name in ("judge_model", "judge_api_key", "judge_max_concurrent", "judge_timeout",
                                                    "judge_deadline", "judge_routing", "judge_cache")}

_settings_cache: dict[tuple[str, tuple[str | None, ...]], Settings] = {}
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


class CallSettings(NamedTuple):
    """A call's settings, its Python judge (None: the row's judgments, else the service's judge)
    and verl's reward router."""

    settings: Settings
    judge: Judge | None
    router: RouterInfo


def settings_from_kwargs(kwargs: Mapping[str, Any]) -> tuple[Settings, Judge | None, RouterInfo]:
    """Settings, a custom judge and verl's reward router, from a call's keyword arguments (VERL's
    ``reward_kwargs``) and the environment.

    Raises:
        ConfigError: an unknown keyword or a bad value (naming it).
    """
    call = call_settings(kwargs)
    return call.settings, call.judge, call.router


def call_settings(kwargs: Mapping[str, Any]) -> CallSettings:
    """:func:`settings_from_kwargs` as a named tuple.

    Raises:
        ConfigError: an unknown keyword or a bad value (naming it).
    """
    router = RouterInfo(kwargs.get("reward_router_address"), kwargs.get("reward_model_tokenizer"))
    own = {k: v for k, v in kwargs.items() if k not in VERL_EXTRA_KWARGS}
    judge = own.pop("judge", None)
    if judge is not None and not isinstance(judge, Judge):
        raise ConfigError(("judge",), f"must implement gear_bridge.judge.Judge (an async judge(call) method), got {type(judge).__name__}")
    try:
        # verl calls once per response with the same arguments: one Settings object serves them all.
        key = (stable_json(plain(own)), tuple(os.environ.get(v) for v in ENVIRONMENT.values()))
    except (TypeError, ValueError):
        return CallSettings(load_settings(**own), judge, router)
    with _settings_lock:
        settings = _settings_cache.get(key)
    if settings is None:
        settings = load_settings(**own)
        with _settings_lock:
            if len(_settings_cache) > 256:
                _settings_cache.clear()
            _settings_cache[key] = settings
    return CallSettings(settings, judge, router)


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
            scorers[key] = Scorer(client)
        return scorers[key]


async def shared_rewarder(settings: Settings, endpoints: list[dict[str, Any]] | None) -> Rewarder:
    """The running loop's :class:`Rewarder` for ``settings`` and judge ``endpoints``."""
    loop = asyncio.get_running_loop()
    # The Rewarder holds settings, so the id stays its own.
    key = (id(settings), None if endpoints is None else stable_json(endpoints))
    found = _rewarders.get(loop, {}).get(key)
    if found is not None:
        return found
    scorer = await shared_scorer(settings)
    with _scorers_lock:
        return _rewarders.setdefault(loop, {}).setdefault(key, Rewarder(scorer, settings, endpoints))
