"""Which scorer a run tests: a checkout's run tests the Python sources (no stale extension module
shadows them); scripts/test's second run tests the scorer compiled by mypyc, as the wheel ships it
(scripts/compile-scorer's folder first on PYTHONPATH, and ``BRIDGE_TESTS_COMPILED=1``: not a GEAR_
variable, which conftest clears)."""
from __future__ import annotations

import importlib
import os
import pkgutil

import gear_bridge.in_process as package

#: Kept in Python in the wheel too (python-bridge/setup.py says why).
INTERPRETED = {"canonical_text"}


def test_the_scorer_modules_are_the_ones_this_run_tests() -> None:
    compiled = os.environ.get("BRIDGE_TESTS_COMPILED") == "1"
    names = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert {"scorer", "exact", "layout", "canonical_text"} <= names
    for name in sorted(names):
        module = importlib.import_module(f"{package.__name__}.{name}")
        assert module.__file__ is not None
        assert module.__file__.endswith(".so") == (compiled and name not in INTERPRETED), module.__file__
    assert package.__file__ is not None and package.__file__.endswith(".so") == compiled
