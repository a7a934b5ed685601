"""The official GEAR aggregator over a JSONL file, as `gear aggregate` is timed on it: read each line
{"id", "reward_model", "p_list", "criteria_met_list"}, run `aggregate_gear_reward` (from the gear.py
given on the command line; never bundled) with the paper's retention, write the rewards and the
per-criterion scores (p and the flat, hard and dag q lists) as one JSON line, as gear writes its four.
Usage: official_aggregate_file.py GEAR_PY IN OUT
"""
import importlib.util
import json
import sys

spec = importlib.util.spec_from_file_location("official_gear", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
spec.loader.exec_module(module)
lambdas = {"weak_prerequisite": 0.6, "strong_prerequisite": 0.2, "trigger": 0.0}

with open(sys.argv[2], encoding="utf-8") as source, open(sys.argv[3], "w", encoding="utf-8") as sink:
    for number, text in enumerate(source, start=1):
        if not text.strip():
            continue
        record = json.loads(text)
        result = module.aggregate_gear_reward(
            record["reward_model"], record["p_list"], record["criteria_met_list"], lambda_by_edge_type=lambdas
        )
        sink.write(
            json.dumps(
                {
                    "line": number,
                    "id": record.get("id"),
                    "flat_reward": result.flat_reward,
                    "hard_reward": result.hard_reward,
                    "dag_reward": result.dag_reward,
                    "rubric_ids": result.rubric_ids,
                    "p_list": result.p_list,
                    "flat_q_list": result.flat_q_list,
                    "hard_q_list": result.hard_q_list,
                    "dag_q_list": result.dag_q_list,
                }
            )
            + "\n"
        )
