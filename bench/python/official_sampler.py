"""Drives the official GEAR judge client (VLLMSampler in reward_functions/gear_batch_reward_fn.py of
LvCan926/GEAR at commit 8976106) over one GRPO step of judge requests, as compute_score_batched
does: one ThreadPoolExecutor of GEAR_MAX_CONCURRENT_WORKERS x #URLs threads, every request
submitted at once, each a VLLMSampler.__call__ (5 trials, 1-2-4-8-8 s sleeps, /metrics routing).

The official file is loaded BY PATH from --repo (a checkout given by the user; never copied or
bundled). The sampler is built through get_global_grader(), as the official reward function does,
before the clock starts.

Usage: official_sampler.py --repo DIR --urls URL[,URL] --requests FILE --budget-s S
FILE holds a JSON list of message lists. Prints one JSON line last:
{"wall_s", "done", "failed", "capped", "workers", "by_url"}. Threads stuck on a hanging endpoint
are left behind when the budget runs out (the process exits hard).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FuturesTimeout, as_completed
from pathlib import Path


def load_official(repo: Path):  # type: ignore[no-untyped-def]
    path = repo / "reward_functions" / "gear_batch_reward_fn.py"
    if not path.is_file():
        raise SystemExit(f"official_sampler: {path} not found (GEAR_OFFICIAL_REPO must be a checkout of LvCan926/GEAR)")
    spec = importlib.util.spec_from_file_location("gear_batch_reward_fn", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--urls", required=True)
    parser.add_argument("--requests", required=True)
    parser.add_argument("--budget-s", type=float, required=True)
    args = parser.parse_args()

    # Read by the module at import (workers) and by the sampler at construction (URLs, timeout).
    os.environ["VLLM_BASE_URL"] = args.urls
    module = load_official(Path(args.repo))
    sampler = module.get_global_grader()
    requests = json.loads(Path(args.requests).read_text())
    workers = max(1, min(len(requests), module.MAX_CONCURRENT_WORKERS * max(1, len(sampler.base_urls))))

    done = failed = 0
    by_url: dict[str, int] = {}
    capped = False
    executor = ThreadPoolExecutor(max_workers=workers)
    start = time.perf_counter()
    futures = [executor.submit(sampler, messages) for messages in requests]
    try:
        for future in as_completed(futures, timeout=args.budget_s):
            try:
                answer = future.result()
                done += 1
                url = answer.response_metadata.get("base_url", "")
                by_url[url] = by_url.get(url, 0) + 1
            except Exception:  # RuntimeError after 5 failed trials
                failed += 1
    except FuturesTimeout:
        capped = True
    wall = time.perf_counter() - start
    print(json.dumps({"wall_s": wall, "done": done, "failed": failed, "capped": capped, "workers": workers, "by_url": by_url}), flush=True)
    # Threads stuck in requests.post on a hanging endpoint would keep the process alive for VLLM_TIMEOUT.
    os._exit(0)


if __name__ == "__main__":
    main()
