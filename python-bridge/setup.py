"""The wheel's tag (everything else is in pyproject.toml).

A wheel that carries the gear service (``gear_bridge/_service``, staged by scripts/build-wheel)
holds better-sqlite3's native addon, built for this platform: it is tagged ``py3-none-<platform>``,
one wheel for every CPython >= 3.10. Without the service (a checkout's editable install) it is pure.
"""
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel

SERVICE = Path(__file__).parent / "src" / "gear_bridge" / "_service" / "dist" / "cli" / "main.js"


class ServiceWheel(bdist_wheel):
    def finalize_options(self) -> None:
        super().finalize_options()
        self.root_is_pure = not SERVICE.is_file()

    def get_tag(self) -> tuple[str, str, str]:
        python, abi, platform = super().get_tag()
        return ("py3", "none", platform) if SERVICE.is_file() else (python, abi, platform)


setup(cmdclass={"bdist_wheel": ServiceWheel})
