"""The LLM judge's path inside real verl: gear judging from config against a flat function that calls the same judge.

Run with the verl venv (scripts/verl-venv) from the repository root, after ``npm run build``:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_judge_step.py \\
        [STEPS [LATENCY_MS [SLOTS [IN_FLIGHT]]]] [--with-default]

The other verl benches score judgments that came with the rows. Here the rows (RuscaRL rows of the
30 HealthBench oss_eval rubrics, 112 prompts x 8 rollouts, no judgments) are judged during the
step, one request per criterion as RuscaRL judges them (~10,500 requests a step). The judge is a
fake OpenAI-compatible endpoint in its own process (``dist/bench/fake-judge-endpoints.js``): it
answers every request after LATENCY_MS (default 200) in one of SLOTS (default 64) slots, later
requests waiting in line, as a vLLM server with ``--max-num-seqs`` does. Its verdict is always
"met", so the flat function's reward and gear's ``flat_reward`` must agree, and are checked.

Configurations, each driven by verl 0.9's own ``RewardLoopWorker`` (the step in the 8 chunks of 112
verl's 8 reward workers get, one after the other):

- **flat Python** (the baseline): what a user writes without gear, as verl's docs show a GenRM
  reward function: an async ``compute_score`` that sends RuscaRL's grader prompt for each
  criterion with ``aiohttp`` (one session per loop), at most IN_FLIGHT requests at once, reads
  ``criteria_met`` and sums the points;
- **gear's reward function** with ``judge_url`` and ``judge_max_concurrent=IN_FLIGHT`` (this
  machine's shared server is started with the judge, as the README's reward-function lines do);
- **GearRewardManager**, the same;
- with ``--with-default``: gear's reward function with ``judge_max_concurrent`` left out (32 per
  endpoint).

IN_FLIGHT defaults to SLOTS. Every step's rows are new to every configuration (no judge cache
hit). Per configuration: the median of each step's ratio to flat, and its median step over the
ideal (requests / SLOTS x LATENCY_MS).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import aiohttp
from verl.utils import hf_tokenizer
from verl.utils.ray_utils import get_event_loop

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from paired_steps import TABLE_HEAD, paired_times, print_ratios  # noqa: E402  (bench/python)
from samples import criteria_count, make_samples  # noqa: E402  (python-bridge/tests/verl_glue)
from verl_step import N, PROMPTS, distinct_rows, make_step, timed_step, tokenizer_dir, worker_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: RuscaRL's grader prompt, exactly as gear's RuscaRL adapter sends it (read from the built adapter).
GRADER_TEMPLATE = subprocess.run(
    ["node", "--input-type=module", "-e",
     f"import('{ROOT / 'dist/adapters/ruscarl/judge-prompt.js'}').then((m) => process.stdout.write(m.GRADER_TEMPLATE))"],
    check=True, capture_output=True, text=True).stdout
VERDICT = json.dumps({"explanation": "The response covers the rubric item.", "criteria_met": True})

_clients: Dict[int, Tuple[aiohttp.ClientSession, asyncio.Semaphore]] = {}


def transcript(prompt: List[Dict[str, str]], response: str) -> str:
    """The conversation as the grader prompt shows it (simple-evals' format)."""
    turns = [*prompt, {"role": "assistant", "content": response}]
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in turns if m["role"] != "system")


async def flat_judge_compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None,
                                   judge_url: str = "", judge_max_concurrent: int = 64, **kwargs: Any) -> Dict[str, float]:
    """The baseline: RuscaRL's judge, one aiohttp request per criterion, and a flat weighted sum."""
    loop = asyncio.get_running_loop()
    if id(loop) not in _clients:
        # The connector's own limit off (its default, 100 connections, would cap IN_FLIGHT): the semaphore is the limit.
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=300))
        _clients[id(loop)] = (session, asyncio.Semaphore(judge_max_concurrent))
    session, gate = _clients[id(loop)]
    row = json.loads(extra_info["gear"])["row"]
    conversation = transcript(row["prompt"], solution_str)
    rubrics = row["reward_model"]["rubrics"]

    async def met(criterion: str) -> bool:
        content = GRADER_TEMPLATE.replace("<<conversation>>", conversation).replace("<<rubric_item>>", criterion)
        body = {"model": "default", "messages": [{"role": "user", "content": content}], "temperature": 0.0}
        async with gate:
            async with session.post(f"{judge_url}/chat/completions", json=body) as reply:
                answer = (await reply.json())["choices"][0]["message"]["content"]
        try:
            return json.loads(answer.strip().removeprefix("```json").removesuffix("```")).get("criteria_met") is True
        except ValueError:
            return False

    verdicts = await asyncio.gather(*(met(r["criterion"]) for r in rubrics))
    positive = sum(r["points"] for r in rubrics if r["points"] > 0) or 1.0
    return {"score": sum(r["points"] for r, m in zip(rubrics, verdicts) if m) / positive}


