"""The worker's reading of the official GEAR batch judge's outputs against the service's
(adapters/official-gear/judge-parse.ts and the pessimistic failure policy, the built dist run by
node): the same p, verdict and unread count for every criterion of every output, the worker
answering every output but those Python's JSON reader may read otherwise (``json_reads_alike``).

Outputs are built from the pieces a judge writes and the ones the service's reading turns on: item
keys spelled as the host reads them ("01", "r1", "Item_2", "criterion-3") or not, objects nested
in others, values clamped or flipped or unreadable, numeric strings, JSON candidates in every place
the host looks (prose, fences with and without "json", balanced braces), truncated outputs the
regex fallback reads, reasoning blocks, Python's whitespace beyond JSON's, and keys and numeric
strings outside ASCII (digits Python's float() reads and the service does not, Unicode whitespace,
letters whose lowering differs in length or lands in ASCII).
"""
from __future__ import annotations

import json
import math
from typing import Any, List, Optional, Tuple

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from built_service import run_on_batch
from gear_bridge.in_process.json_reading import json_reads_alike, strip_reasoning
from gear_bridge.in_process.official_output import read_batch_output

#: parseBatchJudgeOutput, then the failure policy the service applies to precomputed outputs.
SCRIPT = """
const fp = new URL('../judge-output/failure-policy.js', process.argv[1]).href;
Promise.all([import(process.argv[1]), import(fp)]).then(([m, f]) => {
  const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(cases.map(([raw, weights]) => {
    const read = m.parseBatchJudgeOutput(raw, weights.map((_, index) => ({ index, id: String(index) })), 'judge_prob');
    const judged = f.applyJudgeFailurePolicy(read, weights, 'pessimistic');
    return [judged.map((j) => j.p), judged.map((j) => j.met), f.countUnread(read)];
  })));
});
"""

Reading = Tuple[List[float], List[bool], int]


def service_reads(cases: List[Tuple[str, List[float]]]) -> List[Reading]:
    out = json.loads(run_on_batch(SCRIPT, "adapters/official-gear/judge-parse.js", json.dumps(cases)))
    return [(p, met, unread) for p, met, unread in out]


def assert_reads_alike(cases: List[Tuple[str, List[float]]]) -> List[Optional[Reading]]:
    local = [read_batch_output(raw, len(weights), weights) for raw, weights in cases]
    for (raw, _), mine, theirs in zip(cases, local, service_reads(cases)):
        if mine is not None:
            assert (mine[0], mine[1], mine[2]) == theirs, (raw, mine, theirs)
        else:
            assert not json_reads_alike(strip_reasoning(raw)), raw
    return local


KEYS = ["{k}", "0{k}", "r{k}", "R_{k}", "item {k}", "Item-{k}", "criterion_{k}", " {k} ", "rubric{k}", "x{k}", "{k}a", "\u0131tem {k}", "\uff11",
        "item\u3000{k}", "\u2003{k}\xa0", "\u0130TEM {k}", "\u212a{k}", "\u7b2c{k}", "R\u2028_{k}\x85", "\x1c{k}"]
VALUES = [
    '{"criteria_met": true, "prob_met": 0.9}', '{"criteria_met": false, "prob_met": 0.1}', '{"criteria_met": true, "prob_met": 0.2}',
    '{"criteria_met": false, "prob_met": 0.8}', '{"criteria_met": true, "prob_met": 1.5}', '{"criteria_met": false, "prob_met": -0.3}',
    '{"criteria_met": true, "prob_met": 1}', '{"criteria_met": false, "prob_met": 0}', '{"criteria_met": true, "prob_met": "0.75"}',
    '{"criteria_met": true, "prob_met": " 1_0 "}', '{"criteria_met": true, "prob_met": "high"}', '{"criteria_met": true, "prob_met": NaN}',
    '{"criteria_met": true, "prob_met": 1e400}', '{"criteria_met": true, "prob_met": true}', '{"criteria_met": false, "prob_met": null}',
    '{"criteria_met": true}', '{"criteria_met": "true", "prob_met": 0.9}', '{"criteria_met": 1, "prob_met": 0.9}', '{"prob_met": 0.9}',
    '{"criteria_met": true, "prob_met": [0.9]}', '{"criteria_met": true, "prob_met": "\u0661"}', '{"criteria_met": false, "prob_met": -0.0}',
    '{"criteria_met": true, "prob_met": 0.5}', '{"criteria_met": false, "prob_met": 0.5}', '{"criteria_met": true, "prob_met": "inf"}',
    '{"explanation": "a {b} c", "criteria_met": true, "prob_met": 0.7}', '{"explanation": "uses { once", "criteria_met": true, "prob_met": 0.6}', '{"explanation": "\\"q\\"", "criteria_met": false, "prob_met": 0.3}',
    '{"criteria_met": true, "prob_met": 9' + "0" * 400 + '}', "true", "0.9", "[true, 0.9]", "null",
    *('{"criteria_met": true, "prob_met": "%s"}' % s for s in ["\\u001c0.75", "+.6e0", "1__0", "0x1", "6_0e-2", "-inf", "nan", "0.7 5", "\\t.9\\n",
                                                                     "\uff10.\uff19", "\u30000.6\u3000", "\xa0.4\u2029", "\u0660.\u0669", "0.8\u0085", "\u00a0inf"]),
]


