"""The worker's reading of WritingBench and PLawBench outputs against the service's
(adapters/scored/judge-parse.ts, the built dist run by node): where the worker answers, the service
read every criterion, with the same p and verdict.

Outputs are built from the places a judge puts the JSON the prompt asks for and the ones the
service's search turns on: prose around it, fences with and without "json", the object nested under
another key or beside another, a list of the items, a cut tail (the service's last candidate and
regex fallbacks, which the worker leaves to it), reasoning blocks, and items keyed or valued otherwise.
"""
from __future__ import annotations

import json
from typing import Any, List, Tuple

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from built_service import run_on_batch
from gear_bridge.in_process.scored_output import read_scored_output, read_subitem_output

#: parseScoredJudgeOutput for a WritingBench request (scale 1-10, normalized) or a PLawBench one
#: (partial points, a probability per subitem); its p, verdicts and statuses.
SCRIPT = """
import(process.argv[1]).then((m) => {
  const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(cases.map(([raw, points, maxima]) => {
    const writing = points === null;
    const items = maxima.map((max, index) => ({ index, id: String(index), scoreType: writing ? 'scale_1_10' : 'partial_points',
      maxScore: writing ? 10 : max, subitems: writing ? [] : points[index].map((p) => ({ points: p, text: 'x' })) }));
    const read = m.parseScoredJudgeOutput(raw, items, writing ? 'normalized' : 'subitem-prob', 0.7);
    return [read.map((j) => j.p), read.map((j) => j.met), read.map((j) => j.status)];
  })));
});
"""

#: The statuses of a criterion the service read (adapters/judge-output/failure-policy.ts): the worker answers no other.
READ = {"ok", "clamped", "flipped", "partial"}

#: (output, subitem points per criterion or None for WritingBench, each criterion's maximum)
Case = Tuple[str, Any, List[float]]


def assert_reads_alike(cases: List[Case]) -> List[Any]:
    local = [read_scored_output(raw, len(maxima)) if points is None else read_subitem_output(raw, points, maxima) for raw, points, maxima in cases]
    service = json.loads(run_on_batch(SCRIPT, "adapters/scored/judge-parse.js", json.dumps(cases)))
    for (raw, _, _), mine, (p, met, statuses) in zip(cases, local, service):
        if mine is not None:
            assert READ.issuperset(statuses) and (mine[0], mine[1]) == (p, met), (raw, mine, p, met, statuses)
    return local


SCORES = ["7", "3", "10", "1", "6.5", "6.999999999999999", "0", "11", '"8"', "null", "true", "NaN", "7.0"]
EXTRAS = ["", '"reason": "ok", ', '"reason": "a {b} \\"c\\"", ', '"reason": "caf\u00e9 \u8bf4\u660e", ', '"prob_met": 0.2, ', '"why": {"a": 1}, ']


@st.composite
def writing_items(draw: Any, count: int) -> str:
    pairs = []
    for k in range(1, count + 1):
        extra = draw(st.sampled_from(EXTRAS[:4] * 3 + EXTRAS))
        score = draw(st.one_of(st.sampled_from(SCORES[:6]), st.sampled_from(SCORES)))
        pairs.append(f'"{k}": {{{extra}"score": {score}}}')
    if draw(st.integers(0, 5)) == 0:
        pairs = draw(st.permutations(pairs))
    if draw(st.integers(0, 7)) == 0:
        pairs[0] = pairs[0].replace('"1"', draw(st.sampled_from(['"01"', '"item 1"', '"\u0131tem 1"'])), 1)
    if draw(st.integers(0, 7)) == 0:
        pairs = pairs[:-1]
    if draw(st.integers(0, 7)) == 0:
        pairs.append(draw(st.sampled_from(['"01": {"score": 2}', '"5": {"score": 2}', '"summary": "done"'])))  # another name of item 1, or no item
    return "{" + ", ".join(pairs) + "}"


PROBS = ["0.9", "0", "1", "0.25", "1.5", "null", '"0.5"']


@st.composite
def subitem_items(draw: Any, sizes: List[int]) -> str:
    pairs = []
    for k, size in enumerate(sizes, start=1):
        probs = [draw(st.sampled_from(PROBS)) for _ in range(size)]
        answers = [f'"{j}": {{"prob_met": {prob}}}' for j, prob in enumerate(probs, start=1)]
        if draw(st.integers(0, 9)) == 0:
            answers = answers[:-1]
        pairs.append(f'"{k}": {{"subitems": {{{", ".join(answers)}}}}}')
    return "{" + ", ".join(pairs) + "}"


