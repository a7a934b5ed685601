"""The wheel's tag and its compiled scorer (everything else is in pyproject.toml).

A wheel that carries the gear service (``gear_bridge/_service``, staged by scripts/build-wheel)
holds better-sqlite3's native addon, built for this platform: it is tagged ``py3-none-<platform>``.

With ``GEAR_BRIDGE_COMPILE=1`` (scripts/build-wheel, scripts/compile-scorer) the in-process scorer
(``gear_bridge.in_process``) is compiled to C extensions with mypyc: it runs inside verl's
per-response loop, where its Python cost is what a step pays over a flat ``compute_score``
(bench/README.md, "The in-process scorer compiled by mypyc"). That wheel is for the building CPython only
(``cpXY-cpXY-<platform>``); the ``.py`` sources stay in it, and the extensions load first.
Without either (a checkout's editable install) the package is pure Python.
"""
import os
import shutil
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel

HERE = Path(__file__).parent
SERVICE = HERE / "src" / "gear_bridge" / "_service" / "dist" / "cli" / "main.js"
COMPILE = os.environ.get("GEAR_BRIDGE_COMPILE") == "1"
# canonical_text stays Python: compiled, it read no row at all (its classes are msgspec.Structs, which
# mypyc would make native classes), where test_canonical_text.py wants it to read most.
INTERPRETED = {"canonical_text.py"}


def compiled_scorer() -> list:
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]  # what setuptools runs
    if not headers.is_file() or not shutil.which(compiler):
        raise SystemExit(f"GEAR_BRIDGE_COMPILE=1 compiles the scorer with mypyc: it needs a C compiler ({compiler}: "
                         f"{'found' if shutil.which(compiler) else 'not found'}) and this Python's headers ({headers}: "
                         f"{'found' if headers.is_file() else 'not found'}); on Debian: apt-get install gcc python3-dev. "
                         "GEAR_BRIDGE_COMPILE=0 builds the pure-Python wheel instead.")
    from mypyc.build import mypycify  # only a compiling build needs mypy (requirements-dev.txt pins it)

    folder = Path("src") / "gear_bridge" / "in_process"  # pip builds from this folder; mypyc finds the package from src/
    sources = sorted(str(p) for p in folder.glob("*.py") if p.name not in INTERPRETED)
    return mypycify(sources, opt_level="3", group_name="gear_bridge_scorer")


class ServiceWheel(bdist_wheel):
    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = not (SERVICE.is_file() or COMPILE)

    def get_tag(self) -> tuple[str, str, str]:
        python, abi, platform = super().get_tag()
        return ("py3", "none", platform) if SERVICE.is_file() and not COMPILE else (python, abi, platform)


setup(cmdclass={"bdist_wheel": ServiceWheel}, ext_modules=compiled_scorer() if COMPILE else [])