@st.composite
def keyed_object(draw: Any, count: int) -> str:
    """An object of items keyed as the judge keys them (some keys naming no item, some repeated)."""
    every = st.just(list(range(1, count + 1)))
    positions = draw(st.one_of(every, every, st.lists(st.integers(0, count + 1), min_size=0, max_size=count + 2)))
    keys = st.sampled_from(KEYS[:1] * len(KEYS) + KEYS)
    values = st.one_of(st.sampled_from(VALUES[:8]), st.sampled_from(VALUES[:8]), st.sampled_from(VALUES))
    pairs = [f'{json.dumps(draw(keys).format(k=k))}: {draw(values)}' for k in positions]
    if draw(st.integers(0, 5)) == 0:
        pairs.append('"summary": "done"')
    return "{" + ", ".join(pairs) + "}"


@st.composite
def payload(draw: Any, count: int) -> str:
    """A keyed object as it sits in the JSON: alone, nested under other keys, beside another, in a list."""
    inner = draw(keyed_object(count))
    shape = draw(st.sampled_from(["alone", "alone", "nested", "two", "list", "deep"]))
    if shape == "nested":
        return '{"grades": ' + inner + ', "note": "x"}'
    if shape == "two":  # the nested object with the most item keys is read
        return '{"a": ' + inner + ', "b": ' + draw(keyed_object(count)) + "}"
    if shape == "list":
        return "[" + inner + "]"
    if shape == "deep":
        return '{"result": {"scores": ' + inner + "}}"
    return inner


PROSE = ["", "Here are the grades:\n", "Done.", "I considered { and } here.", "\u3000", "\u00a0\n", "<think>{\"1\": {\"criteria_met\": true, "
         "\"prob_met\": 1}}</think>", "</think>", "```", "Note: ```x```\n", '"1": {"criteria_met": true, "prob_met": 0.6}']
OPENERS = ["", "```", "```json", "```JSON\n", "```json\n\u00a0"]
CLOSERS = ["", "```", "\n```", "\u00a0```"]


@st.composite
def official_output(draw: Any, count: int) -> str:
    """Prose, a fence opened in some way, a payload, a fence closed or not, prose; sometimes twice
    (where the order of the candidates decides which payload is read)."""
    text = ""
    for _ in range(draw(st.sampled_from([1, 1, 2]))):
        text += draw(st.sampled_from(PROSE)) + draw(st.sampled_from(OPENERS)) + draw(payload(count)) + draw(st.sampled_from(CLOSERS))
    text += draw(st.sampled_from(PROSE))
    damage = draw(st.sampled_from(["none", "none", "none", "cut", "comma", "python", "case"]))
    if damage == "cut":
        text = text[: draw(st.integers(0, len(text)))]  # a judge that ran out of tokens: the regex fallback's case
    elif damage == "comma":
        text = text.replace("}", ",}", 1)
    elif damage == "python":
        text = text.replace("true", "True").replace("false", "False")
    elif damage == "case":
        text = text.replace('"criteria_met"', '"Criteria_MET"').replace("true", "TRUE")
    return text


PIECES = ['{"1": {"criteria_met": true, "prob_met": 0.9}}', '"2": {"criteria_met": false, "prob_met": .4}', '"1":{"criteria_met":true,"prob_met":5.}',
          "{", "}", '"', "```", "```json", "\n", " ", "\u2003", "Here:", "<think>", "</think>", "\\u0031", "\ufeff", "\u00e9", ",", "[", "]"]


# Not shrunk: a batch of 40-100 outputs shrinks for minutes, and the failure names its output already.
@settings(max_examples=60, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.large_base_example, HealthCheck.data_too_large])
@given(st.lists(st.integers(1, 4).flatmap(lambda count: st.tuples(
    st.one_of(official_output(count), official_output(count), st.lists(st.sampled_from(PIECES), max_size=8).map("".join)),
    st.lists(st.sampled_from([2.0, 1.0, -1.0, 0.0, 3.5, -2.5]), min_size=count, max_size=count))), min_size=40, max_size=100))
