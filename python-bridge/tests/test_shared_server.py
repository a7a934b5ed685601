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
    # One event loop for the worker's life, as in a verl reward worker: one client, one connection.
    loop = asyncio.get_running_loop()
    while True:
        result = await compute_score("hb", "a response", "", {"gear": spec, "gear_judgments": judgments},
                                     run_dir=run_dir, server_command=command, metrics=False)
        print(json.dumps({"pid": os.getpid(), "score": result["score"]}), flush=True)
        # Stay attached until the test closes stdin (or kills this process); a line asks for another call.
        if not await loop.run_in_executor(None, sys.stdin.readline):
            return
asyncio.run(main())
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


def again(worker: "subprocess.Popen[str]") -> Dict[str, Any]:
    """The worker's answer to one more call (on the event loop and client of its first)."""
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write("again\n")
    worker.stdin.flush()
    answer: Dict[str, Any] = json.loads(worker.stdout.readline())
    return answer


def detach(workers: List["subprocess.Popen[str]"]) -> None:
    """Ends the workers as they end in training: each exits once its stdin closes."""
    for worker in workers:
        if worker.stdin is not None:
            worker.stdin.close()
        worker.wait(30)
        if worker.stdout is not None:
            worker.stdout.close()


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
    detach([*workers, late])  # the crashed one has exited already
    assert wait_until(lambda: not alive(info["keeper_pid"]))
    assert not (directory / "server.json").exists()


def test_workers_move_together_to_a_new_server_when_the_keeper_dies(tmp_path: Path) -> None:
    record, graph = healthbench_records()[1]
    spec = gear_spec(record, graph, "canonical")
    judgments = {"p": [0.25 + 0.5 * (k % 2) for k in range(len(spec["rubric"]["criteria"]))]}
    workers = [start_worker([spec, judgments, str(tmp_path), GEAR_COMMAND]) for _ in range(2)]
    try:
        answers = [json.loads(w.stdout.readline()) for w in workers if w.stdout is not None]
        [directory] = [p.parent for p in tmp_path.rglob("server.json")]
        info = json.loads((directory / "server.json").read_text())
        os.kill(info["keeper_pid"], signal.SIGKILL)  # the keeper dies; its server goes with it
        assert wait_until(lambda: not alive(info["server_pid"]))
        started = time.monotonic()
        # Each worker's next call finds the server gone, locates the machine server again (the first
        # to look starts a new keeper), and is answered there, well before the reconnect deadline.
        again_answers = [again(w) for w in workers]
        assert time.monotonic() - started < 30
        assert [a["score"] for a in again_answers] == [a["score"] for a in answers]
        moved = json.loads((directory / "server.json").read_text())
        assert moved["keeper_pid"] != info["keeper_pid"] and alive(moved["keeper_pid"]) and alive(moved["server_pid"])
        assert len([p for p in (directory / "users").iterdir()]) == 2  # both workers are the new keeper's users
        assert [again(w)["score"] for w in workers] == [a["score"] for a in answers]  # and stay on it
        assert json.loads((directory / "server.json").read_text())["server_pid"] == moved["server_pid"]
    finally:
        detach(workers)
    assert wait_until(lambda: not alive(moved["keeper_pid"]))
    assert not (directory / "server.json").exists()


def test_a_worker_attaching_while_the_keeper_restarts_its_server_waits_for_it(tmp_path: Path) -> None:
    record, graph = healthbench_records()[2]
    spec = gear_spec(record, graph, "canonical")
    judgments = {"p": [0.75] * len(spec["rubric"]["criteria"])}
    first = start_worker([spec, judgments, str(tmp_path), GEAR_COMMAND])
    late = None
    try:
        answer = json.loads(first.stdout.readline() if first.stdout else "{}")
        [directory] = [p.parent for p in tmp_path.rglob("server.json")]
        info = json.loads((directory / "server.json").read_text())
        # Hold the keeper still with its server dead: the window in which it is about to restart it.
        os.kill(info["keeper_pid"], signal.SIGSTOP)
        try:
            os.kill(info["server_pid"], signal.SIGKILL)
            assert wait_until(lambda: not alive(info["server_pid"]) or _zombie(info["server_pid"]))
            late = start_worker([spec, judgments, str(tmp_path), GEAR_COMMAND])
            time.sleep(2.0)  # the new worker attaches meanwhile and finds a live keeper without a server
        finally:
            os.kill(info["keeper_pid"], signal.SIGCONT)
        assert json.loads(late.stdout.readline() if late.stdout else "{}")["score"] == answer["score"]
        now = json.loads((directory / "server.json").read_text())
        # It waited for the keeper's restart on the same port instead of starting a second keeper.
        assert now["keeper_pid"] == info["keeper_pid"] and now["url"] == info["url"] and now["server_pid"] != info["server_pid"]
        assert len(list((directory / "users").iterdir())) == 2
        assert again(first)["score"] == answer["score"]
    finally:
        detach([first] if late is None else [first, late])
    assert wait_until(lambda: not alive(info["keeper_pid"]))


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has exited and waits for its (stopped) parent to collect it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except OSError:
        return True
