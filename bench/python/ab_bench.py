"""What the A/B benches share: gear_bridge as it was at another revision, importable beside the
work tree's, and the report (the steps both time: paired_steps.base_steps) (verl_legacy_naive_ab.py, verl_reward_fn_ab.py,
reward_fn_alone_ab.py)."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

from conftest import ROOT  # noqa: E402  (python-bridge/tests)
from paired_steps import TABLE_HEAD, paired_times, print_ratios  # noqa: E402  (bench/python)

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


def report(revision: str, form: str, same: bool, names: Sequence[str], runs: Sequence[Callable[[Any], Any]], base: Sequence[Any],
           steps: int, before: Sequence[Callable[[Any], Any] | None] = ()) -> None:
    """Times flat, REV and the work tree (``runs`` in that order) in paired steps and prints each
    against flat, and the work tree against REV; first, whether both gave the same rewards.
    ``before`` as paired_times's."""
    print(f"same rewards and fields on a step: {same}", flush=True)
    times = paired_times(runs, base, steps, before)
    print(TABLE_HEAD, flush=True)
    print_ratios(form, names, times)
    print_ratios(form, [f"work tree against {revision}"], times[2:], against=times[1])


def command_line(main: Callable[[str, int, str, Dict[str, str]], int], default_steps: int, usage: str | None) -> None:
    """``REV [STEPS] [FORM] [KEY=VALUE ...]`` into ``main``, and exit with its code."""
    arguments: List[str] = sys.argv[1:]
    if not arguments:
        sys.exit(usage)
    options = dict(a.split("=", 1) for a in arguments[3:])
    sys.exit(main(arguments[0], int(arguments[1]) if len(arguments) > 1 else default_steps, arguments[2] if len(arguments) > 2 else "canonical",
                  options))
