"""Per-step reward cost inside real verl: gear against a flat Python compute_score, same run.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_step.py

One GRPO step is 896 responses (112 prompts x 8 rollouts) on the 30 HealthBench oss_eval rubrics
with their graphs, judgments precomputed (judge scores for canonical rows, RuscaRL grader outputs for
ruscarl rows); responses are a few dozen tokens, and LONG tokens in a third scenario (verl decodes
every response, whatever the reward needs). As in training, every prompt of every step is new: each prompt's row is made distinct
(its step and prompt number appended to one text field), so no step reuses a rubric registration
or a row another prompt or step already sent; the 8 rollouts of a prompt share its row by reference. Each path is driven by verl's own code: RewardLoopWorker.compute_score_batch (one
worker, the step in the 8 chunks of 112 that verl's 8 workers get, one after the other) with the
reward-loop naive manager + a custom function, or with GearRewardManager; gear sends each chunk's
judged rows to the machine's `gear serve` and reads its rewards back. The baseline is what a user writes
without gear: a flat weighted score in Python, per call; beside it, the same function returning its
score under every key gear returns (verl handles each key of each response: what gear's metrics
cost verl, apart from computing them). Median of REPEATS steps (each a different step, every configuration running each step in turn),
after a warm-up step; gear/flat is the median (and quartiles) of each step's own ratio.
"""
from __future__ import annotations

import gc
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import numpy as np
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

import verl
from verl import DataProto
from verl.experimental.reward_loop import RewardLoopWorker
from verl.trainer.ppo.reward import get_custom_reward_fn
from verl.utils import hf_tokenizer
from verl.utils.ray_utils import get_event_loop

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from gear_bridge.verl.rewarder import METRIC_KEYS, REWARD_KEYS
from samples import make_samples  # noqa: E402  (python-bridge/tests/verl_glue)

GEAR_KEYS = REWARD_KEYS + METRIC_KEYS  # what gear returns per response with metrics on
N = 8
PROMPTS = 112
REPEATS = 20  # medians of fewer steps moved between runs by more than the differences measured
LONG = 1500  # tokens of a response in the third scenario
CONFIG_DIR = str(Path(verl.__file__).parent / "trainer" / "config")


async def flat_compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Dict[str, float]:
    """The baseline: a flat weighted rubric score from the row's judgments, in plain Python."""
    return flat_score(extra_info)


#: A PLawBench subitem marker, "(+N分)", as a flat PLawBench score reads it.
_PLAWBENCH_MARKER = re.compile(r"[(（]\s*\+\s*([0-9]+(?:\.[0-9]+)?)\s*分?\s*[)）]")
#: RaR-Explicit's categorical weights (the RaR paper's), as a flat RaR score uses them.
_RAR_WEIGHTS = {"Essential": 1.0, "Important": 0.7, "Optional": 0.3, "Pitfall": 0.8}


def answer(output: str) -> str:
    """A judge output without its reasoning: what follows the last ``</think>`` (a flat score for a
    reasoning judge reads it so)."""
    end = output.rfind("</think>")
    return output if end < 0 else output[end + 8:]


