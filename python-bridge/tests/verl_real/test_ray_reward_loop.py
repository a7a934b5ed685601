"""gear in verl 0.9.x's own Ray reward loop: `RewardLoopManager` with several `RewardLoopWorker` actors.

A local Ray cluster runs the actors in their own processes (as in training); `compute_rm_score`
splits each step across them. The README's lines with no server address make every worker process
attach to one machine server (gear_bridge.server.machine) under the test's run directory: the tests
check its records (server.json, one locked user file per worker), the process tree (no keeper or
`gear serve` below any worker), the server's own connection count, that it outlives the worker that
started it (Ray kills an exiting worker's children) and that it stops once the workers are gone.
Expected rewards are the CLI's (`gear aggregate` / `gear score`).
"""
from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Set, Tuple

import numpy as np
import pytest

pytest.importorskip("verl", reason="real verl runs in scripts/verl-venv (scripts/test)")

import ray  # noqa: E402
import torch  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.experimental.reward_loop.reward_loop import RewardLoopManager  # noqa: E402
from verl.utils import hf_tokenizer  # noqa: E402

from conftest import GEAR_CLI, GEAR_COMMAND  # noqa: E402
import gear_bridge  # noqa: E402
from gear_bridge import EmbeddedServer  # noqa: E402
from gear_bridge.sync import connect  # noqa: E402
from gear_bridge.verl.rewarder import METRIC_KEYS, REWARD_KEYS  # noqa: E402
from judge_endpoint import JudgeEndpoint  # noqa: E402
from judged_rows import expected  # noqa: E402
from test_verl_paths import MANAGER, N, REWARD_FUNCTION, config, judged_step, step, tokenizer_dir  # noqa: E402,F401

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verl_glue"))
from samples import criteria_count, expected_rewards, make_samples  # noqa: E402

#: Reward-loop workers (actors). Each is a process importing verl and torch: start-up dominates the
#: test's time on a 2-core machine, so 4 (verl's default is 8; the code path is the same).
WORKERS = 4
#: Samples per step: one GRPO group of N per worker.
SAMPLES = WORKERS * N


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """A local Ray whose workers import gear_bridge from where this process did (as a pip install would
    provide): the checkout's sources."""
    ambient = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("GEAR_")}  # the raylet's env is the workers'
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=100 * 2**20,
        runtime_env={"env_vars": {"PYTHONPATH": str(Path(gear_bridge.__file__).parents[1])}},
    )
    try:
        yield
    finally:
        ray.shutdown()
        os.environ.update(ambient)


# --- the process tree and the run directory ---------------------------------------------------------

def processes() -> Dict[int, Tuple[int, str, str]]:
    """pid -> (parent pid, state, command line) of every process visible in /proc."""
    table: Dict[int, Tuple[int, str, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry.name)] = (int(fields[1]), fields[0], cmdline)
    return table


def descendants(table: Dict[int, Tuple[int, str, str]], roots: Set[int]) -> Set[int]:
    found: Set[int] = set()
    frontier = set(roots)
    while frontier:
        children = {pid for pid, (parent, _, _) in table.items() if parent in frontier and pid not in found}
        found |= children
        frontier = children
    return found


def gone(pid: int) -> bool:
    entry = processes().get(pid)
    return entry is None or entry[1] == "Z"


