"""Per-step reward cost in verl's own Ray reward loop: gear against a flat Python compute_score.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_ray_step.py [rows=FORM ...] [steps=N] [CONFIG ...]

(CONFIG: a configuration's name, or a part of it, e.g. "GearRewardManager" or "gear-exact"; only those
run, with the flat baseline. FORM: the rows, ``canonical`` or ``ruscarl``, with ``+long`` for
responses of verl_step.LONG tokens; by default canonical and ruscarl. N: the side-by-side steps,
by default SIDE_BY_SIDE_STEPS.)

Where bench/python/verl_step.py runs verl's 8 chunks one after the other in one process, this runs
them as training does: `RewardLoopManager.compute_rm_score` on a local Ray cluster, its 8
`RewardLoopWorker` actors (verl's default `reward.num_workers`) scoring their chunks at once in 8
processes. gear's workers score the judged rows in-process (the default); the last configuration
sends them to the one machine server every worker attaches to (``in_process=false``, the path rows
the in-process scorer declines take), so the server's work for the whole step is in its time. Ray's
transfers of the chunks are the same for every configuration. Steps as in verl_step.py: 896
responses (112 prompts x 8), every prompt's row new, judgments precomputed.

Two designs, as verl names its reward-loop actors (one RewardLoopManager runs at a time):
- **Side by side**, the reward functions (flat, flat returning gear's keys, gear's reward function
  under several settings): one manager, whose reward function is verl_side_by_side's (it runs the
  configuration a row's data_source names). Every step runs each configuration in turn, in an order
  drawn for the step, in the same 8 worker processes. The figures: the median of each step's own
  ratio to flat, and the ratio of all steps' time (and machine CPU) together, which counts the
  workers' full collections of the garbage (each worker's every ~15 of its steps: a quarter or more
  of the steps take 2-4 times the others, whoever runs them) where the median leaves them out.
- **A manager each**, `GearRewardManager` (a manager of its own) against flat: each configuration
  gets its own manager for STEPS steps after WARM_UP steps, taking turns for ROUNDS rounds (each
  round in another order); the ratio of the medians. A manager's 8 fresh processes move its steps'
  median by up to ~10% against another's (the reward function measured 1.01-1.20 of flat so).

On this 2-core machine the 8 workers, the driver and the server share 2 cores: the step is
CPU-bound, so what counts is the CPU each configuration spends, not how well it spreads over cores;
the table gives it too (the machine's, from /proc/stat, over each timed step: every process's, the
idle ones' included).
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

import numpy as np
import ray
from hydra import compose, initialize_config_dir
from verl import DataProto
from verl.experimental.reward_loop.reward_loop import RewardLoopManager
from verl.utils import hf_tokenizer

from conftest import GEAR_COMMAND, ROOT  # noqa: E402  (python-bridge/tests)
from gear_bridge.verl.reward_fn import compute_score  # noqa: E402
from samples import make_samples  # noqa: E402  (python-bridge/tests/verl_glue)
from verl_side_by_side import COLLECTIONS_LOG, CONFIGURATIONS, FLAT  # noqa: E402  (bench/python)
from verl_step import CONFIG_DIR, LONG, N, PROMPTS, distinct_rows, lengthened, make_step, own_rows, step_orders, tokenizer_dir  # noqa: E402  (bench/python)

WORKERS = 8  # verl's default reward.num_workers
STEPS = 6
WARM_UP = 2
ROUNDS = 3
#: Steps of the side-by-side configurations: each worker's full collections of the garbage (~0.2 s
#: of CPU on its ~420,000 objects, torch's and verl's) come every ~15 of its steps and take a step
#: to 300-550 ms; a run must hold many for its totals.
SIDE_BY_SIDE_STEPS = 60
#: The rows a run can take (``rows=FORM``), each with the seed of its samples.
ROW_SEEDS = {"canonical": 700, "ruscarl": 800}
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


def timed(loop: RewardLoopManager, data: DataProto) -> tuple[float, float]:
    """One step: its wall ms and the machine's CPU ms."""
    cpu_before = machine_cpu_ms()
    started = time.perf_counter()
    out = loop.compute_rm_score(data)
    elapsed = (time.perf_counter() - started) * 1000
    spent = machine_cpu_ms() - cpu_before
    assert len(out) == len(data)
    return elapsed, spent


