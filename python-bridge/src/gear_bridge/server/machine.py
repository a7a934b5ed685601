"""One ``gear serve`` per machine, shared by every worker process of a run.

VERL runs its reward function in several Ray worker processes per node. A server per process would
give each its own judge rate limits, answer cache and compiled rubrics; one per machine makes them
per machine. The processes meet in a run directory::

    <run_dir>/gear-<uid>/server-<key>/       key: hash of the command, token and judge settings
        lock           flock'ed while a process attaches (and by the keeper while it counts users)
        server.json    {"url", "keeper_pid", "server_pid"}: written by the keeper once it listens
        users/         one file per attached process, flock'ed by it for as long as it lives
        server.log     the server's log lines, keeper.log the keeper's

The first process to attach starts a keeper (``python -m gear_bridge.server.keeper DIR``) in its own
session: the keeper starts the server on a free loopback port, writes ``server.json``, restarts the
server on the same port if it dies, and stops it once no user file is locked any more (every user
exited or crashed). The keeper is not a child of any worker (it forks itself off, see
:mod:`gear_bridge.server.keeper`), so a worker's crash or exit does not take the server down, even
under Ray, which kills an exiting worker's children; the server is the keeper's child and gets
SIGTERM if the keeper itself is killed. A process that attaches while a live keeper is restarting
its server waits for it. If the keeper dies, the workers' clients (``AsyncClient(locate=...)``) call
:func:`machine_server_url` again when they cannot reconnect: the first starts a new keeper, the
others find it.

Several nodes: each node runs its own server this way (the run directory is node-local); every node
reaches the same judge endpoints, whose rate limits then apply per node.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import urlparse

from ..exceptions import EmbeddedServerError

__all__ = ["machine_server_url", "server_directory", "read_server_file"]

logger = logging.getLogger("gear_bridge.server.machine")

_lock = threading.Lock()
#: Keepers this process started, reaped once they end (they are meant to outlive it).
_keepers: list[int] = []
#: The user file each attached directory holds open and locked (per process; re-made after fork).
_users: dict[str, tuple[int, int]] = {}


def server_directory(run_dir: str | None, identity: Mapping[str, Any]) -> Path:
    """The directory of the machine server with this identity (command, token, judge settings)."""
    base = Path(run_dir or os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()) / f"gear-{os.getuid()}"
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()[:16]
    return base / f"server-{key}"


def read_server_file(directory: Path) -> dict[str, Any] | None:
    """``server.json`` of a directory, or None when absent or unreadable."""
    try:
        data = json.loads((directory / "server.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _connectable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or 80), timeout=2.0):
            return True
    except OSError:
        return False


def _connectable_within(url: str, keeper_pid: Any, seconds: float | None) -> bool:
    """Whether ``url`` takes connections before ``seconds`` pass, while its keeper lives."""
    deadline = time.monotonic() + (seconds if seconds is not None else 30.0)
    while True:
        if _connectable(url):
            return True
        if not _alive(keeper_pid) or time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _register_user(directory: Path) -> None:
    """Locks a user file of this process in ``directory/users`` for the rest of its life."""
    key = str(directory)
    held = _users.get(key)
    if held is not None and held[0] == os.getpid():
        return
    users = directory / "users"
    users.mkdir(parents=True, exist_ok=True)
    path = users / f"{os.getpid()}-{time.time_ns()}"
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _users[key] = (os.getpid(), fd)


def machine_server_url(*, command: Sequence[str], token: str | None, env: Mapping[str, str], extra_args: Sequence[str] = (),
                       identity: Mapping[str, Any], run_dir: str | None = None, startup_timeout: float | None = 30.0) -> str:
    """The address of this machine's server for ``identity``, starting its keeper if none runs.

    Args:
        command: the gear command line.
        token: the token the server requires (``--token``).
        env: the server's environment (the judge's ``GEAR_JUDGE_*`` variables among it).
        extra_args: more ``gear serve`` flags.
        identity: what makes two servers different (hashed into the directory name).
        run_dir: the base of the run directory (``$XDG_RUNTIME_DIR`` or the temp dir).
        startup_timeout: seconds to wait for the server to listen.

    Raises:
        EmbeddedServerError: the keeper or the server did not start; the message quotes their logs.
    """
    directory = server_directory(run_dir, identity)
    with _lock:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(directory / "lock", "a+") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            _register_user(directory)
            info = read_server_file(directory)
            if info is not None and _alive(info.get("keeper_pid")) and isinstance(info.get("url"), str):
                # A live keeper may be restarting its server on the same port: wait for it rather
                # than start a second keeper beside it.
                if _connectable_within(info["url"], info["keeper_pid"], startup_timeout):
                    return str(info["url"])
            return _start_keeper(directory, command, token, env, extra_args, startup_timeout)


def _start_keeper(directory: Path, command: Sequence[str], token: str | None, env: Mapping[str, str], extra_args: Sequence[str],
                  startup_timeout: float | None) -> str:
    (directory / "server.json").unlink(missing_ok=True)
    config = {"command": list(command), "extra_args": list(extra_args), "startup_timeout": startup_timeout}
    (directory / "keeper.json").write_text(json.dumps(config), encoding="utf-8")
    child_env = dict(env)
    if token is not None:
        child_env["GEAR_TOKEN"] = token
    package_root = str(Path(__file__).resolve().parents[2])
    child_env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, child_env.get("PYTHONPATH", "")) if p)
    log = os.open(directory / "keeper.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        pid = os.posix_spawn(
            sys.executable,
            [sys.executable, "-m", "gear_bridge.server.keeper", str(directory)],
            child_env,
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0), (os.POSIX_SPAWN_DUP2, log, 1), (os.POSIX_SPAWN_DUP2, log, 2)],
            setsid=True,  # not in the worker's process group: a worker crash leaves it running
        )
    finally:
        os.close(log)
    _reap()
    _keepers.append(pid)
    deadline = None if startup_timeout is None else time.monotonic() + startup_timeout + 5.0
    while True:
        # pid is the keeper's launcher (server_keeper forks the keeper off): it exits 0 once the keeper listens.
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            _keepers.remove(pid)
            code = os.waitstatus_to_exitcode(status)
            info = read_server_file(directory)
            if code == 0 and info is not None and isinstance(info.get("url"), str):
                logger.info("machine gear serve (keeper pid %s) listening on %s; run directory %s", info.get("keeper_pid"), info["url"], directory)
                return str(info["url"])
            raise EmbeddedServerError(f"the gear server keeper exited with code {code} before listening:\n{_tail(directory)}")
        if deadline is not None and time.monotonic() > deadline:
            os.kill(pid, 15)
            raise EmbeddedServerError(f"the gear server did not listen within {startup_timeout}s:\n{_tail(directory)}")
        time.sleep(0.02)


def _reap() -> None:
    """Collects the exit status of keepers that ended (no zombies)."""
    for pid in list(_keepers):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done == pid:
            _keepers.remove(pid)


def _tail(directory: Path) -> str:
    lines: list[str] = []
    for name in ("keeper.log", "server.log"):
        try:
            lines += (directory / name).read_text(encoding="utf-8", errors="replace").splitlines()[-10:]
        except OSError:
            pass
    return "\n".join(lines) or f"(no log in {directory})"
