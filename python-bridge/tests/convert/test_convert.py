"""Dataset converters: HealthBench and official GEAR rows -> VERL rows that score like the source."""
from __future__ import annotations

import asyncio
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

from cases import cli_score, grader_outputs, healthbench_records, random_scores
from conftest import FIXTURES, read_jsonl
from gear_bridge import EmbeddedServer, parse_row
from gear_bridge.convert import healthbench_row
from gear_bridge.verl.batch import compute_score_batched

HEALTHBENCH = FIXTURES / "healthbench" / "oss_eval_first30.jsonl"
GRAPHS = FIXTURES / "healthbench" / "graphs.jsonl"


def convert(*args: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return subprocess.run([sys.executable, "-m", "gear_bridge.convert", *args], capture_output=True, text=True, timeout=60, check=False)


def test_healthbench_cli_writes_verl_rows(tmp_path: Path) -> None:
    """`python -m gear_bridge.convert healthbench` writes one VERL row per record with the graph attached."""
    out = tmp_path / "rows.jsonl"
    done = convert("healthbench", str(HEALTHBENCH), "--graphs", str(GRAPHS), "--format", "ruscarl", "--output", str(out))
    assert done.returncode == 0, done.stderr
    rows = read_jsonl(out)
    records = healthbench_records()
    assert len(rows) == len(records) == 30
    for index, (row, (record, graph)) in enumerate(zip(rows, records)):
        assert set(row) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
        assert row["data_source"] == "healthbench" and row["reward_model"]["ground_truth"] == ""
        assert row["prompt"] == [{"role": m["role"], "content": m["content"]} for m in record["prompt"]]
        assert isinstance(row["extra_info"]["gear"], str) and row["extra_info"]["index"] == index
        spec = parse_row(row["extra_info"])
        assert spec.format == "ruscarl"
        assert [(e["parent"], e["child"], e["type"]) for e in spec.content["reward_model"].get("graph", {}).get("edges", [])] == [
            (e["parent"], e["child"], e["type"]) for e in graph["edges"]
        ]


def test_converted_ruscarl_rows_score_as_the_source(server: EmbeddedServer) -> None:
    """Converted RuscaRL rows give the same rewards as `gear score --host ruscarl` on the source rows."""
    rng = random.Random(51)
    records = healthbench_records()[:12]
    lines: List[Dict[str, Any]] = []
    extra_infos = []
    for index, (record, graph) in enumerate(records):
        row = healthbench_row(record, index=index, graph=graph, format="ruscarl")
        outputs = grader_outputs(rng, len(record["rubrics"]))
        source = {"prompt": record["prompt"], "reward_model": {"rubrics": record["rubrics"], "graph": {"edges": graph["edges"]}}}
        lines.append({"extra_info": source, "response": "an answer", "judge_outputs": outputs})
        extra_infos.append({**row["extra_info"], "gear_judgments": outputs})
    got = compute_score_batched(["hb"] * len(lines), ["an answer"] * len(lines), [""] * len(lines), extra_infos, url=server.url, aggregator="gear")
    assert [g["score"] for g in got] == [r["reward"] for r in cli_score("ruscarl", "gear", lines)]


def test_canonical_and_official_conversions_agree(server: EmbeddedServer) -> None:
    """The canonical conversion (relations, roles, weights) scores exactly like the official reward_model it came from."""
    rng = random.Random(52)
    canonical, official = [], []
    for index, (record, graph) in enumerate(healthbench_records()):
        scores = random_scores(rng, len(record["rubrics"]))
        for form, target in (("canonical", canonical), ("official-gear", official)):
            row = healthbench_row(record, index=index, graph=graph, format=form)
            target.append({**row["extra_info"], "gear_judgments": scores})
    for aggregator in ("flat", "hard", "gear", "gear-exact"):
        a = compute_score_batched(["hb"] * 30, ["r"] * 30, [""] * 30, canonical, url=server.url, aggregator=aggregator)
        b = compute_score_batched(["hb"] * 30, ["r"] * 30, [""] * 30, official, url=server.url, aggregator=aggregator)
        assert [x["score"] for x in a] == [x["score"] for x in b], aggregator


def test_official_golden_rubrics_convert(tmp_path: Path, server: EmbeddedServer) -> None:
    """golden.json's 73 reward_models become official-gear rows; the gear host format needs a prompt and says so."""
    out = tmp_path / "golden.jsonl"
    golden = FIXTURES / "official-gear" / "golden.json"
    done = convert("official-gear", str(golden), "--output", str(out))
    assert done.returncode == 0, done.stderr
    rows = read_jsonl(out)
    assert len(rows) == 73 and all(parse_row(r["extra_info"]).format == "official-gear" for r in rows)
    assert rows[0]["extra_info"]["key"] == "healthbench/oss_eval_first30.jsonl:1"
    refused = convert("official-gear", str(golden), "--format", "gear", "--output", str(out))
    assert refused.returncode == 2 and "[0].prompt" in refused.stderr


def test_official_jsonl_rows_convert_to_the_gear_host(tmp_path: Path) -> None:
    """Official VERL rows (extra_info = {prompt, reward_model}) become gear-host rows keeping data_source."""
    source = tmp_path / "official.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for record, graph in healthbench_records()[:3]:
            model = json.loads(healthbench_row(record, index=0, graph=graph, format="official-gear")["extra_info"]["gear"])["reward_model"]
            handle.write(json.dumps({"data_source": "healthbench_gear", "prompt": record["prompt"], "extra_info": {"prompt": record["prompt"], "reward_model": model}}) + "\n")
    out = tmp_path / "rows.jsonl"
    done = convert("official-gear", str(source), "--format", "gear", "--gear-as", "dict", "--output", str(out))
    assert done.returncode == 0, done.stderr
    rows = read_jsonl(out)
    assert [r["data_source"] for r in rows] == ["healthbench_gear"] * 3
    assert all(isinstance(r["extra_info"]["gear"], dict) and parse_row(r["extra_info"]).format == "gear" for r in rows)


def test_bad_records_and_parquet(tmp_path: Path) -> None:
    """A malformed record exits 2 naming the field; .parquet output needs pyarrow and says so when it is missing."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"prompt": [{"role": "user", "content": "q"}], "rubrics": [{"criterion": "c", "points": "five"}]}) + "\n")
    done = convert("healthbench", str(bad), "--output", str(tmp_path / "o.jsonl"))
    assert done.returncode == 2 and "[0].rubrics[0].points" in done.stderr
    parquet = tmp_path / "rows.parquet"
    done = convert("healthbench", str(HEALTHBENCH), "--output", str(parquet))
    if importlib.util.find_spec("pyarrow") is None:
        assert done.returncode == 2 and "pyarrow" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        import pyarrow.parquet as pq  # type: ignore[import-not-found]

        table = pq.read_table(str(parquet)).to_pylist()
        assert len(table) == 30 and parse_row(table[0]["extra_info"]).format == "ruscarl"
