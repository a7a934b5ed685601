"""The embedded server: finding the gear command, starting on a free port, stopping at exit."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import GEAR_CLI, GEAR_COMMAND
from gear_bridge import EmbeddedServer, EmbeddedServerError, find_server_command
from gear_bridge.server.embedded import SERVER_NODE_OPTIONS, server_environment
from gear_bridge.sync import connect


def test_command_from_environment_variable() -> None:
    """GEAR_SERVER_COMMAND is shell-split and wins over everything else."""
    assert find_server_command({"GEAR_SERVER_COMMAND": f"node '{GEAR_CLI}'", "PATH": os.environ["PATH"]}) == ["node", str(GEAR_CLI)]


def test_command_next_to_python_then_path(tmp_path: Path) -> None:
    """Without the variable, the venv's gear launcher (next to sys.executable) is used, else gear on PATH."""
    beside = Path(sys.executable).parent / "gear"
    assert beside.is_file(), "scripts/setup puts a gear launcher in .venv/bin"
    assert find_server_command({"PATH": ""}) == [str(beside)]


def test_missing_command_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no gear anywhere, the error says how to configure one."""
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    with pytest.raises(EmbeddedServerError, match="GEAR_BRIDGE_URL"):
        find_server_command({"PATH": str(tmp_path)})
    with pytest.raises(EmbeddedServerError, match="not an executable"):
        find_server_command({"GEAR_SERVER_COMMAND": "no-such-gear-binary", "PATH": str(tmp_path)})


def test_server_starts_on_a_free_port_and_stops() -> None:
    """A server started on port 0 reports its address, answers, and exits 0 on stop (SIGTERM)."""
    server = EmbeddedServer(GEAR_COMMAND)
    url = server.start()
    assert url.startswith("ws://127.0.0.1:") and server.port > 0 and server.running
    with connect(url) as client:
        assert client.health()["status"] == "ok"
    assert server.stop() == 0
    assert not server.running


def test_server_environment_sizes_the_young_generation_unless_node_options_does() -> None:
    """The server's NODE_OPTIONS gets the semi-space size added after the user's own options; a
    NODE_OPTIONS that sizes the semi-space itself is left as it is; nothing else changes."""
    assert server_environment({"PATH": "/bin"}) == {"PATH": "/bin", "NODE_OPTIONS": SERVER_NODE_OPTIONS}
    assert server_environment({"NODE_OPTIONS": "--no-warnings"})["NODE_OPTIONS"] == f"--no-warnings {SERVER_NODE_OPTIONS}"
    own = {"NODE_OPTIONS": "--max-semi-space-size=8 --no-warnings", "A": "1"}
    assert server_environment(own) == own
    assert "NODE_OPTIONS" not in os.environ or server_environment()["NODE_OPTIONS"].startswith(os.environ["NODE_OPTIONS"])


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads the process environment from /proc")
def test_started_server_runs_with_the_young_generation_size() -> None:
    """The real server process gets the NODE_OPTIONS, and node accepts it there (the server listens)."""
    server = EmbeddedServer(GEAR_COMMAND, env={**os.environ, "NODE_OPTIONS": ""})
    server.start()
    try:
        assert server.pid is not None
        environ = Path(f"/proc/{server.pid}/environ").read_bytes().split(b"\0")
        assert f"NODE_OPTIONS={SERVER_NODE_OPTIONS}".encode() in environ
        with connect(server.url or "") as client:  # serving (and past setting up its signal handlers)
            assert client.health()["status"] == "ok"
    finally:
        assert server.stop() == 0  # drained on SIGTERM: the handlers were set before it served


def test_a_server_that_fails_to_start_is_reported_with_its_log() -> None:
    """A command that exits before listening raises EmbeddedServerError quoting its stderr."""
    server = EmbeddedServer(["node", "-e", "console.error('cannot start: boom'); process.exit(3)"], startup_timeout=20)
    with pytest.raises(EmbeddedServerError, match="(?s)code 3.*boom"):
        server.start()


def test_shared_server_is_reused_and_stopped_at_exit(tmp_path: Path) -> None:
    """Two clients of a process share one embedded server, which is gone once the process exits."""
    script = textwrap.dedent(
        """
        import sys
        from gear_bridge.server.embedded import shared_server_url, _shared
        from gear_bridge.sync import connect
        with connect() as a, connect() as b:
            assert a.url == b.url, (a.url, b.url)
            assert a.health()["connections"] == 2
        import gear_bridge.server.embedded as es
        print(es._shared.pid, flush=True)
        """
    )
    env = {**os.environ, "GEAR_SERVER_COMMAND": f"node {GEAR_CLI}"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.strip())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
