"""The judge from configuration: rows without judgments are judged by the service (judge.scoreBatch)
against a real HTTP judge endpoint, through a server this machine shares, and score exactly as
`gear score` scores the same judge outputs; failures are counted, never credit; no judge is a
ConfigError naming judge_url; verl's reward router is used when verl passes it."""
from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Dict, List

import pytest

from cases import cli_score, gear_spec, healthbench_records
from conftest import GEAR_COMMAND, start_server
from judged_rows import expected, host_rows
from gear_bridge import ConfigError, EmbeddedServer, RowError
from gear_bridge.sync import connect
from gear_bridge.verl.reward_fn import compute_score
from gear_bridge.verl.rewarder import DEFAULT_JUDGE_MAX_CONCURRENT
from judge_endpoint import JudgeEndpoint
from recording_proxy import RecordingProxy


def run_all(rows: List[Dict[str, Any]], **kwargs: Any) -> List[Any]:
    async def main() -> List[Any]:
        return list(await asyncio.gather(
            *(compute_score("healthbench", r["response"], "", {"gear": json.dumps(r["spec"])}, **kwargs) for r in rows),
            return_exceptions=True,
        ))
    return asyncio.run(main())


def test_rows_without_judgments_are_judged_through_a_machine_server(server: EmbeddedServer, tmp_path: Path) -> None:
    """judge_url + no url: this machine's server is started with the judge; every reward equals
    `gear score` on the endpoint's outputs, and the metrics say what the judge did."""
    rows = host_rows(4)
    with JudgeEndpoint() as endpoint:
        got = run_all(rows, judge_url=endpoint.url, judge_model="test-judge", server_command=GEAR_COMMAND, run_dir=str(tmp_path), aggregator="gear")
        requests = endpoint.requests
        models = set(endpoint.models)
    want = expected(server.url, "ruscarl", rows, "gear")
    assert [g["score"] for g in got] == [w["reward"] for w in want]
    assert [g["native_score"] for g in got] == [w["native_reward"] for w in want]
    assert all(g["judged"] == 1 and g["judge_failed_criteria"] == 0 for g in got)
    assert all(g["judge_requests"] == g["num_criteria"] and g["judge_cache_hits"] == 0 for g in got)  # one verdict per criterion
    assert requests == sum(g["num_criteria"] for g in got)  # the flat and hard metrics came from the judge's cache
    assert models == {"test-judge"}
    assert [g["flat_reward"] for g in got] == [w["reward"] for w in expected(server.url, "ruscarl", rows, "flat")]
    assert [g["hard_reward"] for g in got] == [w["reward"] for w in expected(server.url, "ruscarl", rows, "hard")]
    info = json.loads(next(tmp_path.rglob("server.json")).read_text())
    with connect(info["url"]) as client:
        assert client.judge_info()["configured"] is True


def test_judge_deadline_and_routing_reach_the_machine_server(tmp_path: Path) -> None:
    """judge_deadline: the machine server's judge gives up a request to a dead endpoint after it (the
    default is minutes of retrying), and every criterion of the response is counted as failed;
    judge_routing=least-outstanding turns prefix-aware routing off there."""
    import socket

    with socket.socket() as probe:  # a port nothing listens on: every connection is refused
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    [got] = run_all(host_rows(1), judge_url=dead, judge_deadline=1, judge_routing="least-outstanding", server_command=GEAR_COMMAND, run_dir=str(tmp_path), metrics=False)
    assert got["judged"] == 1 and got["num_criteria"] > 0
    assert got["judge_failed_criteria"] == got["num_criteria"]
    info = json.loads(next(tmp_path.rglob("server.json")).read_text())
    with connect(info["url"]) as client:
        transport = client.judge_info()["endpoints"]
    assert transport["deadlineMs"] == 1000 and "prefixAffinity" not in transport


def _concurrency_hints(caplog: pytest.LogCaptureFixture) -> List[str]:
    return [r.getMessage() for r in caplog.records if r.name == "gear_bridge.verl.rewarder" and "judge_max_concurrent is unset" in r.getMessage()]


