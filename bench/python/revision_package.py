"""gear_bridge as it was at another revision, importable beside the work tree's (for A/B benches)."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import ROOT  # noqa: E402  (python-bridge/tests)

_NAME = re.compile(r"\bgear_bridge\b")


def package_at(revision: str) -> str:
    """gear_bridge at ``revision``, unpacked under a new name on sys.path; the name."""
    commit = subprocess.run(["git", "rev-parse", "--short", revision], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    name = f"gear_bridge_at_{commit}"
    folder = Path(tempfile.mkdtemp(prefix="gear-ab-"))
    archive = subprocess.run(["git", "archive", commit, "python-bridge/src/gear_bridge"], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    (folder / "python-bridge/src/gear_bridge").rename(folder / name)
    for source in (folder / name).rglob("*.py"):
        source.write_text(_NAME.sub(name, source.read_text()))
    sys.path.insert(0, str(folder))
    return name
