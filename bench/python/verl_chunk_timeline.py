"""Where a chunk's time goes in verl's reward loop: flat, gear in the worker, and gear's server path.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_chunk_timeline.py [STEPS] [FORM]

verl_step.py and verl_reward_fn_parts.py time whole steps. This times the phases of each chunk of
112 responses that ``RewardLoopWorker.compute_score_batch`` scores (verl's 8 chunks of a step, one
after the other, rows new to each configuration in each step as paired_steps.py makes them), for:

- flat Python (verl_step.flat_compute_score, the baseline);
- gear's ``compute_score`` with its defaults (the worker scores the judged rows itself);
- gear's server path (``in_process=false``: what the rows the worker leaves to the server take).

Each call of the function, the server path's request (sent once its frame is written; answered
once the answer is read) and the end of ``Rewarder.score_each`` are marked with
``time.perf_counter()`` by wrapping them, and each phase is reported as the median over the chunks
(quartiles beside it), in milliseconds from the chunk's start:

- ``first call``: verl's own work before it calls the function for the chunk's first response;
- ``taking the calls``: from the first call to the last (the function's work up to its first
  suspension, and verl's between calls);
- ``to the request``: from the last call to the request on the wire (the coalescer's idle loop
  turns that end a burst of calls, and writing the frame);
- ``server``: from the request to its answer read (the server's work and both frames' transit);
- ``answer to results``: from the answer to ``score_each``'s results (each response's Score and fields);
- ``results to last return``: from there to the last call's return (a future set per call, a
  task woken per call, verl's reading of each result);
- ``first call to last return``: what differs between the configurations, since verl's work
  before the first call is the same for all.

A chunk whose calls outlast ``group_wait`` (5 ms: 1,500-token responses) goes in two requests; its
``server`` then spans the first request to the last answer, and ``to the request`` may be negative.

The wrappers cost each configuration the same two clock reads per call. What they show for the
server path: whatever the request and the server cost, the worker's CPU per response on that path
(reading the call, suspending, building its result from the answer, waking the call) comes to more
than flat's whole function per response (bench/README.md, "The server path's chunk, phase by phase").
"""
from __future__ import annotations

import logging
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

from verl.utils import hf_tokenizer
from verl.utils.ray_utils import get_event_loop

import gear_bridge.verl.reward_fn as reward_fn
import verl_step
from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from gear_bridge.asyncio.client import AsyncClient
from gear_bridge.verl.rewarder import Rewarder
from paired_steps import base_steps  # noqa: E402  (bench/python)
from verl_step import own_rows, tokenizer_dir, worker_for  # noqa: E402  (bench/python)

#: (perf_counter, what) of the chunk being timed.
MARKS: List[tuple[float, str]] = []


def _mark(what: str) -> None:
    MARKS.append((time.perf_counter(), what))


def _marked_call(function: Callable[..., Any]) -> Callable[..., Any]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        _mark("call")
        result = await function(*args, **kwargs)
        _mark("return")
        return result
    return call


def _instrument() -> None:
    """Marks each call of both functions, the server path's requests and score_each's end. Done
    before verl's loader reads the functions off their modules (worker_for)."""
    roundtrip = AsyncClient._roundtrip

    async def marked_roundtrip(self: AsyncClient, *args: Any) -> Any:
        _mark("request")
        reply = await roundtrip(self, *args)
        _mark("answer")
        return reply

    score_each = Rewarder.score_each

    async def marked_score_each(self: Rewarder, *args: Any, **kwargs: Any) -> Any:
        results = await score_each(self, *args, **kwargs)
        _mark("results")
        return results

    AsyncClient._roundtrip = marked_roundtrip  # type: ignore[method-assign]
    Rewarder.score_each = marked_score_each  # type: ignore[method-assign]
    reward_fn.compute_score = _marked_call(reward_fn.compute_score)  # type: ignore[assignment]
    verl_step.flat_compute_score = _marked_call(verl_step.flat_compute_score)  # type: ignore[assignment]


def phases(started: float) -> Dict[str, float]:
    """The chunk's phases (ms) from its marks; the server path's only where it sent a request."""
    def at(what: str) -> List[float]:
        return [(t - started) * 1e3 for t, w in MARKS if w == what]

    calls, returns = at("call"), at("return")
    out = {"first call": calls[0], "taking the calls": calls[-1] - calls[0], "first call to last return": returns[-1] - calls[0]}
    requests, answers, results = at("request"), at("answer"), at("results")
    if requests:
        out["requests"] = len(requests)
        out["to the request"] = requests[0] - calls[-1]
        out["server"] = answers[-1] - requests[0]
        out["answer to results"] = results[-1] - answers[-1]
        out["results to last return"] = returns[-1] - results[-1]
    return out


def main(steps: int, form: str) -> int:
    logging.disable(logging.WARNING)
    _instrument()
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        gear = ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn", "reward.custom_reward_function.name=compute_score",
                f"+reward.custom_reward_function.reward_kwargs.url={server.url}"]
        configs = [
            ("flat Python", ["reward.custom_reward_function.path=pkg://verl_step", "reward.custom_reward_function.name=flat_compute_score"]),
            ("gear (in the worker)", gear),
            ("gear, server path (in_process=false)", [*gear, "+reward.custom_reward_function.reward_kwargs.in_process=false"]),
        ]
        workers = [worker_for(tok, lines) for _, lines in configs]
        base = base_steps(tokenizer, form)
        loop = get_event_loop()
        chunks: Dict[str, List[Dict[str, float]]] = {name: [] for name, _ in configs}
        for step in range(steps + 1):  # step 0 warms up
            for k, ((name, _), worker) in enumerate(zip(configs, workers)):
                data = own_rows(base[step % len(base)], 10**6 * (step + 1) + k)
                for chunk in data.chunk(8):
                    MARKS.clear()
                    started = time.perf_counter()
                    loop.run_until_complete(worker.compute_score_batch(chunk))
                    ended = time.perf_counter()
                    if step:
                        chunks[name].append({"chunk": (ended - started) * 1e3, **phases(started)})
        print(f"{form}: {steps} steps, {len(chunks[configs[0][0]])} chunks of 112 per configuration; ms, median (quartiles)\n")
        keys = ["chunk", "first call", "taking the calls", "to the request", "server", "answer to results", "results to last return",
                "first call to last return", "requests"]
        print("| phase | " + " | ".join(name for name, _ in configs) + " |")
        print("| --- |" + " --- |" * len(configs))
        for key in keys:
            cells = []
            for name, _ in configs:
                values = [c[key] for c in chunks[name] if key in c]
                if not values:
                    cells.append("-")
                    continue
                q = statistics.quantiles(values, n=4)
                cells.append(f"{statistics.median(values):.2f} ({q[0]:.2f}-{q[2]:.2f})")
            print(f"| {key} | " + " | ".join(cells) + " |")
        flat = statistics.median(c["chunk"] for c in chunks[configs[0][0]])
        for name, _ in configs[1:]:
            ratios = [c["chunk"] / f["chunk"] for c, f in zip(chunks[name], chunks[configs[0][0]])]
            print(f"\n{name}: chunk / flat's chunk (paired) {statistics.median(ratios):.3f}; medians {statistics.median(c['chunk'] for c in chunks[name]) / flat:.3f}")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30, sys.argv[2] if len(sys.argv) > 2 else "canonical"))
