"""The public names: one list per module, the same names in the asyncio and sync shells."""
from __future__ import annotations

import importlib

import gear_bridge
import gear_bridge.asyncio.client
import gear_bridge.sync.client


def test_every_public_name_resolves() -> None:
    """Each name in gear_bridge.__all__ is an attribute of the package."""
    missing = [name for name in gear_bridge.__all__ if not hasattr(gear_bridge, name)]
    assert missing == []


def test_asyncio_and_sync_share_names() -> None:
    """asyncio.client and sync.client both export Client and connect, so code switches by import path."""
    assert {"Client", "connect"} <= set(gear_bridge.asyncio.client.__all__)
    assert {"Client", "connect"} <= set(gear_bridge.sync.client.__all__)
    assert gear_bridge.AsyncClient is gear_bridge.asyncio.client.Client
    assert gear_bridge.Client is gear_bridge.sync.client.Client


def test_modules_declare_their_api() -> None:
    """Every module of the package declares __all__ and each listed name exists."""
    for name in (
        "protocol", "exceptions", "settings", "rows", "judge", "scoring", "server", "server.embedded", "server.machine",
        "asyncio.client", "sync.client", "convert", "verl.reward_fn", "verl.batch", "verl.reward_manager", "verl.coalescer",
    ):
        module = importlib.import_module(f"gear_bridge.{name}")
        assert [n for n in module.__all__ if not hasattr(module, n)] == [], name
