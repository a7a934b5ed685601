"""The rubric registration cache: one registration per rubric, and again after the server forgets it."""
from __future__ import annotations

import asyncio
import random
from typing import Any, Dict, List

from cases import gear_spec, healthbench_records, random_scores
from conftest import start_server
from gear_bridge import EmbeddedServer, JudgeScores, RubricRegistry, Scorer, ScoreRequest, parse_row
from gear_bridge.asyncio import connect


def requests_for(seed: int, prompts: int, per_prompt: int) -> List[ScoreRequest]:
    rng = random.Random(seed)
    out = []
    for record, graph in healthbench_records()[:prompts]:
        row = parse_row({"gear": gear_spec(record, graph, "official-gear")})
        for _ in range(per_prompt):
            scores = random_scores(rng, len(row.content["rubrics"]))
            out.append(ScoreRequest(row, "r", JudgeScores(tuple(scores["p"]), tuple(scores["d"]))))
    return out


def test_concurrent_first_uses_register_once(server: EmbeddedServer) -> None:
    """50 concurrent resolves of 5 rubrics send 5 rubric.register requests and agree on the ids."""
    rows = [r.row for r in requests_for(1, 5, 1)]

    async def main() -> None:
        async with connect(server.url) as client:
            registry = RubricRegistry(client)
            before = (await client.health())["byMethod"].get("rubric.register", 0)
            registrations = await asyncio.gather(*(registry.resolve(rows[i % 5]) for i in range(50)))
            after = (await client.health())["byMethod"]["rubric.register"]
            assert after - before == 5 and registry.registrations == 5 and len(registry) == 5
            assert len({r.rubric_id for r in registrations}) == 5
            for i, registration in enumerate(registrations):
                assert registration.rubric_id == registrations[i % 5].rubric_id

    asyncio.run(main())


def test_evicted_rubrics_are_registered_again() -> None:
    """With a server that keeps one rubric, scoring many rubrics still gives every result: -32001 leads to re-registration."""
    tiny = start_server("--max-rubrics", "1")
    requests = requests_for(2, 4, 3)
    try:

        async def main() -> None:
            async with connect(tiny.url) as client:
                scorer = Scorer(client)
                expected: List[float] = []
                for request in requests:
                    assert isinstance(request.judgment, JudgeScores)
                    answer = await client.score(request.judgment.to_wire(), reward_model=request.row.content)
                    expected.append(answer["reward"])
                got = await scorer.score(requests)  # one batch over four rubrics; the server holds one
                assert [s.reward for s in got] == expected
                assert scorer.registry.registrations > 4
                one_by_one = [(await scorer.score([r]))[0].reward for r in requests]
                assert one_by_one == expected

        asyncio.run(main())
    finally:
        tiny.stop()


def test_batches_are_split_at_the_server_limit() -> None:
    """A list longer than maxBatchItems goes out in several requests whose results come back in order."""
    small = start_server("--max-batch-items", "4")
    requests = requests_for(3, 3, 5)
    try:

        async def main() -> None:
            async with connect(small.url) as client:
                scorer = Scorer(client)
                before: Dict[str, Any] = (await client.health())["byMethod"]
                got = await scorer.score(requests, aggregator="gear")
                after: Dict[str, Any] = (await client.health())["byMethod"]
                assert after["rubric.scoreColumns"] - before.get("rubric.scoreColumns", 0) == 4  # 15 items, 4 per request
                singles = [(await scorer.score([r]))[0] for r in requests]
                assert got == singles

        asyncio.run(main())
    finally:
        small.stop()
