"""Test inputs built from the bundled real rubrics (HealthBench oss_eval with annotated graphs, the
official GEAR goldens) and the CLI reference (`gear aggregate`, `gear score`) for expected values."""
from __future__ import annotations

import json
import random
from typing import Any, Callable, Dict, List, Tuple

from conftest import FIXTURES, read_jsonl, run_gear
from gear_bridge.convert import healthbench_row

AGGREGATORS = ("flat", "hard", "gear", "gear-exact")
CLI_KEY = {"flat": "flat", "hard": "hard", "gear": "gear", "gear-exact": "gear_exact"}


def healthbench_records() -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """The 30 oss_eval rows with their hand-annotated graphs."""
    graphs = {g["line"]: g for g in read_jsonl(FIXTURES / "healthbench" / "graphs.jsonl") if g["source_file"] == "oss_eval_first30.jsonl"}
    records = read_jsonl(FIXTURES / "healthbench" / "oss_eval_first30.jsonl")
    return [(record, graphs[line]) for line, record in enumerate(records, start=1)]


def rar_category(points: float) -> str:
    """A RaR category for HealthBench points: negative ones are pitfalls, the rest by size."""
    if points < 0:
        return "Pitfall"
    return "Essential" if points >= 7 else ("Important" if points >= 4 else "Optional")


def gear_spec(record: Dict[str, Any], graph: Dict[str, Any], form: str, index: int = 0) -> Dict[str, Any]:
    """extra_info["gear"] (as a dict) for a HealthBench record in one format; ``rar-explicit`` (no
    converter target: RaR rows come as released) as a RaR row of the same rubric and graph."""
    if form == "plawbench":  # an official GEAR row of positive points, even items split in two "(+N分)" subitems
        row = healthbench_row(record, index=index, graph=graph, format="gear", gear_as="dict")["extra_info"]["gear"]["row"]
        for k, item in enumerate(row["reward_model"]["rubrics"]):
            points = abs(item["points"]) or 1
            item["points"] = str(points) if k % 3 == 0 else points  # PLawBench's own rows give points as strings
            if k % 2 == 0:
                item["criterion"] = f"【得分】\n(+{points / 2:g}分) {item['criterion']} （+{points / 2:g}分）as stated"
        return {"format": form, "row": row}
    if form == "writingbench":  # an official GEAR row, judged on WritingBench's 1-10 scale
        return {"format": form, "row": healthbench_row(record, index=index, graph=graph, format="gear", gear_as="dict")["extra_info"]["gear"]["row"]}
    if form == "rar-explicit":
        official = healthbench_row(record, index=index, graph=graph, format="gear", gear_as="dict")["extra_info"]["gear"]["row"]
        rubric = [{"title": f"item {k + 1}", "description": f"{rar_category(r['points'])} Criteria: {r['criterion']}", "weight": r["points"]}
                  for k, r in enumerate(official["reward_model"]["rubrics"])]
        return {"format": form, "row": {"prompt": official["prompt"], "rubric": rubric, "graph": official["reward_model"]["graph"]}}
    row = healthbench_row(record, index=index, graph=graph, format=form, gear_as="dict")
    spec: Dict[str, Any] = row["extra_info"]["gear"]
    return spec


def random_scores(rng: random.Random, count: int) -> Dict[str, Any]:
    """Judge scores with exact 0/1, rounded and full-precision probabilities, and some decisions that contradict p."""
    p = [rng.choice([0.0, 1.0, round(rng.random(), 3), rng.random()]) for _ in range(count)]
    d = [(x >= 0.5) if rng.random() > 0.1 else (x < 0.5) for x in p]
    return {"p": p, "d": d}


def verdict_outputs(rng: random.Random, count: int, verdict: Callable[[bool, float], str]) -> List[str]:
    """One judge output per criterion: 5% unreadable, the rest ``verdict(met, roll)``, met half the time."""
    outputs = []
    for _ in range(count):
        roll = rng.random()
        outputs.append("I cannot decide" if roll < 0.05 else verdict(roll < 0.55, roll))
    return outputs


def grader_outputs(rng: random.Random, count: int) -> List[str]:
    """RuscaRL/MeRF grader outputs, one per criterion, some unreadable."""
    return verdict_outputs(rng, count, lambda met, _: json.dumps({"explanation": "judged", "criteria_met": met}))


def rar_outputs(rng: random.Random, count: int) -> List[str]:
    """RaR-Explicit verdicts, one per criterion, some fenced and some unreadable."""
    def written(met: bool, roll: float) -> str:
        verdict = json.dumps({"satisfied": met})
        return verdict if roll < 0.8 else f"```json\n{verdict}\n```"
    return verdict_outputs(rng, count, written)


def scored_outputs(rng: random.Random, count: int) -> List[str]:
    """WritingBench's scored outputs, one per request of up to 4 criteria, scores 1-10."""
    return [json.dumps({str(k + 1): {"reason": "judged", "score": rng.randint(1, 10)} for k in range(min(4, count - start))})
            for start in range(0, count, 4)]


def subitem_outputs(rng: random.Random, rubrics: List[Dict[str, Any]]) -> List[str]:
    """PLawBench's outputs, one per request of up to 4 criteria, a probability per subitem (two on
    the criteria gear_spec split, else one)."""
    outputs = []
    for start in range(0, len(rubrics), 4):
        chunk = rubrics[start:start + 4]
        outputs.append(json.dumps({str(k + 1): {"subitems": {str(j + 1): {"prob_met": rng.choice([0, 1, round(rng.random(), 2)])}
                                                              for j in range(2 if "分）" in item["criterion"] else 1)}}
                                   for k, item in enumerate(chunk)}))
    return outputs


def cli_aggregate(lines: List[Dict[str, Any]], *flags: str) -> List[Dict[str, Any]]:
    """`gear aggregate` (the in-process TypeScript core) on JSONL lines."""
    out = run_gear(["aggregate", *flags], "".join(json.dumps(line) + "\n" for line in lines))
    assert len(out) == len(lines)
    return out


def cli_score(host: str, aggregator: str, lines: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """`gear score` on {row, response, judge_outputs} lines."""
    out = run_gear(["score", "--host", host, "--aggregator", aggregator], "".join(json.dumps(line) + "\n" for line in lines))
    assert len(out) == len(lines)
    return out
