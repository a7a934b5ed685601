"""gear_bridge: Python access to gear (GEAR rubric-reward aggregation) over its JSON-RPC service.

- ``gear_bridge.asyncio`` / ``gear_bridge.sync``: ``connect`` and ``Client`` (the same names; the
  asyncio ``Client`` is also exported here as ``AsyncClient``).
- ``gear_bridge.verl``: ``compute_score`` (reward loop), ``compute_score_batched`` (legacy batch
  manager), ``GearRewardManager`` (one request per GRPO group).
- ``gear_bridge.convert``: HealthBench and official GEAR datasets to VERL rows.
- ``gear_bridge.rows``: the VERL row layout (``extra_info["gear"]``, ``extra_info["gear_judgments"]``).
"""

from .asyncio.client import AsyncClient
from .server import EmbeddedServer, find_server_command
from .exceptions import (
    BridgeConnectionError,
    BridgeTimeout,
    ConfigError,
    ConnectionLost,
    EmbeddedServerError,
    GearBridgeError,
    InvalidParams,
    LimitExceeded,
    MethodNotFound,
    RowError,
    RpcError,
    ServerError,
    ServerShuttingDown,
    UnknownRubric,
)
from .judge import Judge, JudgeCall
from .protocol import PROTOCOL_VERSION, ClientProtocol
from .rows import GearRow, JudgeScores, parse_row
from .scoring import SCORE_KEYS, Score, Scorer, ScoreRequest
from .settings import Settings, load_settings
from .sync.client import Client, connect

__version__ = "0.1.0"

__all__ = [
    # Clients
    "AsyncClient",
    "Client",
    "connect",
    "ClientProtocol",
    "PROTOCOL_VERSION",
    "EmbeddedServer",
    "find_server_command",
    # Scoring
    "Settings",
    "load_settings",
    "GearRow",
    "JudgeScores",
    "parse_row",
    "Judge",
    "JudgeCall",
    "Scorer",
    "ScoreRequest",
    "Score",
    "SCORE_KEYS",
    # Exceptions
    "GearBridgeError",
    "RpcError",
    "InvalidParams",
    "MethodNotFound",
    "LimitExceeded",
    "UnknownRubric",
    "ServerError",
    "ServerShuttingDown",
    "BridgeConnectionError",
    "ConnectionLost",
    "BridgeTimeout",
    "EmbeddedServerError",
    "ConfigError",
    "RowError",
]
