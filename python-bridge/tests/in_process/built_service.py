"""The built service's own functions (dist/, run by node) over a batch: what the differential tests
of the worker's readers and arithmetic compare it with."""
from __future__ import annotations

import json
import subprocess
from typing import Any, List

from conftest import ROOT
from gear_bridge.in_process.json_reading import UNREAD


def run_on_batch(script: str, module: str, stdin: str) -> str:
    """``script`` (CommonJS: ``process.argv[1]`` is ``dist/<module>``'s URL) run by node with
    ``stdin``; what it writes."""
    url = (ROOT / "dist" / module).as_uri()
    return subprocess.run(["node", "--input-type=commonjs", "-e", script, url], input=stdin, capture_output=True, text=True, encoding="utf-8",
                          check=True).stdout


def mapped(module: str, body: str, values: List[Any]) -> List[Any]:
    """``values`` (JSON) each mapped by ``body``, a JavaScript function body of ``m`` (the module)
    and ``raw`` (the value; null for None)."""
    script = ("import(process.argv[1]).then((m) => { const values = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              f" process.stdout.write(JSON.stringify(values.map((raw) => {{ {body} }}))); }});")
    out: List[Any] = json.loads(run_on_batch(script, module, json.dumps(values)))
    return out


def service_verdicts(module: str, body: str, outputs: List[Any]) -> List[Any]:
    """The service's verdict on each judge output: true / false, or :data:`UNREAD` where ``body``
    returns 'unread'."""
    return [UNREAD if verdict == "unread" else verdict for verdict in mapped(module, body, outputs)]
