"""Per-step reward cost in verl's own Ray reward loop: gear against a flat Python compute_score.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_ray_step.py [CONFIG ...]

(CONFIG: a configuration's name, or a part of it, e.g. "GearRewardManager"; only those run, with the
flat baseline.)

Where bench/python/verl_step.py runs verl's 8 chunks one after the other in one process, this runs
them as training does: `RewardLoopManager.compute_rm_score` on a local Ray cluster, its 8
`RewardLoopWorker` actors (verl's default `reward.num_workers`) scoring their chunks at once in 8
processes. gear's workers score the judged rows in-process (the default); the last configuration
sends them to the one machine server every worker attaches to (``in_process=false``, the path rows
the in-process scorer declines take), so the server's work for the whole step is in its time. Ray's
transfers of the chunks are the same for every configuration. Steps as in verl_step.py: 896
responses (112 prompts x 8), every prompt's row new, judgments precomputed.

verl names its reward-loop actors, so one RewardLoopManager runs at a time: each configuration gets
its own manager for STEPS steps after WARM_UP steps, and the configurations take turns for ROUNDS rounds
(each round in another order); the figure is the median over all its steps. On this 2-core machine
the 8 workers, the driver and the server share 2 cores: the step is CPU-bound, so what counts is the
CPU each configuration spends, not how well it spreads over cores; the table gives it too (the
machine's, from /proc/stat, over each timed step: every process's, the idle ones' included).
"""
from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

import ray
from hydra import compose, initialize_config_dir
from verl.experimental.reward_loop.reward_loop import RewardLoopManager
from verl.utils import hf_tokenizer

from conftest import GEAR_COMMAND, ROOT  # noqa: E402  (python-bridge/tests)
from gear_bridge.verl.reward_fn import compute_score  # noqa: E402
from samples import make_samples  # noqa: E402  (python-bridge/tests/verl_glue)
from verl_step import CONFIG_DIR, N, PROMPTS, distinct_rows, make_step, tokenizer_dir  # noqa: E402  (bench/python)

WORKERS = 8  # verl's default reward.num_workers
STEPS = 6
WARM_UP = 2
ROUNDS = 3
HERE = Path(__file__).resolve().parent


def machine_cpu_ms() -> float:
    """CPU time the machine has spent (user, nice, system, irq, softirq), from /proc/stat, in ms."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:8]]
    return (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) * 1000 / os.sysconf("SC_CLK_TCK")


def manager_for(tok: str, lines: List[str]) -> RewardLoopManager:
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        cfg = compose("ppo_trainer", overrides=[f"actor_rollout_ref.model.path={tok}", f"actor_rollout_ref.rollout.n={N}",
                                                f"reward.num_workers={WORKERS}", *lines])
    return RewardLoopManager(cfg)


def release(manager: RewardLoopManager) -> None:
    """Kills the manager's actors and waits until their names are free for the next manager."""
    for worker in manager.reward_loop_workers:
        ray.kill(worker)
    for i in range(len(manager.reward_loop_workers)):
        while True:
            try:
                ray.get_actor(f"reward_loop_worker_{i}")
            except ValueError:
                break
            time.sleep(0.1)


