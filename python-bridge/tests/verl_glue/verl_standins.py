"""Small stand-ins for what verl 0.9.x hands a reward function or manager, and imitations of how
verl calls them (verl, with torch, is not installable here). The call shapes follow, without copying:

- verl/utils/import_utils.py load_module / load_extern_object (``pkg://a.b`` and file paths);
- verl/trainer/ppo/reward.py get_custom_reward_fn (reward_kwargs merged over call kwargs),
  resolve_reward_manager_cls and load_reward_manager (keyword construction);
- verl/experimental/reward_loop/reward_manager/naive.py run_single (decode, extra_info, kwargs);
- verl/experimental/reward_loop/reward_loop.py compute_score_batch (one task per sample) and
  RewardLoopManager.compute_rm_score (np.array per reward_extra_info key of the first output);
- verl/workers/reward_manager/batch.py BatchRewardManager.verify.
numpy arrays stand in for torch tensors (the same indexing and ``.sum()``).
"""
from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import json
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
from omegaconf import DictConfig, OmegaConf

PAD = 0
EOS = 1


class CharTokenizer:
    """A tokenizer over code points; ids 0 (pad) and 1 (eos) are special."""

    eos_token = "</s>"
    pad_token_id = PAD
    eos_token_id = EOS

    def encode(self, text: str) -> List[int]:
        return [ord(c) + 2 for c in text]

    def decode(self, ids: Any, skip_special_tokens: bool = False) -> str:
        out = []
        for i in np.asarray(ids).tolist():
            if i in (PAD, EOS):
                if not skip_special_tokens:
                    out.append("<pad>" if i == PAD else self.eos_token)
                continue
            out.append(chr(i - 2))
        return "".join(out)


class DataProtoItem:
    def __init__(self, batch: Dict[str, np.ndarray], non_tensor_batch: Dict[str, Any], meta_info: Dict[str, Any]) -> None:
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch
        self.meta_info = meta_info


class DataProto:
    """Tensor batch (2-D arrays) + non-tensor batch (object arrays), indexed like verl's DataProto."""

    def __init__(self, batch: Dict[str, np.ndarray], non_tensor_batch: Dict[str, np.ndarray], meta_info: Optional[Dict[str, Any]] = None) -> None:
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch
        self.meta_info = meta_info or {}

    def __len__(self) -> int:
        return len(next(iter(self.batch.values())))

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, slice):
            return DataProto({k: v[item] for k, v in self.batch.items()}, {k: v[item] for k, v in self.non_tensor_batch.items()}, self.meta_info)
        if isinstance(item, (int, np.integer)):
            return DataProtoItem({k: v[item] for k, v in self.batch.items()}, {k: v[item] for k, v in self.non_tensor_batch.items()}, self.meta_info)
        raise TypeError(item)

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield self[i]


