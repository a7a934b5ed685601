"""GRPO-shaped samples on the real HealthBench rubrics, with the CLI's rewards as the expected values."""
from __future__ import annotations

import json
import random
from typing import Any, Dict, List, Sequence, Tuple

from cases import cli_aggregate, cli_score, gear_spec, grader_outputs, healthbench_records, random_scores, rar_outputs, scored_outputs, subitem_outputs

FORMATS = ("canonical", "official-gear", "ruscarl", "gear")


def official_outputs(rng: random.Random, count: int) -> List[str]:
    """The official GEAR batch judge's one output: {"k": {"criteria_met", "prob_met"}} for every criterion."""
    out = {}
    for k in range(count):
        p = rng.choice([0.0, 1.0, round(rng.random(), 3)])
        out[str(k + 1)] = {"criteria_met": p >= 0.5, "prob_met": p}
    return [json.dumps(out)]


def criteria_count(spec: Dict[str, Any]) -> int:
    if spec["format"] == "canonical":
        return len(spec["rubric"]["criteria"])
    if spec["format"] == "official-gear":
        return len(spec["reward_model"]["rubrics"])
    if spec["format"] == "rar-explicit":
        return len(spec["row"]["rubric"])
    return len(spec["row"]["reward_model"]["rubrics"])


def make_samples(seed: int, prompts: int, group: int, formats: Sequence[str] = FORMATS, gear_as_json: bool = True) -> List[Dict[str, Any]]:
    """prompts x group samples (group members adjacent, as verl's interleaved repeat leaves them)."""
    rng = random.Random(seed)
    records = healthbench_records()
    samples = []
    for prompt_index in range(prompts):
        record, graph = records[(seed + prompt_index) % len(records)]
        form = formats[prompt_index % len(formats)]
        spec = gear_spec(record, graph, form)
        count = criteria_count(spec)
        for member in range(group):
            response = f"response {member} to prompt {prompt_index}: " + "".join(rng.choice("abcdefgh ") for _ in range(rng.randint(5, 40)))
            if form in ("canonical", "official-gear"):
                judgments: Any = random_scores(rng, count)
            elif form == "gear":
                judgments = official_outputs(rng, count)
            elif form == "rar-explicit":
                judgments = rar_outputs(rng, count)
            elif form == "writingbench":
                judgments = scored_outputs(rng, count)
            elif form == "plawbench":
                judgments = subitem_outputs(rng, spec["row"]["reward_model"]["rubrics"])
            else:
                judgments = grader_outputs(rng, count)
            samples.append({
                "uid": f"uid-{seed}-{prompt_index}",
                "prompt": record["prompt"][-1]["content"][:60],
                "response": response,
                "form": form,
                "extra_info": {"index": prompt_index, "gear": json.dumps(spec) if gear_as_json else spec, "gear_judgments": judgments},
            })
    return samples


def expected_rewards(samples: Sequence[Dict[str, Any]], aggregator: str = "gear") -> List[float]:
    """The CLI's rewards for each sample (gear aggregate for judge scores, gear score for host rows)."""
    out: List[Tuple[int, float]] = []
    rubric_lines, rubric_at = [], []
    host_lines: Dict[str, List[Dict[str, Any]]] = {}
    host_at: Dict[str, List[int]] = {}
    key = {"flat": "flat", "hard": "hard", "gear": "gear", "gear-exact": "gear_exact", "auto": "auto"}[aggregator]
    for index, sample in enumerate(samples):
        gear = sample["extra_info"]["gear"]
        spec = json.loads(gear) if isinstance(gear, str) else gear
        judgments = sample["extra_info"]["gear_judgments"]
        if spec["format"] == "canonical":
            rubric_lines.append({"rubric": spec["rubric"], "scores": judgments})
            rubric_at.append(index)
        elif spec["format"] == "official-gear":
            rubric_lines.append({"reward_model": spec["reward_model"], "p_list": judgments["p"], "criteria_met_list": judgments["d"]})
            rubric_at.append(index)
        else:
            host_lines.setdefault(spec["format"], []).append({"row": spec["row"], "response": sample["response"], "judge_outputs": judgments})
            host_at.setdefault(spec["format"], []).append(index)
    if rubric_lines:
        # `gear aggregate` prints every aggregator's reward, and which one auto took (auto_method).
        out += [(i, line[key] if key != "auto" else line["gear_exact" if line["auto_method"] == "gear-exact" else "gear"])
                for i, line in zip(rubric_at, cli_aggregate(rubric_lines))]
    for host, lines in host_lines.items():
        out += [(i, line["reward"]) for i, line in zip(host_at[host], cli_score(host, aggregator, lines))]
    return [reward for _, reward in sorted(out)]
