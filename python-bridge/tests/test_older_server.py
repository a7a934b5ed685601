"""The bridge against a server older than rubric.registerBatch, alsoAggregators and shared rows:
the same rewards and side metrics, asked for the older way (tests/older_server.py in front of a real
gear serve)."""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, List

from gear_bridge import EmbeddedServer
from gear_bridge.asyncio.client import AsyncClient
from gear_bridge.rows import parse_row
from gear_bridge.scoring import Score, Scorer, ScoreRequest
from gear_bridge.settings import load_settings
from gear_bridge.verl.reward_fn import compute_score
from gear_bridge.verl.row_judgments import row_judgments
from judge_endpoint import JudgeEndpoint
from judged_rows import host_rows
from older_server import OlderServer

sys.path.insert(0, str(Path(__file__).resolve().parent / "verl_glue"))
from samples import make_samples  # noqa: E402


def requests_of(seed: int) -> List[ScoreRequest]:
    settings = load_settings()
    out = []
    for sample in make_samples(seed=seed, prompts=8, group=4, formats=("canonical", "official-gear", "ruscarl", "gear")):
        row = parse_row(sample["extra_info"])
        judgment = row_judgments(sample["extra_info"], row, settings, ("extra_info",))
        assert judgment is not None
        out.append(ScoreRequest(row, sample["response"], judgment))
    return out


async def scores(url: str, requests: List[ScoreRequest]) -> tuple[List[Any], Scorer]:
    client = AsyncClient(url)
    await client.open()
    try:
        scorer = Scorer(client)
        return await scorer.score(requests, aggregator="gear", also=("flat", "hard", "gear-exact")), scorer
    finally:
        await client.close()


def test_an_older_server_gives_the_same_rewards_the_older_way(server: EmbeddedServer) -> None:
    requests = requests_of(seed=61)
    direct, modern = asyncio.run(scores(server.url, requests))
    with OlderServer(server.url, missing_methods=["rubric.registerBatch"], unknown_params=["alsoAggregators", "rows", "omit"]) as older:
        fallback, legacy = asyncio.run(scores(older.url, requests))
        refused = dict(older.refused)
    assert all(isinstance(s, Score) for s in direct)
    assert [(s.reward, s.native_reward, s.effective, s.unread_judgments, dict(s.also)) for s in fallback] == [
        (s.reward, s.native_reward, s.effective, s.unread_judgments, dict(s.also)) for s in direct
    ]
    assert all(set(s.also) == {"flat", "hard", "gear-exact"} and None not in s.also.values() for s in direct)
    assert modern.also_in_request and modern.registry.batch_registration
    assert not legacy.also_in_request and not legacy.registry.batch_registration
    assert refused.get("rubric.registerBatch") == 1  # asked once, then one by one
    assert refused.get("rubric.scoreColumns", 0) + refused.get("host.scoreBatch", 0) >= 1


def test_judged_metrics_from_a_server_without_also_aggregators(server: EmbeddedServer) -> None:
    """The judge from config against a server that rejects alsoAggregators: one judge.scoreBatch per
    metric aggregator (the judge's answers from its cache), the same rewards and metrics as a
    current server gives, and the endpoint asked once per criterion."""
    rows = host_rows(3)

    def run(url: str, judge_url: str) -> List[Any]:
        async def main() -> List[Any]:
            return list(await asyncio.gather(*(
                compute_score("healthbench", r["response"], "", {"gear": json.dumps(r["spec"])}, url=url, judge_url=judge_url) for r in rows
            )))
        return asyncio.run(main())

    with JudgeEndpoint() as endpoint:
        direct = run(server.url, endpoint.url)
        first = endpoint.requests
        with OlderServer(server.url, missing_methods=[], unknown_params=["alsoAggregators"]) as older:
            fallback = run(older.url, endpoint.url)
            refused = dict(older.refused)
        again = endpoint.requests - first
    keys = ("score", "native_score", "gear_reward", "flat_reward", "hard_reward", "judge_failed_criteria", "num_criteria")
    assert [[f[k] for k in keys] for f in fallback] == [[d[k] for k in keys] for d in direct]
    assert refused == {"judge.scoreBatch": 1}
    assert first == sum(d["num_criteria"] for d in direct) and again == 0  # the second pass: every answer from the judge's cache


def test_a_server_before_inline_rubrics_in_columns_registers_first(server: EmbeddedServer) -> None:
    """A server whose rubric.scoreColumns requires rubricIds (the release before `rubrics`): refused
    once as that release refuses it, then the step's rubrics go in one rubric.registerBatch and are
    scored by id, with the same rewards."""
    requests = [r for r in requests_of(seed=62) if not r.row.is_host]
    direct, modern = asyncio.run(scores(server.url, requests))
    with OlderServer(server.url, missing_methods=[], unknown_params=[], required_params={"rubric.scoreColumns": "rubricIds"}) as older:
        fallback, legacy = asyncio.run(scores(older.url, requests))
        again, _ = asyncio.run(scores(older.url, requests))
        refused = dict(older.refused)
        methods = [r["method"] for r in older.requests]
    assert [(s.reward, s.native_reward, s.effective, dict(s.also)) for s in fallback] == [(s.reward, s.native_reward, s.effective, dict(s.also)) for s in direct]
    assert again == fallback
    assert modern.columns_register and not legacy.columns_register
    assert refused == {"rubric.scoreColumns": 2}  # once per client (each a new Scorer)
    # Each client: refused, then the rubrics registered in one request and scored by id.
    assert methods == ["server.info", "rubric.scoreColumns", "rubric.registerBatch", "rubric.scoreColumns"] * 2
