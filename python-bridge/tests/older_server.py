"""A gear server as an older release answers: a WebSocket proxy in front of a real ``gear serve``.

Requests naming a method the older release lacks get its -32601; requests carrying a top-level
param it lacks get the -32602 its strict params schema gives (``Unrecognized key: "rows"``, path
``[]``); requests without a param it required get the -32602 it gives for that (``rubricIds:
Invalid input: expected array, received undefined``, path ``["rubricIds"]``); everything else goes
to the real server and back, byte for byte. For testing the bridge's fallbacks against the answers
an older server really gives (each was read from a real server of that release). Every request is
recorded (``requests``).
"""
from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, Iterable, List, Optional

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve


class OlderServer:
    """``with OlderServer(upstream_url, missing_methods, unknown_params) as older: older.url``."""

    def __init__(
        self, upstream: str, missing_methods: Iterable[str], unknown_params: Iterable[str], required_params: Optional[Dict[str, str]] = None
    ) -> None:
        self.upstream = upstream
        self.missing_methods = frozenset(missing_methods)
        self.unknown_params = tuple(unknown_params)
        #: method -> an array param the older release required.
        self.required_params = dict(required_params or {})
        #: Every request received, in order.
        self.requests: List[Dict[str, Any]] = []
        #: How many requests were refused, by method.
        self.refused: Dict[str, int] = {}
        self.url = ""
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._stop: Optional[asyncio.Event] = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "OlderServer":
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the older-server proxy did not start")
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with serve(self._proxy, "127.0.0.1", 0, max_size=None) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            self.url = f"ws://127.0.0.1:{port}"
            self._ready.set()
            await self._stop.wait()

    def _refusal(self, request: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        method = request.get("method")
        params = request.get("params")
        if method in self.missing_methods:
            self.refused[str(method)] = self.refused.get(str(method), 0) + 1
            error: Dict[str, Any] = {"code": -32601, "message": f"Method not found: {method}", "data": {"method": method}}
        elif method in self.required_params and isinstance(params, dict) and self.required_params[str(method)] not in params:
            self.refused[str(method)] = self.refused.get(str(method), 0) + 1
            name = self.required_params[str(method)]
            reason = "Invalid input: expected array, received undefined"
            error = {"code": -32602, "message": f"Invalid params: {name}: {reason}", "data": {"code": "invalid_input", "path": [name], "reason": reason}}
        else:
            extra = [k for k in self.unknown_params if isinstance(params, dict) and k in params]
            if not extra:
                return None
            self.refused[str(method)] = self.refused.get(str(method), 0) + 1
            reason = f'Unrecognized key: "{extra[0]}"'
            error = {"code": -32602, "message": f"Invalid params: {reason}", "data": {"code": "invalid_input", "path": [], "reason": reason}}
        return {"jsonrpc": "2.0", "id": request.get("id"), "error": error}

    async def _proxy(self, client: ServerConnection) -> None:
        async with connect(self.upstream, max_size=None) as upstream:

            async def back() -> None:
                async for message in upstream:
                    await client.send(message)

            piping = asyncio.ensure_future(back())
            try:
                async for message in client:
                    request = json.loads(message)
                    if isinstance(request, dict):
                        self.requests.append(request)
                    refusal = self._refusal(request) if isinstance(request, dict) else None
                    if refusal is not None:
                        await client.send(json.dumps(refusal))
                    else:
                        await upstream.send(message)
            finally:
                piping.cancel()
