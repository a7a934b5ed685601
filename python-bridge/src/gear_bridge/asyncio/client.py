"""The asyncio client: one WebSocket, many concurrent calls multiplexed by id, reconnect and resend.

All frames are built and read by :class:`gear_bridge.protocol.ClientProtocol`; this module only moves
them. Every method of the protocol is idempotent, so a call whose connection is lost is resent on the
next connection (same id, same bytes) until ``reconnect_deadline``; JSON-RPC errors are never retried
(except -32004, the server draining before a restart).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import struct
from types import TracebackType
from typing import Any, Awaitable, Callable, Generator, Mapping, Sequence

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from ..exceptions import (
    BridgeConnectionError,
    BridgeTimeout,
    ConnectionLost,
    GearBridgeError,
    ServerShuttingDown,
)
from ..protocol import PROTOCOL_VERSION, ClientProtocol, Reply, Request

__all__ = ["AsyncClient", "Client", "connect"]

logger = logging.getLogger("gear_bridge.asyncio.client")

_UNSET: Any = object()
_INITIAL_BACKOFF = 0.05
_MAX_BACKOFF = 1.0
# websockets 15 reads proxy settings from the environment; a loopback service is always direct.
_PROXY_KWARGS: dict[str, Any] = {"proxy": None} if "proxy" in inspect.signature(ws_connect.__init__).parameters else {}
#: The client's own random numbers (reconnect jitter, keepalive ping payloads). The process's global
#: ``random`` belongs to the trainer, which may seed it for a run it can repeat: this client runs on
#: background threads and must not move it.
_RANDOM = random.Random()


class _Connection(ClientConnection):
    """websockets' client connection, with keepalive pings whose payload comes from :data:`_RANDOM`
    (websockets draws it from the global ``random``, every ``ping_interval``)."""

    async def ping(self, data: Any = None) -> Awaitable[Any]:
        if data is None:  # as websockets picks it: four random bytes no pong is awaited for
            data = struct.pack("!I", _RANDOM.getrandbits(32))
            while data in self.pong_waiters:
                data = struct.pack("!I", _RANDOM.getrandbits(32))
        return await super().ping(data)


class _Link:
    """One open WebSocket and the calls waiting for an answer on it."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.waiters: dict[int, asyncio.Future[Reply]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.lost = False


