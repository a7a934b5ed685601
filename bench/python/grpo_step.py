"""One GRPO step (112 prompts x 8 responses) scored three ways, median of N steps each:

- bridge: gear_bridge's sync client sends the step as one rubric.scoreBatch (rubrics registered
  beforehand, as a training run does once per prompt) to a running `gear serve` and reads back
  every reward and per-criterion effective score;
- python-per-call: gear_reference.gear_reward(reward_model, p) per response, reading the graph
  on each call, as a VERL reward function that receives the row with each response does;
- python-compiled: the same formula with each prompt's graph compiled once per step.

Usage: grpo_step.py --url ws://... --cases cases.json [--steps 25]. Prints one JSON object.
Every path's rewards are checked against the TypeScript in-process rewards in the cases file.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gear_reference import compile_rubric, gear_reward  # noqa: E402
from gear_bridge.sync.client import connect  # noqa: E402


def median_ms(run: Callable[[], List[float]], steps: int) -> tuple[float, List[float]]:
    samples = []
    rewards: List[float] = []
    for _ in range(steps):
        start = time.perf_counter()
        rewards = run()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), rewards


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--steps", type=int, default=25)
    args = parser.parse_args()
    cases: Dict[str, Any] = json.loads(Path(args.cases).read_text(encoding="utf-8"))
    models: List[Dict[str, Any]] = cases["reward_models"]
    responses: List[Dict[str, Any]] = cases["responses"]
    expected: List[float] = cases["expected_rewards"]

    with connect(args.url) as client:
        ids = [client.call("rubric.register", {"reward_model": m})["rubricId"] for m in models]

        def bridge() -> List[float]:
            items = [{"rubricId": ids[r["prompt"]], "scores": {"p": r["p"]}} for r in responses]
            result = client.call("rubric.scoreBatch", {"items": items, "aggregator": "gear"})
            return [item["reward"] for item in result["results"]]

        bridge()  # connection and server warm-up, not timed
        bridge_ms, bridge_rewards = median_ms(bridge, args.steps)

    def per_call() -> List[float]:
        return [gear_reward(models[r["prompt"]], r["p"]) for r in responses]

    def compiled() -> List[float]:
        graphs = [compile_rubric(m) for m in models]
        return [graphs[r["prompt"]].reward(r["p"]) for r in responses]

    per_call_ms, per_call_rewards = median_ms(per_call, args.steps)
    compiled_ms, compiled_rewards = median_ms(compiled, args.steps)

    def max_diff(rewards: List[float]) -> float:
        return max(abs(a - b) for a, b in zip(rewards, expected))

    print(
        json.dumps(
            {
                "responses": len(responses),
                "prompts": len(models),
                "steps": args.steps,
                "bridge_ms": bridge_ms,
                "python_per_call_ms": per_call_ms,
                "python_compiled_ms": compiled_ms,
                "bridge_bitwise_equal": bridge_rewards == expected,
                "python_max_abs_diff": max(max_diff(per_call_rewards), max_diff(compiled_rewards)),
            }
        )
    )


if __name__ == "__main__":
    main()
