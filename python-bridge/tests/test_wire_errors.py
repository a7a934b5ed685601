"""Malformed requests over a raw WebSocket each get the error code of the service's table (python-bridge/service/README.md), while the server keeps
serving another connection (and, except for a frame far over the limit, the same one)."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, Optional, Union

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from conftest import start_server

LIMIT = 65536
UNKNOWN_ID = "sha256:" + "0" * 64
ONE = {"criteria": [{"id": "a", "text": "", "weight": 1}]}

# (frame, expected id, expected code, expected data subset)
CASES: List[tuple] = [
    ("this is not json", None, -32700, None),
    ('{"jsonrpc":"2.0","id":1,"method":"rubric.score","params":{"rubric":' + json.dumps(ONE) + ',"scores":{"p":[NaN]}}}', None, -32700, None),
    ('{"jsonrpc":"2.0","id":1,"method":"rubric.score","params":{"scores":{"p":[Infinity]}}}', None, -32700, None),
    ("[]", None, -32600, None),
    ("42", None, -32600, None),
    ('{"jsonrpc":"1.0","id":2,"method":"server.info"}', 2, -32600, None),
    ('{"jsonrpc":"2.0","id":3,"method":42}', 3, -32600, None),
    ('{"jsonrpc":"2.0","id":{"x":1},"method":"server.info"}', None, -32600, None),
    ('{"jsonrpc":"2.0","id":4,"method":"no.such"}', 4, -32601, {"method": "no.such"}),
    ('{"jsonrpc":"2.0","id":"s5","method":"rubric.score","params":{"rubric":5,"scores":{"p":[0.5]}}}', "s5", -32602, {"code": "invalid_input"}),
    ('{"jsonrpc":"2.0","id":6,"method":"rubric.score","params":[1,2]}', 6, -32602, {"path": ["params"]}),
    ('{"jsonrpc":"2.0","id":7,"method":"rubric.scoreBatch","params":{"items":"x"}}', 7, -32602, {"path": ["items"]}),
    ('{"jsonrpc":"2.0","id":8,"method":"rubric.score","params":{"rubric":' + json.dumps(ONE) + ',"scores":{"p":[1.5]}}}', 8, -32602, {"path": ["scores", "p", 0]}),
    ('{"jsonrpc":"2.0","id":9,"method":"rubric.score","params":{"rubric":' + json.dumps(ONE) + ',"scores":{"p":["0.5"]}}}', 9, -32602, {"path": ["scores", "p", 0]}),
    ('{"jsonrpc":"2.0","id":10,"method":"host.score","params":{"host":"nope","row":{},"response":"","judgeOutputs":[]}}', 10, -32602, {"path": ["host"]}),
    ('{"jsonrpc":"2.0","id":11,"method":"rubric.score","params":{"rubricId":"' + UNKNOWN_ID + '","scores":{"p":[0.5]}}}', 11, -32001, None),
    ('{"jsonrpc":"2.0","id":12,"method":"rubric.register","params":{"rubric":' + json.dumps(ONE) + ',"reward_model":{}}}', 12, -32602, None),
    ('{"jsonrpc":"2.0","id":13,"method":"rubric.score","params":{"rubric":' + json.dumps(ONE) + ',"scores":{"p":[0.5]},"aggregator":"mean"}}', 13, -32602, {"path": ["aggregator"]}),
]


async def roundtrip(ws: ClientConnection, frame: Union[str, bytes]) -> Any:
    await ws.send(frame)
    return json.loads(await asyncio.wait_for(ws.recv(), 10))


def check(reply: Dict[str, Any], expected_id: Any, code: int, data: Optional[Dict[str, Any]]) -> None:
    assert reply["jsonrpc"] == "2.0" and reply["id"] == expected_id, reply
    assert reply["error"]["code"] == code, reply
    assert isinstance(reply["error"]["message"], str) and reply["error"]["message"]
    if data is not None:
        for key, value in data.items():
            assert reply["error"]["data"][key] == value, reply


@pytest.fixture(scope="module")
def small_server():  # type: ignore[no-untyped-def]
    """A server of this module's own with a 64 KiB payload limit."""
    running = start_server("--max-payload-bytes", str(LIMIT))
    yield running
    running.stop()


