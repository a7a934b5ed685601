"""Coalescing concurrent single-sample calls of one GRPO group into one request.

VERL's ``RewardLoopWorker.compute_score_batch`` starts one task per sample, all at once, each
calling ``run_single``. A :class:`GroupCoalescer` holds the calls of one group (same prompt uid) until
the group is complete (``group_size`` members), ``max_wait`` seconds passed since its first member,
no member came for ``quiet`` seconds, or the event loop turned ``idle_turns`` times with no new
member (the burst of one batch is over), then sends them together and hands each caller its own
result.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Generic, Hashable, Sequence, TypeVar

__all__ = ["IDLE_TURNS", "GroupCoalescer"]

#: A burst of calls is over once the event loop turned this often with none: verl's calls of one
#: batch arrive within a few loop turns, each ~2 turns after its response was decoded on a thread
#: (the executor's callback, then the task's step). A timer cannot end a burst sooner than 1 ms
#: (the loop's epoll waits in whole milliseconds), and 1 ms per request was ~8% of gear's cost.
IDLE_TURNS = 3

logger = logging.getLogger("gear_bridge.verl.coalescer")

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass
class _Group(Generic[Item, Result]):
    members: list[tuple[Item, asyncio.Future[Result]]] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None
    quiet_timer: asyncio.TimerHandle | None = None
    #: loop.time() of the newest member (the quiet timer re-arms itself from it).
    last: float = 0.0
    #: Whether an idle check is scheduled; the member count it last saw; turns without a new one.
    watched: bool = False
    seen: int = 0
    idle: int = 0


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
        idle_turns: flush a group once the event loop ran this many turns with no new member
            (None: no such flush). Ends a burst within microseconds, where ``quiet`` waits at least
            a millisecond; a loop that keeps turning for other work still flushes, as it should.
    """

    def __init__(
        self,
        send: Callable[[Sequence[Item]], Awaitable[Sequence[Result | BaseException]]],
        *,
        group_size: int | None,
        max_wait: float | None,
        quiet: float | None = None,
        idle_turns: int | None = None,
    ) -> None:
        if group_size is None and max_wait is None and quiet is None and idle_turns is None:
            raise ValueError("a coalescer needs a group_size, a max_wait or a quiet spell, or a group could wait forever")
        self.send = send
        self.group_size = group_size
        self.max_wait = max_wait
        self.quiet = quiet
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
            group = _Group()
            self._open[key] = group
            if self.max_wait is not None:
                group.timer = loop.call_later(self.max_wait, self._flush, key, group)
        future: asyncio.Future[Result] = loop.create_future()
        group.members.append((item, future))
        if self.group_size is not None and len(group.members) >= self.group_size:
            self._flush(key, group)
            return await future
        if self.idle_turns is not None and not group.watched:
            group.watched = True
            loop.call_soon(self._idle_check, key, group, loop)
        if self.quiet is not None:
            # One timer per group that re-arms itself when members kept coming, not a cancel and a
            # new timer per member (a burst is ~100 members, and each timer costs a heap entry).
            group.last = loop.time()
            if group.quiet_timer is None:
                group.quiet_timer = loop.call_at(group.last + self.quiet, self._quiet_over, key, group)
        return await future

    def _idle_check(self, key: Hashable, group: _Group[Item, Result], loop: asyncio.AbstractEventLoop) -> None:
        if self._open.get(key) is not group:
            return  # sent already (size or time)
        if len(group.members) != group.seen:
            group.seen, group.idle = len(group.members), 0
        else:
            group.idle += 1
            assert self.idle_turns is not None
            if group.idle >= self.idle_turns:
                self._flush(key, group)
                return
        loop.call_soon(self._idle_check, key, group, loop)

    def _quiet_over(self, key: Hashable, group: _Group[Item, Result]) -> None:
        assert self.quiet is not None
        due = group.last + self.quiet
        loop = asyncio.get_running_loop()
        if loop.time() < due:
            group.quiet_timer = loop.call_at(due, self._quiet_over, key, group)
        else:
            self._flush(key, group)

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
