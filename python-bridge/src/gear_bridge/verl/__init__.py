"""VERL glue (0.9.x reward loop, and the legacy batch manager).

- ``gear_bridge.verl.reward_fn.compute_score``: ``reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn``
- ``gear_bridge.verl.batch.compute_score_batched``: the legacy ``batch`` reward manager's function
- ``gear_bridge.verl.reward_manager.GearRewardManager``: ``reward.reward_manager.source=importlib``

The modules are imported on use: ``reward_manager`` imports verl (and torch) when it is installed.
"""

__all__: list[str] = []
