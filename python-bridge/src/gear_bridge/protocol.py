"""Sans-I/O JSON-RPC 2.0 for gear's wire protocol (python-bridge/service/README.md): no sockets here.

``ClientProtocol`` builds request frames (allocating ids, refusing NaN/Infinity and frames over the
server's ``maxPayloadBytes`` locally), reads answer frames, matches them to pending requests and maps
JSON-RPC errors to exceptions. The asyncio client moves its frames over a WebSocket; anything else
(a test, another event loop) can drive it the same way.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import math
import sys
from array import array
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .exceptions import (
    InvalidParams,
    format_path,
    LimitExceeded,
    MethodNotFound,
    RpcError,
    ServerError,
    ServerShuttingDown,
    UnknownRubric,
)

__all__ = [
    "PROTOCOL_VERSION",
    "METHODS",
    "ClientProtocol",
    "Request",
    "Reply",
    "error_from_wire",
    "stable_json",
    "FLOAT64_BASE64",
    "encode_float64",
    "decode_float64",
]

logger = logging.getLogger("gear_bridge.protocol")

PROTOCOL_VERSION = 1

#: Every method of protocol version 1; all are pure functions of their params (idempotent).
METHODS = (
    "server.info",
    "server.health",
    "rubric.register",
    "rubric.registerBatch",
    "rubric.score",
    "rubric.scoreBatch",
    "rubric.scoreColumns",
    "host.requests",
    "host.score",
    "host.scoreBatch",
    "diagnostics.fcp",
    "judge.score",
    "judge.scoreBatch",
    "judge.info",
)

_ERRORS: dict[int, type[RpcError]] = {
    -32700: ServerError,
    -32600: ServerError,
    -32601: MethodNotFound,
    -32602: InvalidParams,
    -32603: ServerError,
    -32001: UnknownRubric,
    -32002: LimitExceeded,
    -32004: ServerShuttingDown,
}


def error_from_wire(error: Any, method: str | None = None) -> RpcError:
    """Maps a JSON-RPC ``error`` member to its exception class (unknown codes give ``RpcError``).

    Args:
        error: the ``error`` object of a response.
        method: the request's method, for the message.
    """
    if not isinstance(error, Mapping):
        return ServerError(-32603, f"malformed error member: {error!r}", None, method=method)
    code = error.get("code")
    message = error.get("message")
    if not isinstance(code, int) or isinstance(code, bool):
        return ServerError(-32603, f"malformed error code: {code!r}", error.get("data"), method=method)
    cls = _ERRORS.get(code, RpcError)
    return cls(code, str(message) if message is not None else "", error.get("data"), method=method)


#: The ``encoding`` value for score vectors sent as base64 of little-endian float64 bytes.
FLOAT64_BASE64 = "float64-base64"


def encode_float64(values: Iterable[float]) -> str:
    """A score vector in the ``float64-base64`` wire encoding (exact; far cheaper than decimal JSON)."""
    data = array("d", values)
    if sys.byteorder != "little":
        data.byteswap()
    return base64.b64encode(data.tobytes()).decode("ascii")


def decode_float64(text: str) -> tuple[float, ...]:
    """Reads a ``float64-base64`` vector.

    Raises:
        ValueError: the text is not base64 of whole float64 values.
    """
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error as error:
        raise ValueError(f"not base64: {error}") from None
    if len(raw) % 8:
        raise ValueError(f"{len(raw)} bytes is not a whole number of float64 values")
    data = array("d")
    data.frombytes(raw)
    if sys.byteorder != "little":
        data.byteswap()
    return tuple(data)


def stable_json(value: Any) -> str:
    """Canonical JSON text (sorted keys, no spaces, NaN refused): equal content gives equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _find_unencodable(value: Any, path: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    """The path of the first non-finite float, text UTF-8 cannot hold or non-JSON object in
    ``value``, with the reason."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, f"must be a finite number, got {value!r}")
    if isinstance(value, str):
        return None if _utf8_ok(value) else (path, f"is not valid text (a lone surrogate): {value!r:.80}")
    if value is None or isinstance(value, (int, bool)):
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return (path, f"keys must be strings, got {key!r}")
            if not _utf8_ok(key):
                return (path, f"key {key!r:.80} is not valid text (a lone surrogate)")
            found = _find_unencodable(item, (*path, key))
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _find_unencodable(item, (*path, index))
            if found is not None:
                return found
        return None
    return (path, f"is not JSON data ({type(value).__name__})")


def _utf8_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class Request:
    """One encoded request: resend ``frame`` as is after a reconnect (same id, same bytes).
    ``frame`` is the UTF-8 of a text frame's JSON, ``size`` its length."""

    id: int
    method: str
    frame: bytes
    size: int


@dataclass(frozen=True)
class Reply:
    """One answer matched to its request: ``error`` is None on success."""

    id: int
    method: str
    result: Any = None
    error: RpcError | None = None

    def unwrap(self) -> Any:
        """Returns the result, or raises the mapped error.

        Raises:
            RpcError: the subclass for the error code.
        """
        if self.error is not None:
            raise self.error
        return self.result


class ClientProtocol:
    """The client side of gear's JSON-RPC: request ids, frames, matching and error mapping.

    Args:
        max_payload_bytes: refuse frames larger than this locally (the server's
            ``limits.maxPayloadBytes`` from ``server.info``); None disables the check.
    """

    def __init__(self, *, max_payload_bytes: int | None = None) -> None:
        self.max_payload_bytes = max_payload_bytes
        self._next_id = 1
        self._pending: dict[int, str] = {}

    @property
    def pending(self) -> int:
        """How many requests await an answer."""
        return len(self._pending)

    def build_request(self, method: str, params: Mapping[str, Any] | None = None) -> Request:
        """Encodes a request and registers it as pending.

        Args:
            method: a ``noun.verb`` method name.
            params: named params, or None for none.

        Raises:
            InvalidParams: a param holds NaN/Infinity, a lone surrogate or something that is not JSON;
                names the field.
            LimitExceeded: the frame is larger than ``max_payload_bytes``.
        """
        request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            # "jsonrpc" and "id" come first (readable in logs); a frame over the server's limit never leaves here.
            frame = json.dumps(message, allow_nan=False, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        except (ValueError, TypeError) as error:
            found = _find_unencodable(params, ())
            path, reason = found if found is not None else ((), str(error))
            raise InvalidParams(
                -32602,
                f"Invalid params: {format_path(path)}: {reason}" if path else f"Invalid params: {reason}",
                {"code": "invalid_input", "path": list(path), "reason": reason},
                method=method,
            ) from None
        size = len(frame)
        if self.max_payload_bytes is not None and size > self.max_payload_bytes:
            raise LimitExceeded(
                -32002,
                f"request of {size} bytes is over the server's maxPayloadBytes ({self.max_payload_bytes}); split it",
                {"limit": "maxPayloadBytes", "max": self.max_payload_bytes, "actual": size},
                method=method,
            )
        self._next_id += 1
        self._pending[request_id] = method
        return Request(request_id, method, frame, size)

    def expect(self, request: Request) -> None:
        """Marks ``request`` pending again, to resend it (after a reconnect, or after -32004)."""
        self._pending[request.id] = request.method

    def forget(self, request_id: int) -> None:
        """Stops waiting for ``request_id`` (it timed out or was cancelled); a late answer is dropped."""
        self._pending.pop(request_id, None)

    def receive(self, frame: str | bytes) -> list[Reply]:
        """Reads one answer frame and returns the replies to pending requests in it.

        Answers to unknown or forgotten ids, and frames that are not JSON-RPC responses, are logged
        and dropped (an answer without an id, e.g. a parse error, cannot be matched).
        """
        try:
            message = json.loads(frame)
        except ValueError:
            logger.warning("dropped a frame that is not JSON (%d bytes)", len(frame))
            return []
        messages = message if isinstance(message, list) else [message]
        replies: list[Reply] = []
        for item in messages:
            reply = self._match(item)
            if reply is not None:
                replies.append(reply)
        return replies

    def _match(self, item: Any) -> Reply | None:
        if not isinstance(item, dict) or item.get("jsonrpc") != "2.0" or ("result" in item) == ("error" in item):
            logger.warning("dropped a message that is not a JSON-RPC 2.0 response: %.200r", item)
            return None
        request_id = item.get("id")
        if not isinstance(request_id, int) or isinstance(request_id, bool) or request_id not in self._pending:
            if "error" in item:
                logger.warning("unmatched JSON-RPC error (id %r): %.300r", request_id, item["error"])
            else:
                logger.debug("dropped an answer to unknown id %r", request_id)
            return None
        method = self._pending.pop(request_id)
        if "error" in item:
            return Reply(request_id, method, error=error_from_wire(item["error"], method))
        return Reply(request_id, method, result=item["result"])