def test_the_default_judge_concurrency_is_named_when_requests_queue_behind_it(server: EmbeddedServer, tmp_path: Path,
                                                                              caplog: pytest.LogCaptureFixture) -> None:
    """judge_max_concurrent unset and more requests than the default lets out at once: one warning
    naming the setting and the counts; none with the setting given, none when every request fit.
    The default named is the one the machine's server runs with (judge.info)."""
    four, two = host_rows(4), host_rows(2)
    requests = lambda got: sum(g["judge_requests"] for g in got)  # noqa: E731
    with JudgeEndpoint() as endpoint, caplog.at_level(logging.WARNING, logger="gear_bridge.verl.rewarder"):
        common = {"judge_url": endpoint.url, "server_command": GEAR_COMMAND, "metrics": False}
        got = run_all(four, run_dir=str(tmp_path / "unset"), **common)
        assert requests(got) > DEFAULT_JUDGE_MAX_CONCURRENT
        [hint] = _concurrency_hints(caplog)
        assert f"{requests(got)} requests went at most {DEFAULT_JUDGE_MAX_CONCURRENT} at a time to each of 1 endpoint" in hint
        info = json.loads(next((tmp_path / "unset").rglob("server.json")).read_text())
        with connect(info["url"]) as client:
            assert [e["maxConcurrent"] for e in client.judge_info()["endpoints"]["endpoints"]] == [DEFAULT_JUDGE_MAX_CONCURRENT]
        caplog.clear()
        got = run_all(four, run_dir=str(tmp_path / "set"), judge_max_concurrent=DEFAULT_JUDGE_MAX_CONCURRENT, **common)
        assert requests(got) > DEFAULT_JUDGE_MAX_CONCURRENT and _concurrency_hints(caplog) == []
        got = run_all(two, run_dir=str(tmp_path / "few"), **common)
        assert 0 < requests(got) <= DEFAULT_JUDGE_MAX_CONCURRENT and _concurrency_hints(caplog) == []


def group_rows(prompts: int, group: int) -> List[Dict[str, Any]]:
    """``prompts`` rows with ``group`` responses each, interleaved (a group's samples not adjacent)."""
    base = host_rows(prompts)
    return [{"spec": base[k % prompts]["spec"], "response": f"answer {k}: rest, fluids, and see a doctor if it gets worse."}
            for k in range(prompts * group)]


def test_a_groups_row_travels_once_and_the_unread_fields_stay_on_the_server(server: EmbeddedServer) -> None:
    """Two prompts x three responses, interleaved, judged in one judge.scoreBatch: its items name
    the two rows by index, and it asks the server to leave out the per-criterion readings, extras
    and raw outputs; every reward is `gear score`'s on the endpoint's outputs (the verdicts depend
    on the row and the response, so a mixed-up row shows)."""
    rows = group_rows(2, 3)
    with JudgeEndpoint() as endpoint, RecordingProxy(server.url) as proxy:
        got = run_all(rows, judge_url=endpoint.url, url=proxy.url, aggregator="gear")
        sent = [r["params"] for r in proxy.requests if r["method"] == "judge.scoreBatch"]
    want = expected(server.url, "ruscarl", rows, "gear")
    assert [g["score"] for g in got] == [w["reward"] for w in want]
    assert [g["flat_reward"] for g in got] == [w["reward"] for w in expected(server.url, "ruscarl", rows, "flat")]
    assert all(g["judge_requests"] == g["num_criteria"] > 0 and g["judge_failed_criteria"] == 0 for g in got)
    [params] = sent
    assert params["rows"] == [rows[0]["spec"]["row"], rows[1]["spec"]["row"]]
    assert [item["rowIndex"] for item in params["items"]] == [0, 1, 0, 1, 0, 1]
    assert all("row" not in item for item in params["items"])
    assert sorted(params["omit"]) == ["extras", "judgments", "outputs"]


def test_a_chunk_over_the_servers_payload_limit_is_judged_in_several_calls() -> None:
    """Long responses against a server taking 64 KB frames: the chunk goes in several
    judge.scoreBatch calls, each under the limit and carrying only its items' rows, and every
    reward is `gear score`'s on the endpoint's outputs."""
    limit = 64 * 1024
    rows = group_rows(2, 3)
    for k, row in enumerate(rows):
        row["response"] = f"answer {k}: " + "rest, drink fluids, and see a doctor if it gets worse. " * 400  # ~22 KB
    small = start_server("--max-payload-bytes", str(limit))
    try:
        with JudgeEndpoint() as endpoint, RecordingProxy(small.url) as proxy:
            got = run_all(rows, judge_url=endpoint.url, url=proxy.url, aggregator="gear")
            sent = [r["params"] for r in proxy.requests if r["method"] == "judge.scoreBatch"]
        want = expected(small.url, "ruscarl", rows, "gear")
    finally:
        small.stop()
    assert [g["score"] for g in got] == [w["reward"] for w in want]
    assert len(sent) >= 3 and sum(len(p["items"]) for p in sent) == len(rows)
    for params in sent:
        assert len(json.dumps(params, separators=(",", ":"), ensure_ascii=False).encode("utf-8")) < limit
        assert sorted({item["rowIndex"] for item in params["items"]}) == list(range(len(params["rows"])))