def flat_score(extra_info: Any) -> Dict[str, float]:
    """What the baseline computes (verl_legacy_step.py calls it from managers that do not await)."""
    spec = extra_info["gear"]
    spec = json.loads(spec) if isinstance(spec, str) else spec
    judgments = extra_info["gear_judgments"]
    if spec["format"] == "canonical":
        weights = [c["weight"] for c in spec["rubric"]["criteria"]]
        p = judgments["p"]
    elif spec["format"] == "official-gear":
        weights = [r["points"] for r in spec["reward_model"]["rubrics"]]
        p = judgments["p"]
    elif spec["format"] == "gear":  # the official judge's one output: {"k": {"criteria_met", "prob_met"}}
        weights = [r["points"] for r in spec["row"]["reward_model"]["rubrics"]]
        try:
            graded = json.loads(answer(judgments[0]))
            p = [float(graded[str(k + 1)]["prob_met"]) for k in range(len(weights))]
        except (ValueError, KeyError, TypeError):
            p = [0.0] * len(weights)
    elif spec["format"] == "writingbench":  # WritingBench: {"k": {"score": 1..10}} per request of up to 4 items, p = score / 10
        weights = [r["points"] for r in spec["row"]["reward_model"]["rubrics"]]
        p = []
        for output in judgments:
            try:
                graded = json.loads(answer(output))
                p += [float(graded[str(k + 1)]["score"]) / 10 for k in range(len(graded))]
            except (ValueError, KeyError, TypeError):
                p += [0.0] * 4
    elif spec["format"] == "plawbench":  # PLawBench: a probability per "(+N分)" subitem, p = sum(prob x points) / points
        rubrics = spec["row"]["reward_model"]["rubrics"]
        weights = [float(r["points"]) for r in rubrics]
        p = []
        for output in judgments:
            start = len(p)
            try:
                graded = json.loads(answer(output))
                for k in range(len(graded)):
                    item, w = rubrics[len(p)], weights[len(p)]
                    found = [float(x) for x in _PLAWBENCH_MARKER.findall(item["criterion"])] or [w]
                    answers = graded[str(k + 1)]["subitems"]
                    p.append(min(1.0, sum(answers[str(j + 1)]["prob_met"] * x for j, x in enumerate(found)) / w))
            except (ValueError, KeyError, TypeError):
                p[start:] = [0.0] * min(4, len(rubrics) - start)
    elif spec["format"] == "rar-explicit":  # RaR-Explicit: categorical weights, one {"satisfied": bool} per item
        weights = [_RAR_WEIGHTS[item["description"].split(" Criteria:", 1)[0].strip()] for item in spec["row"]["rubric"]]
        p = []
        for output in judgments:
            try:
                p.append(1.0 if json.loads(answer(output).strip().removeprefix("```json").removesuffix("```")).get("satisfied") is True else 0.0)
            except ValueError:
                p.append(0.0)
    else:
        weights = [r["points"] for r in spec["row"]["reward_model"]["rubrics"]]
        p = []
        for output in judgments:
            try:
                p.append(1.0 if json.loads(answer(output)).get("criteria_met") is True else 0.0)
            except ValueError:
                p.append(0.0)
    positive = sum(w for w in weights if w > 0) or 1.0
    return {"score": sum(w * x for w, x in zip(weights, p)) / positive}


async def flat_keys_compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Dict[str, float]:
    """The baseline returning the keys gear returns with metrics on: what verl's handling of them costs."""
    return flat_with_gear_keys(extra_info)


def loaded_reward_fn(path: str, name: str, **reward_kwargs: Any) -> Any:
    """A reward function as verl's trainer hands it to a legacy manager: loaded by verl's own
    ``get_custom_reward_fn``, which wraps every custom function, flat's as much as gear's, to merge
    ``reward_kwargs`` into each call (verl <= 0.6 wrapped it the same way)."""
    config = {"reward": {"custom_reward_function": {"path": path, "name": name, "reward_kwargs": reward_kwargs}}}
    return get_custom_reward_fn(OmegaConf.create(config))


def flat_with_gear_keys(extra_info: Any) -> Dict[str, float]:
    """flat_score's reward under every key of gear's result with metrics on (REWARD_KEYS + METRIC_KEYS)."""
    return dict.fromkeys(GEAR_KEYS, flat_score(extra_info)["score"])


async def noop_compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Dict[str, float]:
    """No reward at all: what verl's own per-response machinery costs (slicing, decoding, tasks)."""
    return {"score": 0.0}


sys.modules[__name__].flat_compute_score = flat_compute_score  # reachable as pkg://__main__ below
sys.modules[__name__].noop_compute_score = noop_compute_score
sys.modules[__name__].flat_keys_compute_score = flat_keys_compute_score


def step_orders(count: int) -> Iterator[List[int]]:
    """The order to run ``count`` configurations in at each step, drawn afresh (seeded). A
    rotation of one order (each first in turn, but always after the same one) measured two
    identical functions 0.989 +- 0.004 and 0.992 +- 0.006 of each other: a configuration's step
    costs what the one before it left in the caches."""
    orders = random.Random(20261127)
    while True:
        order = list(range(count))
        orders.shuffle(order)
        yield order


