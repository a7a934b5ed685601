"""Settings from keyword arguments and environment variables (keyword arguments win).

==========================  ===========================  =============================================
keyword                     environment variable         default
==========================  ===========================  =============================================
``url``                     ``GEAR_BRIDGE_URL``          None: start an embedded ``gear serve``
``token``                   ``GEAR_TOKEN``               None
``server_command``          ``GEAR_SERVER_COMMAND``      None: ``gear`` next to Python, then on PATH
``aggregator``              ``GEAR_AGGREGATOR``          ``"gear"``
``host``                    ``GEAR_HOST``                None: the row's ``format``
``options``                 ``GEAR_OPTIONS`` (JSON)      None: the server's defaults
``judgments_key``           ``GEAR_JUDGMENTS_KEY``       ``"gear_judgments"``
``timeout``                 ``GEAR_TIMEOUT``             30.0 seconds per request
``connect_timeout``         ``GEAR_CONNECT_TIMEOUT``     10.0 seconds to open the first connection
``reconnect_deadline``      ``GEAR_RECONNECT_DEADLINE``  60.0 seconds of reconnecting per call
``startup_timeout``         ``GEAR_STARTUP_TIMEOUT``     30.0 seconds for the embedded server to start
``group_wait``              ``GEAR_GROUP_WAIT``          0.005 seconds: the longest a worker's batch waits
``metrics``                 ``GEAR_METRICS``             True: gear/flat/hard rewards per response
``judgments``               ``GEAR_JUDGMENTS``           ``"auto"``: the row's judgments, else the judge
``judge_url``               ``GEAR_JUDGE_URL``           None: verl's reward router, or the server's
``judge_model``             ``GEAR_JUDGE_MODEL``         None: the endpoint's default model name
``judge_api_key``           ``GEAR_JUDGE_API_KEY``       None (``EMPTY``)
``judge_max_concurrent``    ``GEAR_JUDGE_MAX_CONCURRENT``  None: 32 requests in flight per endpoint
``judge_rpm``               ``GEAR_JUDGE_RPM``           None: no requests-per-minute limit
``judge_tpm``               ``GEAR_JUDGE_TPM``           None: no tokens-per-minute limit
``judge_timeout``           ``GEAR_JUDGE_TIMEOUT``       None: 300 s per LLM request (the server's)
``judge_deadline``          ``GEAR_JUDGE_DEADLINE``      None: 300 s of retrying a faulty request (the server's)
``judge_routing``           ``GEAR_JUDGE_ROUTING``       None: ``prefix`` (or ``least-outstanding``; the server's)
``judge_cache``             ``GEAR_JUDGE_CACHE``         None: answers cached in memory only
``judge_options``           ``GEAR_JUDGE_OPTIONS`` (JSON)  None: the official decoding, pessimistic
``reward_router``           ``GEAR_REWARD_ROUTER``       True: judge through verl's reward router
``reward_router_model``     ``GEAR_REWARD_ROUTER_MODEL`` None: verl's ``reward.reward_model.model_path``
``run_dir``                 ``GEAR_RUN_DIR``             None: ``$XDG_RUNTIME_DIR`` or the temp dir
``shared_server``           ``GEAR_SHARED_SERVER``       True: one embedded server per machine
==========================  ===========================  =============================================

Durations and limits accept ``None`` (in the environment: ``none``) to disable the limit.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from .exceptions import ConfigError
from .plain_data import plain

__all__ = ["AGGREGATORS", "HOSTS", "FORMATS", "JUDGMENT_SOURCES", "ENVIRONMENT", "Settings", "load_settings"]

AGGREGATORS = ("flat", "hard", "gear", "gear-exact", "auto")
HOSTS = ("ruscarl", "merf", "rar-explicit", "gear", "writingbench", "plawbench")
#: Row formats scored with judge scores (p/d) against a rubric; every host is a format too.
FORMATS = ("canonical", "official-gear")
#: Where a response's judgments come from: ``auto`` (the row's own when it has them, else the
#: judge), ``precomputed`` (always the row's), ``judge`` (always the judge, through the service).
JUDGMENT_SOURCES = ("auto", "precomputed", "judge")

@dataclass(frozen=True, kw_only=True)
class Settings:
    """Everything the bridge can be told; build it with :func:`load_settings`."""

    # Server
    url: str | None = None
    token: str | None = None
    server_command: tuple[str, ...] | None = None
    # Scoring
    aggregator: str = "gear"
    host: str | None = None
    options: Mapping[str, Any] | None = None
    judgments_key: str = "gear_judgments"
    # Timeouts
    timeout: float | None = 30.0
    connect_timeout: float | None = 10.0
    reconnect_deadline: float | None = 60.0
    startup_timeout: float | None = 30.0
    # Batching: a worker's calls go out together after 3 idle loop turns, or after group_wait
    group_wait: float | None = 0.005
    # Metrics: gear, flat and hard rewards of every response in reward_extra_info
    metrics: bool = True
    # Judge
    judgments: str = "auto"
    judge_url: tuple[str, ...] | None = None
    judge_model: str | None = None
    judge_api_key: str | None = None
    judge_max_concurrent: int | None = None
    judge_rpm: float | None = None
    judge_tpm: float | None = None
    judge_timeout: float | None = None
    judge_deadline: float | None = None
    judge_routing: str | None = None
    judge_cache: str | None = None
    judge_options: Mapping[str, Any] | None = None
    reward_router: bool = True
    reward_router_model: str | None = None
    # Where the per-machine server keeps its lock, address and users
    run_dir: str | None = None
    shared_server: bool = True

    def connection_key(self) -> tuple[Any, ...]:
        """What identifies a connection: settings that differ only in scoring share one (the judge
        settings are part of an embedded server's identity)."""
        return (self.url, self.token, self.server_command, self.timeout, self.connect_timeout, self.reconnect_deadline, self.startup_timeout,
                self.judge_url, self.judge_model, self.judge_api_key, self.judge_max_concurrent, self.judge_rpm, self.judge_tpm,
                self.judge_timeout, self.judge_deadline, self.judge_routing, self.judge_cache, self.run_dir, self.shared_server)


_NAMES = tuple(f.name for f in fields(Settings))
#: Each setting's environment variable: GEAR_ and its name in capitals (the server address: GEAR_BRIDGE_URL).
ENVIRONMENT: dict[str, str] = {name: "GEAR_BRIDGE_URL" if name == "url" else f"GEAR_{name.upper()}" for name in _NAMES}
_DURATIONS = ("timeout", "connect_timeout", "reconnect_deadline", "startup_timeout", "group_wait", "judge_timeout", "judge_deadline")
_COUNTS = ("judge_max_concurrent",)
_RATES = ("judge_rpm", "judge_tpm")
_FLAGS = ("metrics", "reward_router", "shared_server")
_CHOICES = {"judgments": JUDGMENT_SOURCES, "judge_routing": ("prefix", "least-outstanding")}
_TEXTS = ("token", "judgments_key", "judge_model", "judge_api_key", "judge_cache", "reward_router_model", "run_dir")


def _unset(value: Any) -> bool:
    """None, or how an environment variable or a Hydra override spells it."""
    return value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null"))


def _number(value: Any, where: str, *, integer: bool = False, zero: bool = False, what: str = "a number") -> Any:
    """A positive finite number (``zero``: or 0; ``integer``: whole), or None for an unset value."""
    if _unset(value):
        return None
    if isinstance(value, str):
        try:
            value = (int if integer else float)(value.strip())
        except ValueError:
            raise ConfigError((where,), f"must be {what} or none, got {value!r}") from None
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        raise ConfigError((where,), f"must be {what} {'>= 0' if zero else '> 0'} (or None), got {value!r}")
    return value if integer else float(value)


def _flag(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError((where,), f"must be true or false, got {value!r}")


def _urls(value: Any, where: str) -> tuple[str, ...] | None:
    if _unset(value):
        return None
    items = value.split(",") if isinstance(value, str) else plain(value)
    if not isinstance(items, list) or not all(isinstance(u, str) for u in items):
        raise ConfigError((where,), f"must be a URL, a comma-separated list of URLs or a list of URLs, got {value!r}")
    urls = tuple(u.strip() for u in items if u.strip())
    if not urls:
        raise ConfigError((where,), "must name at least one OpenAI-compatible endpoint URL")
    for url in urls:
        if not url.startswith(("http://", "https://")):
            raise ConfigError((where,), f"must be http(s) URLs of OpenAI-compatible endpoints, got {url!r}")
    return urls


def _text(value: Any, where: str, choices: tuple[str, ...] | None = None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value == "":
        raise ConfigError((where,), f"must be a non-empty string, got {value!r}")
    if choices is not None and value not in choices:
        raise ConfigError((where,), f"must be one of {', '.join(choices)}, got {value!r}")
    return value


def _convert(name: str, value: Any, where: str, from_env: bool) -> Any:
    if name in _DURATIONS:
        return _number(value, where, zero=name == "group_wait", what="a finite number of seconds")
    if name in _COUNTS:
        return _number(value, where, integer=True, what="an integer")
    if name == "url":
        url = _text(value, where)
        if url is not None and not url.startswith(("ws://", "wss://")):
            raise ConfigError((where,), f"must be a ws:// or wss:// address, got {url!r}")
        return url
    if name == "aggregator":
        return _text(value, where, AGGREGATORS)
    if name == "host":
        return _text(value, where, HOSTS)
    if name in _RATES:
        return _number(value, where, what="a finite number")
    if name in _FLAGS:
        return _flag(value, where)
    if name == "judge_url":
        return _urls(value, where)
    if name in _CHOICES:
        return _text(value, where, _CHOICES[name])
    if name in _TEXTS:
        return _text(value, where)
    if name == "server_command":
        if value is None:
            return None
        parts = shlex.split(value) if isinstance(value, str) else plain(value)
        if not isinstance(parts, list) or not parts or not all(isinstance(p, str) and p for p in parts):
            raise ConfigError((where,), f"must be a command line (a string or a list of strings), got {value!r}")
        return tuple(parts)
    if name in ("options", "judge_options"):
        if value is None:
            return None
        if from_env or isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError as error:
                raise ConfigError((where,), f"must be a JSON object: {error}") from None
        options = plain(value)
        if not isinstance(options, dict):
            what = "judge options (decoding, structuredOutput, pFrom, maxReasks, onJudgeFailure)" if name == "judge_options" else "aggregation options"
            raise ConfigError((where,), f"must be an object of {what}, got {value!r}")
        return options
    raise AssertionError(name)  # pragma: no cover


def load_settings(env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Builds settings: defaults, then environment variables, then keyword arguments.

    Args:
        env: the environment to read (``os.environ`` by default).
        **overrides: any field of :class:`Settings`; ``None`` is a value (it disables a limit, or
            for ``url`` selects the embedded server), so pass only what you mean to set.

    Raises:
        ConfigError: an unknown keyword or a bad value; ``path`` names the keyword or variable.
    """
    source = os.environ if env is None else env
    values: dict[str, Any] = {}
    for name, variable in ENVIRONMENT.items():
        if variable in source:
            values[name] = _convert(name, source[variable], variable, True)
    for name, value in overrides.items():
        if name not in _NAMES:
            raise ConfigError((name,), f"unknown setting (known: {', '.join(_NAMES)})")
        values[name] = _convert(name, value, name, False)
    if values.get("aggregator", "gear") is None:
        values["aggregator"] = "gear"
    for name, default in (("judgments_key", "gear_judgments"), ("judgments", "auto")):
        if name in values and values[name] is None:
            values[name] = default
    return replace(Settings(), **values)
