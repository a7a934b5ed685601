"""The worker's reading of HealthBench-grader outputs (RuscaRL, MeRF) against the service's
(adapters/ruscarl/judge-parse.ts, the built dist run by node): the same verdict, or unread, for
every output the worker answers, and the worker answers all but the few it must leave.

Outputs are drawn from the pieces a small judge writes and the ones each step of RuscaRL's reading
turns on: prose around the JSON, ```json fences closed or not, reasoning blocks, unescaped quotes in
an explanation, truncation, trailing commas, stray and nested braces, repeated and non-boolean
``criteria_met``, Python's whitespace beyond JSON's, ``\\u`` escapes, NaN and numbers.
"""
from __future__ import annotations

from typing import Any, List

from hypothesis import given, settings
from hypothesis import strategies as st

from built_service import service_verdicts
from gear_bridge.in_process.grader_output import UNREAD, read_verdict

#: parseGraderOutput's verdict: met where read ('ok'), else unread.
READ = "const read = m.parseGraderOutput(raw === null ? undefined : raw, 0, 'r1'); return read.status === 'ok' ? read.met : 'unread';"


PIECES = [
    '{"explanation": "The response covers it.", "criteria_met": true}', '{"explanation": "no", "criteria_met": false}',
    '{"explanation": "He said "yes" here", "criteria_met": true}', '{"explanation": "a \\\\"quoted\\\\" word", "criteria_met": false}',
    '{"criteria_met": true, "criteria_met": false}', '{"criteria_met": "true"}', '{"criteria_met": 1}', '{"criteria_met": NaN}',
    '{"explanation": "cut', '"criteria_met": true', '"criteria_met" :\n false', '"criteria_met":', "true", "false", "null",
    "```json", "```", "\n", " ", "\u00a0", "\u2003", "\u3000", "\x0b", "Here is my evaluation:", "Verdict:", "{", "}", "[", "]", ",",
    '"explanation"', ": ", '"', "\\u0041", '{"a": 1e400}', '{"a": 12345678901234567890}', "<think>draft {criteria_met: false}</think>",
    "</think>", "<think>", '{"explanation": "x", "criteria_met": true,}', "{'criteria_met': True}", "\u00e9", "\U0001F600",
    '[{"explanation": "x", "criteria_met": true}]', '"\\"criteria_met\\": true"', '"criteria_met": tru', '"criteria_met": fals',
]


def service_reads(outputs: List[Any]) -> List[Any]:
    return service_verdicts("adapters/ruscarl/judge-parse.js", READ, outputs)


def _answered(verdict: Any) -> bool:
    return verdict is not None


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), min_size=1, max_size=300))
def test_reads_what_the_service_reads(outputs: List[str]) -> None:
    local = [read_verdict(output) for output in outputs]
    service = service_reads(outputs)
    for output, mine, theirs in zip(outputs, local, service):
        assert mine is None or mine == theirs, (output, mine, theirs)
    assert all(_answered(mine) for mine in local), [o for o, m in zip(outputs, local) if m is None]


def test_outputs_a_small_judge_writes_are_read_in_the_worker() -> None:
    outputs: List[Any] = [
        'Here is my evaluation:\n{"explanation": "It advises rest.", "criteria_met": true}',
        '```json\n{"explanation": "It says "see a doctor" twice", "criteria_met": false}\n```',
        '{"explanation": "It lists the dose", "criteria_met": true',  # truncated: the regex finds it
        '{"explanation": "ok", "criteria_met": "yes"}',  # not a boolean: unread
        '[{"explanation": "x", "criteria_met": true}]',  # JSON, but not an object: unread, no repair is tried
        "I cannot grade this.",
        None,
    ]
    assert [read_verdict(output) for output in outputs] == service_reads(outputs) == [True, False, True, UNREAD, UNREAD, UNREAD, UNREAD]


def test_leaves_what_pythons_json_reads_differently() -> None:
    deep = "[" * 600 + "]" * 600
    long_integer = '{"explanation": "x", "n": ' + "7" * 5000 + ', "criteria_met": true}'
    assert read_verdict(deep) is None  # the service stops at 512 levels, Python reads on
    assert read_verdict(long_integer) is None  # Python refuses the integer, the service reads it
    assert service_reads([deep, long_integer]) == [UNREAD, True]