class AsyncClient:
    """A client of ``gear serve`` for one event loop; safe for any number of concurrent calls.

    Args:
        url: the server's address, e.g. ``ws://127.0.0.1:8765/``.
        token: sent as ``Authorization: Bearer <token>`` in the handshake.
        timeout: seconds to wait for the answer to one request (per attempt); None waits forever.
        connect_timeout: seconds to open the first connection (retrying refused connections).
        reconnect_deadline: seconds a call keeps reconnecting and resending after losing its
            connection; None retries forever.
        max_message_bytes: largest answer frame accepted; None for no limit.
        locate: where the server is now, asked (on a worker thread: it may block, e.g. to start a
            server) when a lost connection cannot be opened again at ``url``; the client moves to
            the address it returns. None keeps ``url``. For servers that can come back elsewhere,
            e.g. a machine server whose keeper died and was replaced by another worker's.
    """

    def __init__(self, url: str, *, token: str | None = None, timeout: float | None = 30.0, connect_timeout: float | None = 10.0,
                 reconnect_deadline: float | None = 60.0, max_message_bytes: int | None = 2**28,
                 locate: Callable[[], str] | None = None) -> None:
        self.url = url
        self.locate = locate
        self.token = token
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.reconnect_deadline = reconnect_deadline
        self.max_message_bytes = max_message_bytes
        self.protocol = ClientProtocol()
        self.server_info: dict[str, Any] | None = None
        #: How many connections this client has opened (1 + reconnects).
        self.connections_opened = 0
        self._link: _Link | None = None
        self._lock: asyncio.Lock | None = None
        self._closed = False

    # Lifecycle

    async def open(self) -> AsyncClient:
        """Opens the connection now (calls open it on demand otherwise) and reads ``server.info``.

        Raises:
            ConnectionLost: the server cannot be reached within ``connect_timeout``.
            BridgeConnectionError: the handshake was refused (e.g. a wrong token).
        """
        await self._connection(None)
        return self

    async def close(self) -> None:
        """Closes the connection; pending calls fail with ConnectionLost."""
        self._closed = True
        link, self._link = self._link, None
        if link is not None:
            await self._drop(link, "client closed")

    async def __aenter__(self) -> AsyncClient:
        return await self.open()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        """Whether a connection is open right now."""
        return self._link is not None and not self._link.lost

    # Calls

    async def call(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = _UNSET) -> Any:
        """Sends one request and returns its result, reconnecting and resending if the connection drops.

        Args:
            method: a ``noun.verb`` method of the service (python-bridge/service/README.md).
            params: its named params.
            timeout: overrides the client's per-request timeout (None waits forever).

        Raises:
            InvalidParams: a param is malformed (NaN/Infinity are refused before sending).
            LimitExceeded: the request is over a server limit (checked locally for the payload size).
            RpcError: any other JSON-RPC error, mapped to its subclass.
            BridgeTimeout: no answer within ``timeout``.
            ConnectionLost: no connection could be had again before ``reconnect_deadline``.
        """
        if self._closed:
            raise ConnectionLost(f"client for {self.url} is closed")
        wait = self.timeout if timeout is _UNSET else timeout
        loop = asyncio.get_running_loop()
        link: _Link | None = await self._connection(None)
        request = self.protocol.build_request(method, params)
        deadline: float | None = None
        try:
            while True:
                try:
                    if link is None:
                        link = await self._connection(deadline)
                    reply = await self._roundtrip(link, request, wait)
                    return reply.unwrap()
                except (ConnectionLost, ServerShuttingDown) as error:
                    if self._closed:
                        raise ConnectionLost(f"client for {self.url} is closed") from error
                    if deadline is None:
                        deadline = loop.time() + self.reconnect_deadline if self.reconnect_deadline is not None else float("inf")
                    if loop.time() >= deadline:
                        raise ConnectionLost(
                            f"{method}: connection to {self.url} lost and not regained within {self.reconnect_deadline}s"
                        ) from error
                    logger.info("%s (id %d): %s; reconnecting to resend", method, request.id, error)
                    if isinstance(error, ServerShuttingDown) and link is not None:
                        await self._drop(link, "server shutting down")
                    link = None
        finally:
            self.protocol.forget(request.id)

    async def _roundtrip(self, link: _Link, request: Request, timeout: float | None) -> Reply:
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self.protocol.expect(request)  # again pending, for a resend after an answer such as -32004
        link.waiters[request.id] = future
        try:
            if link.lost:
                raise ConnectionLost("connection closed")
            try:
                await link.ws.send(request.frame, text=True)  # UTF-8 already: no second encoding
            except ConnectionClosed as error:
                raise ConnectionLost(f"connection closed while sending: {error}") from error
            try:
                return await asyncio.wait_for(future, timeout)
            except asyncio.TimeoutError:
                raise BridgeTimeout(f"{request.method}: no answer from {self.url} within {timeout}s") from None
        finally:
            link.waiters.pop(request.id, None)

    # Connection management

    async def _connection(self, deadline: float | None) -> _Link:
        link = self._link
        if link is not None and not link.lost:
            return link
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            link = self._link
            if link is not None and not link.lost:
                return link
            if self._closed:
                raise ConnectionLost(f"client for {self.url} is closed")
            self._link = await self._open_link(deadline)
            return self._link

    async def _open_link(self, deadline: float | None) -> _Link:
        loop = asyncio.get_running_loop()
        if deadline is None:
            limit = self.connect_timeout if self.connections_opened == 0 else self.reconnect_deadline
            deadline = loop.time() + limit if limit is not None else float("inf")
        headers = {"Authorization": f"Bearer {self.token}"} if self.token is not None else None
        backoff = _INITIAL_BACKOFF
        attempt = 0
        while True:
            attempt += 1
            remaining = deadline - loop.time()
            open_timeout = min(remaining, self.connect_timeout if self.connect_timeout is not None else remaining)
            try:
                ws = await ws_connect(
                    self.url,
                    additional_headers=headers,
                    open_timeout=max(0.1, open_timeout) if open_timeout != float("inf") else None,
                    max_size=self.max_message_bytes,
                    compression=None,
                    create_connection=_Connection,
                    **_PROXY_KWARGS,
                )
                break
            except InvalidStatus as error:
                status = error.response.status_code
                if status in (401, 403):
                    raise BridgeConnectionError(f"{self.url} refused the handshake (HTTP {status}): check the token (GEAR_TOKEN)") from None
                failure: Exception = error
            except (OSError, InvalidHandshake, asyncio.TimeoutError) as error:
                failure = error
            if self.locate is not None and self.connections_opened > 0 and await self._moved():
                continue  # the server is elsewhere now: try there at once
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise ConnectionLost(f"cannot connect to {self.url} after {attempt} attempt(s): {failure}") from failure
            logger.debug("connect to %s failed (%s); retrying in %.2fs", self.url, failure, backoff)
            await asyncio.sleep(min(backoff * (0.5 + _RANDOM.random()), remaining))
            backoff = min(backoff * 2, _MAX_BACKOFF)
        link = _Link(ws)
        link.reader = asyncio.create_task(self._read(link), name=f"gear-bridge-reader-{self.url}")
        self.connections_opened += 1
        if self.connections_opened > 1:
            logger.info("reconnected to %s (connection %d)", self.url, self.connections_opened)
        request = self.protocol.build_request("server.info")
        try:
            self._check_server((await self._roundtrip(link, request, self.timeout)).unwrap())
        except BaseException:
            await self._drop(link, "server.info failed")
            raise
        finally:
            self.protocol.forget(request.id)
        return link

    async def _moved(self) -> bool:
        """Asks ``locate`` where the server is; True when that is a new address (now ``url``)."""
        assert self.locate is not None
        try:
            url = await asyncio.get_running_loop().run_in_executor(None, self.locate)
        except Exception as error:  # locating may fail in many ways; the retries go on at the old address
            logger.warning("locating the gear server again failed (%s); still retrying %s", error, self.url)
            return False
        if url == self.url:
            return False
        logger.warning("the gear server moved from %s to %s; reconnecting there", self.url, url)
        self.url = url
        return True

    def _check_server(self, info: Any) -> None:
        if not isinstance(info, dict) or info.get("protocol") != PROTOCOL_VERSION:
            got = info.get("protocol") if isinstance(info, dict) else info
            raise GearBridgeError(f"{self.url} speaks protocol {got!r}; gear_bridge speaks {PROTOCOL_VERSION}")
        self.server_info = info
        limits = info.get("limits")
        if isinstance(limits, dict) and isinstance(limits.get("maxPayloadBytes"), int):
            self.protocol.max_payload_bytes = limits["maxPayloadBytes"]

    async def _read(self, link: _Link) -> None:
        reason = "connection closed"
        try:
            async for frame in link.ws:
                for reply in self.protocol.receive(frame):
                    future = link.waiters.get(reply.id)
                    if future is not None and not future.done():
                        future.set_result(reply)
        except ConnectionClosed as error:
            reason = f"connection closed: {error}"
        except asyncio.CancelledError:
            # Cancelled by close(), or because the event loop is ending (asyncio.run cancels every
            # task): either way the socket must not outlive its loop.
            reason = "client closed"
            link.ws.transport.abort()
            raise
        except Exception as error:  # a bug in reading must not leave calls waiting forever
            logger.exception("reader for %s failed", self.url)
            reason = f"reader failed: {error!r}"
        finally:
            self._fail_waiters(link, reason)

    def _fail_waiters(self, link: _Link, reason: str) -> None:
        link.lost = True
        if self._link is link:
            self._link = None
        for future in list(link.waiters.values()):
            if not future.done():
                future.set_exception(ConnectionLost(reason))

    async def _drop(self, link: _Link, reason: str) -> None:
        self._fail_waiters(link, reason)
        try:
            await link.ws.close()
        except Exception:  # closing a dead socket may fail in many ways; it is gone either way
            pass
        if link.reader is not None and link.reader is not asyncio.current_task():
            link.reader.cancel()
            try:
                await link.reader
            except (asyncio.CancelledError, Exception):
                pass

    # The methods of the service (python-bridge/service/README.md): keyword arguments in snake_case
    # become its camelCase params; None leaves a param out (the server's default).

    async def info(self) -> dict[str, Any]:
        """``server.info``: name, version, protocol, aggregators, hosts and limits."""
        return dict(await self.call("server.info"))

    async def health(self) -> dict[str, Any]:
        """``server.health``: status, uptime, cached rubrics, connections and request counters."""
        return dict(await self.call("server.health"))

    async def register_rubric(self, *, rubric: Mapping[str, Any] | None = None, reward_model: Mapping[str, Any] | None = None,
                              options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``rubric.register``: compiles a canonical ``rubric`` or official ``reward_model``; ``{rubricId, size, ids, report, cached}``.

        Raises:
            InvalidParams: the rubric is malformed; ``path`` names the field.
        """
        return dict(await self.call("rubric.register", _params(_ref(None, rubric, reward_model), options=options)))

    async def register_rubrics(self, items: Sequence[Mapping[str, Any]], *, options: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """``rubric.registerBatch``: ``{rubric}`` / ``{reward_model}`` items; one result (or ``{index, error}``) per item."""
        return _results(await self.call("rubric.registerBatch", _params({"items": list(items)}, options=options)))

    async def score(self, scores: Mapping[str, Any], *, rubric_id: str | None = None, rubric: Mapping[str, Any] | None = None,
                    reward_model: Mapping[str, Any] | None = None, aggregator: str | None = None,
                    options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``rubric.score``: one response's judge scores ``{"p": [...], "d": [...]}``; ``{reward, method, effective, flat}``.

        Raises:
            UnknownRubric: ``rubric_id`` is not registered (any more).
            InvalidParams: the rubric or scores are malformed.
        """
        params = _params(_ref(rubric_id, rubric, reward_model), scores=scores, aggregator=aggregator, options=options)
        return dict(await self.call("rubric.score", params))

    async def score_batch(self, items: Sequence[Mapping[str, Any]], *, aggregator: str | None = None, options: Mapping[str, Any] | None = None,
                          encoding: str | None = None, also_aggregators: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """``rubric.scoreBatch``: ``{rubricId | rubric | reward_model, scores}`` items; ``encoding="float64-base64"``
        when every ``scores.p`` is :func:`~gear_bridge.protocol.encode_float64`'s. One result per item."""
        params = _params({"items": list(items)}, aggregator=aggregator, options=options, encoding=encoding, also_aggregators=also_aggregators)
        return _results(await self.call("rubric.scoreBatch", params))

    async def host_requests(self, host: str, row: Mapping[str, Any], response: str) -> list[dict[str, Any]]:
        """``host.requests``: the judge requests the host would send for ``response``."""
        result = await self.call("host.requests", {"host": host, "row": row, "response": response})
        return list(result["requests"])

    async def host_score(self, host: str, row: Mapping[str, Any], response: str, judge_outputs: Sequence[str], *,
                         aggregator: str | None = None, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``host.score``: the judge's raw outputs for one response -> reward, native reward, judgments."""
        params = _params({"host": host, "row": row, "response": response, "judgeOutputs": list(judge_outputs)}, aggregator=aggregator,
                         options=options)
        return dict(await self.call("host.score", params))

    async def host_score_batch(self, items: Sequence[Mapping[str, Any]], *, host: str | None = None, aggregator: str | None = None,
                               options: Mapping[str, Any] | None = None, rows: Sequence[Mapping[str, Any]] | None = None,
                               also_aggregators: Sequence[str] | None = None, omit: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """``host.scoreBatch``: ``{host?, row | rowIndex, response, judgeOutputs}`` items (``rows``: the rows
        they name by index, sent once); one result per item, ``{index, error}`` for a bad one."""
        params = _params({"items": list(items)}, host=host, aggregator=aggregator, options=options, rows=rows,
                         also_aggregators=also_aggregators, omit=omit)
        return _results(await self.call("host.scoreBatch", params))

    async def fcp(self, items: Sequence[Mapping[str, Any]], *, aggregators: Sequence[str] | None = None, threshold: float | None = None,
                  relations: Sequence[str] | None = None, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``diagnostics.fcp``: false-credit-propagation leakage and preservation per aggregator."""
        params = _params({"items": list(items)}, aggregators=aggregators, threshold=threshold, relations=relations, options=options)
        return dict(await self.call("diagnostics.fcp", params))

    async def judge_score_batch(self, items: Sequence[Mapping[str, Any]], *, host: str | None = None, aggregator: str | None = None,
                                options: Mapping[str, Any] | None = None, judge: Mapping[str, Any] | None = None,
                                endpoints: Sequence[Mapping[str, Any]] | None = None, timeout: float | None = _UNSET,
                                also_aggregators: Sequence[str] | None = None, rows: Sequence[Mapping[str, Any]] | None = None,
                                omit: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """``judge.scoreBatch``: the service judges each ``{host?, row | rowIndex, response, id?}`` with its
        LLM judge (or ``endpoints``) and scores it; ``judge``: judge options; ``omit``: result fields
        not to send back (``judgments``, ``extras``, ``outputs``). One result per item.

        Raises:
            InvalidParams: the server has no judge and the call names no endpoints (path ``endpoints``).
        """
        params = _params({"items": list(items)}, host=host, aggregator=aggregator, options=options, judge=judge, endpoints=endpoints,
                         also_aggregators=also_aggregators, rows=rows, omit=omit)
        return _results(await self.call("judge.scoreBatch", params, timeout=timeout))

    async def judge_info(self) -> dict[str, Any]:
        """``judge.info``: ``{configured: false}``, or the server judge's endpoints, cache and totals."""
        return dict(await self.call("judge.info"))


#: The same name in ``gear_bridge.asyncio`` and ``gear_bridge.sync``: switch by import path.
Client = AsyncClient


def _ref(rubric_id: str | None, rubric: Mapping[str, Any] | None, reward_model: Mapping[str, Any] | None) -> dict[str, Any]:
    given = {k: v for k, v in (("rubricId", rubric_id), ("rubric", rubric), ("reward_model", reward_model)) if v is not None}
    if len(given) != 1:
        raise TypeError("give exactly one of rubric_id, rubric, reward_model")
    return given


def _params(params: dict[str, Any], **named: Any) -> dict[str, Any]:
    """``params`` with the ``named`` values that are not None, under their camelCase names."""
    for name, value in named.items():
        if value is not None:
            head, *rest = name.split("_")
            params[head + "".join(part.title() for part in rest)] = list(value) if isinstance(value, (list, tuple)) else value
    return params


def _results(result: Any) -> list[dict[str, Any]]:
    return list(result["results"])


class connect:
    """Opens an :class:`AsyncClient`; await it, or use it as ``async with connect(...) as client``.

    Args:
        url: the server's address; None starts (once per process) an embedded ``gear serve`` on a
            free loopback port, stopped at exit.
        server_command: the command that runs gear, for the embedded server (see
            :func:`gear_bridge.server.embedded.find_server_command`).
        startup_timeout: seconds the embedded server may take to start.
        **client: ``token``, ``timeout``, ``connect_timeout``, ``reconnect_deadline``,
            ``max_message_bytes``: as for :class:`AsyncClient` (the token also for an embedded server).

    Raises:
        ConnectionLost: the server cannot be reached within ``connect_timeout``.
        EmbeddedServerError: no gear command, or it did not start.
    """

    def __init__(self, url: str | None = None, *, server_command: Sequence[str] | None = None, startup_timeout: float | None = 30.0,
                 **client: Any) -> None:
        self._url = url
        self._server_command = tuple(server_command) if server_command is not None else None
        self._startup_timeout = startup_timeout
        self._kwargs = client
        self._client: AsyncClient | None = None

    async def _open(self) -> AsyncClient:
        url = self._url
        if url is None:
            from ..server.embedded import shared_server_url

            token = self._kwargs.get("token")
            url = await asyncio.get_running_loop().run_in_executor(
                None, lambda: shared_server_url(command=self._server_command, token=token, startup_timeout=self._startup_timeout))
        client = AsyncClient(url, **self._kwargs)
        await client.open()
        return client

    def __await__(self) -> Generator[Any, None, AsyncClient]:
        return self._open().__await__()

    async def __aenter__(self) -> AsyncClient:
        self._client = await self._open()
        return self._client

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._client is not None:
            await self._client.close()