PROSE = ["", "", "Scores:\n", "Here is my evaluation. ", "\u3000", "I weigh { and } first. ", "Done.", "<think>{\"1\": {\"score\": 2}}</think>"]
OPENERS = ["", "", "```", "```json\n", "```JSON "]
CLOSERS = ["", "", "```", "\n```"]


@st.composite
def placed(draw: Any, body: str, other: str) -> str:
    """``body`` where a judge puts it: alone, under a key, beside another object, as a list of its
    items, after prose or in a fence, sometimes cut short."""
    shape = draw(st.sampled_from(["alone", "alone", "alone", "nested", "two", "list", "second"]))
    if shape == "nested":
        body = '{"scores": ' + body + "}"
    elif shape == "two":
        body = '{"a": ' + other + ', "b": ' + body + "}"
    elif shape == "list":
        value = json.loads(body) if body.startswith("{") else None
        body = json.dumps(list(value.values())) if isinstance(value, dict) else body
    elif shape == "second":
        body = other + "\n```json\n" + body + "\n```"
    text = draw(st.sampled_from(PROSE)) + draw(st.sampled_from(OPENERS)) + body + draw(st.sampled_from(CLOSERS)) + draw(st.sampled_from(PROSE))
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


@st.composite
def writing_case(draw: Any) -> Case:
    count = draw(st.integers(1, 4))
    return draw(placed(draw(writing_items(count)), draw(writing_items(count)))), None, [10.0] * count


@st.composite
def subitem_case(draw: Any) -> Case:
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    points = [[float(draw(st.sampled_from([1, 2, 4, 6]))) for _ in range(size)] for size in sizes]
    maxima = [draw(st.sampled_from([sum(p), 10.0, 3.0])) for p in points]
    return draw(placed(draw(subitem_items(sizes)), draw(subitem_items(sizes)))), points, maxima


# Not shrunk: a batch of 40-100 outputs shrinks for minutes, and the failure names its output already.
@settings(max_examples=60, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.large_base_example, HealthCheck.data_too_large])
@given(st.lists(st.one_of(writing_case(), subitem_case()), min_size=40, max_size=100))
def test_reads_what_the_service_reads(cases: List[Case]) -> None:
    assert_reads_alike(cases)


def test_outputs_a_chatty_judge_writes_are_read_in_the_worker() -> None:
    """The usual departures from the asked-for JSON are answered in the worker, as the service reads them."""
    items = '{"1": {"reason": "keeps to it", "score": 8}, "2": {"reason": "\u8bf4\u660e", "score": 3}}'
    sub = '{"1": {"subitems": {"1": {"prob_met": 0.9}, "2": {"prob_met": 0.2}}}}'
    cases: List[Case] = [
        ("Scores:\n```json\n" + items + "\n```", None, [10.0, 10.0]),
        (items + "\nBoth follow the rubric.", None, [10.0, 10.0]),
        ('{"scores": ' + items + "}", None, [10.0, 10.0]),
        ('[{"score": 8}, {"score": 3}]', None, [10.0, 10.0]),
        ('[{"score": 8}, {"score": 3}, {"score": 5}]', None, [10.0, 10.0]),  # the service reads the first two
        ("<think>The first holds.</think>\n" + items, None, [10.0, 10.0]),
        ("Here is my evaluation:\n" + sub, [[4.0, 6.0]], [10.0]),
        ("```json\n" + sub + "\n```", [[4.0, 6.0]], [10.0]),
    ]
    local = assert_reads_alike(cases)
    assert all(reading is not None for reading in local), local
    assert local[0] == ([0.8, 0.3], [True, False])
    assert local[6] == ([(0.9 * 4 + 0.2 * 6) / 10], [False])


def test_what_the_service_finds_only_by_repair_is_left_to_it() -> None:
    """A cut output (the closers' candidate and the regex fallbacks) and a key outside ASCII are the service's."""
    assert read_scored_output('{"1": {"score": 8}, "2": {"score": 3}', 2) is None
    assert read_scored_output('{"\u0131tem 1": {"score": 8}, "2": {"score": 3}}', 2) is None
    assert read_scored_output('Scores: "1": {"score": 8}, "2": {"score": 3}', 2) is None
