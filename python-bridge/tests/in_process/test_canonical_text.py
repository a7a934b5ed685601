"""read_canonical_text (msgspec) against the reader it stands in for, read_canonical of orjson's
parse: wherever it answers, the same parts, bit for bit; where it does not, the scorer reads the row
as before. Rows with one change anywhere (each field of each object set to each of 26 values,
removed or given twice: every check of the reader fails this test when taken out, but the 2**53
one, where both readers happen to round alike) and random rows with changes in several objects
(hypothesis). And it does answer for the shipped rubrics, whose rewards stay the CLI's."""
from __future__ import annotations

import json
import math
import struct
from typing import Any, Dict, List, Tuple

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gear_bridge import load_settings
from gear_bridge.in_process import InProcessScorer
from gear_bridge.in_process.canonical_text import read_canonical_text
from gear_bridge.in_process.rubric_rows import RubricParts, read_canonical
from gear_bridge.rows import usual_gear_text
from verl_glue.samples import expected_rewards, make_samples

#: An object as its members in order, so a key may come twice (JSON allows it; the last one counts).
Members = List[Tuple[str, Any]]


class Raw:
    """A JSON value written as given (a number or literal json.dumps would not write)."""

    def __init__(self, text: str) -> None:
        self.text = text


def text_of(value: Any) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, list) and value and all(isinstance(m, tuple) for m in value):
        return "{" + ", ".join(f"{json.dumps(k)}: {text_of(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(text_of(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {text_of(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def bits(parts: RubricParts | None) -> Any:
    """The parts with every float as its bits (-0.0 and 0.0 differ, as they may in a reward)."""
    if parts is None:
        return None
    def b(x: float | None) -> Any:
        return None if x is None else struct.pack("<d", x)
    return (parts.ids, [b(w) for w in parts.weights], [(p, c, r, b(x)) for p, c, r, x in parts.edges], parts.texts, parts.roles)


def reference(text: str) -> RubricParts | None:
    """What the scorer read before: orjson's parse of a usual row, then read_canonical."""
    usual = usual_gear_text(text)
    if usual is None or usual[0] != "canonical":
        return None
    return read_canonical(usual[1])


IDS = st.sampled_from(["r1", "r2", "r3", "\u00e9", "a\x00"])
WEIGHTS = st.one_of(st.integers(-5, 12), st.floats(-1e6, 1e6),
                    st.sampled_from([Raw("-0"), Raw("-0.0"), Raw("1e-400"), Raw("1E2"), Raw("0.1000000000000000055511151231257827021181583404541015625")]))
#: What any field may hold instead: every kind of JSON value, and numbers the two readers may take apart.
ANY = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**53 + 1, -(2**53) - 1, 2**63, 2**64 + 1, "", "\ud800", "3", None, True, False, [], {}]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([Raw("1e400"), Raw("-1e400"), Raw("NaN"), Raw("Infinity"), Raw('"\\ud800"'), Raw('"\\udc00x"')]),
)


def field(usual: Any, *other: Any) -> Tuple[Any, Any]:
    """A field's usual values, and what it may hold instead: ``other`` (near misses) or anything."""
    return usual, st.one_of(st.sampled_from(other), ANY) if other else ANY


@st.composite
def members(draw: Any, fields: Dict[str, Tuple[Any, Any]]) -> Members:
    """An object of ``fields``, usually as the schema has it; else with one field missing, repeated
    or of another value, or with a field the schema does not have; in any order."""
    out: Members = []
    changed = draw(st.sampled_from([*fields, "extra"])) if draw(st.integers(0, 3)) == 0 else None
    how = draw(st.sampled_from(["missing", "other", "twice"]))
    for name, (usual, other) in fields.items():
        if name == changed and how == "missing":
            continue
        out.append((name, draw(other if name == changed and how == "other" else usual)))
        if name == changed and how == "twice":
            out.append((name, draw(st.one_of(usual, other))))
    if changed == "extra":
        out.append((draw(st.sampled_from(["extra", "role", "retention"])), draw(st.one_of(ANY, IDS))))
    return draw(st.permutations(out))


