"""Coalescing concurrent single-sample calls of one GRPO group into one request.

VERL's ``RewardLoopWorker.compute_score_batch`` starts one task per sample, all at once, each
calling ``run_single``. A :class:`GroupCoalescer` holds the calls of one group (same prompt uid) until
the group is complete (``group_size`` members), ``max_wait`` seconds passed since its first member,
or no member came for ``quiet`` seconds (the burst of one batch is over), then sends them together
and hands each caller its own result.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Generic, Hashable, Sequence, TypeVar

__all__ = ["QUIET", "GroupCoalescer"]

#: A burst of calls is over once none came for this long: verl's calls of one batch arrive within
#: microseconds of each other (each after its response is decoded), so 1 ms ends a batch early.
QUIET = 0.001

logger = logging.getLogger("gear_bridge.verl.coalescer")

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass
class _Group(Generic[Item, Result]):
    members: list[tuple[Item, asyncio.Future[Result]]] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None
    quiet_timer: asyncio.TimerHandle | None = None


class GroupCoalescer(Generic[Item, Result]):
    """Collects items per group key and sends each group with one ``send`` call.

    Args:
        send: sends a group's items and returns one result (or exception instance) per item, in order.
        group_size: flush as soon as a group has this many members; None flushes on time only.
        max_wait: seconds a group waits for more members after its first; None waits for
            ``group_size`` (which must then be set).
        quiet: flush a group once no member has arrived for this many seconds (None: no such flush).
            verl's calls of one batch arrive within microseconds of each other (each after its
            response is decoded on a thread), so a short quiet spell ends the batch without waiting
            out ``max_wait``; a later straggler just goes in a request of its own.
    """

    def __init__(
        self,
        send: Callable[[Sequence[Item]], Awaitable[Sequence[Result | BaseException]]],
        *,
        group_size: int | None,
        max_wait: float | None,
        quiet: float | None = None,
    ) -> None:
        if group_size is None and max_wait is None and quiet is None:
            raise ValueError("a coalescer needs a group_size, a max_wait or a quiet spell, or a group could wait forever")
        self.send = send
        self.group_size = group_size
        self.max_wait = max_wait
        self.quiet = quiet
        #: How many groups were sent (one request each).
        self.flushes = 0
        self._open: dict[Hashable, _Group[Item, Result]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def submit(self, key: Hashable, item: Item) -> Result:
        """Adds ``item`` to group ``key`` and returns its result once the group has been sent.

        Raises:
            Exception: the error ``send`` gave for this item (or for the whole group).
        """
        loop = asyncio.get_running_loop()
        group = self._open.get(key)
        if group is None:
            group = _Group()
            self._open[key] = group
            if self.max_wait is not None:
                group.timer = loop.call_later(self.max_wait, self._flush, key, group)
        future: asyncio.Future[Result] = loop.create_future()
        group.members.append((item, future))
        if self.group_size is not None and len(group.members) >= self.group_size:
            self._flush(key, group)
        elif self.quiet is not None:
            if group.quiet_timer is not None:
                group.quiet_timer.cancel()
            group.quiet_timer = loop.call_later(self.quiet, self._flush, key, group)
        return await future

    def _flush(self, key: Hashable, group: _Group[Item, Result]) -> None:
        if self._open.get(key) is not group:
            return  # already sent
        del self._open[key]
        if group.timer is not None:
            group.timer.cancel()
        if group.quiet_timer is not None:
            group.quiet_timer.cancel()
        self.flushes += 1
        task = asyncio.ensure_future(self._send(group))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, group: _Group[Item, Result]) -> None:
        items = [item for item, _ in group.members]
        try:
            results = await self.send(items)
            if len(results) != len(items):
                raise RuntimeError(f"send returned {len(results)} results for {len(items)} items")
        except BaseException as error:
            for _, future in group.members:
                if not future.done():
                    future.set_exception(error)
            if not isinstance(error, Exception):
                raise
            return
        for (_, future), result in zip(group.members, results):
            if future.done():
                continue  # its caller was cancelled
            if isinstance(result, BaseException):
                future.set_exception(result)
            else:
                future.set_result(result)
