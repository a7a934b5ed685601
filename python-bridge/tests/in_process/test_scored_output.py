"""The worker's reading of WritingBench and PLawBench outputs against the service's
(adapters/scored/judge-parse.ts and the pessimistic failure policy, the built dist run by node):
the same p, verdict and unread count for every criterion of every output, the worker answering
every output but those Python's JSON reader may read otherwise (``json_reads_alike``).

Outputs are built from the places a judge puts the JSON the prompt asks for and the ones the
service's search turns on: prose around it, fences with and without "json", the object nested under
another key or beside another, a list of the items, a cut tail (the service's last candidate and
regex fallbacks), reasoning blocks; and from the values it coerces: bare numbers, booleans, yes/no
words, numeric strings, probability-like fields, verdicts, subitems as lists or under other keys,
values clamped, missing or unreadable; keys and numeric strings outside ASCII.
"""
from __future__ import annotations

import json
from typing import Any, List, Optional, Tuple

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from built_service import mapped, run_on_batch
from gear_bridge.in_process.json_candidates import with_missing_closers, without_cut_tail
from gear_bridge.in_process.json_reading import json_reads_alike, strip_reasoning
from gear_bridge.in_process.scored_output import read_scored

#: parseScoredJudgeOutput for a WritingBench request (scale 1-10, normalized) or a PLawBench one
#: (partial points, a probability per subitem), then the failure policy the service applies.
SCRIPT = """
const fp = new URL('../judge-output/failure-policy.js', process.argv[1]).href;
Promise.all([import(process.argv[1]), import(fp)]).then(([m, f]) => {
  const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(cases.map(([raw, points, weights, scales]) => {
    const writing = points === null;
    const items = weights.map((w, index) => ({ index, id: String(index), scoreType: scales[index] ? 'scale_1_10' : 'partial_points',
      maxScore: scales[index] ? 10 : w, subitems: writing ? [] : points[index].map((p) => ({ points: p, text: 'x' })) }));
    const read = m.parseScoredJudgeOutput(raw, items, writing ? 'normalized' : 'subitem-prob', 0.7);
    const judged = f.applyJudgeFailurePolicy(read, weights, 'pessimistic');
    return [judged.map((j) => j.p), judged.map((j) => j.met), f.countUnread(read)];
  })));
});
"""

#: (output, subitem points per criterion or None for WritingBench, each criterion's weight (a
#: partial-points criterion's maximum), and whether each is scored on the 1-10 scale (else in
#: partial points; by default WritingBench's are, PLawBench's are not))
Case = Tuple[str, Any, List[float], List[bool]]
Reading = Tuple[List[float], List[bool], int]


def read_here(raw: str, points: Any, weights: List[float], scales: List[bool]) -> Optional[Reading]:
    items = [(None if points is None else points[k], scale, 10.0 if scale else weight) for k, (weight, scale) in enumerate(zip(weights, scales))]
    return read_scored(raw, items, weights)


def case(raw: str, points: Any, weights: List[float], scales: Optional[List[bool]] = None) -> Case:
    """A case whose criteria have their host's default score type unless ``scales`` says otherwise."""
    return raw, points, weights, scales if scales is not None else [points is None] * len(weights)


def assert_reads_alike(cases: List[Case]) -> List[Optional[Reading]]:
    local = [read_here(*c) for c in cases]
    service = json.loads(run_on_batch(SCRIPT, "adapters/scored/judge-parse.js", json.dumps(cases)))
    for (raw, _, _, _), mine, theirs in zip(cases, local, service):
        if mine is not None:
            assert (mine[0], mine[1], mine[2]) == tuple(theirs), (raw, mine, theirs)
        else:
            assert not json_reads_alike(strip_reasoning(raw)), raw
    return local