def test_a_bad_shared_row_is_the_error_of_each_response_naming_it(server: EmbeddedServer) -> None:
    """A row the judge cannot read, shared by two responses: each gets a RowError at the row's own
    field (the server reports it at rows[k]); the other row's response is rewarded."""
    rows = group_rows(2, 2)
    bad = json.loads(json.dumps(rows[0]["spec"]))
    bad["row"]["reward_model"]["rubrics"][0]["points"] = "many"
    for k in (0, 2):
        rows[k] = {"spec": bad, "response": rows[k]["response"]}
    with JudgeEndpoint() as endpoint:
        got = run_all(rows, judge_url=endpoint.url, url=server.url, metrics=False)
    for k in (0, 2):
        assert isinstance(got[k], RowError), got[k]
        assert got[k].path == ("extra_info", "gear", "row", "reward_model", "rubrics", 0, "points")
    assert [g["score"] for g in (got[1], got[3])] == [w["reward"] for w in expected(server.url, "ruscarl", [rows[1], rows[3]], "gear")]


def test_unreadable_verdicts_count_against_the_response(server: EmbeddedServer, tmp_path: Path) -> None:
    """An endpoint that answers garbage: every criterion is counted as failed and scored pessimistically
    (positive criteria not met, negative ones applied), never as credit."""
    rows = host_rows(2)
    with JudgeEndpoint("garbage") as endpoint:
        got = run_all(rows, judge_url=endpoint.url, server_command=GEAR_COMMAND, run_dir=str(tmp_path), metrics=False,
                      judge_options={"maxReasks": 0})
    for g, row in zip(got, rows):
        assert g["judge_failed_criteria"] == g["num_criteria"] > 0
        rubrics = row["spec"]["row"]["reward_model"]["rubrics"]
        pessimistic = [json.dumps({"explanation": "", "criteria_met": r["points"] < 0}) for r in rubrics]
        want = cli_score("ruscarl", "gear", [{"row": row["spec"]["row"], "response": row["response"], "judge_outputs": pessimistic}])
        assert g["score"] == want[0]["reward"]


def test_no_judge_is_a_config_error(server: EmbeddedServer) -> None:
    """Rows without judgments, no judge_url, no reward router, a server without a judge: ConfigError at judge_url."""
    [error] = run_all(host_rows(1), url=server.url)
    assert isinstance(error, ConfigError) and error.path == ("judge_url",)


def test_canonical_rows_without_judgments_name_the_missing_judgments(server: EmbeddedServer) -> None:
    """A canonical row carries no prompt for a judge: the error names extra_info.gear_judgments and the fix."""
    record, graph = healthbench_records()[0]
    spec = gear_spec(record, graph, "canonical")

    async def main() -> Any:
        return await compute_score("hb", "x", "", {"gear": spec}, url=server.url, judge_url="http://127.0.0.1:9/v1")

    with pytest.raises(RowError) as caught:
        asyncio.run(main())
    assert caught.value.path == ("extra_info", "gear_judgments") and "--format ruscarl" in str(caught.value)


class _RewardModelTokenizer:
    name_or_path = "/models/judge-7b"


def test_verl_reward_router_is_the_judge(server: EmbeddedServer) -> None:
    """verl's reward_router_address (host:port) becomes the call's endpoint, with the reward model's
    path as the model name; a server started elsewhere needs no judge of its own."""
    rows = host_rows(2, "merf")
    with JudgeEndpoint() as endpoint:
        address = endpoint.url.removeprefix("http://").removesuffix("/v1")
        got = run_all(rows, url=server.url, reward_router_address=address, reward_model_tokenizer=_RewardModelTokenizer(), metrics=False)
        models = set(endpoint.models)
    want = expected(server.url, "merf", rows, "gear")
    assert [g["score"] for g in got] == [w["reward"] for w in want]
    assert models == {"/models/judge-7b"}


def test_judgments_in_a_group_shared_dict_are_refused(server: EmbeddedServer) -> None:
    """verl's naive manager merges each rollout's tool_extra_fields into the one extra_info dict of the
    group, in place: reading judgments from it for two different responses is refused loudly."""
    record, graph = healthbench_records()[0]
    spec = gear_spec(record, graph, "canonical")
    count = len(spec["rubric"]["criteria"])
    shared: Dict[str, Any] = {"gear": spec}

    async def naive_like(response: str, p: float) -> Any:
        shared.update({"gear_judgments": {"p": [p] * count}})  # naive.py: extra_info.update(tool_extra_fields)
        await asyncio.sleep(0)  # naive.py decodes in an executor here: another rollout runs
        return await compute_score("hb", response, "", shared, url=server.url)

    async def main() -> List[Any]:
        return list(await asyncio.gather(naive_like("first", 1.0), naive_like("second", 0.0), return_exceptions=True))

    outcomes = asyncio.run(main())
    assert any(isinstance(o, RowError) and o.path == ("extra_info", "gear_judgments") for o in outcomes)
