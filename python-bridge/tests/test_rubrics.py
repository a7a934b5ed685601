"""The rubric registration cache: one registration per rubric, and again after the server forgets it."""
from __future__ import annotations

import asyncio
import itertools
import json
import random
import subprocess
from typing import Any, Dict, List

from cases import gear_spec, healthbench_records, random_scores
from conftest import start_server
from gear_bridge import EmbeddedServer, JudgeScores, RowError, RubricRegistry, Scorer, ScoreRequest, parse_row
from gear_bridge.asyncio import connect
from gear_bridge.rows import _ranks_in_javascript_order
from older_server import OlderServer


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


def test_registration_is_split_at_the_server_limit() -> None:
    """More new rubrics than maxBatchItems, in a batch that takes the register-then-score path
    (responses with and without decisions): a registration request per 2 rubrics, every result
    as scored alone (it used to fail the batch with -32002 at maxBatchItems)."""
    small = start_server("--max-batch-items", "2")
    rng = random.Random(13)
    requests = []
    for k, (record, graph) in enumerate(healthbench_records()[:5]):
        row = parse_row({"gear": gear_spec(record, graph, "official-gear")})
        scores = random_scores(rng, len(row.content["rubrics"]))
        requests.append(ScoreRequest(row, "r", JudgeScores(tuple(scores["p"]), tuple(scores["d"]) if k % 2 else None)))
    try:

        async def main() -> None:
            async with connect(small.url) as client:
                before: Dict[str, Any] = (await client.health())["byMethod"]
                got = await Scorer(client).score(requests)
                after: Dict[str, Any] = (await client.health())["byMethod"]
                # 5 rubrics, 2 per request: two rubric.registerBatch and the last one alone.
                assert after["rubric.registerBatch"] - before.get("rubric.registerBatch", 0) == 2
                assert after["rubric.register"] - before.get("rubric.register", 0) == 1
                alone = [(await Scorer(client).score([r]))[0] for r in requests]
                assert got == alone and len({s.reward for s in got}) == 5

        asyncio.run(main())
    finally:
        small.stop()


def test_new_rubrics_travel_inline_in_columns_once_then_by_id(server: EmbeddedServer) -> None:
    """A batch's new rubrics go inline in its rubric.scoreColumns (each distinct rubric once), which
    registers them; the next batch names them by id. Rewards equal registering first."""
    requests = requests_for(4, 5, 3)

    async def main() -> None:
        with OlderServer(server.url, missing_methods=[], unknown_params=[]) as recorder:  # refuses nothing: records
            async with connect(recorder.url) as client:
                scorer = Scorer(client)
                first = await scorer.score(requests)
                second = await scorer.score(requests)
            sent = [r for r in recorder.requests if r["method"] != "server.info"]
        async with connect(server.url) as client:
            registering = Scorer(client)
            registering.columns_register = False
            expected = await registering.score(requests)
        assert first == second == expected
        assert [r["method"] for r in sent] == ["rubric.scoreColumns", "rubric.scoreColumns"]
        inline, by_id = sent[0]["params"], sent[1]["params"]
        assert [set(entry) for entry in inline["rubrics"]] == [{"reward_model"}] * 5
        assert inline["rubricIndex"] == [k for k in range(5) for _ in range(3)] and "rubricIds" not in inline
        assert "rubrics" not in by_id and len(set(by_id["rubricIds"])) == 5 and len(by_id["rubricIds"]) == 15
        assert scorer.registry.registrations == 5 and len(scorer.registry) == 5

    asyncio.run(main())


