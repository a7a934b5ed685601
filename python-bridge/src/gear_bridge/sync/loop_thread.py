"""An event loop on a private daemon thread, for blocking callers of the asyncio client."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from typing import Any, Coroutine, TypeVar

__all__ = ["LoopThread", "shared_loop_thread"]

T = TypeVar("T")


class LoopThread:
    """Runs coroutines on its own event loop thread; ``run`` blocks the caller until they finish."""

    def __init__(self, name: str = "gear-bridge-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self.pid = os.getpid()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    @property
    def alive(self) -> bool:
        """Whether the thread still runs (and belongs to this process: threads do not survive fork)."""
        return self.pid == os.getpid() and self._thread.is_alive() and not self.loop.is_closed()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Runs ``coroutine`` on the loop and returns its result (or raises its exception).

        Raises:
            RuntimeError: called from the loop's own thread (it would deadlock).
        """
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("LoopThread.run called from its own loop thread")
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise
        except BaseException:
            future.cancel()
            raise

    def stop(self) -> None:
        """Stops the loop and joins the thread; pending tasks are cancelled."""
        if not self.alive:
            return

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


_shared: LoopThread | None = None
_shared_lock = threading.Lock()


def shared_loop_thread() -> LoopThread:
    """This process's loop thread for blocking VERL glue (a fork gets a new one)."""
    global _shared
    with _shared_lock:
        if _shared is None or not _shared.alive:
            _shared = LoopThread()
        return _shared