def tokenizer_dir() -> str:
    folder = tempfile.mkdtemp(prefix="gear-bench-tokenizer-")
    vocab = {"<pad>": 0, "</s>": 1, **{c: i + 2 for i, c in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>").save_pretrained(folder)
    return folder


def tagged(spec_text: str, tag: str) -> str:
    """A row's JSON text with ``tag`` appended to one text field: the same rubric, a new row."""
    spec = json.loads(spec_text)
    if spec["format"] == "canonical":
        spec["rubric"]["criteria"][0]["text"] += tag
    elif spec["format"] == "official-gear":
        spec["reward_model"]["rubrics"][0]["criterion"] += tag
    else:
        spec["row"]["prompt"][-1]["content"] += tag
    return json.dumps(spec)


def distinct_rows(samples: List[Dict[str, Any]], step: int) -> List[Dict[str, Any]]:
    """Each prompt's row made unique to this step and prompt; one row object per group, as verl shares it."""
    shared: Dict[str, str] = {}
    for sample in samples:
        uid = sample["uid"]
        if uid not in shared:
            shared[uid] = tagged(sample["extra_info"]["gear"], f" [step {step} {uid}]")
        sample["extra_info"]["gear"] = shared[uid]
    return samples


def own_rows(data: DataProto, owner: int) -> DataProto:
    """``data`` with rows of its own for configuration ``owner`` (tensors shared): configurations of
    one process whose settings are alike share gear's caches of compiled rows and registered
    rubrics, so one that ran a step after another would find its rows known. In training every
    step's rows are new to the reward function."""
    texts: Dict[int, str] = {}
    infos = []
    for extra_info in data.non_tensor_batch["extra_info"]:
        spec = extra_info["gear"]
        if id(spec) not in texts:
            texts[id(spec)] = tagged(spec, f" [configuration {owner}]")
        infos.append({**extra_info, "gear": texts[id(spec)]})
    return DataProto(batch=data.batch, non_tensor_batch={**data.non_tensor_batch, "extra_info": np.array(infos, dtype=object)},
                     meta_info=dict(data.meta_info))


def lengthened(samples: List[Dict[str, Any]], length: int) -> List[Dict[str, Any]]:
    """Each response padded to ``length`` characters (one token each with this tokenizer): a
    policy's responses are hundreds to thousands of tokens, the samples' a few dozen."""
    for sample in samples:
        if length > len(sample["response"]):
            sample["response"] += " " + "abcdefgh " * ((length - len(sample["response"])) // 9)
    return samples


def make_step(tokenizer: Any, samples: List[Dict[str, Any]]) -> DataProto:
    encoded = [tokenizer.encode(s["response"]) + [tokenizer.eos_token_id] for s in samples]
    width = max(len(e) for e in encoded)
    responses = torch.tensor([e + [0] * (width - len(e)) for e in encoded])
    prompts = torch.ones((len(samples), 3), dtype=torch.long) * 5
    data = DataProto.from_dict(
        {"prompts": prompts, "responses": responses, "attention_mask": torch.cat([torch.ones_like(prompts), (responses != 0).long()], 1)},
        non_tensors={
            "data_source": np.array(["healthbench"] * len(samples), dtype=object),
            "reward_model": np.array([{"ground_truth": ""}] * len(samples), dtype=object),
            "extra_info": np.array([s["extra_info"] for s in samples], dtype=object),
            "uid": np.array([s["uid"] for s in samples], dtype=object),
        },
    )
    return data


def timed_step(worker: Any, data: DataProto) -> float:
    """One step as verl's 8 reward workers get it, run one chunk after the other on this worker."""
    loop = get_event_loop()
    started = time.perf_counter()
    for chunk in data.chunk(8):  # what verl's 8 reward workers get
        outputs = loop.run_until_complete(worker.compute_score_batch(chunk))
        assert len(outputs) == len(chunk)
    return time.perf_counter() - started


def worker_for(tok: str, lines: List[str]) -> Any:
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        cfg = compose("ppo_trainer", overrides=[f"actor_rollout_ref.model.path={tok}", f"actor_rollout_ref.rollout.n={N}", *lines])
    return RewardLoopWorker(cfg)


def main() -> int:
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        def steps_of(form: str, seed: int, length: int = 0) -> List[DataProto]:
            return [make_step(tokenizer, lengthened(distinct_rows(make_samples(seed=seed + k, prompts=PROMPTS, group=N, formats=(form,)), k), length))
                    for k in range(REPEATS + 1)]

        steps = {
            "judge scores (canonical rows)": steps_of("canonical", 700),
            "RuscaRL rows (grader outputs)": steps_of("ruscarl", 800),
            f"RuscaRL rows, {LONG}-token responses": steps_of("ruscarl", 900, LONG),
        }
        flat_fn = ["reward.custom_reward_function.path=pkg://__main__", "reward.custom_reward_function.name=flat_compute_score"]
        gear_fn = ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn", "reward.custom_reward_function.name=compute_score",
                   f"+reward.custom_reward_function.reward_kwargs.url={server.url}"]
        manager = ["reward.reward_manager.source=importlib", "reward.reward_manager.name=GearRewardManager",
                   "reward.reward_manager.module.path=pkg://gear_bridge.verl.reward_manager", f"+reward.reward_kwargs.url={server.url}"]
        noop_fn = ["reward.custom_reward_function.path=pkg://__main__", "reward.custom_reward_function.name=noop_compute_score"]
        flat_keys_fn = ["reward.custom_reward_function.path=pkg://__main__", "reward.custom_reward_function.name=flat_keys_compute_score"]
        configs: List[tuple[str, str, List[str]]] = [("verl alone (a function returning 0)", "-", noop_fn), ("flat Python", "-", flat_fn),
                                                     (f"flat Python, returning gear's {len(GEAR_KEYS)} keys", "-", flat_keys_fn)]
        for path, lines in (("reward function (naive manager)", gear_fn), ("GearRewardManager", manager)):
            kwargs = "+reward.custom_reward_function.reward_kwargs" if lines is gear_fn else "+reward.reward_kwargs"
            for metrics in (True, False):
                configs.append((path, "on" if metrics else "off", [*lines, f"{kwargs}.metrics={metrics}"]))
            # gamma 2 with abs-sum, as in the README's example of options.
            configs.append((f"{path}, gamma 2, abs-sum", "on", [*lines, f"{kwargs}.metrics=True", f"{kwargs}.options={{gamma: 2, normalize: abs-sum}}"]))
        for name, shared_data in steps.items():
            workers = [worker_for(tok, lines) for _, _, lines in configs]
            data = [[own_rows(step, k) for step in shared_data] for k in range(len(configs))]
            for k, worker in enumerate(workers):
                timed_step(worker, data[k][0])  # warm-up: connection, imports
            # The bench holds every step and worker at once (verl holds one step): moved out of the
            # collector's way, so a collection costs what it would in training, whoever triggers it.
            gc.collect()
            gc.freeze()
            # Interleaved: every configuration runs each step in turn, so a busy spell of the
            # machine falls on all of them alike, in an order drawn for each step, so none is
            # always first after the others (the server idle while flat and verl alone ran).
            times: List[List[float]] = [[] for _ in configs]
            orders = step_orders(len(workers))
            for s in range(1, len(shared_data)):
                for k in next(orders):
                    times[k].append(timed_step(workers[k], data[k][s]) * 1000)
            medians = [statistics.median(t) for t in times]
            flat = medians[1]
            for k, ((path, metrics, _), ms) in enumerate(zip(configs, medians)):
                if path == "flat Python" or path.startswith("verl"):
                    ratio = "-"
                else:
                    # Each step's own ratio (the configurations ran it seconds apart): a slow spell of
                    # the machine, which moves the medians of ms between runs, cancels.
                    q1, q2, q3 = statistics.quantiles([g / f for g, f in zip(times[k], times[1])], n=4)
                    ratio = f"{q2:.2f} ({q1:.2f}-{q3:.2f})"
                print(f"| {name} | {path} | {metrics} | {flat:.0f} | {ms:.0f} | {ratio} |", flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    print("| rows | gear path | metrics | flat Python ms | gear ms | gear/flat per step: median (quartiles) |\n| --- | --- | --- | --- | --- | --- |", flush=True)
    sys.exit(main())
