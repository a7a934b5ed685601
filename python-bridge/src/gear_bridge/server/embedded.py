"""A local ``gear serve`` process, for when no server address is configured.

``shared_server_url()`` starts one server per process on a free loopback port (``--port 0``), reads
its ``{"event":"listening","url":...}`` line from stdout, reuses it for every client of the process
and stops it at exit. Its structured stderr log is forwarded to the ``gear_bridge.server.embedded``
logger at DEBUG level (the last lines are quoted when it fails to start).

The gear command is, in order: ``GEAR_SERVER_COMMAND`` (shell-split, e.g.
``node /path/to/gear/dist/cli/main.js``), a ``gear`` next to the running Python (the project venv's
launcher), ``gear`` on PATH, the service packaged in the wheel (``gear_bridge.server.node_runtime``).

Worker processes of one machine share one server through :mod:`gear_bridge.server.machine`.
"""

from __future__ import annotations

import atexit
import collections
import json
import logging
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import IO, Mapping, Sequence

from ..exceptions import EmbeddedServerError
from .node_runtime import packaged_server_command

__all__ = ["SERVER_NODE_OPTIONS", "EmbeddedServer", "find_server_command", "server_environment", "shared_server_url", "stop_shared_server"]

logger = logging.getLogger("gear_bridge.server.embedded")

#: V8's young generation for the server: semi-spaces of up to 64 MiB instead of Node's 16, so the
#: prompts a judged chunk holds while they wait for a judge slot are not copied at every scavenge.
#: A NODE_OPTIONS that sets the size itself wins.
SERVER_NODE_OPTIONS = "--max-semi-space-size=64"


