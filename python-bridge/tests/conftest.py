"""Shared fixtures: the repository root and the built gear command (a real process)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "conformance" / "fixtures"
GEAR_CLI = ROOT / "dist" / "cli" / "main.js"


def read_jsonl(path: Path) -> List[Dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def run_gear(args: List[str], stdin: str) -> List[Dict[str, Any]]:
    """Runs the built `gear` command and returns its JSONL output, one dict per line."""
    completed = subprocess.run(
        ["node", str(GEAR_CLI), *args], input=stdin, capture_output=True, text=True, check=False, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    return [json.loads(line) for line in completed.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="session", autouse=True)
def built_gear() -> Path:
    """gear must be built first (scripts/test does it)."""
    if not GEAR_CLI.exists():
        pytest.fail(f"{GEAR_CLI} is missing: run scripts/setup first")
    return GEAR_CLI


# --- gear_bridge fixtures: real `gear serve` processes on port 0 -----------------------------------

import os  # noqa: E402
from typing import Iterator  # noqa: E402

from gear_bridge import EmbeddedServer  # noqa: E402

GEAR_COMMAND = ["node", str(GEAR_CLI)]


def start_server(*extra_args: str, port: int = 0, token: str | None = None) -> EmbeddedServer:
    """Starts a real `gear serve` (the built CLI) on a loopback port; the caller stops it."""
    server = EmbeddedServer(GEAR_COMMAND, port=port, token=token, extra_args=["--log-level", "warn", *extra_args])
    server.start()
    return server


@pytest.fixture(scope="session")
def server() -> Iterator[EmbeddedServer]:
    """One `gear serve` shared by the tests that only read from it (counters are read as deltas)."""
    running = start_server()
    yield running
    running.stop()


@pytest.fixture
def fresh_server() -> Iterator[EmbeddedServer]:
    """A `gear serve` of the test's own, stopped (if still running) at its end."""
    running = start_server()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def no_ambient_gear_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests set GEAR_* variables themselves; none leaks in from the environment."""
    for name in list(os.environ):
        if name.startswith("GEAR_"):
            monkeypatch.delenv(name)
