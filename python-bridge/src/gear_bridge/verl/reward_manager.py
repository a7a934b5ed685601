"""``GearRewardManager``: a VERL 0.9.x reward-loop manager that scores a worker's samples in one request.

Configure it with::

    reward.reward_manager.source=importlib \\
    reward.reward_manager.name=GearRewardManager \\
    reward.reward_manager.module.path=pkg://gear_bridge.verl.reward_manager \\
    +reward.reward_kwargs.aggregator=gear

VERL's ``RewardLoopWorker.compute_score_batch`` calls ``run_single`` once per sample, all samples of
its chunk concurrently. The manager reads each sample straight from the batch (no DataProto slicing,
which costs verl's naive manager more than the reward itself), decodes the response only when the
judge needs it (scoring given judgments never reads it), reads the row (``extra_info["gear"]``, with
the sample's ``tool_extra_fields`` merged over it as naive.py merges them) and the judgments (or
leaves them to the judge). Samples go to a
:class:`~gear_bridge.verl.coalescer.GroupCoalescer`: the worker's samples go out
together (one ``rubric.scoreColumns`` / ``host.scoreBatch`` / ``judge.scoreBatch``, each GRPO
group's row once) as soon as the event loop turned 3 times without a new one, or ``group_wait``
seconds (5 ms) after the first, whichever comes first.

Settings come from ``config.reward.reward_kwargs``, the environment, and constructor keyword
arguments (in increasing priority). The ``compute_score`` VERL passes is kept but not called.

Judgments: the sample's own (``tool_extra_fields``, or ``extra_info`` for one-rollout groups), else
the service's judge (``judge_url``, or verl's reward router when verl runs a reward model).

With ``reward.reward_model.enable=True`` verl calls a manager only when
``reward.custom_reward_function.path`` is set (otherwise it scores with the reward model alone and
never calls the manager): the constructor refuses that configuration, naming the line to add.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..exceptions import ConfigError
from ..judge import Judge, JudgeCall
from ..plain_data import plain
from ..rows import Judgment, parse_judgment, parse_row
from ..settings import load_settings
from .coalescer import IDLE_TURNS, GroupCoalescer
from .rewarder import REWARD_KEYS, Sample, call_endpoints
from .row_judgments import row_judgments, shared_row_guard
from .shared import VERL_EXTRA_KWARGS, RouterInfo, shared_rewarder

if TYPE_CHECKING:
    from .manager_base import RewardManagerBase
else:
    try:
        from verl.experimental.reward_loop.reward_manager.base import RewardManagerBase
    except ImportError:  # verl (and torch) not installed: the same constructor, locally
        from .manager_base import RewardManagerBase

__all__ = ["REWARD_KEYS", "GearRewardManager"]


def _lookup(config: Any, *keys: str) -> Any:
    """``config.a.b.c`` for OmegaConf configs, dataclasses and plain dicts; None when absent."""
    node = config
    for key in keys:
        if node is None:
            return None
        if isinstance(node, Mapping):
            node = node.get(key)
        else:
            node = getattr(node, key, None)
    return node


def _refuse_unreachable(config: Any) -> None:
    """verl >= 0.7 never calls a manager when its reward model is on and no custom function is set."""
    enabled = _lookup(config, "reward", "reward_model", "enable")
    path = _lookup(config, "reward", "custom_reward_function", "path")
    if enabled is True and not path:
        raise ConfigError(
            ("reward", "custom_reward_function", "path"),
            "is not set while reward.reward_model.enable=True: verl then scores every sample with the reward model "
            "(compute_score_disrm) and never calls GearRewardManager. Add "
            "reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn (verl then calls this manager, which "
            "judges through the reward model's router)",
        )


class GearRewardManager(RewardManagerBase):
    """Scores samples through gear, one request per burst of a worker's calls.

    Args:
        config: VERL's trainer config (reads ``reward.reward_kwargs``).
        tokenizer: the policy tokenizer (responses are decoded with ``skip_special_tokens=True``).
        compute_score: the custom reward function VERL resolved; kept, not called.
        reward_router_address: VERL's reward-model router, when a reward model runs: the judge's
            endpoint unless ``judge_url`` is set or ``reward_router`` is off.
        reward_model_tokenizer: the reward model's tokenizer (its path names the served model).
        **kwargs: settings (see :mod:`gear_bridge.settings`) and ``judge``.

    Raises:
        ConfigError: an unknown or invalid setting, or a configuration in which verl would not call
            this manager (``reward.reward_model.enable`` without ``reward.custom_reward_function.path``).
    """

    def __init__(self, config: Any, tokenizer: Any, compute_score: Any, reward_router_address: str | None = None,
                 reward_model_tokenizer: Any = None, **kwargs: Any) -> None:
        _refuse_unreachable(config)
        super().__init__(config, tokenizer, compute_score)
        self.reward_router_address = reward_router_address
        self.reward_model_tokenizer = reward_model_tokenizer
        configured = plain(_lookup(config, "reward", "reward_kwargs")) or {}
        if not isinstance(configured, dict):
            raise ConfigError(("reward", "reward_kwargs"), f"must be a mapping of settings, got {type(configured).__name__}")
        merged = {**configured, **{k: v for k, v in kwargs.items() if k not in VERL_EXTRA_KWARGS}}
        judge = merged.pop("judge", None)
        if judge is not None and not isinstance(judge, Judge):
            raise ConfigError(("judge",), f"must implement gear_bridge.judge.Judge, got {type(judge).__name__}")
        self.settings = load_settings(**merged)
        self.judge: Judge | None = judge
        router = RouterInfo(reward_router_address, reward_model_tokenizer)
        model = router.model or _lookup(config, "reward", "reward_model", "model_path")
        self.endpoints = call_endpoints(self.settings, router.address, model if isinstance(model, str) else None)
        self._coalescers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, GroupCoalescer[Sample, dict[str, float | int]]]
        self._coalescers = weakref.WeakKeyDictionary()

    def coalescer(self) -> GroupCoalescer[Sample, dict[str, float | int]]:
        """The running loop's coalescer (a manager may be driven from more than one loop)."""
        loop = asyncio.get_running_loop()
        coalescer = self._coalescers.get(loop)
        if coalescer is None:
            # One batch per burst of calls, not per GRPO group: a request per group costs more than
            # the groups' scoring, and a burst's calls all arrive within a few loop turns.
            coalescer = GroupCoalescer(self._send, group_size=None, max_wait=self.settings.group_wait, idle_turns=IDLE_TURNS)
            self._coalescers[loop] = coalescer
        return coalescer

    async def _send(self, samples: Sequence[Sample]) -> Sequence[dict[str, float | int] | BaseException]:
        rewarder = await shared_rewarder(self.settings, self.endpoints)
        return await rewarder.score_each(samples)

    def _decode(self, valid_ids: Any) -> str:
        # Here, not on an executor thread as naive.py does: a thread hop costs more than decoding.
        text: str = self.tokenizer.decode(valid_ids, skip_special_tokens=True)
        return text

    def _identity(self, valid_ids: Any) -> str | bytes:
        """What tells this response from another: its token ids' bytes (a CPU tensor or array), else its text."""
        try:
            array = valid_ids.numpy() if hasattr(valid_ids, "numpy") else valid_ids
            identity: bytes = array.tobytes()
            return identity
        except (AttributeError, TypeError, RuntimeError):  # e.g. a tensor on a GPU
            return self._decode(valid_ids)

    async def run_single(self, data: Any) -> dict[str, Any]:
        """Scores one sample, as VERL's naive manager reads it, batched with the rest of its group.

        Args:
            data: a DataProto of length >= 1; the last item is scored (as naive.py does).

        Returns:
            ``{"reward_score": float, "reward_extra_info": {score, native_score, num_criteria,
            unread_judgments}}``, the same keys for every sample.

        Raises:
            RowError: the row or judgment is malformed (naming the field).
            BridgeConnectionError: the server could not be reached or did not answer in time.
        """
        # The last item's fields, read straight from the batch: slicing a DataProto (data[-1:],
        # data[0], as naive.py does) builds new TensorDicts and costs more than the whole reward.
        batch = data.batch
        response_ids = batch["responses"][-1]
        mask = batch["attention_mask"][-1]
        valid_ids = response_ids[: int(mask[-response_ids.shape[-1]:].sum())]
        non_tensor: dict[str, Any] = {key: values[-1] for key, values in data.non_tensor_batch.items()}
        reward_model = non_tensor.get("reward_model") or {}
        ground_truth = reward_model.get("ground_truth") if isinstance(reward_model, Mapping) else None
        extra_info: Any = non_tensor.get("extra_info")
        shared_info: Any
        tool_fields = non_tensor.get("tool_extra_fields")
        key_name = self.settings.judgments_key
        from_tools = isinstance(tool_fields, Mapping) and key_name in tool_fields
        if isinstance(extra_info, Mapping) and isinstance(tool_fields, Mapping) and tool_fields:
            # The agent loop's per-rollout fields, merged over extra_info as naive.py merges them, but
            # into a copy: after verl's repeat, one extra_info dict is shared by the whole group.
            shared_info, extra_info = extra_info, {**extra_info, **tool_fields}
        else:
            shared_info = extra_info
        row = parse_row(extra_info)
        if self.judge is not None:
            call = JudgeCall(row, self._decode(valid_ids), extra_info, non_tensor.get("data_source"), ground_truth, ("extra_info",))
            sample = Sample(row, call.response, await self.judge.judge(call), ("extra_info",), ("judgment",))
        else:
            assert isinstance(extra_info, Mapping)
            judgment: Judgment | None
            if from_tools and self.settings.judgments != "judge":
                judgment = parse_judgment(extra_info[key_name], row, ("tool_extra_fields", key_name))
                judgment_path: tuple[str, ...] = ("tool_extra_fields", key_name)
            else:
                judgment = row_judgments(extra_info, row, self.settings, ("extra_info",))
                judgment_path = ("extra_info", key_name)
                if judgment is not None and isinstance(shared_info, Mapping):
                    # The token ids tell one response from another as well as its text does.
                    shared_row_guard().check(shared_info, self._identity(valid_ids), ("extra_info",), key_name)
            # Scoring given judgments never reads the response (host rows travel without it), so it
            # is decoded only for the judge.
            response = self._decode(valid_ids) if judgment is None else ""
            sample = Sample(row, response, judgment, ("extra_info",), judgment_path)
        fields = await self.coalescer().submit("all", sample)
        return {"reward_score": fields["score"], "reward_extra_info": fields}
