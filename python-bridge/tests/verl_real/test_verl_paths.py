"""gear in real verl 0.9.x (scripts/verl-venv; scripts/test runs this folder in that venv).

verl's own config (hydra composition of ppo_trainer with the README's lines), loaders
(get_custom_reward_fn, load_reward_manager), RewardLoopWorker.compute_score_batch with its naive
manager and with GearRewardManager, the legacy naive and batch managers, on DataProto steps built as
verl builds them (a prompt's row repeated by reference for its rollouts). The judge is a real HTTP
endpoint (tests/judge_endpoint.py); expected rewards are `gear score` on its outputs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Sequence

import numpy as np
import pytest

verl = pytest.importorskip("verl", reason="real verl runs in scripts/verl-venv (scripts/test)")

import torch  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.experimental.reward_loop import RewardLoopWorker  # noqa: E402
from verl.trainer.ppo.reward import get_custom_reward_fn  # noqa: E402
from verl.utils import hf_tokenizer  # noqa: E402
from verl.utils.ray_utils import get_event_loop  # noqa: E402

from cases import gear_spec, healthbench_records  # noqa: E402
from conftest import GEAR_COMMAND  # noqa: E402
from gear_bridge import ConfigError, EmbeddedServer, RowError  # noqa: E402
from judge_endpoint import JudgeEndpoint  # noqa: E402
from judged_rows import expected, host_rows  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verl_glue"))
from samples import expected_rewards, make_samples  # noqa: E402

CONFIG_DIR = str(Path(verl.__file__).parent / "trainer" / "config")
N = 4

# The README's lines, per path (README.md "Train with gear in verl"); the README writes the reward
# function's path line alone (verl's default name is compute_score), tested with and without the name.
REWARD_FUNCTION = ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn", "reward.custom_reward_function.name=compute_score"]
MANAGER = [
    "reward.reward_manager.source=importlib",
    "reward.reward_manager.name=GearRewardManager",
    "reward.reward_manager.module.path=pkg://gear_bridge.verl.reward_manager",
]


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A real Hugging Face tokenizer (byte-level, no merges: decode(encode(text)) == text)."""
    folder = tmp_path_factory.mktemp("tokenizer")
    vocab = {"<pad>": 0, "</s>": 1, **{c: i + 2 for i, c in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>").save_pretrained(folder)
    return str(folder)


def config(tokenizer_dir: str, lines: Sequence[str]) -> Any:
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        return compose("ppo_trainer", overrides=[f"actor_rollout_ref.model.path={tokenizer_dir}", f"actor_rollout_ref.rollout.n={N}", *lines])


def step(tokenizer: Any, prompts: List[Dict[str, Any]], responses: List[str], tool_fields: List[Dict[str, Any]] | None = None, n: int = N) -> DataProto:
    """A GRPO step as verl makes it: prompt rows repeated (interleaved, by reference) for N rollouts."""
    rows = DataProto.from_dict(non_tensors={
        "data_source": np.array(["healthbench"] * len(prompts), dtype=object),
        "reward_model": np.array([{"style": "rubric", "ground_truth": ""} for _ in prompts], dtype=object),
        "extra_info": np.array([p["extra_info"] for p in prompts], dtype=object),
        "uid": np.array([f"uid-{i}" for i in range(len(prompts))], dtype=object),
    })
    repeated = rows.repeat(n, interleave=True)
    encoded = [tokenizer.encode(r) + [tokenizer.eos_token_id] for r in responses]
    width = max(len(e) for e in encoded)
    response_ids = torch.tensor([e + [0] * (width - len(e)) for e in encoded])
    prompt_ids = torch.ones((len(responses), 3), dtype=torch.long) * 5
    mask = torch.cat([torch.ones_like(prompt_ids), (response_ids != 0).long()], dim=1)
    repeated.batch = DataProto.from_dict({"prompts": prompt_ids, "responses": response_ids, "attention_mask": mask}).batch
    if tool_fields is not None:
        repeated.non_tensor_batch["tool_extra_fields"] = np.array(tool_fields, dtype=object)
    return repeated


def run_worker(cfg: Any, data: DataProto, router: str | None = None) -> List[Dict[str, Any]]:
    worker = RewardLoopWorker(cfg, reward_router_address=router)
    outputs: List[Dict[str, Any]] = get_event_loop().run_until_complete(worker.compute_score_batch(data))
    # RewardLoopManager.compute_rm_score: one array per key of the first output's reward_extra_info.
    keys = list(outputs[0]["reward_extra_info"])
    arrays = {k: np.array([o["reward_extra_info"][k] for o in outputs]) for k in keys}
    assert all(arrays[k].dtype.kind in "fiu" for k in keys)
    return outputs


def judged_step(tokenizer: Any, count: int) -> tuple[DataProto, List[Dict[str, Any]]]:
    rows = host_rows(count)
    prompts = [{"extra_info": {"gear": json.dumps(r["spec"])}} for r in rows]
    flat = [{"spec": r["spec"], "response": f"{r['response']} (rollout {k})"} for r in rows for k in range(N)]
    return step(tokenizer, prompts, [f["response"] for f in flat]), flat


@pytest.mark.parametrize("lines", [REWARD_FUNCTION, REWARD_FUNCTION[:1], MANAGER], ids=["reward-function", "reward-function-path-only", "GearRewardManager"])
def test_judge_from_config_in_the_reward_loop(server: EmbeddedServer, tokenizer_dir: str, tmp_path: Path, lines: List[str]) -> None:
    """README lines + judge_url: rows without judgments are judged; rewards equal `gear score` on the
    judge's outputs; every output carries the same keys."""
    with JudgeEndpoint() as endpoint:
        kwargs = "reward.reward_kwargs" if lines is MANAGER else "reward.custom_reward_function.reward_kwargs"
        cfg = config(tokenizer_dir, [*lines, f"+{kwargs}.judge_url={endpoint.url}", f"+{kwargs}.run_dir={tmp_path}",
                                     f"+{kwargs}.server_command=[{GEAR_COMMAND[0]},{GEAR_COMMAND[1]}]"])
        data, flat = judged_step(hf_tokenizer(tokenizer_dir), 3)
        outputs = run_worker(cfg, data)
    want = expected(server.url, "ruscarl", flat, "gear")
    assert [o["reward_score"] for o in outputs] == [w["reward"] for w in want]
    assert all(o["reward_extra_info"]["judged"] == 1 for o in outputs)
    assert len({tuple(o["reward_extra_info"]) for o in outputs}) == 1


def test_precomputed_judgments_from_tool_extra_fields(server: EmbeddedServer, tokenizer_dir: str) -> None:
    """GearRewardManager reads each rollout's judgments from tool_extra_fields into a copy of the
    group's shared extra_info: every reward right (verl's naive manager would mix them)."""
    samples = make_samples(seed=41, prompts=4, group=N, formats=("canonical", "official-gear"))
    prompts = [{"extra_info": {"gear": s["extra_info"]["gear"]}} for s in samples[::N]]
    tools = [{"gear_judgments": s["extra_info"]["gear_judgments"]} for s in samples]
    data = step(hf_tokenizer(tokenizer_dir), prompts, [s["response"] for s in samples], tools)
    outputs = run_worker(config(tokenizer_dir, [*MANAGER, f"+reward.reward_kwargs.url={server.url}"]), data)
    assert [o["reward_score"] for o in outputs] == expected_rewards(samples)
    naive = config(tokenizer_dir, [*REWARD_FUNCTION, f"+reward.custom_reward_function.reward_kwargs.url={server.url}"])
    with pytest.raises(RowError) as caught:  # item 3: the naive manager's in-place merge is refused, not mis-scored
        run_worker(naive, data)
    assert caught.value.path == ("extra_info", "gear_judgments")


def test_reward_model_enable(server: EmbeddedServer, tokenizer_dir: str) -> None:
    """Item 2: with verl's reward model on, GearRewardManager alone would never be called: refused at
    start naming the line to add; with it, the manager judges through verl's reward router."""
    rm = ["reward.reward_model.enable=True", f"reward.reward_model.model_path={tokenizer_dir}", "reward.reward_model.rollout.name=vllm"]
    with pytest.raises(ConfigError) as caught:
        RewardLoopWorker(config(tokenizer_dir, [*MANAGER, *rm, f"+reward.reward_kwargs.url={server.url}"]))
    assert caught.value.path == ("reward", "custom_reward_function", "path")
    with JudgeEndpoint() as endpoint:
        cfg = config(tokenizer_dir, [*MANAGER, *rm, REWARD_FUNCTION[0], f"+reward.reward_kwargs.url={server.url}"])
        data, flat = judged_step(hf_tokenizer(tokenizer_dir), 2)
        outputs = run_worker(cfg, data, router=endpoint.url.removeprefix("http://").removesuffix("/v1"))
        models = set(endpoint.models)
    assert [o["reward_score"] for o in outputs] == [w["reward"] for w in expected(server.url, "ruscarl", flat, "gear")]
    assert models == {tokenizer_dir}  # the reward model's path: the name verl's vLLM serves it under


def test_legacy_managers(server: EmbeddedServer, tokenizer_dir: str) -> None:
    """Item 7: the legacy naive manager with compute_score_sync; item 4: the legacy batch manager with
    compute_score_batched, and compute_score_batched refused on the reward loop."""
    from verl.utils import hf_tokenizer
    from verl.workers.reward_manager.batch import BatchRewardManager
    from verl.workers.reward_manager.naive import NaiveRewardManager as LegacyNaive

    tokenizer = hf_tokenizer(tokenizer_dir)
    samples = make_samples(seed=42, prompts=3, group=1)  # one rollout per prompt: the row's own judgments
    data = step(tokenizer, [{"extra_info": s["extra_info"]} for s in samples], [s["response"] for s in samples], n=1)
    sync_cfg = config(tokenizer_dir, [REWARD_FUNCTION[0], "reward.custom_reward_function.name=compute_score_sync",
                                      f"+reward.custom_reward_function.reward_kwargs.url={server.url}"])
    legacy = LegacyNaive(tokenizer, 0, compute_score=get_custom_reward_fn(sync_cfg))
    rewards = legacy(data, return_dict=True)
    assert rewards["reward_extra_info"]["score"] == expected_rewards(samples)
    batch_cfg = config(tokenizer_dir, ["reward.custom_reward_function.path=pkg://gear_bridge.verl.batch",
                                       "reward.custom_reward_function.name=compute_score_batched",
                                       f"+reward.custom_reward_function.reward_kwargs.url={server.url}"])
    batch = BatchRewardManager(tokenizer, 0, compute_score=get_custom_reward_fn(batch_cfg))
    assert batch(data, return_dict=True)["reward_extra_info"]["score"] == expected_rewards(samples)
    with pytest.raises(ConfigError) as caught:
        run_worker(batch_cfg, data)
    assert caught.value.path == ("custom_reward_function", "name")


def test_legacy_keys_are_ignored_by_verl_0_9() -> None:
    """Item 4: verl >= 0.7 composes the legacy keys but never reads them: its reward config stays the
    default (naive, no custom function), which is why the README gives only reward.* lines."""
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        cfg = compose("ppo_trainer", overrides=[
            "reward_model.reward_manager=batch", "custom_reward_function.path=pkg://gear_bridge.verl.batch",
            "custom_reward_function.name=compute_score_batched"])
    assert cfg.reward.reward_manager.name == "naive" and cfg.reward.custom_reward_function.path is None


@pytest.mark.skipif(__import__("os").environ.get("GEAR_SKIP_LLM") == "1", reason="GEAR_SKIP_LLM=1")
def test_real_local_llm_judge(server: EmbeddedServer, tokenizer_dir: str, tmp_path: Path) -> None:
    """The real local LLM (scripts/local-llm, SmolLM2-135M) as the judge of a two-criterion RuscaRL row
    through verl's reward loop: every criterion judged or counted as failed, the same rewards again
    from the judge's cache. (At 135M the verdicts mean nothing: structure and determinism only.)"""
    import subprocess

    serve = Path(__file__).resolve().parents[3] / "scripts" / "local-llm" / "serve"
    llm = subprocess.Popen([str(serve), "--port", "0", "--threads", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert llm.stdout is not None
        ready = llm.stdout.readline().strip()
        assert ready.startswith("gear-local-llm ready: "), ready
        url = ready.split()[2]
        row = {"prompt": [{"role": "user", "content": "Is 7 a prime number?"}],
               "reward_model": {"rubrics": [{"criterion": "Says that 7 is prime.", "points": 5, "tags": []},
                                            {"criterion": "Explains that 7 has no divisors other than 1 and 7.", "points": 3, "tags": []}],
                                "graph": {"edges": [{"parent": "r1", "child": "r2", "type": "strong_prerequisite"}]}}}
        prompts = [{"extra_info": {"gear": json.dumps({"format": "ruscarl", "row": row})}}]
        responses = ["Yes, 7 is prime: only 1 and 7 divide it."]  # one response, two judge requests
        # Short answers and no re-asks: at 135M the model rambles to max_tokens, and each token costs.
        lines = [*REWARD_FUNCTION, f"+reward.custom_reward_function.reward_kwargs.judge_url={url}", "+reward.custom_reward_function.reward_kwargs.metrics=false",
                 "+reward.custom_reward_function.reward_kwargs.judge_max_concurrent=1",
                 "+reward.custom_reward_function.reward_kwargs.judge_options={maxReasks: 0, decoding: {max_tokens: 48}}",
                 f"+reward.custom_reward_function.reward_kwargs.run_dir={tmp_path}",
                 f"+reward.custom_reward_function.reward_kwargs.server_command=[{GEAR_COMMAND[0]},{GEAR_COMMAND[1]}]"]
        cfg = config(tokenizer_dir, lines)
        data = step(hf_tokenizer(tokenizer_dir), prompts, responses, n=1)
        first = run_worker(cfg, data)
        again = run_worker(cfg, data)
    finally:
        llm.terminate()
        llm.wait(30)
        if llm.stdout is not None:
            llm.stdout.close()
        if llm.stdin is not None:
            llm.stdin.close()
    for output in first:
        info = output["reward_extra_info"]
        assert info["judged"] == 1 and info["num_criteria"] == 2 and info["judge_requests"] >= 2
        assert 0 <= info["judge_failed_criteria"] <= 2 and -1.0 <= output["reward_score"] <= 1.0
    assert [o["reward_score"] for o in again] == [o["reward_score"] for o in first]
    assert all(o["reward_extra_info"]["judge_cache_hits"] == o["reward_extra_info"]["judge_requests"] for o in again)
