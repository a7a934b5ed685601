"""Parity: rewards through the bridge equal the in-process TypeScript results (the built CLI on the
same core) bit for bit, on the real HealthBench rubrics with annotated graphs and on the 292 official
GEAR golden cases."""
from __future__ import annotations

import asyncio
import json
import random
from collections import defaultdict
from typing import Any, Dict, List, Tuple

import pytest

from cases import AGGREGATORS, CLI_KEY, cli_aggregate, cli_score, gear_spec, grader_outputs, healthbench_records, random_scores
from conftest import FIXTURES
from gear_bridge import EmbeddedServer
from gear_bridge.asyncio import connect
from gear_bridge.verl.batch import compute_score_batched
from gear_bridge.verl.reward_fn import compute_score

RESPONSES = 3


def healthbench_calls() -> List[Dict[str, Any]]:
    rng = random.Random(41)
    calls = []
    for record, graph in healthbench_records():
        for form in ("canonical", "official-gear"):
            spec = gear_spec(record, graph, form)
            count = len(spec["rubric"]["criteria"]) if form == "canonical" else len(spec["reward_model"]["rubrics"])
            for _ in range(RESPONSES):
                calls.append({"gear": spec, "gear_judgments": random_scores(rng, count)})
    return calls


def cli_line(call: Dict[str, Any]) -> Dict[str, Any]:
    spec, scores = call["gear"], call["gear_judgments"]
    if spec["format"] == "canonical":
        return {"rubric": spec["rubric"], "scores": scores}
    return {"reward_model": spec["reward_model"], "p_list": scores["p"], "criteria_met_list": scores["d"]}


def test_healthbench_rewards_and_effective_scores_are_bitwise_equal(server: EmbeddedServer) -> None:
    """For 180 responses (30 real rubrics, canonical and official form) and flat/hard/gear/gear-exact/auto, rewards and per-criterion scores are == the CLI's."""
    calls = healthbench_calls()
    reference = cli_aggregate([cli_line(c) for c in calls])
    assert all("error" not in line for line in reference)

    async def main() -> Tuple[Dict[str, List[float]], Dict[str, List[List[float]]], List[Dict[str, Any]]]:
        rewards: Dict[str, List[float]] = {}
        effective: Dict[str, List[List[float]]] = {}
        for aggregator in AGGREGATORS:
            results = await asyncio.gather(*(
                compute_score("healthbench", "r", "", {"gear": json.dumps(c["gear"]), "gear_judgments": c["gear_judgments"]}, aggregator=aggregator, url=server.url)
                for c in calls
            ))
            rewards[aggregator] = [r["score"] for r in results]
        async with connect(server.url) as client:
            items = [{**{k: v for k, v in c["gear"].items() if k != "format"}, "scores": c["gear_judgments"]} for c in calls]
            for aggregator in AGGREGATORS:
                effective[aggregator] = [r["effective"] for r in await client.score_batch(items, aggregator=aggregator)]
            auto = await client.score_batch(items, aggregator="auto")
        return rewards, effective, auto

    rewards, effective, auto = asyncio.run(main())
    for aggregator in AGGREGATORS:
        key = CLI_KEY[aggregator]
        assert rewards[aggregator] == [line[key] for line in reference], aggregator
        assert effective[aggregator] == [[c[key] for c in line["criteria"]] for line in reference], aggregator
    for result, line in zip(auto, reference):
        assert result["method"] == line["auto_method"]
        assert result["reward"] == line[CLI_KEY[line["auto_method"]]]


def test_official_golden_cases_are_bitwise_equal() -> None:
    """The 292 official golden cases (4 settings of gamma and normalization, fault-injected graphs too) give == the CLI's rewards, and match the official values to 1e-12."""
    golden = json.loads((FIXTURES / "official-gear" / "golden.json").read_text(encoding="utf-8"))
    by_setting: Dict[Tuple[float, str], List[Dict[str, Any]]] = defaultdict(list)
    for case in golden["cases"]:
        by_setting[(case["gamma"], case["normalization_mode"])].append(case)
    assert sum(len(v) for v in by_setting.values()) == 292
    compared = 0
    for (gamma, mode), cases in by_setting.items():
        normalize = "abs-sum" if mode == "abs_sum" else "positive-sum"
        models = [golden["rubrics"][c["rubric"]]["reward_model"] for c in cases]
        reference = cli_aggregate(
            [{"reward_model": m, "p_list": c["p_list"], "criteria_met_list": c["criteria_met_list"]} for m, c in zip(models, cases)],
            "--gamma", str(gamma), "--normalize", normalize,
        )
        extra_infos = [
            {"gear": json.dumps({"format": "official-gear", "reward_model": m}), "gear_judgments": {"p": c["p_list"], "d": c["criteria_met_list"]}}
            for m, c in zip(models, cases)
        ]
        for aggregator in AGGREGATORS:
            got = compute_score_batched(
                ["official-gear"] * len(cases), ["r"] * len(cases), [""] * len(cases), extra_infos,
                aggregator=aggregator, options={"gamma": gamma, "normalize": normalize},
            )
            want = [line.get(CLI_KEY[aggregator]) for line in reference]
            assert [g["score"] for g in got] == want, (gamma, mode, aggregator)
            compared += len(got)
        for case, line in zip(cases, reference):
            assert abs(line["gear"] - case["expected"]["dag_reward_approx"]) <= 1e-12
            assert abs(line["flat"] - case["expected"]["flat_reward"]) <= 1e-12
    assert compared == 292 * len(AGGREGATORS)


@pytest.mark.parametrize("host", ["ruscarl", "merf"])
def test_host_rows_are_bitwise_equal(server: EmbeddedServer, host: str) -> None:
    """RuscaRL/MeRF rows with grader outputs give == `gear score`'s reward and native reward under each aggregator."""
    rng = random.Random(42)
    lines = []
    for record, graph in healthbench_records()[:15]:
        row = gear_spec(record, graph, host)["row"]
        for member in range(2):
            lines.append({"row": row, "response": f"answer {member}", "judge_outputs": grader_outputs(rng, len(row["reward_model"]["rubrics"]))})
    for aggregator in ("flat", "gear", "gear-exact"):
        reference = cli_score(host, aggregator, lines)
        got = compute_score_batched(
            ["hb"] * len(lines), [line["response"] for line in lines], [""] * len(lines),
            [{"gear": {"format": host, "row": line["row"]}, "gear_judgments": line["judge_outputs"]} for line in lines],
            aggregator=aggregator, url=server.url,
        )
        assert [g["score"] for g in got] == [r["reward"] for r in reference], aggregator
        assert [g["native_score"] for g in got] == [r["native_reward"] for r in reference], aggregator