def server_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The server process's environment: ``env`` (``os.environ`` by default) with
    :data:`SERVER_NODE_OPTIONS` added to ``NODE_OPTIONS``, unless it already sizes the semi-space."""
    source = dict(os.environ if env is None else env)
    options = source.get("NODE_OPTIONS", "")
    if "--max-semi-space-size" not in options:
        source["NODE_OPTIONS"] = f"{options} {SERVER_NODE_OPTIONS}".strip()
    return source


def find_server_command(env: Mapping[str, str] | None = None) -> list[str]:
    """The command line that runs gear (``serve ...`` is appended to it).

    Args:
        env: the environment to read ``GEAR_SERVER_COMMAND`` and ``PATH`` from (``os.environ`` by default).

    Raises:
        EmbeddedServerError: none was found; the message says how to configure one.
    """
    source = os.environ if env is None else env
    configured = source.get("GEAR_SERVER_COMMAND", "").strip()
    if configured:
        parts = shlex.split(configured)
        if shutil.which(parts[0], path=source.get("PATH")) is None and not Path(parts[0]).is_file():
            raise EmbeddedServerError(f"GEAR_SERVER_COMMAND={configured!r}: {parts[0]!r} is not an executable")
        return parts
    beside = Path(sys.executable).parent / "gear"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("gear", path=source.get("PATH"))
    if found is not None:
        return [found]
    packaged = packaged_server_command(source)
    if packaged is not None:
        return packaged
    raise EmbeddedServerError(
        "no gear command to start an embedded server (this gear-bridge was installed without the packaged "
        "service): install the wheel built by scripts/build-wheel, or set GEAR_BRIDGE_URL to a running `gear serve`, "
        "or GEAR_SERVER_COMMAND (e.g. 'node /path/to/gear/dist/cli/main.js'), or put `gear` on PATH"
    )


class EmbeddedServer:
    """One ``gear serve`` child process.

    Args:
        command: the gear command line (``find_server_command()`` when None).
        host: the address to bind (loopback by default).
        port: the port; 0 picks a free one.
        token: passed as ``--token``; required by the server off loopback.
        extra_args: more ``gear serve`` flags, e.g. ``["--max-rubrics", "100"]``.
        startup_timeout: seconds to wait for the listening line; None waits forever.
        env: the child's environment (``os.environ`` by default).
        die_with_parent: the server gets SIGTERM when this process dies (Linux), so a keeper that is
            killed leaves no orphan server behind.
    """

    def __init__(self, command: Sequence[str] | None = None, *, host: str = "127.0.0.1", port: int = 0, token: str | None = None,
                 extra_args: Sequence[str] = (), startup_timeout: float | None = 30.0, env: Mapping[str, str] | None = None,
                 die_with_parent: bool = False) -> None:
        self.command = list(command) if command is not None else None
        self.die_with_parent = die_with_parent
        self.host = host
        self.port = port
        self.token = token
        self.extra_args = list(extra_args)
        self.startup_timeout = startup_timeout
        self.env = dict(env) if env is not None else None
        self.url: str | None = None
        self._process: subprocess.Popen[str] | None = None
        self._log_tail: collections.deque[str] = collections.deque(maxlen=40)
        self._pumps: list[threading.Thread] = []

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        """Whether the process is alive."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> str:
        """Starts the server and returns its ``ws://`` address (idempotent while it runs).

        Raises:
            EmbeddedServerError: no gear command, or it exited or stayed silent past ``startup_timeout``.
        """
        if self.running and self.url is not None:
            return self.url
        command = self.command if self.command is not None else find_server_command(self.env)
        argv = [*command, "serve", "--host", self.host, "--port", str(self.port), *self.extra_args]
        if self.token is not None:
            argv += ["--token", self.token]
        logger.debug("starting %s", shlex.join(a if a != self.token else "***" for a in argv))
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                env=server_environment(self.env),
                preexec_fn=_die_with_parent if self.die_with_parent else None,
            )
        except OSError as error:
            raise EmbeddedServerError(f"cannot run {argv[0]!r}: {error}") from error
        self._process = process
        lines: queue.Queue[str | None] = queue.Queue()
        assert process.stdout is not None and process.stderr is not None
        self._pumps = [
            threading.Thread(target=self._pump_stdout, args=(process.stdout, lines), name="gear-serve-stdout", daemon=True),
            threading.Thread(target=self._pump_stderr, args=(process.stderr,), name="gear-serve-stderr", daemon=True),
        ]
        for pump in self._pumps:
            pump.start()
        try:
            line = lines.get(timeout=self.startup_timeout)
        except queue.Empty:
            self.stop()
            raise EmbeddedServerError(f"gear serve printed no listening line within {self.startup_timeout}s{self._tail()}") from None
        if line is None:
            code = process.wait()
            self.stop()
            raise EmbeddedServerError(f"gear serve exited with code {code} before listening{self._tail()}")
        try:
            event = json.loads(line)
            url = event["url"] if event.get("event") == "listening" else None
        except (ValueError, AttributeError, KeyError, TypeError):
            url = None
        if not isinstance(url, str):
            self.stop()
            raise EmbeddedServerError(f"unexpected first line from gear serve: {line.strip()!r}{self._tail()}")
        self.url = url
        self.port = int(url.rstrip("/").rsplit(":", 1)[1])  # a restart binds the same port
        logger.info("embedded gear serve (pid %d) listening on %s", process.pid, url)
        return url

    def stop(self, timeout: float | None = 10.0) -> int | None:
        """Stops the server (SIGTERM, then SIGKILL after ``timeout``) and returns its exit code."""
        process, self._process = self._process, None
        if process is None:
            return None
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._join_pumps()
        return process.returncode

    def kill(self) -> None:
        """Kills the server at once (SIGKILL), as a crash would; ``start()`` restarts it on the same port."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
            self._join_pumps()

    def _join_pumps(self) -> None:
        for pump in self._pumps:
            pump.join(5.0)  # they end at EOF, once the process is gone, and close the pipes
        self._pumps = []

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def _pump_stdout(self, stream: IO[str], lines: queue.Queue[str | None]) -> None:
        first = True
        with stream:
            for line in stream:
                if first:
                    lines.put(line)
                    first = False
                else:
                    logger.debug("gear serve stdout: %s", line.rstrip())
        if first:
            lines.put(None)

    def _pump_stderr(self, stream: IO[str]) -> None:
        with stream:
            for line in stream:
                text = line.rstrip()
                self._log_tail.append(text)
                logger.debug("gear serve: %s", text)

    def _tail(self) -> str:
        tail = list(self._log_tail)
        return (":\n" + "\n".join(tail[-10:])) if tail else ""


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the parent dies (prctl PR_SET_PDEATHSIG)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)


_shared: EmbeddedServer | None = None
_shared_pid: int | None = None
_shared_lock = threading.Lock()
_atexit_registered = False


def shared_server_url(*, command: Sequence[str] | None = None, token: str | None = None, startup_timeout: float | None = 30.0,
                      env: Mapping[str, str] | None = None, extra_args: Sequence[str] = ()) -> str:
    """The address of this process's embedded server, started on first use and stopped at exit.

    A forked child starts its own (the parent's stays the parent's). A server that died is
    restarted on the same port, so clients reconnect to it.

    Args:
        command: the gear command line (``find_server_command()`` when None).
        token: the token the server requires.
        startup_timeout: seconds to wait for it to listen.
        env: its environment (``os.environ`` by default), e.g. with the judge's ``GEAR_JUDGE_*``.
        extra_args: more ``gear serve`` flags.

    Raises:
        EmbeddedServerError: no gear command, or it did not start.
    """
    global _shared, _shared_pid, _atexit_registered
    with _shared_lock:
        if _shared is not None and _shared_pid == os.getpid() and _shared.running and _shared.url is not None:
            return _shared.url
        if _shared is None or _shared_pid != os.getpid():
            _shared = EmbeddedServer(command, token=token, startup_timeout=startup_timeout, env=env, extra_args=extra_args)
            _shared_pid = os.getpid()
        if not _atexit_registered:
            atexit.register(stop_shared_server)
            _atexit_registered = True
        return _shared.start()


def stop_shared_server() -> None:
    """Stops this process's embedded server, if it started one (registered with atexit)."""
    global _shared
    with _shared_lock:
        if _shared is not None and _shared_pid == os.getpid():
            _shared.stop()
        _shared = None
