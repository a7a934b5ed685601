"""Host rows for judge tests, and their expected rewards: `gear score` on the judge outputs the test
endpoint gives for the requests the host makes (host.requests)."""
from __future__ import annotations

from typing import Any, Dict, List

from cases import cli_score, gear_spec, healthbench_records
from gear_bridge.sync import connect
from judge_endpoint import verdict_output


def host_rows(count: int, host: str = "ruscarl") -> List[Dict[str, Any]]:
    rows = []
    for index, (record, graph) in enumerate(healthbench_records()[:count]):
        rows.append({"spec": gear_spec(record, graph, host), "response": f"answer {index}: rest, fluids, and see a doctor if it gets worse."})
    return rows


def expected(server_url: str, host: str, rows: List[Dict[str, Any]], aggregator: str, answer: Any = verdict_output) -> List[Dict[str, Any]]:
    """`gear score` on the outputs the endpoint gives for the requests the host makes."""
    lines = []
    with connect(server_url) as client:
        for row in rows:
            requests = client.call("host.requests", {"host": host, "row": row["spec"]["row"], "response": row["response"]})["requests"]
            outputs = [answer(r["messages"][-1]["content"]) for r in requests]
            lines.append({"row": row["spec"]["row"], "response": row["response"], "judge_outputs": outputs})
    return cli_score(host, aggregator, lines)
