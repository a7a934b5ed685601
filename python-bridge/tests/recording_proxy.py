"""A WebSocket proxy in front of a real ``gear serve`` that records every request it passes on
(``requests``), byte for byte both ways: for tests that check what the bridge sends."""
from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, List, Optional

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve


class RecordingProxy:
    """``with RecordingProxy(upstream_url) as proxy: proxy.url``; ``proxy.requests`` in order."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.requests: List[Dict[str, Any]] = []
        self.url = ""
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._stop: Optional[asyncio.Event] = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "RecordingProxy":
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the recording proxy did not start")
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
                    await upstream.send(message)
            finally:
                piping.cancel()
