"""Runs llama.cpp's OpenAI-compatible HTTP server (the xllamacpp wheel) on one GGUF model, on
127.0.0.1, until SIGTERM or SIGINT (or, with --stop-on-stdin-eof, until its parent goes away).

Run by the cache venv's python that scripts/local-llm/install made; scripts/local-llm/serve and
judge/testing/local-llm.ts start it. Prints one line on stdout once /health answers:

    gear-local-llm ready: http://127.0.0.1:PORT/v1 model=ALIAS

Prompt-cache reuse is on by default, as llama.cpp's own server has it: requests that share a
prefix (a rubric's questions, a response's criteria) skip evaluating it again. --no-cache-prompt
turns it off for tests that need bit-identical answers: with it on, temperature 0 + seed stops
being reproducible across request histories (the KV cache an earlier prompt left changes later
outputs).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable

HOST = "127.0.0.1"  # never another interface: this is a test and demo server


def int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be in [{low}, {high}], got {value}")
        return value

    return parse


def model_file(text: str) -> str:
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no such file {text!r} (run scripts/local-llm/install)")
    return os.path.abspath(text)


def parse_args(argv: list[str]) -> argparse.Namespace:
    cores = os.cpu_count() or 1
    p = argparse.ArgumentParser(prog="serve.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--model-path", required=True, type=model_file, help="the .gguf file")
    p.add_argument("--alias", default="local", help="model name the server answers with")
    p.add_argument("--port", type=int_in(0, 65535), default=8080,
                   help="0 picks a free port (default 8080)")
    p.add_argument("--parallel", type=int_in(1, 64), default=1,
                   help="requests decoded at once (slots; default 1)")
    p.add_argument("--ctx", type=int_in(256, 1 << 20), default=4096,
                   help="context tokens, shared by all slots (unified KV cache; default 4096)")
    p.add_argument("--threads", type=int_in(1, 1024), default=cores,
                   help=f"CPU threads for generation and prompt processing (default {cores})")
    p.add_argument("--seed", type=int_in(0, 2**32 - 2), default=42,
                   help="default sampling seed (a request's seed overrides it; default 42)")
    p.add_argument("--ready-timeout", type=int_in(1, 3600), default=300,
                   help="seconds to wait for /health before giving up (default 300)")
    p.add_argument("--stop-on-stdin-eof", action="store_true",
                   help="exit when stdin closes (the parent process went away)")
    p.add_argument("--no-cache-prompt", dest="cache_prompt", action="store_false",
                   help="re-evaluate every prompt from scratch (reproducible answers; default: reuse)")
    p.add_argument("--verbose", action="store_true", help="llama.cpp's own log on stderr")
    return p.parse_args(argv)


def build_params(args: argparse.Namespace) -> Any:  # xllamacpp.CommonParams (untyped extension)
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model_path
    params.model_alias = {args.alias}
    params.hostnames = [HOST]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.kv_unified = True  # slots share one context: --ctx is the total, not per slot
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.sampling.seed = args.seed
    params.cache_prompt = args.cache_prompt  # see the module docstring
    params.endpoint_metrics = True  # Prometheus /metrics (llamacpp:requests_processing, ...)
    params.endpoint_slots = True
    if not args.verbose:
        params.verbosity = 0
    return params


def wait_healthy(url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/health", timeout=5) as reply:
                if reply.status == 200:
                    return
                last = f"HTTP {reply.status}"
        except urllib.error.HTTPError as e:  # 503 while the model loads
            last = f"HTTP {e.code}"
        except OSError as e:
            last = str(e)
        time.sleep(0.1)
    raise TimeoutError(f"{url}/health did not answer 200 within {timeout_s:.0f} s (last: {last})")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if args.stop_on_stdin_eof:

        def stop_at_eof() -> None:
            sys.stdin.buffer.read()
            stop.set()

        threading.Thread(target=stop_at_eof, daemon=True).start()

    import xllamacpp

    try:
        server = xllamacpp.Server(build_params(args))
    except Exception as e:  # the model did not load, the port is taken, ...
        print(
            f"serve.py: the server did not start: {e} (is --port {args.port} free on {HOST}? is"
            f" --model-path a GGUF file? --verbose shows llama.cpp's log)",
            file=sys.stderr,
        )
        return 1
    base = server.listening_address.rstrip("/")  # the real port when --port 0
    try:
        wait_healthy(base, args.ready_timeout)
    except TimeoutError as e:
        print(f"serve.py: {e}", file=sys.stderr)
        return 1
    print(f"gear-local-llm ready: {base}/v1 model={args.alias}", flush=True)
    while not stop.wait(1.0):
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    # The server's C++ threads have no shutdown call; ending the process is how it stops.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
