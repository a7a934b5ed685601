"""Python side of the container tests (service-container.test.ts): a long-lived client process.

Usage: python py_client.py ws://127.0.0.1:PORT/

Reads one JSON-RPC-shaped command per stdin line, {"method": str, "params": object | null}, runs
it through gear_bridge's blocking client (``gear_bridge.sync.connect``: the package VERL uses) and
writes one JSON line per command to stdout: {"result": ...} or {"error": {"code", "type",
"message"}}, plus "connects" (the client's connections_opened). The client is opened once, so a
service restart between two commands exercises its reconnect-and-resend.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from gear_bridge.exceptions import RpcError
from gear_bridge.sync import Client, connect


def run(client: Client, method: str, params: dict[str, Any]) -> Any:
    """The typed client method for `method` (the generic call for the others)."""
    if method == "server.info":
        return client.info()
    if method == "rubric.register":
        return client.register_rubric(rubric=params.get("rubric"), reward_model=params.get("reward_model"))
    if method == "rubric.score":
        return client.score(
            params["scores"],
            rubric_id=params.get("rubricId"),
            rubric=params.get("rubric"),
            reward_model=params.get("reward_model"),
            aggregator=params.get("aggregator"),
            options=params.get("options"),
        )
    return client.call(method, params or None)


def main() -> int:
    with connect(sys.argv[1], reconnect_deadline=30.0, timeout=20.0) as client:
        for line in sys.stdin:
            if not line.strip():
                continue
            command = json.loads(line)
            out: dict[str, Any]
            try:
                out = {"result": run(client, command["method"], command.get("params") or {})}
            except RpcError as error:
                out = {"error": {"code": error.code, "type": type(error).__name__, "message": str(error)}}
            except Exception as error:  # noqa: BLE001 - reported to the test as data
                out = {"failure": repr(error)}
            out["connects"] = client.connections_opened
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
