"""The blocking client: the asyncio client run on a private event-loop thread.

The same names as ``gear_bridge.asyncio.client`` (``Client``, ``connect``), so code switches by
import path. Every method of :class:`~gear_bridge.asyncio.client.AsyncClient` is here with the same
arguments, results and exceptions, blocking. A ``Client`` may be used from many threads at once;
calls are multiplexed on its one connection.
"""

from __future__ import annotations

import functools
import inspect
from types import TracebackType
from typing import Any, Callable

from ..asyncio.client import AsyncClient
from ..asyncio.client import connect as async_connect
from .loop_thread import LoopThread

__all__ = ["Client", "connect"]


class Client:
    """A blocking client of ``gear serve``; see :class:`gear_bridge.asyncio.client.AsyncClient`.
    Build it with :func:`connect`."""

    def __init__(self, client: AsyncClient, loop_thread: LoopThread) -> None:
        self._client = client
        self._thread = loop_thread

    def __getattr__(self, name: str) -> Any:
        # The asyncio client's attributes as they are, its coroutine methods run to completion on the thread.
        value = getattr(self._client, name)
        if name.startswith("_") or not inspect.iscoroutinefunction(value):
            return value
        method: Callable[..., Any] = value

        @functools.wraps(method)
        def blocking(*args: Any, **kwargs: Any) -> Any:
            return self._thread.run(method(*args, **kwargs))

        return blocking

    def close(self) -> None:
        """Closes the connection and stops the client's thread."""
        if self._thread.alive:
            self._thread.run(self._client.close())
            self._thread.stop()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def connect(url: str | None = None, **kwargs: Any) -> Client:
    """Opens a blocking :class:`Client` (use it as a context manager, or call ``close()``); the
    arguments of :class:`gear_bridge.asyncio.client.connect`.

    Raises:
        ConnectionLost: the server cannot be reached within ``connect_timeout``.
        EmbeddedServerError: no gear command, or it did not start.
    """
    opening = async_connect(url, **kwargs)

    async def open_client() -> AsyncClient:
        return await opening

    thread = LoopThread(name="gear-bridge-client")
    try:
        client = thread.run(open_client())
    except BaseException:
        thread.stop()
        raise
    return Client(client, thread)
