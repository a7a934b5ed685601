"""In-process scoring against the service it stands in for: a real ``gear serve``.

For random rubrics (canonical and official rows, RuscaRL / MeRF, official GEAR host, RaR,
WritingBench and PLawBench rows with random graphs), options, aggregators, judge scores and judge outputs (clean verdicts, and the outputs the
service's reader repairs or refuses), whatever the in-process scorer answers must be exactly
the service's answer for the same response (every field verl logs, float for float), and
where the service refuses the row the in-process scorer must have declined it. The examples
are biased so that most are answered in-process (the property would hold vacuously otherwise:
the share is checked too).
"""
from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gear_bridge import EmbeddedServer, load_settings
from gear_bridge.exceptions import ConfigError, RowError
from gear_bridge.in_process import IN_PROCESS_METHODS, FcpCounter, InProcessScorer
from gear_bridge.rows import JudgeScores, parse_judgment, parse_row
from gear_bridge.sync.loop_thread import shared_loop_thread
from gear_bridge.verl.rewarder import Sample
from gear_bridge.verl.shared import shared_rewarder

IDS = ["a", "b", "c", "d", "e", "f", "r1", "r2", "r3"]


def served(url: str, sample: Sample, **kwargs: Any) -> Any:
    """The service's verl fields for one sample (or the error it gives)."""
    server_settings = load_settings(url=url, in_process=False, **kwargs)

    async def one() -> Any:
        rewarder = await shared_rewarder(server_settings, None)
        try:
            [outcome] = await rewarder.score_each([sample])
        except ConfigError as error:  # options the service refuses fail every item
            return error
        return outcome

    return shared_loop_thread().run(one(), timeout=60)


weights = st.one_of(
    st.integers(-10, 10),
    st.sampled_from([0.5, -0.25, 1e-300, 2.5, -0.0, 0.0, 1e300, -1e300, 3]),
    st.floats(-20, 20, allow_nan=False),
)
probabilities = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0, 1, 0.4999999999999999]), st.floats(0, 1))
relations = st.sampled_from(["weak", "strong", "activation"])


