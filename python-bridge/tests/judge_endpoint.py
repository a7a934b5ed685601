"""A small OpenAI-compatible judge endpoint for the Python tests (a real HTTP server on 127.0.0.1).

``verdict`` mode answers every chat completion with a per-criterion judge output whose verdict is a
pure function of the prompt (so a test can compute the same outputs and the expected reward with
``gear score``); ``garbage`` answers text no judge parser reads; ``status`` answers HTTP 500.
It records the model names and the number of requests it saw.
"""
from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List


def verdict_output(prompt: str) -> str:
    """The judge output ``verdict`` mode gives for a prompt (RuscaRL / MeRF per-criterion format)."""
    met = hashlib.sha256(prompt.encode("utf-8")).digest()[0] % 2 == 0
    return json.dumps({"explanation": "judged by the test endpoint", "criteria_met": met})


class JudgeEndpoint:
    """``with JudgeEndpoint() as endpoint: endpoint.url`` -> ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, mode: str = "verdict") -> None:
        self.mode = mode
        self.requests = 0
        self.models: List[str] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                with outer._lock:
                    outer.requests += 1
                    outer.models.append(str(body.get("model")))
                if outer.mode == "status":
                    self._send(500, {"error": {"message": "test endpoint: failing on purpose"}})
                    return
                messages = body.get("messages", [])
                prompt = messages[-1]["content"] if messages else ""
                content = verdict_output(prompt) if outer.mode == "verdict" else "I would rather not say."
                self._send(200, {
                    "id": "test", "object": "chat.completion", "created": 0, "model": body.get("model", "test"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })

            def _send(self, status: int, payload: Dict[str, Any]) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "JudgeEndpoint":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
