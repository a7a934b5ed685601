"""The asyncio client against real `gear serve` processes: multiplexing, errors, limits, timeouts, tokens."""
from __future__ import annotations

import asyncio
import json
import random
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.server import ServerConnection, serve

from cases import gear_spec, healthbench_records, random_scores
from conftest import start_server
from gear_bridge import (
    AsyncClient,
    BridgeConnectionError,
    BridgeTimeout,
    ConnectionLost,
    EmbeddedServer,
    InvalidParams,
    LimitExceeded,
    MethodNotFound,
    UnknownRubric,
)
from gear_bridge.asyncio import connect

RECORDS = healthbench_records()


def scoring_jobs(seed: int, count: int) -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """(reward_model, scores) pairs on the real rubrics."""
    rng = random.Random(seed)
    jobs = []
    for _ in range(count):
        record, graph = rng.choice(RECORDS)
        model = gear_spec(record, graph, "official-gear")["reward_model"]
        jobs.append((model, random_scores(rng, len(model["rubrics"]))))
    return jobs


def test_info_and_health(server: EmbeddedServer) -> None:
    """server.info gives protocol 1 and limits; the client keeps them and health reports ok."""

    async def main() -> None:
        async with connect(server.url) as client:
            info = await client.info()
            assert info["protocol"] == 1 and "gear" in info["aggregators"]
            assert client.server_info is not None and client.server_info["limits"] == info["limits"]
            assert client.protocol.max_payload_bytes == info["limits"]["maxPayloadBytes"]
            assert (await client.health())["status"] == "ok"

    asyncio.run(main())


def test_concurrent_calls_share_one_connection(server: EmbeddedServer) -> None:
    """200 concurrent calls on one client travel over one connection and each gets its own answer."""
    jobs = scoring_jobs(1, 200)

    async def main() -> None:
        async with connect(server.url) as client:
            sequential = [(await client.score(s, reward_model=m))["reward"] for m, s in jobs[:20]]
            concurrent = await asyncio.gather(*(client.score(s, reward_model=m) for m, s in jobs))
            assert [r["reward"] for r in concurrent[:20]] == sequential
            assert client.connections_opened == 1
            assert client.protocol.pending == 0

    asyncio.run(main())


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), width=st.integers(1, 64), clients=st.integers(1, 3))
def test_results_do_not_depend_on_concurrency(server: EmbeddedServer, seed: int, width: int, clients: int) -> None:
    """However many calls share a connection at once, and over however many connections, each result is the same."""
    jobs = scoring_jobs(seed, 24)

    async def main() -> List[float]:
        pool = [await connect(server.url) for _ in range(clients)]
        try:
            rewards: List[float] = []
            for start in range(0, len(jobs), width):
                chunk = jobs[start:start + width]
                answers = await asyncio.gather(*(pool[i % clients].score(s, reward_model=m) for i, (m, s) in enumerate(chunk)))
                rewards += [a["reward"] for a in answers]
            return rewards
        finally:
            for client in pool:
                await client.close()

    async def one_by_one() -> List[float]:
        async with connect(server.url) as client:
            return [(await client.score(s, reward_model=m))["reward"] for m, s in jobs]

    assert asyncio.run(main()) == asyncio.run(one_by_one())


def test_json_rpc_errors_are_mapped(server: EmbeddedServer) -> None:
    """Unknown methods, bad params and unknown rubric ids raise their exceptions with code and data."""

    async def main() -> None:
        async with connect(server.url) as client:
            with pytest.raises(MethodNotFound) as no_method:
                await client.call("rubric.nope", {})
            assert no_method.value.code == -32601 and no_method.value.data["method"] == "rubric.nope"
            with pytest.raises(InvalidParams) as bad:
                await client.score({"p": [0.5, 2.0]}, rubric={"criteria": [{"id": "a", "text": "", "weight": 1}, {"id": "b", "text": "", "weight": 1}]})
            assert bad.value.code == -32602 and bad.value.path == ("scores", "p", 1)
            with pytest.raises(UnknownRubric) as unknown:
                await client.score({"p": [0.5]}, rubric_id="sha256:" + "0" * 64)
            assert unknown.value.code == -32001 and unknown.value.rubric_ids == ("sha256:" + "0" * 64,)
            assert (await client.health())["status"] == "ok"  # the connection is still fine

    asyncio.run(main())


