"""The service's judge path alone, two gear commands side by side, without verl.

Run from the repository root, after ``npm run build``:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue .venv/bin/python bench/python/judge_service_ab.py \\
        'COMMAND_A' 'COMMAND_B' [STEPS [LATENCY_MS [SLOTS]]]

Each COMMAND is a gear command, shell-split (``node dist/cli/main.js``, or another checkout's
``node /tmp/base/dist/cli/main.js``; ``node --max-semi-space-size=16 dist/cli/main.js`` for node's
own young generation). Both are started as gear_bridge starts a server (``EmbeddedServer``, so with
``SERVER_NODE_OPTIONS``) with the same judge: a fake OpenAI-compatible endpoint in its own process
(``dist/bench/fake-judge-endpoints.js``) that answers every request "met" after LATENCY_MS
(default 20) in one of SLOTS slots (default 64), the servers sending at most SLOTS at once.

The calls are the ``judge.scoreBatch`` chunks gear's verl glue sends: per step, the 8 chunks of
112 responses (14 GRPO groups of 8, each group's RuscaRL row sent once, the 30 HealthBench
oss_eval rubrics, ~10,400 criteria a step), rows made new each step so that no answer comes from
a cache. Each chunk goes to both servers, one after the other, in alternating order; the first
step warms up. Prints the median and mean (+- standard error) of the chunks' B/A time, both
servers' chunk time over the ideal (requests / SLOTS x LATENCY_MS) and their CPU per judge
request (the server process's user + system time over the requests it sent), and checks that both
gave the same rewards.

What it leaves out, against ``verl_judge_step.py``: verl's own work around each chunk and the
reward function's Python. It measures the server's part, where a fast judge's step is decided.
"""
from __future__ import annotations

import asyncio
import copy
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

from gear_bridge.asyncio.client import AsyncClient
from gear_bridge import EmbeddedServer
from samples import make_samples  # python-bridge/tests/verl_glue

ROOT = Path(__file__).resolve().parents[2]
PROMPTS, GROUP, CHUNKS = 112, 8, 8
VERDICT = json.dumps({"explanation": "The response covers the rubric item.", "criteria_met": True})
#: What the glue asks for (gear_bridge.verl.rewarder): gear's reward, flat and hard beside it, no per-criterion fields.
ENVELOPE = {"aggregator": "gear", "alsoAggregators": ["flat", "hard"], "omit": ["judgments", "extras", "outputs"]}


def step_chunks(step: int) -> List[Dict[str, Any]]:
    """One step's judge.scoreBatch params, CHUNKS of PROMPTS x GROUP / CHUNKS responses, rows new to this step."""
    samples = make_samples(step, PROMPTS, GROUP, formats=("ruscarl",))
    per_chunk = len(samples) // CHUNKS
    chunks = []
    for c in range(CHUNKS):
        rows: List[Dict[str, Any]] = []
        index: Dict[str, int] = {}
        items = []
        for sample in samples[c * per_chunk:(c + 1) * per_chunk]:
            uid = sample["uid"]
            if uid not in index:
                row = copy.deepcopy(json.loads(sample["extra_info"]["gear"])["row"])
                row["prompt"][-1]["content"] += f" [step {step} {uid}]"  # a prompt (and judge prompts) of its own
                index[uid] = len(rows)
                rows.append(row)
            items.append({"host": "ruscarl", "rowIndex": index[uid], "response": sample["response"]})
        chunks.append({**ENVELOPE, "items": items, "rows": rows})
    return chunks


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_chunk(client: AsyncClient, pid: int, params: Dict[str, Any]) -> Tuple[float, float, int, List[Any]]:
    started, cpu = time.perf_counter(), cpu_seconds(pid)
    answer = await client.call("judge.scoreBatch", params, timeout=600)
    seconds = time.perf_counter() - started
    results = answer["results"]
    requests = sum(r["judge"]["stats"]["requests"] for r in results)
    return seconds, cpu_seconds(pid) - cpu, requests, [(r["reward"], r.get("also"), r["failedCriteria"]) for r in results]


async def run(urls: List[str], pids: List[int], steps: int) -> Dict[str, List[float]]:
    clients = [AsyncClient(url) for url in urls]
    for client in clients:
        await client.__aenter__()
    out: Dict[str, List[float]] = {"ratio": [], "wall0": [], "wall1": [], "cpu0": [], "cpu1": [], "requests": []}
    try:
        k = 0
        for step in range(steps + 1):
            for params in step_chunks(step):
                order = (0, 1) if k % 2 == 0 else (1, 0)
                k += 1
                got = {}
                for i in order:
                    got[i] = await one_chunk(clients[i], pids[i], params)
                if got[0][3] != got[1][3]:
                    raise SystemExit(f"step {step}: the two servers gave different rewards")
                if step == 0:
                    continue  # warm-up
                out["ratio"].append(got[1][0] / got[0][0])
                for i in (0, 1):
                    out[f"wall{i}"].append(got[i][0])
                    out[f"cpu{i}"].append(got[i][1])
                out["requests"].append(got[0][2])
    finally:
        for client in clients:
            await client.__aexit__(None, None, None)
    return out


def main(commands: List[List[str]], steps: int, latency_ms: int, slots: int) -> int:
    spec = [{"mode": "ok", "latencyMs": latency_ms, "slots": slots, "content": VERDICT}]
    endpoint = subprocess.Popen(["node", str(ROOT / "dist/bench/fake-judge-endpoints.js"), json.dumps(spec)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert endpoint.stdout is not None and endpoint.stdin is not None
    [url] = json.loads(endpoint.stdout.readline())["urls"]
    env = {**os.environ, "GEAR_JUDGE_URL": url, "GEAR_JUDGE_MAX_CONCURRENT": str(slots)}
    servers = [EmbeddedServer(command, env=env, extra_args=["--log-level", "warn"]) for command in commands]
    try:
        urls = [server.start() for server in servers]
        pids = [server.pid for server in servers]
        assert None not in pids
        out = asyncio.run(run(urls, pids, steps))  # type: ignore[arg-type]
    finally:
        for server in servers:
            server.stop()
        endpoint.stdin.close()
        endpoint.wait(timeout=30)
    ratio = out["ratio"]
    requests = sum(out["requests"])
    ideal = statistics.median(out["requests"]) / slots * latency_ms / 1000
    cpu = [sum(out[f"cpu{i}"]) / requests * 1000 for i in (0, 1)]
    print(f"{len(ratio)} chunks of {steps} steps at {latency_ms} ms, {slots} slots; {requests / len(ratio):.0f} requests a chunk")
    print(f"B/A chunk time: median {statistics.median(ratio):.3f}, mean {statistics.mean(ratio):.3f} +- {statistics.stdev(ratio) / len(ratio) ** 0.5:.3f}")
    for i, name in enumerate("AB"):
        print(f"{name}: chunk / ideal {statistics.median(out[f'wall{i}']) / ideal:.3f}, CPU per request {cpu[i]:.3f} ms  ({shlex.join(commands[i])})")
    print(f"B/A CPU per request: {cpu[1] / cpu[0]:.3f}")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    numbers = [int(a) for a in args[2:5]]
    sys.exit(main([shlex.split(args[0]), shlex.split(args[1])], *(numbers + [10, 20, 64][len(numbers):])))
