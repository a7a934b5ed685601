"""The worker's reading of RaR-Explicit verdicts against the service's
(adapters/rar-explicit/judge-parse.ts, the built dist run by node): the same verdict, or unread,
for every output, the worker answering all but what Python's JSON reader reads differently.

Outputs are drawn from the pieces a judge writes and the ones the service's extraction turns on:
prose around the JSON, ``` fences with and without "json" (in any case), several fences, braces and
quotes inside strings, escapes, a repeated or non-boolean ``satisfied``, JSON of another shape,
reasoning blocks and Python's whitespace beyond JSON's.
"""
from __future__ import annotations

from typing import Any, List

from hypothesis import given, settings
from hypothesis import strategies as st

from built_service import service_verdicts
from gear_bridge.in_process.rar_output import UNREAD, read_satisfied

#: parseExplicitVerdict's verdict: satisfied where read, else unread.
READ = "const read = m.parseExplicitVerdict(raw === null ? undefined : raw); return 'satisfied' in read ? read.satisfied : 'unread';"


PIECES = [
    '{"satisfied": true}', '{"satisfied": false}', '{"satisfied": true, "satisfied": false}', '{"satisfied": "true"}', '{"satisfied": null}',
    '{"reason": "a } and a { in a string", "satisfied": true}', '{"reason": "a \\" quote } {", "satisfied": false}', '{"a": {"satisfied": true}}',
    '[{"satisfied": true}]', '"satisfied"', "true", "{", "}", '"', "\\\\", "```", "```json", "```JSON", "```Json\n", "\n", " ", "\u00a0", "\u2003",
    "Here is my verdict:", "The response is fine.", '{"satisfied": tru', '{"satisfied": true,}', "{'satisfied': True}", '{"satisfied": NaN}',
    "<think>{\"satisfied\": false}</think>", "</think>", "\\u0041", "\U0001F600", "\u00e9",
]


def service_reads(outputs: List[Any]) -> List[Any]:
    return service_verdicts("adapters/rar-explicit/judge-parse.js", READ, outputs)


#: Outputs built as judges write them: prose, a fence opened in some way, an object, a fence closed
#: or not, and again: where the order of the candidates and each one's cleaning decide the verdict.
OBJECTS = st.sampled_from(['{"satisfied": true}', '{"satisfied": false}', '{"satisfied": true, "satisfied": false}', '{"satisfied": "true"}',
                           '{"reason": "a \\" quote } {", "satisfied": false}', '{"satisfied": tru', '[{"satisfied": true}]', '{"a": {"satisfied": true}}'])
OPENERS = st.sampled_from(["", "```", "```json", "```JSON", "```Json\n", "```json\n\u00a0"])
CLOSERS = st.sampled_from(["", "```", "\u00a0\n```", "\n```"])
PROSE = st.sampled_from(["", "Here is my verdict: ", "The response is fine.\n", "\u2003", "a { b "])
WRITTEN = st.lists(st.tuples(PROSE, OPENERS, OBJECTS, CLOSERS), min_size=1, max_size=3).map(lambda parts: "".join("".join(part) for part in parts))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), WRITTEN), min_size=1, max_size=300))
def test_reads_what_the_service_reads(outputs: List[str]) -> None:
    local = [read_satisfied(output) for output in outputs]
    service = service_reads(outputs)
    for output, mine, theirs in zip(outputs, local, service):
        assert mine == theirs, (output, mine, theirs)


def test_outputs_a_chatty_judge_writes_are_read_in_the_worker() -> None:
    outputs: List[Any] = [
        'The response covers the item.\n{"reason": "it does", "satisfied": true}',
        'Verdict:\n```json\n{"satisfied": false}\n```\nThat is all.',
        '```\n{"satisfied": true}\n```',
        '{"satisfied": true, "satisfied": false}',  # repeated: unread
        '[{"satisfied": true}]',  # JSON, but not an object: not searched inside
        '{"satisfied": "yes"}',
        "It is satisfied.",
        None,
        'My verdict: {"reason": "he wrote \\" } {", "satisfied": false}',  # an escaped quote, braces in the string
        '\u2003[{"satisfied": true}]\u00a0',  # JSON once Python's whitespace is stripped: not searched inside
    ]
    assert [read_satisfied(output) for output in outputs] == service_reads(outputs) == [True, False, True, UNREAD, UNREAD, UNREAD, UNREAD, UNREAD,
                                                                                      False, UNREAD]


def test_leaves_what_pythons_json_reads_differently() -> None:
    deep = '{"satisfied": true, "x": ' + "[" * 600 + "]" * 600 + "}"
    assert read_satisfied(deep) is None
    assert service_reads([deep]) == [UNREAD]  # the service stops at 512 levels; Python reads on