def object_array(values: Sequence[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


def make_batch(
    tokenizer: CharTokenizer,
    prompts: Sequence[str],
    responses: Sequence[str],
    non_tensor: Dict[str, Sequence[Any]],
    response_length: int = 0,
) -> DataProto:
    """prompts left-padded, responses right-padded with an eos then pads, as a rollout leaves them."""
    p_ids = [tokenizer.encode(p) for p in prompts]
    r_ids = [tokenizer.encode(r) + [EOS] for r in responses]
    p_len = max(len(x) for x in p_ids)
    r_len = max(response_length, max(len(x) for x in r_ids) + 3)
    prompts_arr = np.full((len(prompts), p_len), PAD, dtype=np.int64)
    responses_arr = np.full((len(prompts), r_len), PAD, dtype=np.int64)
    mask = np.zeros((len(prompts), p_len + r_len), dtype=np.int64)
    for i, (p, r) in enumerate(zip(p_ids, r_ids)):
        prompts_arr[i, p_len - len(p):] = p
        mask[i, p_len - len(p):p_len] = 1
        responses_arr[i, :len(r)] = r
        mask[i, p_len:p_len + len(r)] = 1
    batch = {
        "prompts": prompts_arr,
        "responses": responses_arr,
        "input_ids": np.concatenate([prompts_arr, responses_arr], axis=1),
        "attention_mask": mask,
    }
    return DataProto(batch, {k: object_array(v) for k, v in non_tensor.items()})


def verl_config(*, n: int = 8, custom_path: Optional[str] = None, custom_name: str = "compute_score",
                custom_kwargs: Optional[Dict[str, Any]] = None, manager: str = "naive", manager_source: str = "register",
                manager_path: Optional[str] = None, reward_kwargs: Optional[Dict[str, Any]] = None) -> DictConfig:
    """The parts of verl's trainer config the reward path reads."""
    reward: Dict[str, Any] = {
        "num_workers": 8,
        "custom_reward_function": {"path": custom_path, "name": custom_name, "reward_kwargs": custom_kwargs or {}},
        "reward_manager": {"source": manager_source, "name": manager, "module": {"path": manager_path, "name": "custom_reward_manager"}},
        "reward_model": {"enable": False},
    }
    if reward_kwargs is not None:
        reward["reward_kwargs"] = reward_kwargs
    return OmegaConf.create({"reward": reward, "actor_rollout_ref": {"rollout": {"n": n}, "model": {"path": "stand-in"}}})


def load_extern_object(module_path: str, object_name: str) -> Any:
    """verl's loader: ``pkg://dotted.name`` (or slashes) imports a module; otherwise a file path."""
    if module_path.startswith("pkg://"):
        module = importlib.import_module(module_path[len("pkg://"):].replace("/", "."))
    else:
        path = module_path[len("file://"):] if module_path.startswith("file://") else module_path
        spec = importlib.util.spec_from_file_location(f"custom_module_{abs(hash(path))}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return getattr(module, object_name)


def get_custom_reward_fn(config: DictConfig) -> Optional[Callable[..., Any]]:
    """The custom function wrapped so that reward_kwargs (a shallow dict of the config) win over call kwargs."""
    fn_config = config.reward.get("custom_reward_function") or {}
    if not fn_config.get("path"):
        return None
    raw_fn = load_extern_object(fn_config.get("path"), fn_config.get("name"))
    reward_kwargs = dict(fn_config.get("reward_kwargs", {}))

    def call_sync(*args: Any, **kwargs: Any) -> Any:
        return raw_fn(*args, **{**kwargs, **reward_kwargs})

    async def call_async(*args: Any, **kwargs: Any) -> Any:
        return await raw_fn(*args, **{**kwargs, **reward_kwargs})

    return call_async if inspect.iscoroutinefunction(raw_fn) else call_sync


def default_compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> float:
    """Stands in for verl.utils.reward_score.default_compute_score (never called by GearRewardManager)."""
    raise AssertionError("the default compute_score must not be called")


def load_reward_manager(config: DictConfig, tokenizer: Any, **reward_kwargs: Any) -> Any:
    """Resolves the manager class (register / importlib) and constructs it with keyword arguments."""
    compute_score = get_custom_reward_fn(config) or default_compute_score
    manager_cfg = config.reward.reward_manager
    if manager_cfg.source == "importlib":
        cls = load_extern_object(manager_cfg.module.path, manager_cfg.name)
    else:
        assert manager_cfg.name == "naive"
        cls = NaiveManager
    return cls(config=config, tokenizer=tokenizer, compute_score=compute_score, **reward_kwargs)


class NaiveManager:
    """verl's naive reward-loop manager, as far as the reward function sees it."""

    def __init__(self, config: Any, tokenizer: Any, compute_score: Any, reward_router_address: Any = None, reward_model_tokenizer: Any = None) -> None:
        self.tokenizer = tokenizer
        self.compute_score = compute_score
        self.is_async = inspect.iscoroutinefunction(compute_score)
        self.reward_router_address = reward_router_address
        self.reward_model_tokenizer = reward_model_tokenizer

    async def run_single(self, data: DataProto) -> Dict[str, Any]:
        loop = asyncio.get_running_loop()
        item = data[-1:][0]
        response_ids = item.batch["responses"]
        length = response_ids.shape[-1]
        valid = item.batch["attention_mask"][-length:].sum()
        valid_ids = response_ids[:valid]
        data_source = item.non_tensor_batch["data_source"]
        ground_truth = item.non_tensor_batch["reward_model"]["ground_truth"]
        extra_info = item.non_tensor_batch.get("extra_info", {})
        tool_fields = item.non_tensor_batch.get("tool_extra_fields", None)
        if tool_fields is not None:
            extra_info.update(tool_fields.items())
        extra_info["num_turns"] = item.non_tensor_batch.get("__num_turns__", None)
        extra_info["rollout_reward_scores"] = item.non_tensor_batch.get("reward_scores", {})
        response = await loop.run_in_executor(None, lambda: self.tokenizer.decode(valid_ids, skip_special_tokens=True))
        extra = (
            {"reward_router_address": self.reward_router_address, "reward_model_tokenizer": self.reward_model_tokenizer}
            if self.reward_router_address is not None
            else {}
        )
        if self.is_async:
            result = await self.compute_score(data_source=data_source, solution_str=response, ground_truth=ground_truth, extra_info=extra_info, **extra)
        else:
            result = await loop.run_in_executor(
                None,
                lambda: self.compute_score(data_source=data_source, solution_str=response, ground_truth=ground_truth, extra_info=extra_info, **extra),
            )
        info: Dict[str, Any] = {}
        if isinstance(result, dict):
            score = result["score"]
            info.update(result)
        else:
            score = result
            info["acc"] = score
        return {"reward_score": score, "reward_extra_info": info}


async def compute_score_batch(manager: Any, data: DataProto) -> List[Dict[str, Any]]:
    """RewardLoopWorker.compute_score_batch: one task per sample, each run_single(data[i:i+1]), gathered."""
    tasks = [asyncio.create_task(manager.run_single(data[i:i + 1])) for i in range(len(data))]
    return list(await asyncio.gather(*tasks))


def assemble(outputs: List[Dict[str, Any]]) -> Dict[str, np.ndarray]:
    """RewardLoopManager.compute_rm_score: one np.array per key of the first output's reward_extra_info."""
    infos = [o.get("reward_extra_info", {}) for o in outputs]
    keys = list(infos[0].keys())
    arrays = {key: np.array([info[key] for info in infos]) for key in keys}
    arrays["__scores__"] = np.array([o["reward_score"] for o in outputs], dtype=np.float32)
    return arrays


def batch_manager_verify(compute_score: Callable[..., Any], tokenizer: Any, data: DataProto, **reward_kwargs: Any) -> Any:
    """BatchRewardManager.verify: decode all, then one compute_score(data_sources=..., ...) call."""
    prompt_len = data.batch["prompts"].shape[-1]
    lengths = data.batch["attention_mask"][:, prompt_len:].sum(axis=-1)
    responses = [tokenizer.decode(data.batch["responses"][i][: lengths[i]], skip_special_tokens=True) for i in range(len(data))]
    ground_truths = [item.non_tensor_batch["reward_model"].get("ground_truth", None) for item in data]
    data_sources = data.non_tensor_batch["data_source"]
    rollout_scores = data.non_tensor_batch.get("reward_scores", [{} for _ in range(len(data))])
    extras = data.non_tensor_batch.get("extra_info", [{} for _ in range(len(data))])
    for i in range(len(data)):
        extras[i]["rollout_reward_scores"] = rollout_scores[i]
    return compute_score(data_sources=data_sources, solution_strs=responses, ground_truths=ground_truths, extra_infos=extras, **reward_kwargs)


def parquet_like(value: Any) -> Any:
    """What a row looks like after parquet -> pandas: lists become numpy arrays (recursively)."""
    if isinstance(value, dict):
        return {k: parquet_like(v) for k, v in value.items()}
    if isinstance(value, list):
        return np.array([parquet_like(v) for v in value], dtype=object) if value and isinstance(value[0], (dict, list)) else np.array(value)
    return value


def dumps(value: Any) -> str:
    return json.dumps(value)
