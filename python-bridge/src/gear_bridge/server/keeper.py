"""``python -m gear_bridge.server.keeper DIR``: keeps one machine server alive while it has users.

Started by :func:`gear_bridge.server.machine.machine_server_url` in a session of its own. It first
forks: the keeper proper is the child, and the started process only waits until that child listens
(exit 0) or fails (its exit code), then exits. So the keeper is no child of the worker that started it:
Ray kills a worker's child processes when the worker exits (``RAY_kill_child_processes_on_worker_exit``,
on by default), which would take the server away from the other workers. The keeper starts
``gear serve`` on a free loopback port (configuration in ``DIR/keeper.json``, environment
inherited), writes ``DIR/server.json``, restarts the server on the same port if it exits, and,
once no file in ``DIR/users`` is locked by a live process for ``GRACE`` seconds, stops the server,
removes ``server.json`` and exits. SIGTERM stops it the same way.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from .embedded import EmbeddedServer

__all__ = ["main", "live_users"]

#: Seconds without a live user before the server stops.
GRACE = 1.0
_POLL = 0.25


def live_users(directory: Path) -> int:
    """How many user files are still locked by a live process; files of dead ones are removed."""
    live = 0
    users = directory / "users"
    for path in users.iterdir() if users.is_dir() else ():
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            live += 1  # its process holds the lock: alive
        else:
            path.unlink(missing_ok=True)  # nobody holds it: that process is gone
        finally:
            os.close(fd)
    return live


def _write_server_file(directory: Path, server: EmbeddedServer) -> None:
    data = {"url": server.url, "keeper_pid": os.getpid(), "server_pid": server.pid}
    temporary = directory / f"server.json.{os.getpid()}"
    temporary.write_text(json.dumps(data), encoding="utf-8")
    temporary.replace(directory / "server.json")


def _wait_listening(directory: Path, keeper: int) -> int:
    """The started process: 0 once ``keeper`` wrote server.json, else its exit code (SIGTERM is passed on)."""
    signal.signal(signal.SIGTERM, lambda signum, frame: os.kill(keeper, signal.SIGTERM))
    while True:
        try:
            info = json.loads((directory / "server.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = None
        if isinstance(info, dict) and info.get("keeper_pid") == keeper:
            return 0
        done, status = os.waitpid(keeper, os.WNOHANG)
        if done == keeper:
            return os.waitstatus_to_exitcode(status) or 1
        time.sleep(0.02)


def main(argv: list[str]) -> int:
    directory = Path(argv[0])
    keeper = os.fork()  # this process has one thread here: forking is safe
    if keeper > 0:
        return _wait_listening(directory, keeper)
    config = json.loads((directory / "keeper.json").read_text(encoding="utf-8"))
    handler = logging.FileHandler(directory / "server.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logging.getLogger("gear_bridge").addHandler(handler)
    logging.getLogger("gear_bridge").setLevel(logging.DEBUG)
    log = logging.getLogger("gear_bridge.server.keeper")
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server = EmbeddedServer(
        config["command"],
        token=os.environ.get("GEAR_TOKEN") or None,
        extra_args=config.get("extra_args", []),
        startup_timeout=config.get("startup_timeout"),
        die_with_parent=True,
    )
    server.start()
    _write_server_file(directory, server)
    log.info("keeper %d: server pid %s on %s", os.getpid(), server.pid, server.url)
    idle_since: float | None = None
    while not stopping:
        time.sleep(_POLL)
        if not server.running and not stopping:
            log.warning("keeper %d: the server exited; restarting it on %s", os.getpid(), server.url)
            server.start()
            _write_server_file(directory, server)
        with open(directory / "lock", "a+") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            if live_users(directory) > 0:
                idle_since = None
                continue
            now = time.monotonic()
            idle_since = idle_since if idle_since is not None else now
            if now - idle_since >= GRACE:
                # Under the lock: a process attaching now waits, then finds no server.json and starts anew.
                (directory / "server.json").unlink(missing_ok=True)
                log.info("keeper %d: no users left; stopping the server", os.getpid())
                break
    if stopping:
        with open(directory / "lock", "a+") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            (directory / "server.json").unlink(missing_ok=True)
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