def main() -> int:
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    run_dir = tempfile.mkdtemp(prefix="gear-bench-run-")
    # The driver's PYTHONPATH first (e.g. scripts/compile-scorer's folder: the scorer as the wheel ships it).
    given = [str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    paths = os.pathsep.join([*given, *(str(p) for p in (ROOT / "python-bridge" / "src", ROOT / "python-bridge" / "tests",
                                                        ROOT / "python-bridge" / "tests" / "verl_glue", HERE))])
    ambient = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("GEAR_")}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=512 * 2**20,
             runtime_env={"env_vars": {"PYTHONPATH": paths}})
    try:
        machine = [f"run_dir={run_dir}", f"server_command=[{GEAR_COMMAND[0]},{GEAR_COMMAND[1]}]"]
        flat = ["reward.custom_reward_function.path=pkg://verl_step", "reward.custom_reward_function.name=flat_compute_score"]
        gear_fn = ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn",
                   *(f"+reward.custom_reward_function.reward_kwargs.{s}" for s in machine)]
        manager = ["reward.reward_manager.source=importlib", "reward.reward_manager.name=GearRewardManager",
                   "reward.reward_manager.module.path=pkg://gear_bridge.verl.reward_manager", *(f"+reward.reward_kwargs.{s}" for s in machine)]
        flat_keys = ["reward.custom_reward_function.path=pkg://verl_step", "reward.custom_reward_function.name=flat_keys_compute_score"]
        configs = {"flat Python": flat, "flat Python, returning gear's 12 keys": flat_keys, "reward function (naive manager)": gear_fn,
                   "reward function, metrics=false": [*gear_fn, "+reward.custom_reward_function.reward_kwargs.metrics=false"],
                   "GearRewardManager": manager,
                   "GearRewardManager, server path (in_process=false)": [*manager, "+reward.reward_kwargs.in_process=false"]}
        wanted = sys.argv[1:]
        if wanted:  # only the configurations named (by their name, or a part of it), and the flat baseline
            def named(k: str) -> bool:
                return k in wanted if any(w in configs for w in wanted) else any(w.lower() in k.lower() for w in wanted)
            configs = {k: v for k, v in configs.items() if k == "flat Python" or named(k)}
        # In training the machine server lives as long as the run (thousands of steps, its JIT warm);
        # here each configuration's workers are killed after its steps, which would stop the server
        # with its last user. The bench process attaches as a user itself, so one server serves all.
        hold = make_samples(seed=1, prompts=1, group=1, formats=("canonical",))[0]
        asyncio.run(compute_score("hb", hold["response"], "", hold["extra_info"], run_dir=run_dir, server_command=list(GEAR_COMMAND)))
        for form, seed in (("canonical", 700), ("ruscarl", 800)):
            steps = [make_step(tokenizer, distinct_rows(make_samples(seed=seed + k, prompts=PROMPTS, group=N, formats=(form,)), k))
                     for k in range(ROUNDS * (STEPS + WARM_UP))]
            times: Dict[str, List[float]] = {name: [] for name in configs}
            cpu: Dict[str, List[float]] = {name: [] for name in configs}
            for r in range(ROUNDS):
                names = list(configs)
                for name in names[r % len(names):] + names[: r % len(names)]:
                    loop = manager_for(tok, configs[name])
                    try:
                        mine = steps[r * (STEPS + WARM_UP): (r + 1) * (STEPS + WARM_UP)]
                        for data in mine[:WARM_UP]:  # imports, connections, the server's JIT
                            loop.compute_rm_score(data)
                        for data in mine[WARM_UP:]:
                            cpu_before = machine_cpu_ms()
                            started = time.perf_counter()
                            out = loop.compute_rm_score(data)
                            times[name].append((time.perf_counter() - started) * 1000)
                            cpu[name].append(machine_cpu_ms() - cpu_before)
                            assert len(out) == len(data)
                    finally:
                        release(loop)
            base = statistics.median(times["flat Python"])
            base_cpu = statistics.median(cpu["flat Python"])
            for name, ms in times.items():
                q1, q2, q3 = statistics.quantiles(ms, n=4)
                spent = statistics.median(cpu[name])
                print(f"| {form} | {name} | {q2:.0f} ({q1:.0f}-{q3:.0f}) | {q2 / base:.2f} | {spent:.0f} | {spent / base_cpu:.2f} |", flush=True)
    finally:
        ray.shutdown()
        os.environ.update(ambient)
    return 0


if __name__ == "__main__":
    print(f"| rows | path | ms per step, {WORKERS} Ray workers: median (quartiles) | gear/flat (medians) | machine CPU ms per step (median) | "
          "gear/flat CPU |\n| --- | --- | --- | --- | --- | --- |", flush=True)
    sys.exit(main())