def rarely(common: Any, rare: Any, odds: int = 12) -> Any:
    """``rare`` about once in ``odds`` draws: an example is mostly well-formed, so most are answered in-process."""
    # The middle value, not 0: hypothesis draws the ends of a range far more often than the rest.
    return st.integers(0, odds - 1).flatmap(lambda k: rare if k == odds // 2 else common)


edge_types = rarely(st.sampled_from(["weak_prerequisite", "strong_prerequisite", "trigger"]), st.sampled_from(["nonsense", "toString", None, 3]), 30)
node_types = rarely(st.sampled_from(["foundation", "bonus", "penalty", "trigger", "", None, 0, [], 7]), st.sampled_from(["weird", "constructor"]), 30)

options = st.fixed_dictionaries({}, optional={
    # 1, 2 and 0.5 are x, x * x and sqrt(x) in v8Pow; the others real pows (v8_pow); -1 the service refuses.
    "gamma": rarely(st.one_of(st.sampled_from([0, 1, 1.0, 2, 2.0, 0.5, 3, 4, 0.25, 1.5]), st.floats(0, 8)), st.sampled_from([-1, "2", True, 10**400]), 8),
    "multiParentRule": rarely(st.sampled_from(["product", "geometric-mean", "arithmetic-mean", "max"]), st.just("median"), 8),
    "normalize": rarely(st.sampled_from(["positive-sum", "abs-sum"]), st.just("sum"), 4),
    "emptyDenominator": st.sampled_from(["divide-by-one", "zero-reward"]),
    "clip": rarely(st.booleans(), st.just(1), 4),
    "onInvalidEdge": st.sampled_from(["drop", "reject"]),
    "sharedRetention": rarely(st.one_of(st.sampled_from([0.3, 0, 1, -0.0]), st.floats(0, 1)), st.just(1.5), 4),
    "retention": st.fixed_dictionaries({}, optional={"weak": rarely(st.one_of(st.sampled_from([0.9, 0.0, -0.0]), st.floats(0, 1)), st.just(2.0), 4),
                                                     "strong": st.one_of(st.just(0.5), st.floats(0, 1))}),
    "exactMaxWidth": rarely(st.sampled_from([2, 3, 20, 20]), st.sampled_from([0, 30, 2.5]), 6),
    "autoExactMaxCost": rarely(st.sampled_from([0, 3, 8, 20, 4096, 2**53 - 1]), st.sampled_from([-1, 0.5, 2**53, 2**60]), 6),
})
# Criterion texts: exact inference breaks its visiting order's ties by them (then weight, role,
# position), in JavaScript's order (UTF-16 code units: an astral character sorts before U+FF5E).
texts = st.sampled_from(["criterion", "criterion", "Criterion b", "criterion a", "\u00e9t\u00e9", "\U0001F600 x", "\uff5e x", ""])


@st.composite
def canonical_rows(draw: Any) -> Dict[str, Any]:
    count = draw(st.integers(1, 7))
    ids = draw(st.lists(st.sampled_from(IDS), min_size=count, max_size=count, unique=True))
    if draw(st.integers(0, 19)) == 9 and count > 1:
        ids[1] = ids[0]  # a repeated id: the service refuses it
    criteria = []
    for criterion_id in ids:
        criterion: Dict[str, Any] = {"id": criterion_id, "text": draw(texts), "weight": draw(weights)}
        if draw(st.booleans()):
            criterion["role"] = draw(st.sampled_from(["foundation", "bonus", "penalty", "activation"]))
        # A criterion the service refuses, now and then (the readers' checks, one field at a time).
        odd = draw(rarely(st.none(), st.sampled_from(["weight", "role", "note", "text", "id", "big"]), 40))
        if odd == "weight":
            criterion["weight"] = draw(st.sampled_from([True, "1", None, [1]]))
        elif odd == "role":
            criterion["role"] = draw(st.sampled_from(["weird", None, 1, ["bonus"]]))
        elif odd == "note":
            criterion["note"] = "an unknown field"
        elif odd == "text":
            del criterion["text"]
        elif odd == "id":
            criterion["id"] = ""
        elif odd == "big":
            criterion["weight"] = draw(st.sampled_from([10**400, 2**53 + 1, -(2**60)]))
        criteria.append(criterion)
    edges = []
    for _ in range(draw(st.integers(0, 12))):
        edge: Dict[str, Any] = {"parent": draw(st.sampled_from(ids + ["zz"])), "child": draw(st.sampled_from(ids)), "relation": draw(relations)}
        if draw(st.integers(0, 4)) == 2:
            edge["retention"] = draw(rarely(st.one_of(st.sampled_from([0.0, 0.35, 1.0, -0.0]), st.floats(0, 1)), st.just(1.2)))
        edges.append(edge)
    rubric: Dict[str, Any] = {"criteria": criteria, "edges": edges}
    if draw(st.integers(0, 39)) == 19:
        rubric["extra"] = 1  # an unknown field: refused
    return {"format": "canonical", "rubric": rubric}


def official_graph(draw: Any, ids: List[str]) -> Any:
    if draw(st.integers(0, 5)) == 2:
        return draw(st.sampled_from([None, {}, {"edges": None}]))
    nodes = [{"id": i, "node_type": draw(node_types)} for i in ids if draw(st.booleans())]
    edges = []
    for _ in range(draw(st.integers(0, 8))):
        edge = {"parent": draw(st.sampled_from(ids + ["", "r9"])), "child": draw(st.sampled_from(ids)), "type": draw(edge_types)}
        edges.append(edge if draw(st.integers(0, 15)) else "not an edge")
    return {"nodes": nodes, "edges": edges}


@st.composite
def official_rows(draw: Any) -> Dict[str, Any]:
    count = draw(st.integers(1, 7))
    items = []
    for k in range(count):
        item: Dict[str, Any] = {"criterion": draw(texts), "points": draw(weights)}
        if draw(st.booleans()):
            item["id"] = f"c{k}" if draw(st.integers(0, 9)) != 5 else "c0"  # now and then a repeated id
        if draw(st.integers(0, 3)) == 1:
            item["tags"] = {"node_type": draw(node_types)}
        if draw(st.integers(0, 59)) == 29:
            # A numeric string: plain decimals are read in-process, the rest left to the service.
            item["points"] = draw(st.sampled_from(["5", "2.5", "007", "0.1", " 5", "+5", "1e1", "5.", ".5", "0x10", "1" * 400, "", "-3"]))
        items.append(item)
    ids = [item.get("id") or f"r{k + 1}" for k, item in enumerate(items)]
    return {"format": "official-gear", "reward_model": {"rubrics": items, "graph": official_graph(draw, ids)}}


@st.composite
def grader_rows(draw: Any) -> Dict[str, Any]:
    count = draw(st.integers(1, 7))
    rubrics = [{"criterion": draw(texts), "points": draw(weights), "tags": []} for k in range(count)]
    prompt: Any = [{"role": "user", "content": "Is a potassium of 3.9 low?"}]
    if draw(st.integers(0, 19)) == 9:
        prompt = draw(st.sampled_from([[], [{"role": "robot", "content": "x"}], "text"]))
    row = {"prompt": prompt, "reward_model": {"rubrics": rubrics, "graph": official_graph(draw, [f"r{k + 1}" for k in range(count)])}}
    return {"format": draw(st.sampled_from(["ruscarl", "merf"])), "row": row}


@st.composite
def official_host_rows(draw: Any) -> Dict[str, Any]:
    """Host ``gear`` rows: the official GEAR row (a conversation and a reward_model with ids and tags)."""
    spec = draw(official_rows())
    model = spec["reward_model"]
    if draw(st.integers(0, 19)) == 5 and model["rubrics"]:
        model["rubrics"][0]["tags"] = draw(st.sampled_from([{"verifier": "rule", "function": "f"}, ["verifier:rule", "function:f"],
                                                              {"verifier": "llm"}, ["axis:accuracy"]]))
    prompt: Any = [{"role": "user", "content": "Is a potassium of 3.9 low?"}]
    if draw(st.integers(0, 19)) == 9:
        prompt = draw(st.sampled_from([[], [{"role": "robot", "content": "x"}], "text"]))
    return {"format": "gear", "row": {"prompt": prompt, "reward_model": model}}


@st.composite
def writingbench_rows(draw: Any) -> Dict[str, Any]:
    """Host ``writingbench`` rows: official GEAR rows, now and then an item declaring its score type."""
    spec = draw(official_host_rows())
    rubrics = spec["row"]["reward_model"]["rubrics"]
    if draw(st.integers(0, 9)) == 5 and rubrics:
        rubrics[-1]["tags"] = {"score_type": draw(st.sampled_from(["scale_1_10", "partial_points", " Partial_Points", 3]))}
    return {"format": "writingbench", "row": spec["row"]}


#: A PLawBench subitem marker "(+N分)" in the forms the host reads, and some it does not.
markers = rarely(st.sampled_from(["(+{}分)", "（+{}分）", "( + {} 分 )", "(+{})", "（+ {}）"]),
                 st.sampled_from(["(+{}分", "(-{}分)", "(+{}\u3000分)", "(+{}\u200b分)", "(+{}\x1c分)", "[+{}分]"]), 10)


@st.composite
def plawbench_rows(draw: Any) -> Dict[str, Any]:
    """Host ``plawbench`` rows: official GEAR rows whose criteria hold "(+N分)" subitems (their
    points clamped to the criterion's), with the count of subitems each has as the test reads them."""
    spec = draw(writingbench_rows())
    for item in spec["row"]["reward_model"]["rubrics"]:
        pieces = []
        for _ in range(draw(st.integers(0, 3))):
            points = draw(st.sampled_from(["1", "2", "2.5", "10", "0", "0.25"]))
            pieces.append(draw(markers).format(points) + draw(st.sampled_from([" 给出结论", " names the rule", "", "\n"])))
        item["criterion"] = draw(st.sampled_from(["【结论得分】\n", "", "criterion "])) + "".join(pieces)
        if type(item["points"]) is not str and draw(st.integers(0, 9)):
            item["points"] = abs(item["points"]) or 5  # PLawBench refuses items without positive points
    return {"format": "plawbench", "row": spec["row"]}


@st.composite
def subitem_output(draw: Any, subitems: List[int]) -> str:
    """PLawBench's output for a request whose criteria have ``subitems`` subitems: mostly the JSON its prompt asks for."""
    items: Dict[str, Any] = {}
    for k, count in enumerate(subitems):
        answers: Dict[str, Any] = {}
        for j in range(count):
            prob = draw(rarely(st.one_of(st.sampled_from([0, 1, 0.5, 1.0, 0.95]), st.floats(0, 1)),
                               st.sampled_from([1.5, -0.1, True, "0.9", None, float("nan")]), 100))
            answers[str(j + 1)] = draw(rarely(st.just({"prob_met": prob}), st.sampled_from([prob, {"probability": prob}, {"prob_met": prob, "why": "x"}]), 100))
        items[str(k + 1)] = {"subitems": answers}
    odd = draw(rarely(st.none(), st.sampled_from(["drop", "extra", "list", "fence", "think", "text", "escape", "repeat", "criteria_met", "cut"]), 8))
    if odd == "drop" and items and items["1"]["subitems"]:
        items["1"]["subitems"].pop(str(len(items["1"]["subitems"])))
    elif odd == "extra" and items:
        items["1"]["subitems"][str(len(items["1"]["subitems"]) + 1)] = {"prob_met": 1}
    elif odd == "criteria_met" and items:
        items["1"] = {**items["1"], "criteria_met": True}
    if odd == "list" and items:
        items["1"]["subitems"] = list(items["1"]["subitems"].values())
        odd = None
    return keyed_output_text(items, odd, think='{"1": {"subitems": {"1": {"prob_met": 1}}}}', lead="Scores:", repeated=json.dumps({"subitems": {}}))


def subitem_count(criterion: str) -> int:
    """The markers in a drawn criterion the host reads (ASCII or full-width brackets, an optional 分)."""
    ws = "[\t\n\x0b\x0c\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
    return max(1, len(re.findall(f"[(\uff08]{ws}*\\+{ws}*[0-9]+(?:\\.[0-9]+)?{ws}*(?:\u5206{ws}*)?[)\uff09]", criterion)))


@st.composite
def scored_output(draw: Any, count: int) -> str:
    """WritingBench's scored output for a request of ``count`` criteria: mostly the JSON its prompt asks for."""
    items: Dict[str, Any] = {}
    for k in range(count):
        item: Dict[str, Any] = {"score": draw(rarely(st.one_of(st.integers(1, 10), st.sampled_from([7.5, 1.0, 10.0, 6.999999999999999])),
                                                     st.sampled_from([0, 11, -1, 10.5, "8", None, True, float("nan")]), 30))}
        if draw(st.booleans()):
            item = {"reason": draw(st.sampled_from(["ok", "a \"quoted\" word", "line\nbreak", "caf\u00e9", "a {b}", "a [b]"])), **item}
        if draw(st.integers(0, 29)) == 15:
            item[draw(st.sampled_from(["prob_met", "criteria_met", "p", "awarded_points"]))] = draw(st.sampled_from([0.2, True, 3]))
        items[str(k + 1)] = item
    odd = draw(rarely(st.none(), st.sampled_from(["key", "drop", "fence", "think", "text", "list", "bare", "nested", "repeat", "escape", "cut"]), 8))
    if odd == "key" and items:
        items = {("item " + key if key == "1" else key): value for key, value in items.items()}
    elif odd == "drop" and items:
        items.pop(str(count))
    elif odd == "bare" and items:
        items["1"] = items["1"]["score"]
    elif odd == "nested" and items:
        items["1"] = {**items["1"], "why": {"a": 1}}
    return keyed_output_text(items, odd, think='{"1": {"score": 2}}', lead="Scores:", repeated=json.dumps({"score": draw(st.integers(1, 10))}))


categories = rarely(st.sampled_from(["Essential Criteria: ", "Important Criteria:", "Optional Criteria: ", "Pitfall Criteria: ", " \nEssential Criteria: "]),
                    st.sampled_from(["essential criteria: ", "Essential: ", "\u00a0Pitfall Criteria: ", "\x0bOptional Criteria: ", "", "\x1cEssential Criteria: ",
                                     "\x85Pitfall Criteria: ", "\ufeffImportant Criteria: "]), 12)


@st.composite
def rar_rows(draw: Any) -> Dict[str, Any]:
    """Host ``rar-explicit`` rows: RaR items {title, description, weight}, the category a prefix of the description."""
    count = draw(st.integers(1, 7))
    rubric: List[Dict[str, Any]] = []
    for k in range(count):
        item: Dict[str, Any] = {"title": f"item {k + 1}", "description": draw(categories) + draw(texts)}
        if draw(st.booleans()):
            item["weight"] = draw(rarely(st.sampled_from([5, 3, 1, -1, -2, 2.5]), st.sampled_from([None, "5", True]), 30))
        rubric.append(item)
    row: Dict[str, Any] = {"rubric": rubric, "graph": official_graph(draw, [f"r{k + 1}" for k in range(count)])}
    asked = draw(rarely(st.sampled_from(["question", "prompt", "both"]), st.sampled_from(["neither", "bad question", "bad prompt"]), 20))
    if asked in ("question", "both"):
        row["question"] = "What is the best imaging for a suspected ureteric stone?"
    if asked in ("prompt", "both"):
        row["prompt"] = [{"role": "user", "content": "What is the best imaging for a suspected ureteric stone?"}]
    if asked == "bad question":
        row["question"] = None
    elif asked == "bad prompt":
        row["prompt"] = [{"role": "robot", "content": "x"}]
    return {"format": "rar-explicit", "row": row}


SATISFIED = '{"satisfied": %s}'
#: RaR-Explicit outputs the service repairs nothing in, but reads in ways a reader could miss.
RAR_ODD_OUTPUTS = [
    "I cannot decide", "", "   ", "true", "[1, 2]", '{"satisfied": 1}', '{"satisfied": true, "satisfied": false}',
    '{"satisfied": false, "satisfied": true}', '{"satisfied": false, "reason": "x", "satisfied": true}',
    '{"satisfied": true, "score": 0.5}', '<think>{"satisfied": false}</think>{"satisfied": true}', '{"satisfied": true}</THINK>',
    '<think>{"satisfied": true}', 'Verdict: {"satisfied": false} done', '{"satisfied": true,}', '{"satisfied": tru',
    'the "satisfied": false verdict', '{"reason": "\\u00e9", "satisfied": true}', '\u3000{"satisfied": true}', '{"satisfied": true}\x0b',
    '```json {"satisfied": false}', '{"satisfied": false}```', '```\n{"satisfied": true}\n```', '```JSON{"satisfied": true}```',
    '```json\n[1]\n``` {"satisfied": true}', '```json\n{"satisfied": true}\n``` and ```json\n{"satisfied": false}\n```',
    '{"reason": "says \\"satisfied\\": no", "satisfied": true}', '{"reason": "satisfied", "satisfied": false}',
    '{"satisfied": true, "nested": {"a": 1}}', '{"a": NaN, "satisfied": true}', '{"reason": "```", "satisfied": true}',
    '{"satisfied": True}', "{'satisfied': true}", '{"satisfied": false} {"satisfied": true}', '{"reason": "a {b}", "satisfied": true}',
]
rar_outputs = rarely(st.one_of(
    st.sampled_from(["true", "false"]).map(lambda v: SATISFIED % v),
    st.sampled_from(["true", "false"]).map(lambda v: f'```json\n{{\n  "satisfied": {v}\n}}\n```'),
    st.sampled_from(["true", "false"]).map(lambda v: f' {{"reason": "a \\"quoted\\" word", "satisfied": {v}, "x": null}}\n'),
    st.sampled_from(["I cannot decide", "", '{"reason": "no verdict"}', '{"satisfied": "yes"}', '{"satisfied": null}']),
), st.sampled_from(RAR_ODD_OUTPUTS), 16)


def verdict(draw: Any) -> Dict[str, Any]:
    met = draw(st.booleans())
    prob = draw(rarely(st.one_of(st.sampled_from([1, 0.5, 1.0] if met else [0, 0.5, 0.0]), st.floats(0.5, 1) if met else st.floats(0, 0.5)),
                       st.sampled_from([1.5, -0.2, 0.3 if met else 0.7, "0.9", None, True]), 30))
    item: Dict[str, Any] = {"criteria_met": met, "prob_met": prob}
    if draw(st.booleans()):
        item = {"explanation": draw(st.sampled_from(["ok", "a \"quoted\" word", "line\nbreak", "caf\u00e9"])), **item}
    return item


def keyed_output_text(items: Dict[str, Any], odd: Optional[str], think: str, lead: str, repeated: str) -> str:
    """A batch output keyed "1".."k" as JSON text, in one of the odd forms a judge writes: in a
    fence, after a reasoning draft (``think``), after text (``lead``), as a list, with ``\\u``
    escapes, with key "1" repeated (``repeated``: the last value, which both sides read), or cut
    to its first 80% (a judge's token limit)."""
    text = json.dumps(items, ensure_ascii=odd != "escape")
    if odd == "fence":
        text = f"```json\n{text}\n```"
    elif odd == "think":
        text = f"<think>{think}</think>{text}"
    elif odd == "text":
        text = f"{lead} {text}"
    elif odd == "list":
        text = json.dumps(list(items.values()))
    elif odd == "escape":
        text = text.replace("ok", "\\u006fk")
    elif odd == "repeat" and items:
        text = text[:-1] + ', "1": ' + repeated + "}"
    elif odd == "cut":
        text = text[:len(text) * 4 // 5]
    return text


@st.composite
def official_outputs(draw: Any, count: int) -> str:
    """The official batch judge's output for ``count`` criteria: mostly the JSON the prompt asks for."""
    items = {str(k + 1): verdict(draw) for k in range(count)}
    odd = draw(rarely(st.none(), st.sampled_from(["key", "extra", "fence", "think", "text", "nested", "list", "drop", "nan", "escape", "repeat", "brace", "cut"]), 8))
    if odd == "key" and items:
        items = {("0" + key if key == "1" else key): value for key, value in items.items()}
    elif odd == "extra":
        items["summary"] = "done"  # type: ignore[assignment]
    elif odd == "nested" and items:
        items["1"] = {**items["1"], "why": {"a": 1}}
    elif odd == "drop" and items:
        items.pop(str(count))
    elif odd == "nan" and items:
        items["1"] = {**items["1"], "prob_met": float("nan")}
    text = keyed_output_text(items, odd, think='{"1": 3}', lead="Here are the grades:", repeated=json.dumps(verdict(draw)))
    if odd == "brace" and items:
        text = text.replace('"criteria_met"', '"why": "a {b}", "criteria_met"', 1)
    return text


CLEAN = '{"explanation": "The response states it.", "criteria_met": %s}'
grader_outputs = rarely(st.one_of(
    st.sampled_from(["true", "false"]).map(lambda v: CLEAN % v),
    st.sampled_from(["true", "false"]).map(lambda v: f'```json\n{{\n  "explanation": "ok",\n  "criteria_met": {v}\n}}\n```'),
    st.sampled_from(["true", "false"]).map(lambda v: f'  {{"criteria_met": {v}, "explanation": "a \\"quoted\\" word", "x": null}} \n'),
    st.sampled_from(["I cannot decide", "", '{"explanation": "no verdict"}', '{"criteria_met": "yes"}', '{"criteria_met": 1}']),
), st.sampled_from([
        "I cannot decide", "", "   ", "true", "[1, 2]", '{"explanation": "no verdict"}', '{"criteria_met": "yes"}',
        '{"criteria_met": 1}', '{"criteria_met": true, "criteria_met": false}', '{"criteria_met": true, "score": 0.5}',
        '<think>{"criteria_met": false}</think>{"explanation": "x", "criteria_met": true}',
        '{"explanation": "x", "criteria_met": true}</THINK>', '<think>{"criteria_met": true}',
        'Here it is: {"explanation": "x", "criteria_met": true}', '{"explanation": "x", "criteria_met": true,}',
        '{"explanation": "x", "criteria_met": tr', 'the "criteria_met": false verdict', '{"explanation": "\\u00e9", "criteria_met": true}',
        '\u3000{"explanation": "x", "criteria_met": true}', '{"explanation": "x", "criteria_met": true}\x0b',
        '```json {"explanation": "x", "criteria_met": false}', '{"explanation": "x", "criteria_met": false}```',
        '{"explanation": "a < b", "criteria_met": true}', '{"explanation": "line\nbreak", "criteria_met": true}',
        '{"explanation": "x", "criteria_met": true, "nested": {"a": 1}}', '"criteria_met": true', '{"a": NaN, "criteria_met": true}',
        '```\n{"explanation": "x", "criteria_met": true}\n```', '```JSON{"explanation": "x", "criteria_met": true}```',
        '{"explanation": "<think>", "criteria_met": true}', '{"explanation": "</think>", "criteria_met": false}',
        '{"explanation": "a <think>b</think> c", "criteria_met": true}', '"criteria<think>x</think>_met": true',
        '{"explanation": "x", "criteria_met": <think>maybe</think>true}',
    ]), 8)


#: What a judge-score entry or decision may wrongly be: the bridge refuses each, naming it.
bad_probabilities = st.sampled_from([1.5, -0.1, float("nan"), float("inf"), True, "0.5", None, [0.5]])
bad_decisions = st.sampled_from([1, 0.0, "true", None])


def scores_for(draw: Any, count: int) -> Any:
    p = [draw(probabilities) for _ in range(count)]
    scores: Dict[str, Any] = {"p": p}
    if draw(st.booleans()):
        scores["d"] = [draw(st.booleans()) for _ in range(count)]
    flaw = draw(rarely(st.just("none"), st.sampled_from(["p", "d", "d length", "d null", "extra", "text"]), 6))
    if flaw == "p" and p:
        p[draw(st.integers(0, len(p) - 1))] = draw(bad_probabilities)
    elif flaw == "d" and scores.get("d"):
        scores["d"][draw(st.integers(0, len(p) - 1))] = draw(bad_decisions)
    elif flaw == "d length":
        scores["d"] = [True] * (count + 1)
    elif flaw == "d null":
        scores["d"] = None
    elif flaw == "extra":
        scores["q"] = []
    elif flaw == "text":
        return json.dumps(scores)  # well-formed, as JSON text: read by the general path
    return scores


@st.composite
def cases(draw: Any) -> Dict[str, Any]:
    spec = draw(st.one_of(canonical_rows(), official_rows(), grader_rows(), official_host_rows(), rar_rows(), writingbench_rows(), plawbench_rows()))
    if spec["format"] == "canonical":
        count = len(spec["rubric"]["criteria"])
    elif spec["format"] == "official-gear":
        count = len(spec["reward_model"]["rubrics"])
    elif spec["format"] == "rar-explicit":
        count = len(spec["row"]["rubric"])
    else:
        count = len(spec["row"]["reward_model"]["rubrics"])
    if spec["format"] in ("canonical", "official-gear"):
        judgments: Any = scores_for(draw, count + (1 if draw(st.integers(0, 39)) == 19 else 0))
    elif spec["format"] == "gear":
        judgments = [draw(official_outputs(count))] * draw(rarely(st.just(1), st.sampled_from([0, 2]), 20))
    elif spec["format"] in ("writingbench", "plawbench"):
        # One request per 4 judged criteria: a rule-verified item is not judged.
        judged = [item for item in spec["row"]["reward_model"]["rubrics"] if not rule_verified(item)]
        if spec["format"] == "writingbench":
            judgments = [draw(scored_output(min(4, len(judged) - start))) for start in range(0, len(judged), 4)]
        else:
            sizes = [subitem_count(item["criterion"]) for item in judged]
            judgments = [draw(subitem_output(sizes[start:start + 4])) for start in range(0, len(judged), 4)]
        if draw(st.integers(0, 19)) == 10:
            judgments = judgments[:-1] if draw(st.booleans()) else [*judgments, judgments[-1]]
    else:
        outputs = rar_outputs if spec["format"] == "rar-explicit" else grader_outputs
        judgments = [draw(outputs) for _ in range(count + draw(rarely(st.just(0), st.sampled_from([-1, 1]), 6)))]
        flaw = draw(rarely(st.just("none"), st.sampled_from(["item", "text"]), 8))
        if flaw == "item" and judgments:
            judgments[draw(st.integers(0, len(judgments) - 1))] = draw(st.sampled_from([None, 1, {"criteria_met": True}]))
        elif flaw == "text":
            judgments = json.dumps(judgments)  # well-formed, as JSON text
    chosen = draw(options) if draw(st.integers(0, 3)) == 1 else {}
    return {"spec": spec, "judgments": judgments, "options": chosen or None,
            "aggregator": draw(st.sampled_from(["gear", "flat", "hard", "gear-exact", "auto", "auto"])),
            "metrics": draw(st.booleans())}


def assert_read_alike(server: EmbeddedServer, spec: Dict[str, Any], judgments: List[str], must_answer: bool, **kwargs: Any) -> None:
    """The in-process answer for one host row's outputs, when it gives one (it must when
    ``must_answer``), is the service's, every field."""
    local = InProcessScorer(load_settings(metrics=True, **kwargs)).fields_of_text_row(json.dumps(spec), judgments)
    assert local is not None or not must_answer, judgments
    if local is None:
        return
    row = parse_row({"gear": json.dumps(spec)})
    service = served(server.url, Sample(row, "", parse_judgment(judgments, row, ("extra_info", "gear_judgments"))), metrics=True, **kwargs)
    assert list(local) == list(service) and local == service, judgments


#: RaR-Explicit outputs the in-process reader must answer (verdicts, and unread ones that count against).
RAR_READ_OUTPUTS = [SATISFIED % "true", SATISFIED % "false", ' {"reason": "ok", "satisfied": true, "x": null}\n',
                    '```json\n{"reason": "ok", "satisfied": false}\n```', '{"reason": "no verdict"}', '{"satisfied": null}', "I cannot decide", ""]


@pytest.mark.parametrize("output", [*RAR_READ_OUTPUTS, *RAR_ODD_OUTPUTS])
def test_each_rar_output_reads_as_the_service_reads_it(server: EmbeddedServer, output: str) -> None:
    """Every listed output, as the first criterion's verdict of a RaR row (the draws above meet the
    odd ones rarely): the in-process answer, when it gives one, is the service's."""
    rubric = [{"title": "CT", "description": "Essential Criteria: Names non-contrast CT."},
              {"title": "Dose", "description": "Pitfall Criteria: Does not state a dose."}]
    spec = {"format": "rar-explicit", "row": {"question": "Which imaging first?", "rubric": rubric}}
    assert_read_alike(server, spec, [output, SATISFIED % "true"], output in RAR_READ_OUTPUTS)


#: PLawBench outputs for two criteria of 2 and 1 subitems, every one of which the in-process reader
#: answers: as asked, then coerced, clamped, partial, re-keyed, cut (the closers' candidate), or
#: read by the regex fallback, or with keys and numeric strings outside ASCII.
SUBITEM_READ_OUTPUTS = ['{"1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
                        '{"2": {"subitems": {"1": {"prob_met": 1}}}, "1": {"subitems": {"2": {"prob_met": 0}, "1": {"prob_met": 1.0}}}}',
                        '```json\n{"1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}\n```']
SUBITEM_READ_OUTPUTS += [
    '{"1": {"subitems": {"1": 0.95, "2": 0.1}}, "2": {"subitems": {"1": 0.8}}}',
    '{"1": {"subitems": {"1": {"prob_met": 0.95}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}, "3": {"prob_met": 1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": 1.5}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": true}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"probability": 0.9, "prob_met": 0.2}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": [{"prob_met": 0.95}, {"prob_met": 0.1}]}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"items": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": null, "items": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"item_1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}, "criteria_met": false}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": NaN}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}',
    '{"1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}, "1": {"prob_met": 0.2}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"score": 7}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}', '{"1": {"awarded_points": 3}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": "0.95"}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    'Item 1: "1": {"subitems": {"1": {"prob_met": 0.9}, "2": {"prob_met": 0.4}} and item 2: "2": {"subitems": {"1": {"prob_met": 1}}',
    '{"1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.',
]
#: Outside ASCII: digits Python's float() reads and the service does not (Arabic-Indic, full-width),
#: Python's whitespace around a number and in a key, an ideographic "\u3000" key.
SUBITEM_READ_OUTPUTS += [
    '{"1": {"subitems": {"1": {"prob_met": "\u0660.9"}, "2": {"prob_met": 0.1}}}, "2": {"subitems": {"1": {"prob_met": 0.8}}}}',
    '{"1": {"subitems": {"1": {"prob_met": "\uff10.\uff19"}, "2": {"prob_met": "\u30000.4\x85"}}}, "2": {"subitems": {"\u3000\u7b2c1": {"prob_met": 0.8}}}}',
    '{"\u2003item\u30001": {"subitems": {"1": {"prob_met": "\xa00.6\u2028"}, "2": {"prob_met": 0.1}}}, "\u0131tem 2": {"subitems": {"1": {"prob_met": 0.8}}}}',
]


@pytest.mark.parametrize("output", SUBITEM_READ_OUTPUTS)
def test_each_plawbench_output_reads_as_the_service_reads_it(server: EmbeddedServer, output: str) -> None:
    """Every listed output for a PLawBench row of two criteria ("(+N分)" subitems: 4 + 6 points,
    and none, so the whole criterion's 3): answered in the worker, every field the service's."""
    rubrics = [{"id": "r1", "criterion": "【结论得分】\n(+4分) 某甲有权主张。（+ 6 分）依据法条。", "points": "10"},
               {"id": "r2", "criterion": "States the applicable article.", "points": 3}]
    spec = {"format": "plawbench", "row": {"prompt": [{"role": "user", "content": "某甲能否主张？"}], "reward_model": {"rubrics": rubrics}}}
    assert_read_alike(server, spec, [output], True, aggregator="hard")


#: WritingBench outputs for two criteria, every one of which the in-process reader answers: as asked,
#: found as the service finds them, then coerced, clamped, re-keyed, cut (the closers' candidate),
#: read by the regex fallback or not at all, or with keys and numeric strings outside ASCII.
SCORED_READ_OUTPUTS = ['{"1": {"score": 7}, "2": {"score": 3}}', '{"1": {"reason": "ok", "score": 6.5}, "2": {"score": 10, "note": null}}',
                       ' {"2": {"score": 1}, "1": {"score": 10.0}}\n', '{"1": {"score": 6.999999999999999}, "2": {"score": 7}}',
                       # found as the service finds them: in a fence, after prose or reasoning, nested, as a list
                       '```json\n{"1": {"score": 7}, "2": {"score": 3}}\n```', 'Scores: {"1": {"score": 7}, "2": {"score": 3}}', '[{"score": 7}, {"score": 3}]',
                       '<think>{"1": {"score": 1}}</think>{"1": {"score": 7}, "2": {"score": 3}}', '{"result": {"1": {"score": 7}, "2": {"score": 3}}}',
                       '{"1": {"score": 7, "why": "a {b}"}, "2": {"score": 3}}', '\u3000{"1": {"score": 7}, "2": {"score": 3}}']
SCORED_READ_OUTPUTS += [
    '{"1": {"score": 7, "prob_met": 0.2}, "2": {"score": 3}}', '{"1": {"score": 7, "criteria_met": false}, "2": {"score": 3}}',
    '{"1": {"score": 7, "p": 1}, "2": {"score": 3}}', '{"1": {"score": 7, "probability": 0.1}, "2": {"score": 3}}',
    '{"1": {"score": 7, "prob": 0.1}, "2": {"score": 3}}', '{"1": {"score": 7, "normalized_score": 0.3}, "2": {"score": 3}}',
    '{"1": {"awarded_points": 4, "score": 7}, "2": {"score": 3}}', '{"1": {"score": 0}, "2": {"score": 11}}', '{"1": {"score": "8"}, "2": {"score": 3}}',
    '{"1": 7, "2": {"score": 3}}', '{"1": true, "2": {"score": 3}}', '{"1": {"score": 7}}', '{"1": {"score": 7}, "2": {"score": 3}, "3": {"score": 1}}',
    '{"01": {"score": 7}, "2": {"score": 3}}', '{"1": {"score": 7}, "2": {"score": 3}, "1": {"score": 2}}', '{"1": {"score": NaN}, "2": {"score": 3}}',
    '{"1": {"score": 7}, "2": {"score": 3}', '', '{"1": {"score": 7}, "2": {"score": 3', 'Scores: "1": {"score": 8} and "2": {"SCORE": 4}',
    '{"1": "yes", "2": "\u5426"}', '{"1": {"score": " 7 "}, "2": {"score": "1_0"}}', '{"1": {"score": 7}, "2": {"score": -2}}', "I cannot grade this.",
]
#: Outside ASCII: digits Python's float() reads and the service does not, Python's whitespace around
#: a number and in a key, keys whose lowering differs ("\u0130" lowers to two characters, the dotless
#: i and the Kelvin sign to one) or that hold no item number.
SCORED_READ_OUTPUTS += [
    '{"1": {"score": "\u0667"}, "2": {"score": 3}}', '{"\u0131tem 1": {"score": 7}, "2": {"score": 3}}', '{"1": {"score": "\uff18"}, "2": {"score": "\u3000 4\x1c"}}',
    '{"\u0130TEM 1": {"score": 7}, "R\u30002": {"score": 3}}', '{"\u212a1": {"score": 7}, "\u20282\xa0": {"score": "\u00a06.5\u205f"}}',
    '{"\u8bc4\u5206": {"1": {"score": 9}, "item\u2000-\u20002": {"score": 2}}}', '{"\u7b2c1\u9879": {"score": 7}, "2": {"score": 3}}',
]


@pytest.mark.parametrize("output", SCORED_READ_OUTPUTS)
def test_each_writingbench_output_reads_as_the_service_reads_it(server: EmbeddedServer, output: str) -> None:
    """Every listed output for a WritingBench row of two criteria (one a penalty): answered in the
    worker, every field the service's."""
    rubrics = [{"id": "r1", "criterion": "Keeps to the requested length.", "points": 5},
               {"id": "r2", "criterion": "Invents a quotation.", "points": -3}]
    spec = {"format": "writingbench", "row": {"prompt": [{"role": "user", "content": "Write a short essay."}], "reward_model": {"rubrics": rubrics}}}
    assert_read_alike(server, spec, [output], True, aggregator="hard")


@pytest.mark.parametrize("output", SCORED_READ_OUTPUTS[::3])
def test_each_writingbench_output_reads_as_the_service_reads_it_when_an_item_has_its_own_score_type(server: EmbeddedServer, output: str) -> None:
    """Every third listed output for a WritingBench row whose first criterion declares partial
    points (its score_type): answered in the worker, every field the service's."""
    rubrics = [{"id": "r1", "criterion": "Keeps to the requested length.", "points": 5, "tags": {"score_type": " Partial_Points\ufeff"}},
               {"id": "r2", "criterion": "Invents a quotation.", "points": -3}]
    spec = {"format": "writingbench", "row": {"prompt": [{"role": "user", "content": "Write a short essay."}], "reward_model": {"rubrics": rubrics}}}
    assert_read_alike(server, spec, [output], True, aggregator="hard")


#: Official GEAR batch outputs for two criteria (the second a penalty), every one of which the
#: in-process reader answers: as asked, after prose or in fences, nested, re-keyed, clamped,
#: flipped, with an unread criterion or a cut tail (the regex fallback), with keys and numeric
#: strings outside ASCII.
OFFICIAL_READ_OUTPUTS = [
    '{"1": {"criteria_met": true, "prob_met": 0.9}, "2": {"criteria_met": false, "prob_met": 0.1}}',
    'Here are the grades:\n```json\n{"1": {"criteria_met": true, "prob_met": 0.9}, "2": {"criteria_met": true, "prob_met": 0.7}}\n```',
    '{"grades": {"r1": {"criteria_met": false, "prob_met": 0.2}, "item 2": {"criteria_met": false, "prob_met": 0}}}',
    '{"1": {"criteria_met": true, "prob_met": 0.3}, "2": {"criteria_met": false, "prob_met": 1.4}}',
    '{"1": {"criteria_met": true, "prob_met": "0.8"}, "2": {"criteria_met": "no", "prob_met": 0.2}}',
    '{"1": {"criteria_met": true, "prob_met": 0.9}}',
    '{"1": {"criteria_met": true, "prob_met": 0.9}, "2": {"criteria_met": fal',
    '<think>Item 2 applies? No.</think>{"1": {"criteria_met": true, "prob_met": 0.9}, "2": {"criteria_met": false, "prob_met": 0.05}}',
    "I cannot grade this response.",
    "",
    '{"\u0131tem 1": {"criteria_met": true, "prob_met": "\uff10.9"}, "\u30002\u3000": {"criteria_met": false, "prob_met": "\xa00.2\x1f"}}',
    '{"\u2003r_1": {"criteria_met": true, "prob_met": "\u0660.9"}, "\u7b2c2": {"criteria_met": false, "prob_met": 0.1}}',
]


@pytest.mark.parametrize("output", OFFICIAL_READ_OUTPUTS)
@pytest.mark.parametrize("aggregator", ["gear", "hard", "flat"])
def test_each_official_output_reads_as_the_service_reads_it(server: EmbeddedServer, output: str, aggregator: str) -> None:
    """Every listed output for an official GEAR row of two criteria (one a penalty): answered in
    the worker, every field the service's, unread criteria counted against the response."""
    rubrics = [{"id": "r1", "criterion": "Says 3.9 mmol/L is within the normal range.", "points": 5},
               {"id": "r2", "criterion": "Recommends potassium supplements.", "points": -4}]
    spec = {"format": "gear", "row": {"prompt": [{"role": "user", "content": "Is a potassium of 3.9 low?"}], "reward_model": {"rubrics": rubrics}}}
    assert_read_alike(server, spec, [output], True, aggregator=aggregator)


RULE_TAGS = [{"verifier": "rule", "function": "within_range"}, ["axis:accuracy", "verifier:rule", "function:within_range"],
             {"verifier": "rule", "function": ""}, ["verifier:rule"], {"verifier": "Rule", "function": "f"}]


def rule_verified(item: Dict[str, Any]) -> bool:
    """Whether an item carries one of the rule-verified tag forms these tests write: RULE_TAGS' first
    two (the rest are not), and the two official_host_rows draws."""
    return item.get("tags") in [*RULE_TAGS[:2], {"verifier": "rule", "function": "f"}, ["verifier:rule", "function:f"]]


@pytest.mark.parametrize("output", OFFICIAL_READ_OUTPUTS[::3])
@pytest.mark.parametrize("tags", RULE_TAGS)
@pytest.mark.parametrize("points", [2, -2])
def test_each_official_output_reads_as_the_service_reads_it_beside_a_rule_verified_item(server: EmbeddedServer, output: str, tags: Any, points: int) -> None:
    """Every third listed output for an official GEAR row whose first item (a criterion or a
    penalty) may be rule-verified (the first two tags: it is not judged, counts against the
    response and is counted; the others: it is judged, the output's "1" is its): answered in the
    worker, every field the service's."""
    rubrics = [{"id": "r0", "criterion": "Gives the value in mmol/L.", "points": points, "tags": tags},
               {"id": "r1", "criterion": "Says 3.9 mmol/L is within the normal range.", "points": 5},
               {"id": "r2", "criterion": "Recommends potassium supplements.", "points": -4}]
    spec = {"format": "gear", "row": {"prompt": [{"role": "user", "content": "Is a potassium of 3.9 low?"}], "reward_model": {"rubrics": rubrics}}}
    assert_read_alike(server, spec, [output], True, aggregator="gear")


#: A row of 6 criteria whose items 2 and 5 (a criterion and a penalty) may be rule-verified: 6, 5 or
#: 4 are judged, in 2, 2 or 1 requests, the later criteria shifting into earlier requests.
SCORED_RULE_CRITERIA = [("Keeps to the requested length.", 5), ("Cites the brief.", 2), ("Uses the requested tone.", 3),
                        ("Ends with a summary.", 2), ("Invents a quotation.", -3), ("Names its sources.", 4)]


def scored_rule_spec(host: str, first: Any, second: Any) -> Dict[str, Any]:
    rubrics: List[Dict[str, Any]] = [{"id": f"r{k}", "criterion": text if host == "writingbench" else f"{text} (+{abs(points)}分)", "points": abs(points) if host == "plawbench" else points}
                                     for k, (text, points) in enumerate(SCORED_RULE_CRITERIA)]
    rubrics[1]["tags"] = first
    rubrics[4]["tags"] = second
    return {"format": host, "row": {"prompt": [{"role": "user", "content": "Write a short essay."}], "reward_model": {"rubrics": rubrics}}}


@pytest.mark.parametrize("first", RULE_TAGS[:3])
@pytest.mark.parametrize("second", RULE_TAGS[1:4])
@pytest.mark.parametrize("host", ["writingbench", "plawbench"])
def test_scored_rows_with_rule_verified_items_read_as_the_service_reads_them(server: EmbeddedServer, host: str, first: Any, second: Any) -> None:
    """WritingBench and PLawBench rows whose rule-verified items are not judged: the requests cover
    the judged criteria 4 at a time, so a later criterion's judgment sits in an earlier output. The
    outputs here answer the items asked, each with its own score, some as asked and some repaired,
    and the last one unreadably (it counts against the response as its own sign says): answered in
    the worker, every field the service's (the unjudged ones count against the response)."""
    spec = scored_rule_spec(host, first, second)
    judged = [k for k, item in enumerate(spec["row"]["reward_model"]["rubrics"]) if not rule_verified(item)]
    outputs = []
    for start in range(0, len(judged), 4):
        asked = judged[start:start + 4]
        if host == "writingbench":
            items: Dict[str, Any] = {str(j + 1): {"score": 2 + k} for j, k in enumerate(asked)}
        else:
            items = {str(j + 1): {"subitems": {"1": {"prob_met": round(0.1 + 0.15 * k, 2)}}} for j, k in enumerate(asked)}
        if start + 4 >= len(judged):
            items[str(len(asked))] = {"score": "n/a"} if host == "writingbench" else {"subitems": {"1": {"prob_met": "n/a"}}}
        text = json.dumps(items)
        outputs.append(text if start == 0 else "Scores: " + text[:-1])  # the second after prose, cut: the repairs read it
    assert_read_alike(server, spec, outputs, True, aggregator="gear")


tally = {"in_process": 0, "declined": 0, "one_step": 0}


@settings(max_examples=int(__import__("os").environ.get("GEAR_TEST_EXAMPLES", "600")), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_in_process_answers_only_what_the_service_answers_the_same(server: EmbeddedServer, case: Dict[str, Any]) -> None:
    kwargs = {"aggregator": case["aggregator"], "options": case["options"], "metrics": case["metrics"]}
    extra_info = {"gear": json.dumps(case["spec"])}
    # The reward function's one-step path, from the row's text and the raw judgments (first call
    # compiles the row, the second finds it).
    text_scorer = InProcessScorer(load_settings(**kwargs))
    direct = text_scorer.fields_of_text_row(extra_info["gear"], case["judgments"])
    try:
        row = parse_row(extra_info)
        judgment = parse_judgment(case["judgments"], row, ("extra_info", "gear_judgments"))
    except RowError:
        assert direct is None, case  # what the bridge refuses is never scored on the one-step path
        return  # refused by the bridge before either scorer sees it
    sample = Sample(row, "", judgment)
    # Each path counts the response for the step's FCP (the legacy batch manager's figure) alike.
    counted = case["aggregator"] in IN_PROCESS_METHODS and not row.is_host and isinstance(judgment, JudgeScores)
    fcp_of = "gear" if case["aggregator"] == "auto" else case["aggregator"]  # auto's step FCP is gear's (batch.py)
    text_fcp, local_fcp = FcpCounter(fcp_of), FcpCounter(fcp_of)
    local = InProcessScorer(load_settings(**kwargs)).fields(row, judgment, local_fcp if counted else None)
    assert text_scorer.fields_of_text_row(extra_info["gear"], case["judgments"], text_fcp if counted else None) == direct, case
    if direct is not None:
        tally["one_step"] += 1
        assert local is not None and list(direct) == list(local) and direct == local, case
        assert text_fcp.report() == local_fcp.report() and text_fcp.responses == local_fcp.responses == (1 if counted else 0), case
    service = served(server.url, sample, **kwargs)
    if local is None:
        tally["declined"] += 1
        tally[f"declined {row.format}"] = tally.get(f"declined {row.format}", 0) + 1
        return
    tally["in_process"] += 1
    tally[f"in_process {row.format}"] = tally.get(f"in_process {row.format}", 0) + 1
    assert not isinstance(service, (RowError, ConfigError)), (service, case)
    assert list(local) == list(service) and local == service, case


def test_most_examples_were_answered_in_process() -> None:
    """The property above held on answers, not only on declines (runs after it, in file order)."""
    total = tally["in_process"] + tally["declined"]
    assert tally["one_step"] >= tally["in_process"] / 4, tally  # the raw-judgment path was exercised
    if total == 0:
        pytest.skip("run with the property test")
    print(tally)
    # Hypothesis's draws drift between runs: with eight row kinds, 37-52% were answered in-process
    # in six runs of 600, and 7-76 per kind. A quarter overall, and answers in every row kind, so
    # none holds vacuously without making CI flaky; test_real_rubrics.py requires answers for every
    # kind (none declined), and the per-output tests above for the listed RaR, WritingBench and
    # PLawBench outputs.
    assert tally["in_process"] >= total / 4, tally
    if total >= 300:
        for form in ("canonical", "official-gear", "ruscarl", "merf", "gear", "rar-explicit", "writingbench", "plawbench"):
            # A kind drawn a few times only may have drawn only rows the scorer declines (merf: 6 of
            # 6 in one run of 600): answers are required of the kinds drawn 20 times or more.
            drawn = tally.get(f"in_process {form}", 0) + tally.get(f"declined {form}", 0)
            assert drawn < 20 or tally.get(f"in_process {form}", 0) >= 1, (form, tally)


def test_an_integer_past_float64_is_declined_as_the_service_refuses_it(server: EmbeddedServer) -> None:
    """JSON reads 10**400 as Infinity, which the service refuses (naming the field); Python's
    float() of it raises: the worker declines the options instead of failing."""
    extra_info = {"gear": json.dumps({"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "t", "weight": 1}], "edges": []}})}
    row = parse_row(extra_info)
    judgment = parse_judgment({"p": [0.5]}, row, ("extra_info", "gear_judgments"))
    for options in ({"gamma": 10**400}, {"retention": {"weak": 10**400}}, {"sharedRetention": -(10**400)}):
        assert InProcessScorer(load_settings(options=options)).fields(row, judgment) is None
        refused = served(server.url, Sample(row, "", judgment), options=options)
        assert isinstance(refused, ConfigError) and "options" in str(refused), refused
