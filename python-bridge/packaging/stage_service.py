"""Stages the built gear service into gear_bridge/_service for the wheel (run by scripts/build-wheel).

Copies the compiled JavaScript of the checkout's dist/ (no tests, declarations or source maps), the
npm packages the service imports at run time (the closure of package.json's dependencies, minus
better-sqlite3's install-time helpers), a package.json that marks the tree as ES modules, and
node-abi.txt: the ABI of the Node that compiled better-sqlite3's native addon, which
gear_bridge.node_runtime matches a Node against.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / "python-bridge" / "src" / "gear_bridge" / "_service"
#: Needed only while npm installs better-sqlite3 (it fetches or builds the addon), never at run time.
INSTALL_ONLY = {"prebuild-install"}
SKIP_SUFFIXES = (".map", ".d.ts", ".d.mts", ".d.cts", ".ts", ".mts", ".cts", ".md", ".markdown")


def keep(path: Path) -> bool:
    name = path.name
    if name.endswith(SKIP_SUFFIXES) and not name.lower().startswith(("license", "notice")):
        return False
    return not any(part in ("test", "tests", "docs", "example", "examples", ".github") for part in path.parts)


def copy_tree(source: Path, target: Path) -> int:
    copied = 0
    for file in source.rglob("*"):
        relative = file.relative_to(source)
        if file.is_file() and keep(relative):
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, target / relative)
            copied += file.stat().st_size
    return copied


def resolve(name: str, start: Path) -> Path:
    """Node's lookup: node_modules/<name> in the requiring package's folder, then up the tree."""
    folder = start
    while True:
        candidate = folder / "node_modules" / name
        if (candidate / "package.json").is_file():
            return candidate
        if folder == ROOT:
            raise SystemExit(f"stage_service: {name} (needed by {start}) is not installed; run scripts/setup")
        folder = folder.parent


def runtime_packages() -> list[Path]:
    todo = [(name, ROOT) for name in json.loads((ROOT / "package.json").read_text())["dependencies"]]
    seen: dict[Path, None] = {}
    while todo:
        name, start = todo.pop()
        if name in INSTALL_ONLY:
            continue
        folder = resolve(name, start)
        if folder in seen:
            continue
        seen[folder] = None
        manifest = json.loads((folder / "package.json").read_text())
        todo += [(dep, folder) for dep in manifest.get("dependencies", {})]
    return list(seen)


def main() -> int:
    dist = ROOT / "dist"
    if not (dist / "cli" / "main.js").is_file():
        raise SystemExit("stage_service: dist/cli/main.js is missing; run scripts/setup (it builds)")
    shutil.rmtree(STAGE, ignore_errors=True)
    size = 0
    for file in [*dist.rglob("*.js"), *dist.rglob("*.cjs")]:
        relative = file.relative_to(dist)
        if file.name.endswith(".test.js") or relative.parts[0] == "bench":
            continue
        (STAGE / "dist" / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(file, STAGE / "dist" / relative)
        size += file.stat().st_size
    for folder in runtime_packages():
        target = STAGE / folder.relative_to(ROOT)
        if folder.name == "better-sqlite3":
            # The addon and its JavaScript; not the SQLite sources it was compiled from.
            size += copy_tree(folder / "lib", target / "lib")
            addon = folder / "build" / "Release" / "better_sqlite3.node"
            (target / "build" / "Release").mkdir(parents=True, exist_ok=True)
            shutil.copy2(addon, target / "build" / "Release" / addon.name)
            for name in ("package.json", "LICENSE"):
                shutil.copy2(folder / name, target / name)
            size += addon.stat().st_size
        else:
            size += copy_tree(folder, target)
    version = json.loads((ROOT / "package.json").read_text())["version"]
    (STAGE / "package.json").write_text(json.dumps({"name": "gear-service", "version": version, "private": True, "type": "module"}) + "\n")
    abi = subprocess.run(["node", "-p", "process.versions.modules"], capture_output=True, text=True, check=True).stdout.strip()
    (STAGE / "node-abi.txt").write_text(abi + "\n")
    print(f"stage_service: {STAGE.relative_to(ROOT)} ({size / 1e6:.1f} MB, Node ABI {abi})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
