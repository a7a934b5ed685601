"""Coalescing concurrent single-sample calls into one request.

VERL's ``RewardLoopWorker.compute_score_batch`` starts one task per sample, all at once, each
calling ``run_single`` (or the reward function). A :class:`GroupCoalescer` holds the calls of one key
until the event loop turned ``idle_turns`` times with no new one (the burst of one batch is over) or
``max_wait`` seconds passed since the first, then sends them together and hands each caller its own
result. A timer alone would end every burst a millisecond late at best (epoll waits in whole ms).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Generic, Hashable, Sequence, TypeVar

__all__ = ["IDLE_TURNS", "GroupCoalescer"]

#: A burst of calls is over once the event loop turned this often with none: verl's calls of one
#: batch arrive within a few loop turns, each ~2 turns after its response was decoded on a thread.
IDLE_TURNS = 3

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass
class _Group(Generic[Item, Result]):
    members: list[tuple[Item, asyncio.Future[Result]]] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None
    #: The member count the last idle check saw, and the turns since it changed.
    seen: int = 0
    idle: int = 0


class GroupCoalescer(Generic[Item, Result]):
    """Collects items per key and sends each group with one ``send`` call.

    Args:
        send: sends a group's items and returns one result (or exception instance) per item, in order.
        group_size: send as soon as a group has this many members (None: no such limit).
        max_wait: seconds a group waits after its first member (None: no timer).
        idle_turns: send once the loop ran this many turns with no new member (None: no such check).
    """

    def __init__(self, send: Callable[[Sequence[Item]], Awaitable[Sequence[Result | BaseException]]], *, group_size: int | None = None,
                 max_wait: float | None = None, idle_turns: int | None = IDLE_TURNS) -> None:
        if group_size is None and max_wait is None and idle_turns is None:
            raise ValueError("a coalescer needs a group_size, a max_wait or idle_turns, or a group could wait forever")
        self.send = send
        self.group_size = group_size
        self.max_wait = max_wait
        self.idle_turns = idle_turns
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
            group = self._open[key] = _Group()
            if self.max_wait is not None:
                group.timer = loop.call_later(self.max_wait, self._flush, key, group)
            if self.idle_turns is not None:
                loop.call_soon(self._idle_check, key, group, loop)
        future: asyncio.Future[Result] = loop.create_future()
        group.members.append((item, future))
        if self.group_size is not None and len(group.members) >= self.group_size:
            self._flush(key, group)
        return await future

    def _idle_check(self, key: Hashable, group: _Group[Item, Result], loop: asyncio.AbstractEventLoop) -> None:
        if self._open.get(key) is not group:
            return  # sent already
        if len(group.members) != group.seen:
            group.seen, group.idle = len(group.members), 0
        else:
            group.idle += 1
            assert self.idle_turns is not None
            if group.idle >= self.idle_turns:
                self._flush(key, group)
                return
        loop.call_soon(self._idle_check, key, group, loop)

    def _flush(self, key: Hashable, group: _Group[Item, Result]) -> None:
        if self._open.get(key) is not group:
            return  # already sent
        del self._open[key]
        if group.timer is not None:
            group.timer.cancel()
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
