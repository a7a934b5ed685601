"""The blocking client: the same calls and results as the asyncio client, safe across threads."""
from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from cases import gear_spec, healthbench_records, random_scores
from conftest import GEAR_CLI
from gear_bridge import EmbeddedServer, InvalidParams
from gear_bridge.sync import connect


def test_sync_calls_match_the_protocol(server: EmbeddedServer) -> None:
    """register, score, scoreBatch and host.requests answer as the service documents, blocking."""
    record, graph = healthbench_records()[0]
    model = gear_spec(record, graph, "official-gear")["reward_model"]
    scores = random_scores(random.Random(3), len(model["rubrics"]))
    with connect(server.url) as client:
        registered = client.register_rubric(reward_model=model)
        assert registered["rubricId"].startswith("sha256:") and registered["size"] == len(model["rubrics"])
        one = client.score(scores, rubric_id=registered["rubricId"])
        inline = client.score(scores, reward_model=model)
        [batched] = client.score_batch([{"rubricId": registered["rubricId"], "scores": scores}])
        assert one["reward"] == inline["reward"] == batched["reward"]
        assert one["effective"] == batched["effective"] and len(one["effective"]) == len(model["rubrics"])
        row = gear_spec(record, graph, "ruscarl")["row"]
        requests = client.host_requests("ruscarl", row, "a response")
        assert len(requests) == len(model["rubrics"])  # RuscaRL judges one criterion per request
        with pytest.raises(InvalidParams):
            client.score({"p": [0.5]}, reward_model=model)


def test_many_threads_share_one_client(server: EmbeddedServer) -> None:
    """16 threads calling one client concurrently all get their own correct answers over one connection."""
    rubric = {"criteria": [{"id": "a", "text": "", "weight": 1}, {"id": "b", "text": "", "weight": 3}], "edges": [{"parent": "a", "child": "b", "relation": "weak"}]}
    with connect(server.url) as client:
        expected = {i: client.score({"p": [i / 100, 1 - i / 100]}, rubric=rubric)["reward"] for i in range(101)}
        with ThreadPoolExecutor(16) as pool:
            got = dict(pool.map(lambda i: (i, client.score({"p": [i / 100, 1 - i / 100]}, rubric=rubric)["reward"]), list(range(101)) * 3))
        assert got == expected
        assert client.connections_opened == 1


def test_close_stops_the_private_thread(server: EmbeddedServer) -> None:
    """Leaving the with block closes the connection and ends the client's loop thread."""
    before = {t.name for t in threading.enumerate()}
    with connect(server.url) as client:
        client.health()
        assert any(t.name == "gear-bridge-client" for t in threading.enumerate())
    after = [t for t in threading.enumerate() if t.name == "gear-bridge-client" and t.name not in before]
    assert after == []


def test_embedded_server_when_no_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """connect() without an address starts (or reuses) this process's embedded server."""
    monkeypatch.setenv("GEAR_SERVER_COMMAND", f"node {GEAR_CLI}")
    with connect() as first, connect() as second:
        assert first.url == second.url and first.url.startswith("ws://127.0.0.1:")
        assert first.health()["status"] == "ok"
