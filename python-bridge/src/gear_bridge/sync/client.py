"""The blocking client: the asyncio client run on a private event-loop thread.

The same names as ``gear_bridge.asyncio.client`` (``Client``, ``connect``), so code switches by
import path. A ``Client`` may be used from many threads at once; calls are multiplexed on its one
connection.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Mapping, Sequence

from ..asyncio.client import AsyncClient
from ..asyncio.client import connect as async_connect
from .loop_thread import LoopThread

__all__ = ["Client", "connect"]

_UNSET: Any = object()


class Client:
    """A blocking client of ``gear serve``; see :class:`gear_bridge.asyncio.client.AsyncClient`.

    Build it with :func:`connect`. Methods, arguments, results and exceptions are those of the
    asyncio client.
    """

    def __init__(self, client: AsyncClient, loop_thread: LoopThread) -> None:
        self._client = client
        self._thread = loop_thread

    @property
    def url(self) -> str:
        """The server's address."""
        return self._client.url

    @property
    def server_info(self) -> dict[str, Any] | None:
        """``server.info`` as read when the connection opened."""
        return self._client.server_info

    @property
    def connections_opened(self) -> int:
        """How many connections this client has opened (1 + reconnects)."""
        return self._client.connections_opened

    def close(self) -> None:
        """Closes the connection and stops the client's thread."""
        if self._thread.alive:
            self._thread.run(self._client.close())
            self._thread.stop()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def call(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = _UNSET) -> Any:
        """Sends one request and returns its result; see ``AsyncClient.call``.

        Raises:
            RpcError: the mapped JSON-RPC error.
            BridgeTimeout: no answer within ``timeout``.
            ConnectionLost: no connection could be had again before the reconnect deadline.
        """
        if timeout is _UNSET:
            return self._thread.run(self._client.call(method, params))
        return self._thread.run(self._client.call(method, params, timeout=timeout))

    def info(self) -> dict[str, Any]:
        """``server.info``."""
        return self._thread.run(self._client.info())

    def health(self) -> dict[str, Any]:
        """``server.health``."""
        return self._thread.run(self._client.health())

    def register_rubric(
        self,
        *,
        rubric: Mapping[str, Any] | None = None,
        reward_model: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``rubric.register``; see ``AsyncClient.register_rubric``.

        Raises:
            InvalidParams: the rubric is malformed; ``path`` names the field.
        """
        return self._thread.run(self._client.register_rubric(rubric=rubric, reward_model=reward_model, options=options))

    def score(
        self,
        scores: Mapping[str, Any],
        *,
        rubric_id: str | None = None,
        rubric: Mapping[str, Any] | None = None,
        reward_model: Mapping[str, Any] | None = None,
        aggregator: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``rubric.score``; see ``AsyncClient.score``.

        Raises:
            UnknownRubric: ``rubric_id`` is not registered (any more).
            InvalidParams: the rubric or scores are malformed.
        """
        return self._thread.run(
            self._client.score(
                scores, rubric_id=rubric_id, rubric=rubric, reward_model=reward_model, aggregator=aggregator, options=options
            )
        )

    def score_batch(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        aggregator: str | None = None,
        options: Mapping[str, Any] | None = None,
        encoding: str | None = None,
        also_aggregators: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """``rubric.scoreBatch``; see ``AsyncClient.score_batch``.

        Raises:
            UnknownRubric: some rubricId is unknown.
            LimitExceeded: too many items or bytes.
        """
        return self._thread.run(
            self._client.score_batch(items, aggregator=aggregator, options=options, encoding=encoding, also_aggregators=also_aggregators)
        )

    def host_requests(self, host: str, row: Mapping[str, Any], response: str) -> list[dict[str, Any]]:
        """``host.requests``; see ``AsyncClient.host_requests``.

        Raises:
            InvalidParams: the row is malformed for ``host``.
        """
        return self._thread.run(self._client.host_requests(host, row, response))

    def host_score(
        self,
        host: str,
        row: Mapping[str, Any],
        response: str,
        judge_outputs: Sequence[str],
        *,
        aggregator: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``host.score``; see ``AsyncClient.host_score``.

        Raises:
            InvalidParams: the row is malformed for ``host``.
        """
        return self._thread.run(
            self._client.host_score(host, row, response, judge_outputs, aggregator=aggregator, options=options)
        )

    def host_score_batch(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        host: str | None = None,
        aggregator: str | None = None,
        options: Mapping[str, Any] | None = None,
        rows: Sequence[Mapping[str, Any]] | None = None,
        also_aggregators: Sequence[str] | None = None,
        omit: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """``host.scoreBatch``; see ``AsyncClient.host_score_batch``.

        Raises:
            LimitExceeded: too many items or bytes.
        """
        return self._thread.run(
            self._client.host_score_batch(items, host=host, aggregator=aggregator, options=options, rows=rows, also_aggregators=also_aggregators, omit=omit)
        )

    def fcp(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        aggregators: Sequence[str] | None = None,
        threshold: float | None = None,
        relations: Sequence[str] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``diagnostics.fcp``; see ``AsyncClient.fcp``."""
        return self._thread.run(
            self._client.fcp(items, aggregators=aggregators, threshold=threshold, relations=relations, options=options)
        )

    def judge_score_batch(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        host: str | None = None,
        aggregator: str | None = None,
        options: Mapping[str, Any] | None = None,
        judge: Mapping[str, Any] | None = None,
        endpoints: Sequence[Mapping[str, Any]] | None = None,
        timeout: float | None = _UNSET,
        also_aggregators: Sequence[str] | None = None,
        rows: Sequence[Mapping[str, Any]] | None = None,
        omit: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """``judge.scoreBatch``; see ``AsyncClient.judge_score_batch``."""
        wait: dict[str, Any] = {} if timeout is _UNSET else {"timeout": timeout}
        return self._thread.run(
            self._client.judge_score_batch(
                items, host=host, aggregator=aggregator, options=options, judge=judge, endpoints=endpoints, also_aggregators=also_aggregators,
                rows=rows, omit=omit, **wait
            )
        )

    def judge_info(self) -> dict[str, Any]:
        """``judge.info``; see ``AsyncClient.judge_info``."""
        return self._thread.run(self._client.judge_info())


def connect(
    url: str | None = None,
    *,
    token: str | None = None,
    timeout: float | None = 30.0,
    connect_timeout: float | None = 10.0,
    reconnect_deadline: float | None = 60.0,
    max_message_bytes: int | None = 2**28,
    server_command: Sequence[str] | None = None,
    startup_timeout: float | None = 30.0,
) -> Client:
    """Opens a blocking :class:`Client` (use it as a context manager, or call ``close()``).

    Args:
        url: the server's address; None starts (once per process) an embedded ``gear serve``.
        token: the server's token.
        timeout: seconds to wait for one answer; None waits forever.
        connect_timeout: seconds to open the first connection.
        reconnect_deadline: seconds a call keeps reconnecting after its connection is lost.
        max_message_bytes: largest answer accepted; None for no limit.
        server_command: the gear command line for an embedded server.
        startup_timeout: seconds an embedded server may take to start.

    Raises:
        ConnectionLost: the server cannot be reached within ``connect_timeout``.
        EmbeddedServerError: no gear command, or it did not start.
    """
    opening = async_connect(
        url,
        token=token,
        timeout=timeout,
        connect_timeout=connect_timeout,
        reconnect_deadline=reconnect_deadline,
        max_message_bytes=max_message_bytes,
        server_command=server_command,
        startup_timeout=startup_timeout,
    )

    async def open_client() -> AsyncClient:
        return await opening

    thread = LoopThread(name="gear-bridge-client")
    try:
        client = thread.run(open_client())
    except BaseException:
        thread.stop()
        raise
    return Client(client, thread)