CRITERION = members({"id": field(IDS, ""), "text": field(st.sampled_from(["Says so.", "", "\u2014 \ud83d\ude00"])),
                     "weight": field(WEIGHTS, Raw("1e400"), 2**53 + 1, 10**30, True, "3"),
                     "role": field(st.sampled_from(["foundation", "bonus", "penalty", "activation"]), "", "gate", "Bonus")})
EDGE = members({"parent": field(IDS, ""), "child": field(IDS, ""), "relation": field(st.sampled_from(["weak", "strong", "activation"]), "soft", ""),
                "retention": field(st.one_of(st.floats(0, 1), st.sampled_from([0, 1, Raw("-0.0"), Raw("1E-1")])), 2, -0.5, 1.0000000000000002)})


@st.composite
def spec_texts(draw: Any) -> str:
    rubric = members({"criteria": field(st.lists(CRITERION, max_size=5), []), "edges": field(st.lists(EDGE, max_size=5))})
    spec = draw(members({"format": field(st.just("canonical"), "official-gear", "ruscarl"), "rubric": field(rubric)}))
    text = text_of(spec)
    if draw(st.integers(0, 19)) == 0:
        text = draw(st.sampled_from(["\ufeff" + text, text + " x", text[:-1], " \n" + text + "\t"]))
    return text


def test_wherever_it_answers_it_reads_what_the_reader_before_it_read() -> None:
    answered: List[bool] = []

    @settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(spec_texts())
    def same(text: str) -> None:
        read = read_canonical_text(text)
        answered.append(read is not None)
        if read is not None:
            assert bits(read) == bits(reference(text))

    same()
    # The comparison ran on rows of every kind: some read, and more left to the reader before it.
    assert 0.05 * len(answered) < sum(answered) < 0.8 * len(answered), (sum(answered), len(answered))


#: Every value a field takes in the one-change test: near misses of each field and every JSON kind.
SAMPLES = ["", "3", "gate", "soft", "Bonus", "r1", "r9", None, True, False, [], {}, 0, 1, 2, 0.5, -0.5, 1.0000000000000002,
           2**53 + 1, -(2**53) - 1, 2**64 + 1, 10**30, Raw("1e400"), Raw("NaN"), Raw("-0.0"), Raw('"\\ud800"')]


def one_change_texts() -> List[str]:
    """A usual row with one change: each field of each of its objects (and one it lacks) set to each
    sample, removed, or given twice (the second one counts)."""
    criteria: List[Members] = [[("id", "r1"), ("text", "A."), ("weight", 3), ("role", "foundation")], [("id", "r2"), ("text", "B."), ("weight", -2.5)]]
    edges: List[Members] = [[("parent", "r1"), ("child", "r2"), ("relation", "strong"), ("retention", 0.5)],
                            [("parent", "r2"), ("child", "r1"), ("relation", "weak")]]

    def row(criteria: List[Members], edges: List[Members], rubric: Members = [], spec: Members = []) -> str:
        return text_of([("format", "canonical"), ("rubric", [("criteria", criteria), ("edges", edges), *rubric]), *spec])

    def changes(members: Members, names: List[str]) -> List[Members]:
        out: List[Members] = []
        for name in names:
            kept = [(k, v) for k, v in members if k != name]
            out.append(kept)
            out += [kept + [(name, value)] for value in SAMPLES]
            out += [members + [(name, value)] for value in SAMPLES]
        return out

    texts = [row(criteria, edges)]
    for k, criterion in enumerate(criteria):
        texts += [row(criteria[:k] + [c] + criteria[k + 1:], edges) for c in changes(criterion, ["id", "text", "weight", "role", "extra"])]
    for k, edge in enumerate(edges):
        texts += [row(criteria, edges[:k] + [e] + edges[k + 1:]) for e in changes(edge, ["parent", "child", "relation", "retention", "extra"])]
    texts += [row(criteria, edges, rubric=[("criteria", value)]) for value in [[], *SAMPLES]]
    texts += [row(criteria, edges, rubric=[("edges", value)]) for value in SAMPLES]
    texts += [row(criteria, edges, rubric=[("extra", value)]) for value in SAMPLES]
    texts += [row(criteria, edges, spec=[(name, value)]) for name in ("format", "rubric", "extra") for value in SAMPLES]
    return texts


