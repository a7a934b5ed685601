"""The blocking client (``gear_bridge.asyncio`` has the same names, for asyncio)."""

from .client import Client, connect

__all__ = ["Client", "connect"]
