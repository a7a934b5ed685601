"""The body of one VERL reward worker process (imported by spawned children; keep imports light)."""
from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Tuple


#: Set by :func:`start_together` in each pool process: every job waits there until all have started.
_together: Any = None


def start_together(barrier: Any) -> None:
    """A pool initializer: jobs wait at ``barrier`` before they score, so that the pool's processes
    run one job each, all at once (a pool may otherwise give a quick process a second job)."""
    global _together
    _together = barrier


def score_in_process(job: Tuple[str, List[Dict[str, Any]]]) -> Tuple[int, List[Dict[str, Any]]]:
    """Runs every call of ``job`` concurrently on one event loop, as a reward-loop worker does."""
    import os

    if _together is not None:
        _together.wait(timeout=300)

    from gear_bridge.verl.reward_fn import compute_score

    url, calls = job

    async def main() -> List[Dict[str, Any]]:
        results = await asyncio.gather(*(
            compute_score(data_source="healthbench", solution_str=c["response"], ground_truth="", extra_info=c["extra_info"], url=url, aggregator="gear",
                          metrics=False, group_wait=1.0)
            for c in calls
        ))
        return list(results)

    return os.getpid(), asyncio.run(main())