def test_reads_what_the_service_reads(cases: List[Tuple[str, List[float]]]) -> None:
    assert_reads_alike(cases)


def test_outputs_a_chatty_judge_writes_are_read_in_the_worker() -> None:
    """The usual departures from the asked-for JSON are answered in the worker, as the service reads them."""
    item = '"1": {"criteria_met": true, "prob_met": 0.9}, "2": {"criteria_met": false, "prob_met": 0.2}'
    weights = [3.0, -2.0]
    outputs = [
        "Here are the grades:\n```json\n{" + item + "}\n```",
        "{" + item + "}\nThese grades follow the rubric.",
        '{"grades": {' + item + '}}',
        '{"r1": {"criteria_met": true, "prob_met": 0.9}, "r2": {"criteria_met": false, "prob_met": 0.2}}',
        '{"1": {"criteria_met": true, "prob_met": 0.3}, "2": {"criteria_met": false, "prob_met": 1.4}}',  # flipped, clamped and flipped
        '{"1": {"criteria_met": true, "prob_met": "0.8"}, "2": {"criteria_met": "no", "prob_met": 0.2}}',  # a string read, one unread
        "{" + item + ', "3": {"criteria_met": tr',  # cut: the regex fallback
        "<think>The first holds; the penalty does not apply.</think>\n{" + item + "}",
        '{"1": {"criteria_met": true, "prob_met": 0.9}}',  # item 2 missing: the penalty applies
    ]
    local = assert_reads_alike([(output, weights) for output in outputs])
    assert all(reading is not None for reading in local), local
    assert [reading[2] for reading in local if reading is not None] == [0, 0, 0, 0, 0, 1, 0, 0, 1]
    assert local[4] == ([0.7, 0.0], [True, False], 0)
    assert local[5] == ([0.8, 1.0], [True, True], 1)  # the unread penalty counts as applied


def test_a_negative_zero_probability_reads_as_zero() -> None:
    """Math.max(0, -0) is 0 in the service: the reward's terms must not carry -0."""
    for output in ('{"1": {"criteria_met": false, "prob_met": -0.0}}', 'Grades: {"1": {"criteria_met": false, "prob_met": -0.0}}'):
        read = read_batch_output(output, 1, [1.0])
        assert read is not None and read[0] == [0.0] and math.copysign(1.0, read[0][0]) == 1.0, output


def test_keys_and_numbers_outside_ascii_are_read_as_the_service_reads_them() -> None:
    """Python's float() reads Unicode digits and lower() knows more of Unicode; the worker reads
    such keys and strings as the service does. Only nesting past the service's reader is left."""
    weights = [1.0, -1.0]
    cases = [
        ('{"\u0131tem 1": {"criteria_met": true, "prob_met": 0.9}, "2": {"criteria_met": false, "prob_met": 0.1}}', weights),  # dotless i: no item
        ('{"1": {"criteria_met": true, "prob_met": "\u0660.9"}, "2": {"criteria_met": false, "prob_met": 0.1}}', weights),  # Arabic-Indic: no number
        ('{"1": {"criteria_met": true, "prob_met": "\\u001c0.9"}, "2": {"criteria_met": false, "prob_met": "\u3000 0.2\xa0"}}', weights),  # stripped
        ('{"item\u30001": {"criteria_met": true, "prob_met": 0.8}, "\u20282\x85": {"criteria_met": true, "prob_met": 0.6}}', weights),  # separators
        ('{"\u0130TEM 1": {"criteria_met": true, "prob_met": 0.9}, "\u212a2": {"criteria_met": true, "prob_met": 0.9}}', weights),  # no item key: the fallback reads the digits
    ]
    local = assert_reads_alike(cases)
    assert local[0] == ([0.0, 0.1], [False, False], 1)
    assert local[1] == ([0.0, 0.1], [False, False], 1)
    assert local[2] == ([0.9, 0.2], [True, False], 0)
    assert local[3] == ([0.8, 0.6], [True, True], 0)
    assert local[4] == ([0.9, 0.9], [True, True], 0)  # "\u0130TEM 1" and "\u212a2" name no item; the scan takes 1 and 2
    deep = "[" * 600 + '{"1": {"criteria_met": true, "prob_met": 0.9}}' + "]" * 600
    assert read_batch_output(deep, 1, [1.0]) is None  # past the service's 512 levels