def test_a_bad_new_rubric_fails_only_its_own_responses(server: EmbeddedServer) -> None:
    """A rubric the server rejects, among new ones of one batch: its responses get the error at the
    row's field (the batch is registered first to tell whose), the others their rewards."""
    requests = requests_for(5, 3, 2)
    bad_row = parse_row({"gear": {"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "A", "weight": 1}, {"id": "a", "text": "B", "weight": 1}]}}})
    batch = requests[:2] + [ScoreRequest(bad_row, "r", JudgeScores((0.5, 0.5)))] + requests[2:]

    async def main() -> None:
        async with connect(server.url) as client:
            got = await Scorer(client).score_each(batch)
            alone = [(await Scorer(client).score([r]))[0] for r in requests]
        error = got[2]
        assert isinstance(error, RowError) and error.path == ("extra_info", "gear", "rubric", "criteria", 1, "id"), error
        assert [g for k, g in enumerate(got) if k != 2] == alone

    asyncio.run(main())


def test_scoring_requests_carry_criterion_texts_as_their_ranks(server: EmbeddedServer) -> None:
    """Rubrics go to the server with each criterion's text replaced by its rank among the rubric's
    texts, inline in columns and in registrations alike, everything else as given; every
    aggregator's rewards (gear-exact's tie-breaks read the texts' order) equal those of the full
    rubrics sent inline; a text that is not a string is still refused at its own field."""
    rng = random.Random(6)
    requests = []
    for form in ("canonical", "official-gear"):
        for record, graph in healthbench_records():
            row = parse_row({"gear": gear_spec(record, graph, form)})
            scores = random_scores(rng, row.criteria_count)
            requests.append(ScoreRequest(row, "r", JudgeScores(tuple(scores["p"]), tuple(scores["d"]))))

    def texts(entry: Dict[str, Any]) -> List[Any]:
        if "rubric" in entry:
            return [c["text"] for c in entry["rubric"]["criteria"]]
        return [item["criterion"] for item in entry["reward_model"]["rubrics"]]

    def without_texts(entry: Dict[str, Any]) -> Any:
        field, items, text = ("rubric", "criteria", "text") if "rubric" in entry else ("reward_model", "rubrics", "criterion")
        return {**entry[field], items: [{k: v for k, v in item.items() if k != text} for item in entry[field][items]]}

    async def main() -> None:
        for aggregator in ("flat", "hard", "gear", "gear-exact", "auto"):
            with OlderServer(server.url, missing_methods=[], unknown_params=[]) as recorder:
                async with connect(recorder.url) as client:
                    in_columns = await Scorer(client).score(requests, aggregator=aggregator)
                    registering = Scorer(client)
                    registering.columns_register = False
                    registered_first = await registering.score(requests, aggregator=aggregator)
                sent = [r for r in recorder.requests if r["method"] in ("rubric.scoreColumns", "rubric.registerBatch")]
            async with connect(server.url) as client:
                full = [(await client.score(r.judgment.to_wire(), aggregator=aggregator, **r.row.rubric_ref()))["reward"]  # type: ignore[union-attr]
                        for r in requests]
            assert [s.reward for s in in_columns] == [s.reward for s in registered_first] == full, aggregator
        assert [r["method"] for r in sent] == ["rubric.scoreColumns", "rubric.registerBatch", "rubric.scoreColumns"]
        assert "rubrics" not in sent[2]["params"]  # by id
        entries = [*sent[0]["params"]["rubrics"], *sent[1]["params"]["items"]]
        rows = list({r.row.key: r.row for r in requests}.values())
        assert len(entries) == 2 * len(rows) and len(rows) > 50  # each distinct row once per request, in order
        for entry, row in zip(entries, rows + rows):
            assert without_texts(entry) == without_texts(row.rubric_ref())  # all else as given
            original, ranks = texts(row.rubric_ref()), texts(entry)
            assert all(rank.isdigit() and len(rank) == len(ranks[0]) for rank in ranks)
            for a, b in itertools.product(range(len(ranks)), repeat=2):
                assert (ranks[a] < ranks[b]) == (original[a] < original[b])  # ASCII texts: Python's order is JavaScript's

        bad = parse_row({"gear": {"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": 5, "weight": 1}]}}})
        async with connect(server.url) as client:
            [error] = await Scorer(client).score_each([ScoreRequest(bad, "r", JudgeScores((1.0,)))])
        assert isinstance(error, RowError) and error.path == ("extra_info", "gear", "rubric", "criteria", 0, "text"), error

    asyncio.run(main())


def test_text_ranks_order_texts_as_javascript_does() -> None:
    """Ranks compare as node compares the texts (UTF-16 code units: lone surrogates, astral
    characters, private-use ones, prefixes), and equal texts get equal ranks."""
    alphabet = ["", "a", "ab", "B", "\ud800", "\udfff", "\ue000", "\uffff", "\U0001f600", "\U00010000", "\u00e9", "e\u0301", " "]
    rng = random.Random(7)
    lists = [[rng.choice(alphabet) + rng.choice(alphabet) for _ in range(rng.randint(1, 12))] for _ in range(300)]
    script = ("const lists = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(lists.map((t) => t.map((x) => t.map((y) => (x < y ? -1 : x === y ? 0 : 1))))));")
    text = json.dumps(lists)  # lone surrogates as \\u escapes, which JSON.parse keeps as they are
    javascript = json.loads(subprocess.run(["node", "-e", script], input=text, capture_output=True, text=True, check=True).stdout)
    for texts, order in zip(lists, javascript):
        ranks = _ranks_in_javascript_order(texts)
        assert [[(x > y) - (x < y) for y in ranks] for x in ranks] == order, texts
