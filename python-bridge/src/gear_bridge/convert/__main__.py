"""``python -m gear_bridge.convert {healthbench,official-gear} INPUT --output OUT [...]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from ..exceptions import GearBridgeError
from .healthbench import HEALTHBENCH_FORMATS, healthbench_row
from .official_gear import OFFICIAL_FORMATS, official_gear_row
from .rows_out import read_jsonl, write_rows


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m gear_bridge.convert",
        description="Convert rubric datasets to VERL rows with extra_info['gear'] (JSONL, or parquet with pyarrow).",
    )
    sub = parser.add_subparsers(dest="source", required=True)
    hb = sub.add_parser("healthbench", help="HealthBench JSONL (prompt, rubrics, prompt_id)")
    hb.add_argument("input", type=Path)
    hb.add_argument("--graphs", type=Path, help="graphs.jsonl: {source_file, line, key, nodes, edges} per row")
    hb.add_argument("--format", choices=HEALTHBENCH_FORMATS, default="ruscarl")
    hb.add_argument("--data-source", default="healthbench")
    og = sub.add_parser("official-gear", help="official GEAR rows (JSONL) or a golden.json-style {rubrics: [...]} file")
    og.add_argument("input", type=Path)
    og.add_argument("--format", choices=OFFICIAL_FORMATS, default="official-gear")
    og.add_argument("--data-source", default=None)
    for command in (hb, og):
        command.add_argument("--output", "-o", type=Path, required=True, help="OUT.jsonl or OUT.parquet")
        command.add_argument("--gear-as", choices=("json", "dict"), default="json", help="extra_info['gear'] as a JSON string (default) or an object")
    return parser


def _official_records(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".json":
        document = json.loads(path.read_text(encoding="utf-8"))
        records = document.get("rubrics") if isinstance(document, dict) else document
        if not isinstance(records, list):
            raise GearBridgeError(f"{path}: expected a list, or an object with a 'rubrics' list")
        return [r for r in records if isinstance(r, dict)]
    return read_jsonl(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the converter; returns the exit code (0 ok, 2 bad input)."""
    args = _parser().parse_args(argv)
    try:
        if args.source == "healthbench":
            graphs: dict[Any, dict[str, Any]] = {}
            if args.graphs is not None:
                for graph in read_jsonl(args.graphs):
                    if graph.get("source_file") == args.input.name:
                        graphs[("line", graph.get("line"))] = graph
                    if isinstance(graph.get("key"), str):
                        graphs.setdefault(("key", graph["key"]), graph)
            rows = [
                healthbench_row(
                    record,
                    index=i,
                    graph=graphs.get(("line", i + 1)) or graphs.get(("key", record.get("prompt_id"))),
                    format=args.format,
                    data_source=args.data_source,
                    gear_as=args.gear_as,
                )
                for i, record in enumerate(read_jsonl(args.input))
            ]
        else:
            rows = [
                official_gear_row(record, index=i, format=args.format, data_source=args.data_source, gear_as=args.gear_as)
                for i, record in enumerate(_official_records(args.input))
            ]
        count = write_rows(rows, args.output)
    except (GearBridgeError, RuntimeError, OSError, ValueError) as error:
        print(f"gear_bridge.convert: {error}", file=sys.stderr)
        return 2
    print(f"gear_bridge.convert: wrote {count} rows to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
