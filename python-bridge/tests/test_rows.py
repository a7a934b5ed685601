"""The VERL row layout: extra_info["gear"] and the judgments, validated with errors naming the field."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gear_bridge import RowError, parse_row
from gear_bridge.rows import parse_judge_outputs, parse_scores

RUBRIC = {"criteria": [{"id": "a", "text": "x", "weight": 1}, {"id": "b", "text": "y", "weight": -2}], "edges": []}
OFFICIAL = {"rubrics": [{"criterion": "x", "points": 5, "tags": {}}], "graph": {"nodes": [], "edges": []}}
HOST_ROW = {"prompt": [{"role": "user", "content": "q"}], "reward_model": {"rubrics": [{"criterion": "x", "points": 5, "tags": []}]}}


@pytest.mark.parametrize(
    ("spec", "form", "field"),
    [
        ({"format": "canonical", "rubric": RUBRIC}, "canonical", "rubric"),
        ({"format": "official-gear", "reward_model": OFFICIAL}, "official-gear", "reward_model"),
        ({"format": "ruscarl", "row": HOST_ROW}, "ruscarl", "row"),
        ({"format": "gear", "row": HOST_ROW}, "gear", "row"),
    ],
)
def test_formats_parse_from_dict_and_json(spec: dict, form: str, field: str) -> None:
    """Each format reads the same from a dict and from its JSON string; equal content gives equal keys."""
    from_dict = parse_row({"gear": spec})
    from_text = parse_row({"gear": json.dumps(spec), "num_turns": None})
    assert (from_dict.format, from_dict.content) == (from_text.format, from_text.content)
    assert parse_row({"gear": json.loads(json.dumps(spec))}).key == from_dict.key
    assert from_dict.key == from_text.key == parse_row({"gear": json.dumps(spec, indent=1)}).key
    assert (from_dict.format, from_dict.content_field, from_dict.is_host) == (form, field, form not in ("canonical", "official-gear"))
    assert from_dict.content == spec[field]


def test_parquet_arrays_are_read_as_lists() -> None:
    """A row read back from parquet (numpy arrays for lists) gives the same rubric and the same key."""
    spec = {"format": "canonical", "rubric": {"criteria": np.array([dict(c) for c in RUBRIC["criteria"]], dtype=object), "edges": np.array([])}}
    assert parse_row({"gear": spec}) == parse_row({"gear": {"format": "canonical", "rubric": RUBRIC}})
    scores = parse_scores({"p": np.array([0.25, 1.0]), "d": np.array([False, True])}, ("j",))
    assert (scores.p, scores.d) == ((0.25, 1.0), (False, True))


@pytest.mark.parametrize(
    ("extra_info", "path"),
    [
        (None, ("extra_info",)),
        ({}, ("extra_info", "gear")),
        ({"gear": "{not json"}, ("extra_info", "gear")),
        ({"gear": {"rubric": RUBRIC}}, ("extra_info", "gear", "format")),
        ({"gear": {"format": "canonical!", "rubric": RUBRIC}}, ("extra_info", "gear", "format")),
        ({"gear": {"format": "canonical"}}, ("extra_info", "gear", "rubric")),
        ({"gear": {"format": "canonical", "rubric": RUBRIC, "graph": {}}}, ("extra_info", "gear", "graph")),
        ({"gear": {"format": "canonical", "rubric": {"criteria": "a"}}}, ("extra_info", "gear", "rubric", "criteria")),
        ({"gear": {"format": "canonical", "rubric": {"criteria": [1]}}}, ("extra_info", "gear", "rubric", "criteria", 0)),
        ({"gear": {"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "", "weight": math.nan}]}}},
         ("extra_info", "gear", "rubric", "criteria", 0, "weight")),
        ({"gear": json.dumps({"format": "official-gear", "reward_model": {"rubrics": [], "graph": "x"}})},
         ("extra_info", "gear", "reward_model", "graph")),
        ({"gear": {"format": "official-gear", "reward_model": {"graph": {}}}}, ("extra_info", "gear", "reward_model", "rubrics")),
        ({"gear": {"format": "ruscarl", "row": [HOST_ROW]}}, ("extra_info", "gear", "row")),
    ],
)
def test_malformed_rows_name_the_field(extra_info: object, path: tuple) -> None:
    """Every malformed row raises RowError whose path names the offending field."""
    with pytest.raises(RowError) as caught:
        parse_row(extra_info)
    assert caught.value.path == path


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ([0.5], ("j",)),
        ({"q": [0.5]}, ("j", "q")),
        ({"d": [True]}, ("j", "p")),
        ({"p": [0.5, "1"]}, ("j", "p", 1)),
        ({"p": [0.5, math.nan]}, ("j", "p", 1)),
        ({"p": [1.5]}, ("j", "p", 0)),
        ({"p": [True]}, ("j", "p", 0)),
        ({"p": [0.5], "d": [1]}, ("j", "d", 0)),
        ({"p": [0.5], "d": [True, False]}, ("j", "d")),
        ('{"p": [NaN]}', ("j", "p", 0)),
    ],
)
def test_malformed_scores_name_the_field(value: object, path: tuple) -> None:
    """Judge scores are checked per entry: type, finiteness, range, decisions' length."""
    with pytest.raises(RowError) as caught:
        parse_scores(value, ("j",))
    assert caught.value.path == path