def named_as(data: DataProto, source: str) -> DataProto:
    """``data`` with every row's data_source ``source`` (what verl_side_by_side dispatches on)."""
    return DataProto(batch=data.batch, non_tensor_batch={**data.non_tensor_batch, "data_source": np.array([source] * len(data), dtype=object)},
                     meta_info=dict(data.meta_info))


def side_by_side(tok: str, machine: List[str], steps: List[DataProto], names: List[str],
                 collections: Path) -> tuple[Dict[str, tuple[List[float], List[float]]], Dict[str, int]]:
    """The reward-function configurations in one manager's workers, each step in turn (see
    verl_side_by_side): per configuration, each step's wall and CPU ms; and how many of the workers'
    full collections of the garbage started in its timed steps (they log them in ``collections``)."""
    lines = ["reward.custom_reward_function.path=pkg://verl_side_by_side", "reward.custom_reward_function.name=side_by_side_compute_score",
             *(f"+reward.custom_reward_function.reward_kwargs.{s}" for s in machine)]
    for old in collections.glob("*.txt"):
        old.unlink()
    loop = manager_for(tok, lines)
    got: Dict[str, tuple[List[float], List[float]]] = {name: ([], []) for name in names}
    spans: List[tuple[float, float, str]] = []
    orders = step_orders(len(names))
    try:
        for s, data in enumerate(steps):
            for k in next(orders):
                # Rows of their own per configuration: gear's caches of compiled rows would carry
                # one configuration's rows to the next, where training's every step is new.
                mine = named_as(own_rows(data, k), names[k])
                began = time.time()
                elapsed, spent = timed(loop, mine)
                if s >= WARM_UP:  # imports, connections, the server's JIT
                    got[names[k]][0].append(elapsed)
                    got[names[k]][1].append(spent)
                    spans.append((began, time.time(), names[k]))
    finally:
        release(loop)
    counted = dict.fromkeys(names, 0)
    for log in collections.glob("*.txt"):
        for line in log.read_text().splitlines():
            at = float(line.split()[0])
            for first, last, name in spans:
                if first <= at <= last:
                    counted[name] += 1
                    break
    return got, counted


def one_manager_each(tok: str, configs: Dict[str, List[str]], steps: List[DataProto]) -> Dict[str, tuple[List[float], List[float]]]:
    """Configurations of a manager of their own: each runs STEPS steps after WARM_UP in a manager of
    its own, taking turns for ROUNDS rounds (each round in another order)."""
    got: Dict[str, tuple[List[float], List[float]]] = {name: ([], []) for name in configs}
    for r in range(ROUNDS):
        names = list(configs)
        for name in names[r % len(names):] + names[: r % len(names)]:
            loop = manager_for(tok, configs[name])
            try:
                mine = steps[r * (STEPS + WARM_UP): (r + 1) * (STEPS + WARM_UP)]
                for data in mine[:WARM_UP]:
                    loop.compute_rm_score(data)
                for data in mine[WARM_UP:]:
                    elapsed, spent = timed(loop, data)
                    got[name][0].append(elapsed)
                    got[name][1].append(spent)
            finally:
                release(loop)
    return got


def report(form: str, how: str, got: Dict[str, tuple[List[float], List[float]]], paired: bool, collections: Dict[str, int] | None = None) -> None:
    base, base_cpu = got[FLAT]
    for name, (ms, cpu) in got.items():
        q1, q2, q3 = statistics.quantiles(ms, n=4)
        if name == FLAT:
            ratio = "-"
        elif paired:  # each step's own ratio: the configurations ran it a fraction of a second apart
            r1, r2, r3 = statistics.quantiles([g / f for g, f in zip(ms, base)], n=4)
            ratio = f"{r2:.2f} ({r1:.2f}-{r3:.2f})"
        else:
            ratio = f"{q2 / statistics.median(base):.2f}"
        totals = "-" if name == FLAT else f"{sum(ms) / sum(base):.2f} ({sum(cpu) / sum(base_cpu):.2f})"
        full = "-" if collections is None else collections[name]
        print(f"| {form} | {how} | {name} | {len(ms)} | {q2:.0f} ({q1:.0f}-{q3:.0f}) | {ratio} | {statistics.mean(ms):.0f} | {totals} | {full} |",
              flush=True)


