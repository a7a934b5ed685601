"""The asyncio client (``gear_bridge.sync`` has the same names, blocking)."""

from .client import AsyncClient, Client, connect

__all__ = ["AsyncClient", "Client", "connect"]
