"""json_wire writes and reads what the standard library does: msgspec only where that holds.

The properties compare with ``json`` itself, on values built to hit both sides of the line: plain
JSON data (msgspec writes it), and values msgspec would write where ``json.dumps`` refuses them or
writes them otherwise (NaN, infinities, sets, bytes, enums, numpy scalars, keys that are not text).
"""
from __future__ import annotations

import enum
import json
import math
import struct
from typing import Any

import msgspec
import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gear_bridge import ClientProtocol, InvalidParams
from gear_bridge.json_wire import decode, encode


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types, floats bit for bit (0.0 is not -0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def dumps(value: Any) -> bytes:
    return json.dumps(value, allow_nan=False, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
LEAVES = st.none() | st.booleans() | st.integers() | st.integers(min_value=-(2**80), max_value=2**80) | FINITE | TEXT
PLAIN = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner) | st.dictionaries(TEXT, inner, max_size=5),
                     max_leaves=40)


class Level(enum.IntEnum):
    HIGH = 2


class Kind(str, enum.Enum):
    A = "a"


#: What msgspec writes (or writes otherwise) and json.dumps refuses or writes its own way.
ODD = st.sampled_from([math.nan, math.inf, -math.inf, {1, 2}, frozenset(), b"ab", bytearray(b"x"), Level.HIGH, Kind.A, True,
                       numpy.float64(0.5), numpy.float64("nan"), numpy.int64(3), {1: "one"}, {2.5: "x"}, {True: 1}, {None: 1},
                       {math.nan: 1}, "\ud800", {"\udfff": 1}, object()])
MIXED = st.recursive(LEAVES | ODD, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=20)


@settings(max_examples=400)
@given(PLAIN)
def test_plain_data_is_written_by_msgspec_and_reads_back_as_json_writes_it(value: Any) -> None:
    frame = encode(value)
    assert frame == msgspec.json.encode(value)  # the fast path was taken
    assert same(json.loads(frame), json.loads(dumps(value)))


@settings(max_examples=600)
@given(MIXED)
def test_anything_else_is_written_or_refused_exactly_as_json_dumps_does(value: Any) -> None:
    try:
        expected: Any = json.loads(dumps(value))
    except (ValueError, TypeError) as error:
        with pytest.raises(type(error)):
            encode(value)
        return
    assert same(json.loads(encode(value)), expected)


@settings(max_examples=400)
@given(PLAIN | st.lists(FINITE, max_size=8))
def test_reading_gives_json_loads_values_bit_for_bit(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=1)):
        assert same(decode(text), json.loads(text))
        assert same(decode(text.encode("utf-8")), json.loads(text))


@pytest.mark.parametrize("text", [
    "1e400", "-1e400", "[NaN, Infinity, -Infinity]", '"\\ud800"', '{"a":"\\udfff x"}', "12345678901234567890123456789",
    "1E+21", "5e-324", "-0", "-0.0", '{"a":1,"a":2}', " [1 , 2] ", "0.1e1", "2.2250738585072011e-308",
])
def test_reading_what_msgspec_refuses_or_reads_alike(text: str) -> None:
    """Numbers past float range and NaN (json reads them; msgspec refuses), lone surrogate escapes,
    big integers, subnormals, duplicate keys: json.loads's value every time."""
    assert same(decode(text), json.loads(text))


@pytest.mark.parametrize("text", ["", "not json", "[1,]", '{"a" 1}', "\ufeff[1]", '"\x01"'])
def test_text_that_json_refuses_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        decode(text)


@pytest.mark.parametrize(("params", "path", "reason"), [
    ({"rows": [{"text": "ok"}, {"text": "bad \ud800"}]}, ("rows", 1, "text"), "lone surrogate"),
    ({"rows": [{"\udfff": 1}]}, ("rows", 0), "lone surrogate"),
    ({"judgeOutputs": {"a", "b"}}, ("judgeOutputs",), "is not JSON data (set)"),
    ({"response": b"bytes"}, ("response",), "is not JSON data (bytes)"),
    ({"scores": {"p": [0.5, numpy.float64("nan")]}}, ("scores", "p", 1), "finite number"),
])
def test_requests_msgspec_would_have_sent_are_refused_naming_the_field(params: Any, path: tuple, reason: str) -> None:
    protocol = ClientProtocol()
    with pytest.raises(InvalidParams) as caught:
        protocol.build_request("host.scoreBatch", params)
    assert caught.value.path == path
    assert reason in str(caught.value)
    assert protocol.pending == 0


@settings(max_examples=2000)
@given(FINITE)
def test_a_float_is_never_longer_than_json_spells_it_outside_one_decade(x: float) -> None:
    """The chunkers size rows with json: msgspec's spelling is longer only for 1e-5 <= |x| < 1e-4,
    by one or two bytes (0.000015 for 1.5e-05, 0.00001 for 1e-05), which their 1 KB of slack covers."""
    extra = len(encode([x])) - len(dumps([x]))
    assert extra <= (2 if 1e-5 <= abs(x) < 1e-4 else 0)


@pytest.mark.parametrize(("x", "extra"), [(1e-05, 2), (-3e-05, 2), (1.5e-05, 1), (9.999e-05, 1), (1e-04, 0), (1e16, -1), (1e-06, -1)])
def test_the_decade_spelled_longer(x: float, extra: int) -> None:
    assert len(encode([x])) - len(dumps([x])) == extra