def test_each_malformed_request_gets_its_error_code(small_server) -> None:  # type: ignore[no-untyped-def]
    """Bad JSON, NaN literals, non-requests, unknown methods, wrong param types and unknown ids get -32700/-32600/-32601/-32602/-32001."""

    async def main() -> None:
        async with connect(small_server.url) as bad, connect(small_server.url) as good:
            for frame, expected_id, code, data in CASES:
                check(await roundtrip(bad, frame), expected_id, code, data)
                health = await roundtrip(good, '{"jsonrpc":"2.0","id":1,"method":"server.health"}')
                assert health["result"]["status"] == "ok"
            # The malformed connection still serves well-formed requests.
            info = await roundtrip(bad, '{"jsonrpc":"2.0","id":99,"method":"server.info"}')
            assert info["result"]["protocol"] == 1

    asyncio.run(main())


def test_oversized_payload_is_refused_at_its_header(small_server) -> None:  # type: ignore[no-untyped-def]
    """A frame over maxPayloadBytes closes its socket with 1009 as soon as its header announces the size (nothing of it is read)."""

    async def main() -> None:
        async with connect(small_server.url) as good:
            async with connect(small_server.url, max_size=None) as ws:
                p = [0.5] * (LIMIT // 4)
                frame = json.dumps({"jsonrpc": "2.0", "id": 77, "method": "rubric.score", "params": {"rubric": ONE, "scores": {"p": p}}}, separators=(",", ":"))
                assert len(frame) > LIMIT
                await ws.send(frame)
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            assert (await roundtrip(good, '{"jsonrpc":"2.0","id":78,"method":"server.health"}'))["id"] == 78

    asyncio.run(main())


def test_a_frame_far_over_the_limit_closes_only_its_connection(small_server) -> None:  # type: ignore[no-untyped-def]
    """A frame many times the payload limit closes that socket (1009); other connections keep being served."""

    async def main() -> None:
        async with connect(small_server.url) as good:
            async with connect(small_server.url, max_size=None) as bad:
                await bad.send('{"jsonrpc":"2.0","id":1,"method":"server.info","params":{"pad":"' + "x" * (LIMIT * 8) + '"}}')
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(bad.recv(), 10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            health = await roundtrip(good, '{"jsonrpc":"2.0","id":1,"method":"server.health"}')
            assert health["result"]["status"] == "ok"

    asyncio.run(main())


def test_batches_and_notifications(small_server) -> None:  # type: ignore[no-untyped-def]
    """A JSON-RPC batch gets one answer per request (notifications none); over maxJsonRpcBatch gets -32002."""

    async def main() -> None:
        async with connect(small_server.url) as ws:
            reply = await roundtrip(ws, json.dumps([
                {"jsonrpc": "2.0", "id": 1, "method": "server.health"},
                {"jsonrpc": "2.0", "method": "server.health"},
                {"jsonrpc": "2.0", "id": 2, "method": "no.such"},
                5,
            ]))
            assert isinstance(reply, list)
            by_id = {r["id"]: r for r in reply}
            assert by_id[1]["result"]["status"] == "ok"
            assert by_id[2]["error"]["code"] == -32601
            assert by_id[None]["error"]["code"] == -32600
            assert len(reply) == 3
            info = await roundtrip(ws, json.dumps({"jsonrpc": "2.0", "id": 3, "method": "server.info"}))
            limit = info["result"]["limits"]["maxJsonRpcBatch"]
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "server.health"}))  # a notification: no answer
            too_many = [{"jsonrpc": "2.0", "id": i, "method": "server.health"} for i in range(limit + 1)]
            check(await roundtrip(ws, json.dumps(too_many)), None, -32002, {"limit": "maxJsonRpcBatch", "max": limit, "actual": limit + 1})

    asyncio.run(main())