def main() -> int:
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    run_dir = tempfile.mkdtemp(prefix="gear-bench-run-")
    # The driver's PYTHONPATH first (e.g. scripts/compile-scorer's folder: the scorer as the wheel ships it).
    given = [str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    paths = os.pathsep.join([*given, *(str(p) for p in (ROOT / "python-bridge" / "src", ROOT / "python-bridge" / "tests",
                                                        ROOT / "python-bridge" / "tests" / "verl_glue", HERE))])
    ambient = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("GEAR_")}
    collections = Path(tempfile.mkdtemp(prefix="gear-bench-collections-"))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=512 * 2**20,
             runtime_env={"env_vars": {"PYTHONPATH": paths, COLLECTIONS_LOG: str(collections)}})
    try:
        machine = [f"run_dir={run_dir}", f"server_command=[{GEAR_COMMAND[0]},{GEAR_COMMAND[1]}]"]
        flat = ["reward.custom_reward_function.path=pkg://verl_step", "reward.custom_reward_function.name=flat_compute_score"]
        manager = ["reward.reward_manager.source=importlib", "reward.reward_manager.name=GearRewardManager",
                   "reward.reward_manager.module.path=pkg://gear_bridge.verl.reward_manager", *(f"+reward.reward_kwargs.{s}" for s in machine)]
        managers = {FLAT: flat, "GearRewardManager": manager,
                    "GearRewardManager, server path (in_process=false)": [*manager, "+reward.reward_kwargs.in_process=false"]}
        functions = list(CONFIGURATIONS)
        forms = [a.removeprefix("rows=") for a in sys.argv[1:] if a.startswith("rows=")] or ["canonical", "ruscarl"]
        side_steps = int(next((a.removeprefix("steps=") for a in sys.argv[1:] if a.startswith("steps=")), SIDE_BY_SIDE_STEPS))
        wanted = [a for a in sys.argv[1:] if not a.startswith(("rows=", "steps="))]
        if wanted:  # only the configurations named (by their name, or a part of it), and the flat baseline
            known = [*functions, *managers]

            def named(k: str) -> bool:
                return k in wanted if any(w in known for w in wanted) else any(w.lower() in k.lower() for w in wanted)
            functions = [k for k in functions if k == FLAT or named(k)]
            managers = {k: v for k, v in managers.items() if k == FLAT or named(k)}
        # In training the machine server lives as long as the run (thousands of steps, its JIT warm);
        # here each manager's workers are killed after its steps, which would stop the server
        # with its last user. The bench process attaches as a user itself, so one server serves all.
        hold = make_samples(seed=1, prompts=1, group=1, formats=("canonical",))[0]
        asyncio.run(compute_score("hb", hold["response"], "", hold["extra_info"], run_dir=run_dir, server_command=list(GEAR_COMMAND)))
        for form in forms:
            rows, long = form.removesuffix("+long"), form.endswith("+long")
            if rows not in ROW_SEEDS:
                raise SystemExit(f"rows={form}: the rows are {' or '.join(ROW_SEEDS)}, with +long for {LONG}-token responses")
            seed = ROW_SEEDS[rows] + (100 if long else 0)

            def steps_of(count: int, first: int) -> List[DataProto]:
                return [make_step(tokenizer, lengthened(distinct_rows(make_samples(seed=first + k, prompts=PROMPTS, group=N, formats=(rows,)), k),
                                                        LONG if long else 0))
                        for k in range(count)]
            if len(functions) > 1:
                got, counted = side_by_side(tok, machine, steps_of(WARM_UP + side_steps, seed), functions, collections)
                report(form, "side by side", got, True, counted)
            if len(managers) > 1:
                report(form, "a manager each", one_manager_each(tok, managers, steps_of(ROUNDS * (STEPS + WARM_UP), seed + 50)), False)
    finally:
        ray.shutdown()
        os.environ.update(ambient)
    return 0


if __name__ == "__main__":
    print(f"| rows | how | path | steps | ms per step, {WORKERS} Ray workers: median (quartiles) | gear/flat: median (quartiles) | mean ms | "
          "gear/flat, all steps' time (machine CPU) | workers' full collections in its steps |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    sys.exit(main())