sys.modules[__name__].flat_judge_compute_score = flat_judge_compute_score  # reachable as pkg://__main__


@contextlib.contextmanager
def fake_endpoint(latency_ms: int, slots: int) -> Iterator[str]:
    """The fake judge endpoint in its own process; yields its URL (``.../v1``)."""
    spec = [{"mode": "ok", "latencyMs": latency_ms, "slots": slots, "content": VERDICT}]
    child = subprocess.Popen(["node", str(ROOT / "dist/bench/fake-judge-endpoints.js"), json.dumps(spec)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        [url] = json.loads(child.stdout.readline())["urls"]
        yield url
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


def judge_steps(tokenizer: Any, steps: int) -> List[Any]:
    """``steps`` steps of RuscaRL rows without judgments (every row new to its step)."""
    out = []
    for k in range(steps):
        samples = make_samples(seed=1100 + k, prompts=PROMPTS, group=N, formats=("ruscarl",))
        for sample in samples:
            sample["extra_info"] = {"gear": sample["extra_info"]["gear"]}
        out.append(make_step(tokenizer, distinct_rows(samples, k)))
    return out


def requests_of(step: Any) -> int:
    """The step's judge requests: one per criterion of each response (RuscaRL)."""
    return sum(criteria_count(json.loads(e["gear"])) for e in step.non_tensor_batch["extra_info"])


def checked(workers: List[Any], step: Any) -> None:
    """One untimed step (connections, the server's start); gear's flat_reward must be flat's reward."""
    loop = get_event_loop()
    outputs = [[o for chunk in step.chunk(8) for o in loop.run_until_complete(worker.compute_score_batch(chunk))] for worker in workers]
    flat = [o["reward_score"] for o in outputs[0]]
    for gear in outputs[1:]:
        assert [o["reward_extra_info"]["flat_reward"] for o in gear] == flat, "gear's flat_reward differs from the flat function's"
        assert all(o["reward_extra_info"]["judge_failed_criteria"] == 0 for o in gear)


def main(steps: int, latency_ms: int, slots: int, in_flight: int, with_default: bool) -> int:
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    run_dir = tempfile.mkdtemp(prefix="gear-bench-run-")
    with fake_endpoint(latency_ms, slots) as url:
        fn = "+reward.custom_reward_function.reward_kwargs"
        manager = "+reward.reward_kwargs"
        command = "'" + " ".join(GEAR_COMMAND) + "'"
        configs: List[tuple[str, List[str]]] = [
            ("flat Python, aiohttp", ["reward.custom_reward_function.path=pkg://__main__", "reward.custom_reward_function.name=flat_judge_compute_score",
                                      f"{fn}.judge_url={url}", f"{fn}.judge_max_concurrent={in_flight}"]),
            ("gear reward function, judge_url", ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn", f"{fn}.judge_url={url}",
                                                 f"{fn}.judge_max_concurrent={in_flight}", f"{fn}.run_dir={run_dir}", f"{fn}.server_command={command}"]),
            ("GearRewardManager, judge_url", ["reward.reward_manager.source=importlib", "reward.reward_manager.name=GearRewardManager",
                                              "reward.reward_manager.module.path=pkg://gear_bridge.verl.reward_manager", f"{manager}.judge_url={url}",
                                              f"{manager}.judge_max_concurrent={in_flight}", f"{manager}.run_dir={run_dir}", f"{manager}.server_command={command}"]),
        ]
        if with_default:  # what a user who leaves judge_max_concurrent out gets
            configs.append(("gear reward function, judge_url, judge_max_concurrent unset",
                            ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn", f"{fn}.judge_url={url}",
                             f"{fn}.run_dir={run_dir}-default", f"{fn}.server_command={command}"]))
        workers = [worker_for(tok, lines) for _, lines in configs]
        data = judge_steps(tokenizer, steps + 1)
        checked(workers, data[0])
        ideal = statistics.median(requests_of(step) for step in data[1:]) / slots * latency_ms / 1000
        times = paired_times([lambda step, worker=worker: timed_step(worker, step) for worker in workers], data[1:], steps)
        names = [name for name, _ in configs]
        print_ratios(f"ruscarl, judged ({latency_ms} ms, {slots} slots, {in_flight} in flight)", names, times)
        for name, spent in zip(names, times):
            print(f"{name}: step / ideal ({ideal:.2f} s) {statistics.median(spent) / ideal:.3f}", flush=True)
        for session, _ in _clients.values():
            get_event_loop().run_until_complete(session.close())
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    args = [int(a) for a in sys.argv[1:] if not a.startswith("--")]
    print(TABLE_HEAD, flush=True)
    steps, latency_ms, slots = (args + [5, 200, 64][len(args):])[:3]
    code = main(steps, latency_ms, slots, args[3] if len(args) > 3 else slots, "--with-default" in sys.argv)
    print(f"({time.perf_counter() - started:.0f} s)")
    sys.exit(code)
