"""A stand-in for ``verl.experimental.reward_loop.reward_manager.base.RewardManagerBase``.

Used as GearRewardManager's base only when verl is not importable (tests, tools); the constructor
and the attributes it sets are verl's (``config``, ``tokenizer``, ``compute_score``, ``loop``).
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["RewardManagerBase"]


class RewardManagerBase:
    """verl's reward-manager base: ``__init__(config, tokenizer, compute_score)`` and ``run_single``."""

    _class_initialized = False

    def __init__(self, config: Any, tokenizer: Any, compute_score: Any) -> None:
        self.config = config
        self.tokenizer = tokenizer
        self.compute_score = compute_score
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None  # verl takes the thread's loop; run_single uses the running one anyway
        self.init_class(config, tokenizer)

    @classmethod
    def init_class(cls, config: Any, tokenizer: Any) -> None:
        """Class-wide initialization, once."""
        if cls._class_initialized:
            return
        cls._class_initialized = True

    async def run_single(self, data: Any) -> dict[str, Any]:
        """Scores one sample (``data`` of length 1)."""
        raise NotImplementedError