SCORES = ["7", "3", "10", "1", "6.5", "6.999999999999999", "0", "11", '"8"', "null", "true", "NaN", "7.0", "-2", "1e400", '" 1_0"', '"7 "', '"\u0661"', "{}",
          '"\uff18"', '"\u3000 6\xa0"', '"\u0665.5"', '"7\u2028"']
EXTRAS = ["", '"reason": "ok", ', '"reason": "a {b} \\"c\\"", ', '"reason": "caf\u00e9 \u8bf4\u660e", ', '"prob_met": 0.2, ', '"why": {"a": 1}, ',
          '"reason": "\u0130 holds", ', '"criteria_met": false, ', '"p": 1.3, ', '"normalized_score": "0.3", ', '"awarded_points": 4, ', '"criteria_met": "maybe", ']
#: An item's value other than {"score": x}: what the host coerces (bare numbers, verdicts, words, numeric strings) or cannot read.
WRITING_VALUES = ["7", "true", "false", '"yes"', '"1"', '"0"', '"8"', '"\u662f"', '"\u5426"', "null", "[7]", '"high"', '"inf"', '"\u0661"', "12",
                  '{"awarded_points": 4}', '{"criteria_met": true}', '{"criteria_met": "no"}', '{"prob_met": 0.8}', '{"p": 1.2}', '{"prob": null}',
                  '{"SCORE": 7}', '{"score": {"a": 1}}', '{"score": true}', '{"criteria_met": {"met": "yes"}}', '" Yes "', '"TRUE"',
                  '{"prob_met": 0.9, "normalized_score": 0.2}', '{"criteria_met": 1}', '{"criteria_met": 0, "score": 8}', '{"score": 5, "why": {"a": 1}}',
                  '{"reason": "\u0130", "SCORE": 6}', "1e400"]


@st.composite
def writing_items(draw: Any, count: int) -> str:
    pairs = []
    for k in range(1, count + 1):
        if draw(st.integers(0, 4)) == 0:
            value = draw(st.sampled_from(WRITING_VALUES))
        else:
            extra = draw(st.sampled_from(EXTRAS[:4] * 3 + EXTRAS))
            score = draw(st.one_of(st.sampled_from(SCORES[:6]), st.sampled_from(SCORES)))
            value = f'{{{extra}"score": {score}}}'
        pairs.append(f'"{k}": {value}')
    return keyed(draw, pairs)


def keyed(draw: Any, pairs: List[str]) -> str:
    """The pairs as an object, sometimes reordered, re-keyed, short of one, or with another key."""
    if draw(st.integers(0, 5)) == 0:
        pairs = draw(st.permutations(pairs))
    if draw(st.integers(0, 7)) == 0:
        pairs[0] = pairs[0].replace('"1"', draw(st.sampled_from(['"01"', '"item 1"', '"\u0131tem 1"', '"R_1"', '"item\u30001"', '"\u2003 1\x85"', '"\u0130tem 1"', '"\u212a1"', '"\u7b2c1"'])), 1)
    if draw(st.integers(0, 7)) == 0:
        pairs = pairs[:-1]
    if draw(st.integers(0, 7)) == 0:
        pairs.append(draw(st.sampled_from(['"01": {"score": 2}', '"5": {"score": 2}', '"summary": "done"'])))  # another name of item 1, or no item
    return "{" + ", ".join(pairs) + "}"


PROBS = ["0.9", "0", "1", "0.25", "1.5", "null", '"0.5"', "-0.2", "true", '"yes"', '"\u6ee1\u8db3"', "NaN", '"\u0661"', '" .5 "', '"\uff10.\uff15"', '"\u30000.5"', '"0.5\u205f"']
#: A subitem's answer other than {"prob_met": x}.
ANSWERS = ["0.9", "true", '"no"', '"0.5"', '{"probability": 0.3}', '{"prob_met": {"p": 0.4}}', '{"met": true}', '{"satisfied": "yes"}', "null", "[0.5]",
           '{"score": 2}', '{"prob_met": 0.3, "p": 0.9}', '{"probability": 0.8, "prob_met": 0.1}', '" No"', '"Met"']