_SCORE_ITEMS = st.one_of(
    st.sampled_from([0, 1, 2, -1, 0.0, -0.0, 0.5, 1.0, 1.5, math.nan, math.inf, True, False, None, "0.5", [0.5]]),
    st.floats(min_value=-0.5, max_value=1.5),
)


def test_judge_outputs_are_strings() -> None:
    """Host judgments are a list of strings or its JSON string; anything else names the entry."""
    assert parse_judge_outputs(["a", "b"], ("j",)) == ("a", "b")
    assert parse_judge_outputs('["a"]', ("j",)) == ("a",)
    with pytest.raises(RowError) as caught:
        parse_judge_outputs(["a", 3], ("j",))
    assert caught.value.path == ("j", 1)
    with pytest.raises(RowError) as caught:
        parse_judge_outputs("plain text", ("j",))
    assert caught.value.path == ("j",)


@settings(max_examples=400, deadline=None)
@given(
    sign=st.sampled_from(["", "-"]),
    whole=st.from_regex(r"0|[1-9][0-9]{0,3}", fullmatch=True),
    fraction=st.one_of(st.just(""), st.from_regex(r"\.[0-9]{1,4}", fullmatch=True)),
    exponent=st.one_of(st.just(""), st.builds(lambda e, s, d: f"{e}{s}{d}", st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 999))),
    special=st.sampled_from([None, "NaN", "Infinity", "-Infinity"]),
    spaced=st.booleans(),
)
def test_a_row_text_with_a_non_finite_number_is_refused_at_its_field(
    sign: str, whole: str, fraction: str, exponent: str, special: str | None, spaced: bool
) -> None:
    """Whatever number literal a weight of a row's JSON text has, parsing refuses it exactly when
    json.loads reads it as NaN or +-inf, naming the weight."""
    literal = special if special is not None else f"{sign}{whole}{fraction}{exponent}"
    value = json.loads(literal)
    separator = ", " if spaced else ","
    text = '{"format": "canonical", "rubric": {"criteria": [{"id": "a", "text": "x", "weight": 1}' + separator + '{"id": "b", "text": "y", "weight": ' + literal + "}]}}"
    if isinstance(value, float) and not math.isfinite(value):
        with pytest.raises(RowError) as caught:
            parse_row({"gear": text})
        assert caught.value.path == ("extra_info", "gear", "rubric", "criteria", 1, "weight")
    else:
        assert parse_row({"gear": text}).content["criteria"][1]["weight"] == value
