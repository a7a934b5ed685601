"""A server killed mid-run (SIGKILL) and restarted on the same port: every call still completes with
the correct result, through reconnect and resend."""
from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from typing import Any, Dict, List

import pytest

from cases import cli_aggregate, gear_spec, healthbench_records, random_scores
from conftest import start_server
from gear_bridge import load_settings
from gear_bridge.verl.reward_fn import compute_score
from gear_bridge.verl.shared import shared_scorer

ROUNDS = 30
CALLS_PER_ROUND = 16


def workload(seed: int) -> List[Dict[str, Any]]:
    rng = random.Random(seed)
    records = healthbench_records()
    calls = []
    for _ in range(ROUNDS * CALLS_PER_ROUND):
        record, graph = rng.choice(records)
        spec = gear_spec(record, graph, rng.choice(["official-gear", "canonical"]))
        count = len(spec["reward_model"]["rubrics"]) if "reward_model" in spec else len(spec["rubric"]["criteria"])
        calls.append({"gear": json.dumps(spec), "gear_judgments": random_scores(rng, count)})
    return calls


def expected_rewards(calls: List[Dict[str, Any]]) -> List[float]:
    lines = []
    for call in calls:
        spec = json.loads(call["gear"])
        if spec["format"] == "canonical":
            lines.append({"rubric": spec["rubric"], "scores": call["gear_judgments"]})
        else:
            lines.append({"reward_model": spec["reward_model"], "p_list": call["gear_judgments"]["p"], "criteria_met_list": call["gear_judgments"]["d"]})
    return [line["gear"] for line in cli_aggregate(lines)]


@pytest.mark.parametrize("how", ["sigkill", "sigterm"])
def test_calls_survive_a_server_restart(how: str) -> None:
    """Killed (or stopped gracefully) and restarted on the same port mid-run, the server still answers every call correctly."""
    calls = workload(7 if how == "sigkill" else 8)
    expected = expected_rewards(calls)
    server = start_server()
    port = server.port
    half_done = threading.Event()
    restarted = threading.Event()

    def crash_and_restart() -> None:
        half_done.wait(60)
        if how == "sigkill":
            server.kill()
        else:
            server.stop()
        time.sleep(0.3)  # calls in flight now fail and keep reconnecting
        server.port = port
        server.start()
        restarted.set()

    killer = threading.Thread(target=crash_and_restart)
    killer.start()

    stats: Dict[str, int] = {}

    async def run() -> List[float]:
        rewards: List[float] = []
        for round_index in range(ROUNDS):
            if round_index == ROUNDS // 2:
                half_done.set()
            batch = calls[round_index * CALLS_PER_ROUND:(round_index + 1) * CALLS_PER_ROUND]
            results = await asyncio.gather(*(compute_score("healthbench", "r", "", dict(c), url=server.url, reconnect_deadline=30) for c in batch))
            rewards += [r["score"] for r in results]
            await asyncio.sleep(0.02)
        scorer = await shared_scorer(load_settings(url=server.url, reconnect_deadline=30))
        stats["connections"] = scorer.client.connections_opened
        return rewards

    try:
        rewards = asyncio.run(run())
        killer.join(60)
        assert restarted.is_set()
        assert server.url == f"ws://127.0.0.1:{port}/"
        assert len(rewards) == len(expected)
        assert rewards == expected
        assert stats["connections"] >= 2  # it reconnected
    finally:
        server.stop()
