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
``group_size``              ``GEAR_GROUP_SIZE``          None: ``actor_rollout_ref.rollout.n``
``group_wait``              ``GEAR_GROUP_WAIT``          0.005 seconds (GearRewardManager)
``max_rubrics``             ``GEAR_MAX_RUBRICS``         10000 rubric ids remembered per connection
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

__all__ = ["AGGREGATORS", "HOSTS", "FORMATS", "ENVIRONMENT", "Settings", "load_settings"]

AGGREGATORS = ("flat", "hard", "gear", "gear-exact", "auto")
HOSTS = ("ruscarl", "merf", "rar-explicit", "gear", "writingbench", "plawbench")
#: Row formats scored with judge scores (p/d) against a rubric; every host is a format too.
FORMATS = ("canonical", "official-gear")

ENVIRONMENT: dict[str, str] = {
    "url": "GEAR_BRIDGE_URL",
    "token": "GEAR_TOKEN",
    "server_command": "GEAR_SERVER_COMMAND",
    "aggregator": "GEAR_AGGREGATOR",
    "host": "GEAR_HOST",
    "options": "GEAR_OPTIONS",
    "judgments_key": "GEAR_JUDGMENTS_KEY",
    "timeout": "GEAR_TIMEOUT",
    "connect_timeout": "GEAR_CONNECT_TIMEOUT",
    "reconnect_deadline": "GEAR_RECONNECT_DEADLINE",
    "startup_timeout": "GEAR_STARTUP_TIMEOUT",
    "group_size": "GEAR_GROUP_SIZE",
    "group_wait": "GEAR_GROUP_WAIT",
    "max_rubrics": "GEAR_MAX_RUBRICS",
}


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
    # Grouping (GearRewardManager)
    group_size: int | None = None
    group_wait: float | None = 0.005
    # Limits
    max_rubrics: int | None = 10000

    def connection_key(self) -> tuple[Any, ...]:
        """What identifies a connection: settings that differ only in scoring share one."""
        return (self.url, self.token, self.server_command, self.timeout, self.connect_timeout,
                self.reconnect_deadline, self.startup_timeout, self.max_rubrics)


_NAMES = tuple(f.name for f in fields(Settings))
_DURATIONS = ("timeout", "connect_timeout", "reconnect_deadline", "startup_timeout", "group_wait")
_COUNTS = ("group_size", "max_rubrics")


def _unset(value: Any) -> bool:
    """None, or how an environment variable or a Hydra override spells it."""
    return value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null"))


def _duration(name: str, value: Any, where: str) -> float | None:
    if _unset(value):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ConfigError((where,), f"must be a number of seconds or none, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError((where,), f"must be a number of seconds or None, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < 0 or (number == 0 and name != "group_wait"):
        raise ConfigError((where,), f"must be a finite number of seconds > 0 (or None), got {value!r}")
    return number


def _count(value: Any, where: str) -> int | None:
    if _unset(value):
        return None
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise ConfigError((where,), f"must be an integer or none, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError((where,), f"must be an integer >= 1 (or None), got {value!r}")
    return value


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
        return _duration(name, value, where)
    if name in _COUNTS:
        return _count(value, where)
    if name == "url":
        url = _text(value, where)
        if url is not None and not url.startswith(("ws://", "wss://")):
            raise ConfigError((where,), f"must be a ws:// or wss:// address, got {url!r}")
        return url
    if name == "aggregator":
        return _text(value, where, AGGREGATORS)
    if name == "host":
        return _text(value, where, HOSTS)
    if name in ("token", "judgments_key"):
        return _text(value, where)
    if name == "server_command":
        if value is None:
            return None
        parts = shlex.split(value) if isinstance(value, str) else plain(value)
        if not isinstance(parts, list) or not parts or not all(isinstance(p, str) and p for p in parts):
            raise ConfigError((where,), f"must be a command line (a string or a list of strings), got {value!r}")
        return tuple(parts)
    if name == "options":
        if value is None:
            return None
        if from_env or isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError as error:
                raise ConfigError((where,), f"must be a JSON object: {error}") from None
        options = plain(value)
        if not isinstance(options, dict):
            raise ConfigError((where,), f"must be an object of aggregation options, got {value!r}")
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
    if values.get("judgments_key", "gear_judgments") is None:
        values["judgments_key"] = "gear_judgments"
    return replace(Settings(), **values)
