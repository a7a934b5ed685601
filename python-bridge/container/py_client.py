"""Python side of the container tests (service-container.test.ts): a long-lived client process.

Usage: python py_client.py ws://127.0.0.1:PORT/

Reads one JSON request per stdin line, {"method": str, "params": object | null}, calls it on the
gear service and writes one JSON line per request to stdout: {"result": ...} or
{"error": {"code", "message", "data"}}, plus "connects" (WebSocket connections opened so far).

The transport is a raw `websockets` sync client speaking JSON-RPC 2.0. It reconnects: every gear
method is idempotent (PROTOCOL.md), so a call whose connection is gone or closes before the answer
is sent again on a new connection, until RETRY_FOR_S has passed.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

RETRY_FOR_S = 30.0
SHUTTING_DOWN = -32004


class Client:
    def __init__(self, url: str) -> None:
        self.url = url
        self.connects = 0
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)

    def call(self, method: str, params: Any) -> dict[str, Any]:
        deadline = time.monotonic() + RETRY_FOR_S
        while True:
            try:
                if self._ws is None:
                    self._ws = connect(self.url, open_timeout=5, max_size=None)
                    self.connects += 1
                request_id = next(self._ids)
                request: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
                if params is not None:
                    request["params"] = params
                self._ws.send(json.dumps(request))
                reply = json.loads(self._ws.recv(timeout=20))
                if reply.get("id") != request_id:
                    raise RuntimeError(f"reply for id {reply.get('id')!r}, expected {request_id}")
                error = reply.get("error")
                if error is not None and error.get("code") == SHUTTING_DOWN:
                    raise ConnectionError("server draining")
                return {"error": error} if error is not None else {"result": reply["result"]}
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as exc:
                self._drop()
                if time.monotonic() >= deadline:
                    raise RuntimeError(f"{method}: no answer from {self.url} within {RETRY_FOR_S} s: {exc!r}") from exc
                time.sleep(0.2)

    def close(self) -> None:
        self._drop()

    def _drop(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                ws.close()
            except Exception:  # noqa: BLE001 - the connection is already broken
                pass


def main() -> int:
    client = Client(sys.argv[1])
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            command = json.loads(line)
            try:
                out = client.call(command["method"], command.get("params"))
            except Exception as exc:  # noqa: BLE001 - reported to the test as data
                out = {"failure": repr(exc)}
            out["connects"] = client.connects
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
