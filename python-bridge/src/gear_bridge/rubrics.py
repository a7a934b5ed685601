"""Rubric registration cache: inline rubric content -> the server's ``rubricId`` (registered as the
server scores it: criterion texts as their ranks, see :meth:`GearRow.scoring_ref`).

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
from typing import TYPE_CHECKING, Any, Sequence

from .exceptions import InvalidParams, LimitExceeded, MethodNotFound
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
        #: How many rubrics this registry has sent to be registered (one by one or in batches).
        self.registrations = 0
        self._entries: collections.OrderedDict[str, Registration] = collections.OrderedDict()
        self._inflight: dict[str, asyncio.Future[Registration]] = {}
        self._generation = 0
        #: One ``rubric.registerBatch`` per batch of new rubrics; False after a server without it.
        self.batch_registration = True

    def __len__(self) -> int:
        return len(self._entries)

    def known(self, row: GearRow) -> Registration | None:
        """``row``'s registration if this registry has one (nothing is sent)."""
        entry = self._entries.get(row.key)
        if entry is not None:
            self._entries.move_to_end(row.key)
        return entry

    def remember(self, row: GearRow, info: dict[str, Any]) -> Registration:
        """Records that the server registered ``row``'s rubric as ``info["rubricId"]`` (by another method)."""
        return self._remember(row, info)

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

    async def resolve_many(self, rows: Sequence[GearRow]) -> list[Registration | InvalidParams]:
        """Each row's registration (or the server's error for its rubric); the rows not yet known go
        to the server together, in one ``rubric.registerBatch``.

        Raises:
            BridgeConnectionError: no answer could be had.
        """
        missing: dict[str, GearRow] = {}
        for row in rows:
            if row.key not in self._entries and (row.key not in self._inflight or self._inflight[row.key].done()):
                missing.setdefault(row.key, row)
        if len(missing) > 1 and self.batch_registration:
            loop = asyncio.get_running_loop()
            futures = {key: loop.create_future() for key in missing}
            for key, future in futures.items():
                self._inflight[key] = future
                future.add_done_callback(self._done)
            # A task of its own, as in resolve: a cancelled caller does not fail the others.
            asyncio.ensure_future(self._register_batch(list(missing.values()), futures))
        return list(await asyncio.gather(*(self._resolve_or_error(row) for row in rows)))

    async def _resolve_or_error(self, row: GearRow) -> Registration | InvalidParams:
        try:
            return await self.resolve(row)
        except InvalidParams as error:
            return error

    async def _register_batch(self, rows: list[GearRow], futures: dict[str, asyncio.Future[Registration]]) -> None:
        try:
            try:
                results = await self.client.register_rubrics([row.scoring_ref() for row in rows])
            except MethodNotFound:
                logger.info("the server has no rubric.registerBatch; registering rubrics one by one")
                self.batch_registration = False  # an older server
                outcomes = await asyncio.gather(*(self._register(row) for row in rows), return_exceptions=True)
                for row, outcome in zip(rows, outcomes):
                    if isinstance(outcome, BaseException):
                        futures[row.key].set_exception(outcome)
                    else:
                        futures[row.key].set_result(outcome)
                return
            self.registrations += len(rows)
            for row, result in zip(rows, results):
                future = futures[row.key]
                if "error" in result:
                    error = dict(result["error"])
                    path = list(error.get("path", []))[2:]  # ["items", i, ...] -> the rubric's own field
                    if error.get("code") == "limit_exceeded":
                        raise LimitExceeded(-32002, str(error.get("message", "")), error.get("data"), method="rubric.registerBatch")
                    message = str(error.get("message", ""))
                    future.set_exception(InvalidParams(-32602, message, {"code": error.get("code"), "path": path}, method="rubric.registerBatch"))
                    continue
                future.set_result(self._remember(row, result))
        except BaseException as error:
            for future in futures.values():
                if not future.done():
                    future.set_exception(error)
            if not isinstance(error, Exception):
                raise

    def _done(self, task: asyncio.Future[Registration]) -> None:
        for key, inflight in list(self._inflight.items()):
            if inflight is task:
                del self._inflight[key]

    async def _register(self, row: GearRow) -> Registration:
        self.registrations += 1
        return self._remember(row, await self.client.register_rubric(**row.scoring_ref()))

    def _remember(self, row: GearRow, info: dict[str, Any]) -> Registration:
        """Records a ``rubric.register`` result as ``row``'s registration (dropping the oldest beyond ``max_rubrics``)."""
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
