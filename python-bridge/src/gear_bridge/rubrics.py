"""Rubric registration cache: inline rubric content -> the server's ``rubricId``.

Each distinct rubric is registered once per connection (concurrent first uses share one
``rubric.register``); calls then refer to it by id. The server may forget an id (it restarted, or
evicted it from its LRU): the caller gets -32001 and calls :meth:`RubricRegistry.invalidate`, and the
next :meth:`RubricRegistry.resolve` registers it again. Generations keep a stale failure from
discarding a registration that is newer than the failed request.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .rows import GearRow

if TYPE_CHECKING:
    from .asyncio.client import AsyncClient

__all__ = ["Registration", "RubricRegistry"]

logger = logging.getLogger("gear_bridge.rubrics")


@dataclass(frozen=True)
class Registration:
    """A rubric's id on the server, as of one registration (``generation``)."""

    key: str
    rubric_id: str
    generation: int
    #: The ``rubric.register`` result (size, ids, compile report).
    info: dict[str, Any]


class RubricRegistry:
    """Maps rubric content to ``rubricId`` for one client; an LRU of at most ``max_rubrics`` entries.

    Args:
        client: the client to register through.
        max_rubrics: entries kept (least recently used are dropped, then registered again on use);
            None keeps all.
    """

    def __init__(self, client: AsyncClient, *, max_rubrics: int | None = 10000) -> None:
        self.client = client
        self.max_rubrics = max_rubrics
        #: How many ``rubric.register`` requests this registry has sent.
        self.registrations = 0
        self._entries: collections.OrderedDict[str, Registration] = collections.OrderedDict()
        self._inflight: dict[str, asyncio.Future[Registration]] = {}
        self._generation = 0

    def __len__(self) -> int:
        return len(self._entries)

    async def resolve(self, row: GearRow) -> Registration:
        """The registration of ``row``'s rubric, registering it first if needed.

        Raises:
            InvalidParams: the server rejected the rubric (``path`` under ``rubric`` / ``reward_model``).
            BridgeConnectionError: no answer could be had.
        """
        entry = self._entries.get(row.key)
        if entry is not None:
            self._entries.move_to_end(row.key)
            return entry
        task = self._inflight.get(row.key)
        if task is None or task.done():
            # A task of its own: a caller cancelled mid-registration does not fail the others.
            task = asyncio.ensure_future(self._register(row))
            self._inflight[row.key] = task
            task.add_done_callback(self._done)
        return await asyncio.shield(task)

    def _done(self, task: asyncio.Future[Registration]) -> None:
        for key, inflight in list(self._inflight.items()):
            if inflight is task:
                del self._inflight[key]

    async def _register(self, row: GearRow) -> Registration:
        self.registrations += 1
        info = await self.client.register_rubric(**row.rubric_ref())
        self._generation += 1
        entry = Registration(row.key, str(info["rubricId"]), self._generation, info)
        self._entries[row.key] = entry
        if self.max_rubrics is not None:
            while len(self._entries) > self.max_rubrics:
                self._entries.popitem(last=False)
        return entry

    def invalidate(self, registration: Registration) -> None:
        """Forgets ``registration`` (the server answered -32001 for its id), unless it was renewed since."""
        entry = self._entries.get(registration.key)
        if entry is not None and entry.generation == registration.generation:
            logger.info("rubric %s unknown to the server; registering again", registration.rubric_id)
            del self._entries[registration.key]