#: An item's value other than {"subitems": {...}}.
SUBITEM_VALUES = ['{"score": 7}', '{"awarded_points": 3}', '{"awarded_points": 30}', '{"criteria_met": true}', '{"prob_met": 0.6}', "0.5", "3", "true",
                  '"\u662f"', '"2"', "null", '{"subitems": null}', '{"subitems": 5, "prob_met": 0.4}', '{"subitems": {}}', "1", '{"awarded_points": 3, "score": 7}',
                  '{"items": {"1": {"prob_met": 0.2}}, "subitems": {"1": {"prob_met": 0.7}}}', '{"criteria_met": 1}']


@st.composite
def subitem_items(draw: Any, sizes: List[int]) -> str:
    pairs = []
    for k, size in enumerate(sizes, start=1):
        if draw(st.integers(0, 6)) == 0:
            pairs.append(f'"{k}": {draw(st.sampled_from(SUBITEM_VALUES))}')
            continue
        answers = [f'{{"prob_met": {draw(st.sampled_from(PROBS))}}}' if draw(st.integers(0, 5)) else draw(st.sampled_from(ANSWERS)) for _ in range(size)]
        key_form = draw(st.sampled_from(["{j}"] * 6 + ["item_{j}", "subitem_{j}", "criterion_{j}", "0{j}", "\u3000{j}", "\u0131tem_{j}"]))
        keyed_answers = [f'"{key_form.format(j=j)}": {answer}' for j, answer in enumerate(answers, start=1)]
        if draw(st.integers(0, 9)) == 0:
            keyed_answers = keyed_answers[:-1]
        payload = "[" + ", ".join(answers) + "]" if draw(st.integers(0, 7)) == 0 else "{" + ", ".join(keyed_answers) + "}"
        under = draw(st.sampled_from(['"subitems"'] * 8 + ['"items"', '"criteria"', '"subitems": null, "items"', '"Subitems"']))
        pairs.append(f'"{k}": {{{under}: {payload}}}')
    return keyed(draw, pairs)


PROSE = ["", "", "Scores:\n", "Here is my evaluation. ", "\u3000", "I weigh { and } first. ", "Done.", "<think>{\"1\": {\"score\": 2}}</think>"]
OPENERS = ["", "", "```", "```json\n", "```JSON "]
CLOSERS = ["", "", "```", "\n```"]


@st.composite
def placed(draw: Any, body: str, other: str) -> str:
    """``body`` where a judge puts it: alone, under a key, beside another object, as a list of its
    items, after prose or in a fence, sometimes cut short."""
    shape = draw(st.sampled_from(["alone", "alone", "alone", "nested", "two", "list", "second", "loose"]))
    if shape == "loose":
        # The items without the object around them, prose between: no JSON; the regex fallbacks read them.
        body = body[1:-1].replace('}, "', draw(st.sampled_from(['}\nand "', "}; \"", '} "'])))
    elif shape == "nested":
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
    # Mostly the host's 1-10 scale; an item in partial points (its score_type) has positive points.
    scales = [draw(st.sampled_from([True, True, True, False])) for _ in range(count)]
    weights = [draw(st.sampled_from([10.0, 5.0, 1.5, -3.0] if scale else [10.0, 5.0, 1.5])) for scale in scales]
    return draw(placed(draw(writing_items(count)), draw(writing_items(count)))), None, weights, scales