def wait_until(condition: Any, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return bool(condition())


def server_dir(run_dir: Path) -> Path:
    [directory] = list(run_dir.glob("gear-*/server-*"))  # one machine server for the run's settings
    return directory


def worker_pids(manager: RewardLoopManager) -> List[int]:
    return ray.get([w.__ray_call__.remote(lambda _worker: os.getpid()) for w in manager.reward_loop_workers])


def check_one_shared_server(manager: RewardLoopManager, run_dir: Path) -> Dict[str, Any]:
    """Every RewardLoopWorker process of this run is a user of one server, the only one they started.

    Returns server.json.
    """
    directory = server_dir(run_dir)
    info: Dict[str, Any] = json.loads((directory / "server.json").read_text())
    actors = set(worker_pids(manager))
    users = {int(path.name.split("-")[0]) for path in (directory / "users").iterdir()}
    assert len(actors) == WORKERS and users == actors  # each worker process attached, each once
    table = processes()
    assert all(table[pid][2].startswith("ray::RewardLoopWorker") for pid in actors)
    # No worker started a server (or keeper) of its own; the keeper is not a worker's child (Ray
    # kills a worker's children when it exits).
    below = descendants(table, actors)
    assert not {pid for pid in below if "gear_bridge.server.keeper" in table[pid][2] or str(GEAR_CLI) in table[pid][2]}
    assert "gear_bridge.server.keeper" in table[info["keeper_pid"]][2] and str(GEAR_CLI) in table[info["server_pid"]][2]
    assert table[info["server_pid"]][0] == info["keeper_pid"]
    with connect(info["url"]) as client:
        health = client.health()
    assert health["connections"] == WORKERS + 1  # one per worker's event loop, and this one
    return info


def starter(run_dir: Path) -> int:
    """The pid of the worker that started the server: the first user file (made before the keeper)."""
    names = [path.name.split("-") for path in (server_dir(run_dir) / "users").iterdir()]
    return int(min(names, key=lambda n: int(n[1]))[0])


@contextmanager
def reward_loop(cfg: Any, run_dir: Path) -> Iterator[RewardLoopManager]:
    """verl's RewardLoopManager; its workers killed at the end, after which the machine server stops."""
    manager = RewardLoopManager(cfg)
    try:
        yield manager
    finally:
        info: Dict[str, Any] | None = None
        found = list(run_dir.glob("gear-*/server-*/server.json"))
        if found:
            info = json.loads(found[0].read_text())
        for worker in manager.reward_loop_workers:
            ray.kill(worker)
        names = [f"reward_loop_worker_{i}" for i in range(len(manager.reward_loop_workers))]

        def names_free() -> bool:
            for name in names:
                try:
                    ray.get_actor(name)
                except ValueError:
                    continue
                return False
            return True

        assert wait_until(names_free), "verl's named reward-loop actors were not released"
        if info is not None:  # the last user is gone: the keeper stops the server and exits
            assert wait_until(lambda: gone(info["server_pid"]) and gone(info["keeper_pid"]))
            assert not (found[0]).exists()


def run_lines(lines: Sequence[str], run_dir: Path, **settings: str) -> List[str]:
    """The README's lines for a path, no server address: the machine server under ``run_dir``."""
    kwargs = "reward.custom_reward_function.reward_kwargs" if lines is REWARD_FUNCTION else "reward.reward_kwargs"
    return [*lines, f"reward.num_workers={WORKERS}", f"+{kwargs}.run_dir={run_dir}",
            f"+{kwargs}.server_command=[{GEAR_COMMAND[0]},{GEAR_COMMAND[1]}]", *(f"+{kwargs}.{k}={v}" for k, v in settings.items())]


def response_lengths(data: DataProto) -> torch.Tensor:
    return data.batch["attention_mask"][:, data.batch["prompts"].size(1):].sum(dim=1)


def check_output(out: DataProto, data: DataProto, rewards: List[float]) -> None:
    """rm_scores: each reward (float32) on its response's last token; the gear keys as numeric arrays."""
    want = torch.zeros_like(data.batch["responses"], dtype=torch.float32)
    want[torch.arange(len(data)), response_lengths(data) - 1] = torch.tensor(rewards, dtype=torch.float32)
    assert torch.equal(out.batch["rm_scores"], want)
    keys = out.meta_info["reward_extra_keys"]
    assert set(REWARD_KEYS) | set(METRIC_KEYS) <= set(keys)
    for key in keys:
        assert out.non_tensor_batch[key].shape == (len(data),) and out.non_tensor_batch[key].dtype.kind in "fiu", key
    assert out.non_tensor_batch["score"].tolist() == rewards  # float64, exactly the CLI's


@pytest.mark.parametrize("lines", [REWARD_FUNCTION, MANAGER], ids=["reward-function", "GearRewardManager"])
def test_precomputed_judgments_across_workers(ray_cluster: None, tokenizer_dir: str, tmp_path: Path, lines: List[str]) -> None:
    """Rows of all four formats with their judgments, split across the workers: every reward is the
    CLI's, and all of them came through one machine server the workers share."""
    tokenizer = hf_tokenizer(tokenizer_dir)
    if lines is REWARD_FUNCTION:  # one rollout per row: a row's own extra_info holds its judgments
        samples = make_samples(seed=61, prompts=SAMPLES, group=1)
        data = step(tokenizer, [{"extra_info": s["extra_info"]} for s in samples], [s["response"] for s in samples], n=1)
    else:  # GRPO groups; each rollout's judgments in tool_extra_fields (the group shares extra_info)
        samples = make_samples(seed=62, prompts=WORKERS, group=N)
        prompts = [{"extra_info": {"gear": s["extra_info"]["gear"]}} for s in samples[::N]]
        tools = [{"gear_judgments": s["extra_info"]["gear_judgments"]} for s in samples]
        data = step(tokenizer, prompts, [s["response"] for s in samples], tools)
    rewards = expected_rewards(samples)
    assert len(data) == SAMPLES and len(set(rewards)) > WORKERS  # every worker's chunk has its own rewards
    with reward_loop(config(tokenizer_dir, run_lines(lines, tmp_path)), tmp_path) as manager:
        out = manager.compute_rm_score(data)
        info = check_one_shared_server(manager, tmp_path)
        # The worker that started the server exits (ray.kill): the others still score through it.
        pids = worker_pids(manager)
        first = pids.index(starter(tmp_path))
        ray.kill(manager.reward_loop_workers[first])
        assert wait_until(lambda: gone(pids[first]))
        survivors = [w for i, w in enumerate(manager.reward_loop_workers) if i != first]
        chunks = data.chunk(WORKERS)
        late = ray.get([survivors[i % len(survivors)].compute_score_batch.remote(c) for i, c in enumerate(chunks)])
        assert [o["reward_score"] for outputs in late for o in outputs] == rewards
        assert json.loads((server_dir(tmp_path) / "server.json").read_text()) == info
    check_output(out, data, rewards)
    assert out.non_tensor_batch["num_criteria"].tolist() == [criteria_count(json.loads(s["extra_info"]["gear"])) for s in samples]
    assert (out.non_tensor_batch["judged"] == 0).all() and (out.non_tensor_batch["judge_requests"] == 0).all()
    assert out.non_tensor_batch["gear_reward"].tolist() == rewards  # the default aggregator is gear


@pytest.mark.parametrize("lines", [REWARD_FUNCTION, MANAGER], ids=["reward-function", "GearRewardManager"])
def test_precomputed_judgments_with_the_readmes_lines_alone(ray_cluster: None, tokenizer_dir: str, tmp_path: Path, lines: List[str]) -> None:
    """The README's lines alone: canonical, official-gear and RuscaRL rows get the CLI's rewards and
    metrics."""
    tokenizer = hf_tokenizer(tokenizer_dir)
    formats = ("canonical", "official-gear", "ruscarl")
    if lines is REWARD_FUNCTION:
        samples = make_samples(seed=63, prompts=SAMPLES, group=1, formats=formats)
        data = step(tokenizer, [{"extra_info": s["extra_info"]} for s in samples], [s["response"] for s in samples], n=1)
    else:
        samples = make_samples(seed=64, prompts=WORKERS, group=N, formats=formats)
        prompts = [{"extra_info": {"gear": s["extra_info"]["gear"]}} for s in samples[::N]]
        tools = [{"gear_judgments": s["extra_info"]["gear_judgments"]} for s in samples]
        data = step(tokenizer, prompts, [s["response"] for s in samples], tools)
    rewards = expected_rewards(samples)
    with reward_loop(config(tokenizer_dir, run_lines(lines, tmp_path)), tmp_path) as manager:
        out = manager.compute_rm_score(data)
    check_output(out, data, rewards)
    assert out.non_tensor_batch["flat_reward"].tolist() == expected_rewards(samples, "flat")
    assert out.non_tensor_batch["hard_reward"].tolist() == expected_rewards(samples, "hard")


def test_judge_from_config_one_cache_for_all_workers(ray_cluster: None, server: EmbeddedServer, tokenizer_dir: str, tmp_path: Path) -> None:
    """Rows without judgments and a `judge_url`: the workers' shared server judges every response once;
    the same step with each worker given another worker's rows is answered from that server's cache."""
    data, flat = judged_step(hf_tokenizer(tokenizer_dir), WORKERS)
    want = [w["reward"] for w in expected(server.url, "ruscarl", flat, "gear")]
    assert len(data) == SAMPLES
    with JudgeEndpoint() as endpoint, reward_loop(config(tokenizer_dir, run_lines(REWARD_FUNCTION, tmp_path, judge_url=endpoint.url)), tmp_path) as manager:
        first = manager.compute_rm_score(data)
        info = check_one_shared_server(manager, tmp_path)
        judged = endpoint.requests
        rotated = np.roll(np.arange(SAMPLES), -N)  # worker k now gets worker k+1's group
        again = manager.compute_rm_score(data[rotated])
        with connect(info["url"]) as client:
            judge_info = client.judge_info()
        assert endpoint.requests == judged
    check_output(first, data, want)
    requests = first.non_tensor_batch["judge_requests"]
    assert (first.non_tensor_batch["judged"] == 1).all() and (requests > 0).all() and int(requests.sum()) == judged
    assert (first.non_tensor_batch["judge_cache_hits"] == 0).all()
    check_output(again, data[rotated], [want[i] for i in rotated])
    assert again.non_tensor_batch["judge_cache_hits"].tolist() == requests[rotated].tolist()
    # The one server's judge saw every worker's responses, both times, and judged each distinct request
    # once: the endpoint served exactly the first step's misses, across all four workers.
    assert judge_info["responses"] >= 2 * SAMPLES and judge_info["responsesFailed"] == 0
    assert judge_info["cache"]["misses"] == judged and judge_info["cache"]["hits"] >= judged
    assert [e["served"] for e in judge_info["endpoints"]["endpoints"]] == [judged]
