"""One GRPO step (112 prompts x 8 responses) scored three ways, median of N steps each:

- verl-batch: gear_bridge.verl.compute_score_batched called as VERL's batch reward manager calls
  it (896 extra_infos with the rubric row and the judge scores), which reads every row, finds its
  registered rubric and sends the step to a running `gear serve` as one rubric.scoreColumns;
- columns: the same request built directly (one id per response, all scores in one float64-base64
  string) with the sync client, effective scores decoded back per response;
- score-batch: the client's rubric.scoreBatch with float64-base64 vectors, one object per response;
- python-per-call: gear_reference.gear_reward(reward_model, p) per response, reading the graph
  on each call, as a VERL reward function that receives the row with each response does;
- python-compiled: the same formula with each prompt's graph compiled once per step.

Usage: grpo_step.py --url ws://... --cases cases.json [--steps 25]. Prints one JSON object.
Every path's rewards are checked against the TypeScript in-process rewards in the cases file.
"""
from __future__ import annotations

import argparse
import base64
import json
import statistics
import sys
import time
from pathlib import Path
from array import array
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gear_reference import compile_rubric, gear_reward  # noqa: E402
from gear_bridge.sync.client import connect  # noqa: E402
from gear_bridge.verl.batch import compute_score_batched  # noqa: E402


if sys.byteorder != "little":
    raise SystemExit("float64-base64 here assumes a little-endian machine")


def b64(values: List[float]) -> str:
    return base64.b64encode(array("d", values).tobytes()).decode("ascii")


def unb64(text: str) -> List[float]:
    out = array("d")
    out.frombytes(base64.b64decode(text))
    return out.tolist()


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

        def score_batch() -> List[float]:
            items = [{"rubricId": ids[r["prompt"]], "scores": {"p": b64(r["p"])}} for r in responses]
            results = client.score_batch(items, aggregator="gear", encoding="float64-base64")
            effective = [unb64(item["effective"]) for item in results]
            assert len(effective) == len(responses)
            return [item["reward"] for item in results]

        def columns() -> List[float]:
            scores = array("d")
            for r in responses:
                scores.extend(r["p"])
            result = client.call(
                "rubric.scoreColumns",
                {"rubricIds": [ids[r["prompt"]] for r in responses], "p": base64.b64encode(scores.tobytes()).decode("ascii")},
            )
            flat_q = unb64(result["effective"])
            effective, offset = [], 0
            for size in result["sizes"]:
                effective.append(flat_q[offset : offset + size])
                offset += size
            return list(result["rewards"])

        score_batch()  # connection and server warm-up, not timed
        columns()
        score_batch_ms, score_batch_rewards = median_ms(score_batch, args.steps)
        columns_ms, columns_rewards = median_ms(columns, args.steps)

    extra_infos = [
        {"gear": {"format": "official-gear", "reward_model": models[r["prompt"]]}, "gear_judgments": {"p": r["p"]}}
        for r in responses
    ]

    def verl_batch() -> List[float]:
        scores = compute_score_batched(
            ["healthbench"] * len(responses), [""] * len(responses), [None] * len(responses), extra_infos, url=args.url, aggregator="gear"
        )
        return [s["score"] for s in scores]

    verl_batch()  # registers the step's rubrics once, as the first step of a run does
    bridge_ms, bridge_rewards = median_ms(verl_batch, args.steps)

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
                "columns_ms": columns_ms,
                "score_batch_ms": score_batch_ms,
                "python_per_call_ms": per_call_ms,
                "python_compiled_ms": compiled_ms,
                "bridge_bitwise_equal": bridge_rewards == expected and columns_rewards == expected and score_batch_rewards == expected,
                "python_max_abs_diff": max(max_diff(per_call_rewards), max_diff(compiled_rewards)),
            }
        )
    )


if __name__ == "__main__":
    main()