@st.composite
def subitem_case(draw: Any) -> Case:
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
    points = [[float(draw(st.sampled_from([1, 2, 4, 6]))) for _ in range(size)] for size in sizes]
    maxima = [draw(st.sampled_from([sum(p), 10.0, 3.0])) for p in points]
    scales = [draw(st.sampled_from([False, False, False, True])) for _ in sizes]  # an item on the 1-10 scale: its score_type
    return draw(placed(draw(subitem_items(sizes)), draw(subitem_items(sizes)))), points, maxima, scales


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
        case("Scores:\n```json\n" + items + "\n```", None, [10.0, 10.0]),
        case(items + "\nBoth follow the rubric.", None, [10.0, 10.0]),
        case('{"scores": ' + items + "}", None, [10.0, 10.0]),
        case('[{"score": 8}, {"score": 3}]', None, [10.0, 10.0]),
        case('[{"score": 8}, {"score": 3}, {"score": 5}]', None, [10.0, 10.0]),  # the service reads the first two
        case("<think>The first holds.</think>\n" + items, None, [10.0, 10.0]),
        case("Here is my evaluation:\n" + sub, [[4.0, 6.0]], [10.0]),
        case("```json\n" + sub + "\n```", [[4.0, 6.0]], [10.0]),
    ]
    local = assert_reads_alike(cases)
    assert all(reading is not None for reading in local), local
    assert local[0] == ([0.8, 0.3], [True, False], 0)
    assert local[6] == ([(0.9 * 4 + 0.2 * 6) / 10], [False], 0)


def test_what_only_the_hosts_repairs_read_is_read_in_the_worker() -> None:
    """A cut tail closed, values coerced and clamped, the regex fallbacks: read in the worker as the
    service reads them; what none of them reads counts against the response."""
    cases: List[Case] = [
        case('{"1": {"score": 8}, "2": {"score": 3', None, [5.0, -3.0]),  # the cut "3" dropped: item 2 unread, its penalty applied
        case('{"1": {"score": 8}, "2": {"score": 3}', None, [5.0, -3.0]),  # closed
        case('Scores: "1": {"score": 8} and "2": {"score": 12}', None, [5.0, -3.0]),  # the regex fallback, 12 clamped to 10
        case('{"1": 7, "2": "yes"}', None, [5.0, -3.0]),  # a bare score, a verdict word
        case('{"1": {"score": 0}, "2": {"prob_met": 0.4}}', None, [5.0, -3.0]),  # clamped to 1; a probability
        case('{"1": {"subitems": {"1": {"prob_met": 0.9}, "2": {"prob_met": 0.2', [[4.0, 6.0]], [10.0]),  # subitem 2 cut: partial
        case('"1": {"subitems": {"1": {"prob_met": 0.5}, "2": {"prob_met": 1} and so on', [[4.0, 6.0]], [10.0]),  # the section fallback
        case("I cannot grade this.", None, [5.0, -3.0]),
        case('Scores: "1": {"score": 5, "why": {"a": 1}} and "2": {"score": 3}', None, [5.0, -3.0]),  # a nested object: item 1 not scanned
        case('{"1": {"awarded_points": 3, "score": 7}}', [[4.0, 6.0]], [10.0]),  # PLawBench reads awarded points first
        case('{"1": {"awarded_points": 3}, "2": {"score": 7}}', None, [5.0, -3.0], [False, True]),  # item 1's score_type: partial points of 5
        case('{"1": {"subitems": {"1": {"prob_met": 0.5}}}}', [[4.0]], [3.0], [True]),  # its score_type: the 1-10 scale, of 10
        case('{"1": {"score": 4}, "2": {"score": 7}}', None, [5.0, 5.0], [False, True]),  # as asked of a 1-10 item, not of points
    ]
    local = assert_reads_alike(cases)
    assert all(reading is not None for reading in local), local
    assert local[0] == ([0.8, 1.0], [True, True], 1)
    assert local[1] == ([0.8, 0.3], [True, False], 0)
    assert local[2] == ([0.8, 1.0], [True, True], 0)
    assert local[3] == ([0.7, 1.0], [True, True], 0)
    assert local[4] == ([0.1, 0.4], [False, False], 0)
    assert local[5] == ([0.9 * 4 / 10], [False], 0)
    assert local[6] == ([(0.5 * 4 + 6) / 10], [True], 0)
    assert local[7] == ([0.0, 1.0], [False, True], 2)
    assert local[8] == ([0.0, 0.3], [False, False], 1)
    assert local[9] == ([0.3], [False], 0)
    assert local[10] == ([0.6, 0.7], [False, True], 0)
    assert local[11] == ([0.2], [False], 0)
    assert local[12] == ([0.8, 0.7], [True, True], 0)


