"""
Exceptions raised by gear_bridge. One base class; transport errors and JSON-RPC errors stay apart:

.. code-block:: text

    GearBridgeError
    ├── RpcError(code, message, data)      the server answered with a JSON-RPC error
    │   ├── InvalidParams                  -32602 (also raised locally for NaN/Infinity)
    │   ├── MethodNotFound                 -32601
    │   ├── LimitExceeded                  -32002 (also raised locally over maxPayloadBytes)
    │   ├── UnknownRubric                  -32001 (the rubric cache re-registers and resends)
    │   ├── ServerError                    -32603, and -32700 / -32600 (a client or server bug)
    │   └── ServerShuttingDown             -32004 (the client reconnects and resends)
    ├── BridgeConnectionError              no answer could be had
    │   ├── ConnectionLost                 the socket closed or could not be (re)opened in time
    │   └── BridgeTimeout                  no answer within the call's timeout
    ├── EmbeddedServerError                the local ``gear serve`` could not be found or started
    ├── ConfigError (ValueError)           a setting (keyword argument or environment variable)
    └── RowError (ValueError)              a VERL row (``extra_info``) or judgment is malformed

Only ``BridgeConnectionError`` (and ``ServerShuttingDown``) are retried, after a reconnect, and only
because every method of the protocol is idempotent. ``RowError`` and ``ConfigError`` carry the
offending field as ``path`` (a tuple of keys and indices) and name it in the message.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = [
    "GearBridgeError",
    "RpcError",
    "InvalidParams",
    "MethodNotFound",
    "LimitExceeded",
    "UnknownRubric",
    "ServerError",
    "ServerShuttingDown",
    "BridgeConnectionError",
    "ConnectionLost",
    "BridgeTimeout",
    "EmbeddedServerError",
    "ConfigError",
    "RowError",
    "format_path",
]

PathPart = str | int


def format_path(path: Sequence[PathPart]) -> str:
    """Renders a field path like ``extra_info.gear.rubric.criteria[3].weight``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += part if out == "" else f".{part}"
    return out or "(root)"


class GearBridgeError(Exception):
    """Base class of every error gear_bridge raises."""


class RpcError(GearBridgeError):
    """The server answered a request with a JSON-RPC error.

    Attributes:
        code: the JSON-RPC error code.
        message: the server's message (names the offending field for -32602).
        data: the error's ``data`` member, or None.
        method: the method of the request that failed, when known.
    """

    def __init__(self, code: int, message: str, data: Any = None, *, method: str | None = None) -> None:
        self.code = code
        self.message = message
        self.data = data
        self.method = method
        where = f" ({method})" if method else ""
        super().__init__(f"[{code}]{where} {message}")

    @property
    def path(self) -> tuple[PathPart, ...]:
        """The offending field's path when the server gave one (``data.path``), else ()."""
        if isinstance(self.data, dict) and isinstance(self.data.get("path"), list):
            return tuple(p for p in self.data["path"] if isinstance(p, (str, int)))
        return ()


class InvalidParams(RpcError):
    """-32602: a parameter is malformed; ``message`` and ``data.path`` name it."""


class MethodNotFound(RpcError):
    """-32601: the server has no such method (``data.method``)."""


class LimitExceeded(RpcError):
    """-32002: a payload or batch is over a server limit (``data: {limit, max, actual}``)."""


class UnknownRubric(RpcError):
    """-32001: a rubricId was never registered or was evicted (``data.rubricId`` or ``data.rubricIds``)."""

    @property
    def rubric_ids(self) -> tuple[str, ...]:
        """The unknown ids the server listed."""
        if isinstance(self.data, dict):
            if isinstance(self.data.get("rubricIds"), list):
                return tuple(str(i) for i in self.data["rubricIds"])
            if isinstance(self.data.get("rubricId"), str):
                return (self.data["rubricId"],)
        return ()


class ServerError(RpcError):
    """-32603 (internal error, ``data.incident`` points into the server log), -32700 or -32600."""


class ServerShuttingDown(RpcError):
    """-32004: the server is draining; the client reconnects (to the restarted server) and resends."""


class BridgeConnectionError(GearBridgeError):
    """No answer could be had from the server."""


class ConnectionLost(BridgeConnectionError):
    """The connection closed, or could not be (re)opened before the reconnect deadline."""


class BridgeTimeout(BridgeConnectionError, TimeoutError):
    """The server did not answer within the call's timeout."""


class EmbeddedServerError(GearBridgeError):
    """The embedded ``gear serve`` process could not be found or did not start."""


class _FieldError(GearBridgeError, ValueError):
    def __init__(self, path: Sequence[PathPart], reason: str) -> None:
        self.path: tuple[PathPart, ...] = tuple(path)
        self.reason = reason
        super().__init__(f"{format_path(self.path)}: {reason}")


class ConfigError(_FieldError):
    """A setting is invalid; ``path`` names it (e.g. ``("GEAR_TIMEOUT",)`` or ``("timeout",)``)."""


class RowError(_FieldError):
    """A VERL row or judgment is malformed; ``path`` names the field (e.g. ``("extra_info", "gear", "format")``)."""
