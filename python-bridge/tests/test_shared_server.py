"""One server per machine: worker processes with no server address attach to one `gear serve`
(started by the first, kept by a detached keeper), it outlives a SIGKILLed worker, and it stops once
the last worker is gone."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

from cases import gear_spec, healthbench_records
from conftest import GEAR_COMMAND, ROOT

WORKER = r"""
import asyncio, json, sys, os
from gear_bridge.verl.reward_fn import compute_score
spec, judgments, run_dir, command = json.loads(sys.argv[1])
async def main():
    return await compute_score("hb", "a response", "", {"gear": spec, "gear_judgments": judgments},
                               run_dir=run_dir, server_command=command, metrics=False)
result = asyncio.run(main())
print(json.dumps({"pid": os.getpid(), "score": result["score"]}), flush=True)
sys.stdin.read()  # stay attached until the test closes stdin (or kills this process)
"""


def start_worker(args: List[Any]) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEAR_")}
    env["PYTHONPATH"] = str(ROOT / "python-bridge" / "src")
    return subprocess.Popen([sys.executable, "-c", WORKER, json.dumps(args)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_until(condition: Any, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_workers_share_one_server_that_outlives_a_crash_and_stops_after_the_last(tmp_path: Path) -> None:
    record, graph = healthbench_records()[0]
    spec = gear_spec(record, graph, "canonical")
    judgments = {"p": [0.5] * len(spec["rubric"]["criteria"])}
    workers = [start_worker([spec, judgments, str(tmp_path), GEAR_COMMAND]) for _ in range(4)]
    answers: List[Dict[str, Any]] = [json.loads(w.stdout.readline()) for w in workers if w.stdout is not None]
    assert len({a["score"] for a in answers}) == 1 and len({a["pid"] for a in answers}) == 4
    [directory] = [p.parent for p in tmp_path.rglob("server.json")]
    info = json.loads((directory / "server.json").read_text())
    assert len(list((directory / "users").iterdir())) == 4  # four users, one server
    workers[0].kill()  # the worker that started the server crashes
    workers[0].wait()
    time.sleep(1.5)  # past the keeper's grace period
    assert alive(info["keeper_pid"]) and alive(info["server_pid"])
    late = start_worker([spec, judgments, str(tmp_path), GEAR_COMMAND])  # a new worker attaches to the same server
    assert json.loads(late.stdout.readline() if late.stdout else "{}")["score"] == answers[0]["score"]
    assert json.loads((directory / "server.json").read_text())["server_pid"] == info["server_pid"]
    os.kill(info["server_pid"], signal.SIGKILL)  # the server itself dies: the keeper restarts it on its port
    assert wait_until(lambda: json.loads((directory / "server.json").read_text()).get("server_pid") != info["server_pid"])
    assert json.loads((directory / "server.json").read_text())["url"] == info["url"]
    for worker in [*workers[1:], late]:
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait(30)
    for worker in [*workers, late]:
        if worker.stdout is not None:
            worker.stdout.close()
        if worker.stdin is not None:
            worker.stdin.close()
    assert wait_until(lambda: not alive(info["keeper_pid"]))
    assert not (directory / "server.json").exists()