def test_keys_and_numbers_outside_ascii_are_read_as_the_service_reads_them() -> None:
    """Python's float() reads Unicode digits and lower() knows more of Unicode; the worker reads
    such keys and strings as the service does. Only nesting past the service's reader is left."""
    cases: List[Case] = [
        case('{"\u0131tem 1": {"score": 8}, "2": {"score": 3}}', None, [5.0, -3.0]),  # dotless i: no item
        case('{"1": {"score": "\u0668"}, "2": {"score": 3}}', None, [5.0, -3.0]),  # Arabic-Indic: no number
        case('{"1": {"score": "\\u001c8"}, "2": {"score": "\u3000 3\xa0"}}', None, [5.0, -3.0]),  # stripped
        case('{"item\u30001": {"score": 8}, "\u20282\x85": {"score": 3}}', None, [5.0, -3.0]),  # separators
        case('{"1": {"subitems": {"1": {"prob_met": "\uff10.5"}, "\u3000 2": {"prob_met": "\u20030.5"}}}}', [[4.0, 6.0]], [10.0]),
        case('{"1": {"subitems": {"1": {"prob_met": "\u00a00.25"}, "2": {"prob_met": "\u20030.5"}}}}', [[4.0, 6.0]], [10.0]),
        case('{"1": {"subitems": {"1": {"prob_met": "\u00a00.25"}, "\u3000 2": {"prob_met": "\u20030.5"}}}}', [[4.0, 6.0]], [10.0]),
    ]
    local = assert_reads_alike(cases)
    assert local[0] == ([0.0, 0.3], [False, False], 1)
    assert local[1] == ([0.0, 0.3], [False, False], 1)
    assert local[2] == ([0.8, 0.3], [True, False], 0)
    assert local[3] == ([0.8, 0.3], [True, False], 0)
    assert local[4] == ([0.0], [False], 1)  # full-width digits are no probability: the criterion is unread
    assert local[5] == ([(0.25 * 4 + 0.5 * 6) / 10], [False], 0)
    assert local[6] == ([0.25 * 4 / 10], [False], 0)  # subitem keys are exact ("2", "item_2", ...): the second unanswered, counted 0
    assert read_here(*case("[" * 600 + "]" * 600, None, [5.0])) is None  # past the service's 512 levels


TAILS = ['{"a": 1', '{"a": 1.5e', '{"a": "cut', '{"a": "x\\"', '{"a": [1, 2', '{"a": {"b": -', '{"a": true', '{"a": tru', '{"a": 1}', "",
         '{"a": 1, "b":', '{"a": 1, "b" :\u3000', '{"k": 1,\x1c', '{"k": 2\ufeff', '{"k": 2 \x85', '{"a": 1]}', '{"a": "}{", "b": 3', "null", "{\\"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(TAILS), st.text(alphabet='{}[]",: 0123456789.eE+-abtrue\\\x1c\x85\ufeff\u3000\n', max_size=30)), min_size=1, max_size=8))
@example(TAILS)
def test_a_cut_tail_is_closed_as_the_service_closes_it(texts: List[str]) -> None:
    """dropCutTail and appendMissingJsonClosers, the service's last JSON candidate: the same text."""
    theirs = mapped("adapters/judge-output/json-candidates.js", "return [m.dropCutTail(raw), m.appendMissingJsonClosers(raw)];", texts)
    assert [[without_cut_tail(t), with_missing_closers(t)] for t in texts] == theirs