def test_limits_are_enforced_locally_and_by_the_server() -> None:
    """Over maxPayloadBytes the client refuses before sending; over maxBatchItems the server answers -32002."""
    small = start_server("--max-payload-bytes", "4096", "--max-batch-items", "2")
    try:

        async def main() -> None:
            async with connect(small.url) as client:
                before = (await client.health())["requests"]
                with pytest.raises(LimitExceeded) as local:
                    await client.score({"p": [0.5] * 2000}, rubric={"criteria": [{"id": "a", "text": "", "weight": 1}]})
                assert local.value.data["max"] == 4096
                assert (await client.health())["requests"] == before + 1  # only the health call reached it
                items = [{"rubric": {"criteria": [{"id": "a", "text": "", "weight": 1}]}, "scores": {"p": [0.5]}}] * 3
                with pytest.raises(LimitExceeded) as remote:
                    await client.score_batch(items)
                assert remote.value.data["limit"] == "maxBatchItems"
                assert (remote.value.data["max"], remote.value.data["actual"]) == (2, 3)

        asyncio.run(main())
    finally:
        small.stop()


def test_a_silent_server_times_out_and_the_client_stays_usable() -> None:
    """A request without an answer raises BridgeTimeout after its timeout; later calls still work."""

    async def silent(ws: ServerConnection) -> None:
        async for message in ws:
            request = json.loads(message)
            if request["method"] == "server.info":
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"protocol": 1, "limits": {"maxPayloadBytes": 1 << 20}}}))
            elif request["method"] == "server.health":
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"status": "ok"}}))

    async def main() -> None:
        async with serve(silent, "127.0.0.1", 0) as stand_in:
            port = stand_in.sockets[0].getsockname()[1]
            async with connect(f"ws://127.0.0.1:{port}/", timeout=0.2) as client:
                loop = asyncio.get_running_loop()
                started = loop.time()
                with pytest.raises(BridgeTimeout):
                    await client.call("rubric.score", {})
                assert 0.15 <= loop.time() - started < 2
                assert (await client.health())["status"] == "ok"
                assert client.protocol.pending == 0

    asyncio.run(main())


def test_unreachable_server_fails_within_connect_timeout() -> None:
    """Nothing listening: ConnectionLost once connect_timeout has passed, after retrying."""
    server = start_server()
    url = server.url
    server.stop()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(ConnectionLost, match="cannot connect"):
            await connect(url, connect_timeout=0.5)
        assert 0.4 <= loop.time() - started < 3

    asyncio.run(main())


def test_keepalive_pings_and_reconnects_leave_the_global_random_alone(server: EmbeddedServer) -> None:
    """A trainer may seed the process's `random` to repeat a run; the client, on background
    threads, must not move it: not by a keepalive ping (websockets draws the payload from `random`
    every 20 s), nor by the jitter of its reconnect attempts."""
    gone = start_server()
    closed_url = gone.url
    gone.stop()

    async def main() -> None:
        async with connect(server.url) as client:
            await client.health()
            link = client._link
            assert link is not None
            random.seed(7)
            state = random.getstate()
            pongs = [await link.ws.ping() for _ in range(3)]  # what websockets' keepalive sends
            latencies = [await pong for pong in pongs]
            assert all(latency >= 0 for latency in latencies) and random.getstate() == state
        random.seed(7)
        with pytest.raises(ConnectionLost):
            await connect(closed_url, connect_timeout=0.3)  # several attempts, each after a jittered wait
        assert random.getstate() == state

    asyncio.run(main())


def test_token_is_sent_and_required() -> None:
    """With --token the server accepts the client that sends it and refuses one that does not (HTTP 401)."""
    token = "s3cret-token-0123456789"
    guarded = start_server(token=token)
    try:

        async def main() -> None:
            async with connect(guarded.url, token=token) as client:
                assert (await client.health())["status"] == "ok"
            with pytest.raises(BridgeConnectionError, match="401"):
                await connect(guarded.url, connect_timeout=2)
            with pytest.raises(BridgeConnectionError, match="401"):
                await connect(guarded.url, token="wrong-token-0123456789", connect_timeout=2)

        asyncio.run(main())
    finally:
        guarded.stop()


def test_closed_client_refuses_calls(server: EmbeddedServer) -> None:
    """After close(), calls raise ConnectionLost instead of reconnecting."""

    async def main() -> None:
        client = AsyncClient(server.url)
        await client.open()
        await client.close()
        with pytest.raises(ConnectionLost):
            await client.health()

    asyncio.run(main())