def test_with_one_change_anywhere_it_reads_what_the_reader_before_it_read_or_leaves_it() -> None:
    texts = one_change_texts()
    answered = 0
    for text in texts:
        read = read_canonical_text(text)
        if read is not None:
            answered += 1
            assert bits(read) == bits(reference(text)), text
    # The usual row, and the changes that keep it a row (another id, weight, retention, role...).
    assert 100 < answered < len(texts) / 2, (answered, len(texts))


def test_it_answers_for_usual_rows_and_leaves_the_rest_to_the_reader_before_it() -> None:
    usual = {"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "A.", "weight": 3, "role": "foundation"},
                                                            {"id": "b", "text": "B.", "weight": -2.5}],
                                               "edges": [{"parent": "a", "child": "b", "relation": "strong", "retention": 0.5},
                                                         {"parent": "b", "child": "a", "relation": "weak"}]}}
    read = read_canonical_text(json.dumps(usual))
    assert read == RubricParts(("a", "b"), (3.0, -2.5), (("a", "b", "strong", 0.5), ("b", "a", "weak", None)), ("A.", "B."), ("foundation", ""))
    assert bits(read) == bits(reference(json.dumps(usual)))
    without_edges = {"format": "canonical", "rubric": {"criteria": usual["rubric"]["criteria"]}}  # type: ignore[index]
    assert read_canonical_text(json.dumps(without_edges)) == read._replace(edges=())  # type: ignore[union-attr]
    # Each of these, the reader before it read alike or refused; this one leaves them to it.
    for field, value in [("weight", 2**53 + 1), ("weight", 10**30), ("weight", True), ("role", None), ("role", "gate"), ("id", "")]:
        changed = json.loads(json.dumps(usual))
        changed["rubric"]["criteria"][0][field] = value
        assert read_canonical_text(json.dumps(changed)) is None, (field, value)
    for text in ['{"format": "canonical", "rubric": {"criteria": []}}', '{"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "\\ud800", "weight": 1}]}}',
                 '{"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "A", "weight": 1e400}]}}',
                 '{"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "A", "weight": 1}], "edges": null}}',
                 '{"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "A", "weight": 1}]}, "x": 1}',
                 '{"format": "official-gear", "reward_model": {}}', "not json",
                 json.dumps({"rubric": usual["rubric"], "format": "canonical"})]:  # the format not first: read as before
        assert read_canonical_text(text) is None, text


@pytest.mark.parametrize("aggregator", ["gear", "flat", "hard", "gear-exact"])
def test_the_shipped_rubrics_are_read_by_it_and_scored_as_the_cli_scores_them(aggregator: str) -> None:
    samples = make_samples(seed=40, prompts=30, group=2, formats=("canonical",))
    texts = {sample["extra_info"]["gear"] for sample in samples}
    assert len(texts) >= 25 and all(isinstance(text, str) for text in texts)  # 30 draws of the 30 rubrics
    for text in texts:
        read = read_canonical_text(text)
        assert read is not None and bits(read) == bits(reference(text))
    scorer = InProcessScorer(load_settings(aggregator=aggregator))
    fields = [scorer.fields_of_text_row(s["extra_info"]["gear"], s["extra_info"]["gear_judgments"]) for s in samples]
    assert None not in fields
    assert [f["score"] for f in fields if f is not None] == expected_rewards(samples, aggregator)
    assert not any(math.isnan(f["score"]) for f in fields if f is not None)
    assert orjson.loads(samples[0]["extra_info"]["gear"])["format"] == "canonical"
