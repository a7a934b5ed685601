"""VERL's reward-loop shape: 8 worker processes, each with 112 concurrent compute_score calls on one
event loop, against one server: every call answered correctly, none lost or duplicated, and the
calls of one worker coalesced into one request."""
from __future__ import annotations

import multiprocessing
from typing import Any, Dict, List

from gear_bridge import EmbeddedServer
from gear_bridge.sync import connect
from process_worker import score_in_process, start_together
from samples import expected_rewards, make_samples

PROCESSES = 8
CALLS = 112


def test_eight_processes_of_112_concurrent_calls(server: EmbeddedServer) -> None:
    """896 calls from 8 processes get 896 correct, distinct answers; each worker's 112 concurrent calls went out as one request."""
    samples = make_samples(seed=31, prompts=PROCESSES * CALLS // 8, group=8, formats=("canonical", "official-gear"))
    expected = expected_rewards(samples)
    jobs: List[Any] = []
    for worker in range(PROCESSES):
        chunk = samples[worker * CALLS:(worker + 1) * CALLS]
        jobs.append((server.url, [{"response": s["response"], "extra_info": dict(s["extra_info"])} for s in chunk]))
    rubrics_per_worker = [len({c["extra_info"]["gear"] for c in job[1]}) for job in jobs]
    with connect(server.url) as client:
        before: Dict[str, int] = dict(client.health()["byMethod"])
        spawn = multiprocessing.get_context("spawn")
        # Each job waits until all 8 run: 8 processes at once, however the pool hands out jobs.
        with spawn.Pool(PROCESSES, initializer=start_together, initargs=(spawn.Barrier(PROCESSES),)) as pool:
            answers = pool.map(score_in_process, jobs, chunksize=1)
        after: Dict[str, int] = dict(client.health()["byMethod"])
    assert len({pid for pid, _ in answers}) == PROCESSES  # really 8 processes
    rewards = [r["score"] for _, results in answers for r in results]
    assert len(rewards) == PROCESSES * CALLS
    assert rewards == expected
    grew = {m: after.get(m, 0) - before.get(m, 0) for m in after}
    # A worker's calls in one burst: one request, which also registers the worker's new rubrics
    # (sum(rubrics_per_worker) in all, inline in rubric.scoreColumns): no registration requests.
    assert grew["rubric.scoreColumns"] == PROCESSES and sum(rubrics_per_worker) > PROCESSES
    assert grew.get("rubric.registerBatch", 0) == 0 and grew.get("rubric.register", 0) == 0
    assert grew["server.info"] == PROCESSES  # one connection per worker process
