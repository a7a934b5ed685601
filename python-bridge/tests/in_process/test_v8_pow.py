"""The worker's pow against core's ``v8Pow`` (the built dist/core, run by node), bit for bit.

Retentions raised to gamma and the geometric mean's root are the only pows in gear's floats; core
computes them with V8's fdlibm port so that they do not depend on the Node that serves them, and
the worker with the same algorithm (gear_bridge.in_process.v8_pow). Inputs are drawn where the
algorithm branches: subnormal bases, bases near 1 with exponents past 2^31 and 2^64, results that
overflow, underflow or are subnormal, -0 to odd integers, and the domain gear uses (bases in [0, 1],
gammas, 1/n).
"""
from __future__ import annotations

import math
import random
import struct
from typing import List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from built_service import run_on_batch
from gear_bridge.in_process.v8_pow import v8_pow

CORE_POW = """
import(process.argv[1]).then(({ v8Pow }) => {
  const words = new DataView(new ArrayBuffer(8));
  const value = (hex) => { words.setBigUint64(0, BigInt('0x' + hex)); return words.getFloat64(0); };
  const lines = require('fs').readFileSync(0, 'utf8').trim().split('\\n');
  process.stdout.write(lines.map((line) => {
    const [x, y] = line.split(' ');
    words.setFloat64(0, v8Pow(value(x), value(y)));
    return words.getBigUint64(0).toString(16).padStart(16, '0');
  }).join('\\n'));
});
"""


def _hex(value: float) -> str:
    return f"{struct.unpack('<Q', struct.pack('<d', value))[0]:016x}"


def _float(hex_bits: str) -> float:
    value: float = struct.unpack("<d", struct.pack("<Q", int(hex_bits, 16)))[0]
    return value


def core_pows(pairs: List[Tuple[float, float]]) -> List[float]:
    """core's v8Pow of each pair, in one node process."""
    written = run_on_batch(CORE_POW, "core/index.js", "\n".join(f"{_hex(x)} {_hex(y)}" for x, y in pairs))
    return [_float(h) for h in written.split("\n")]


def _same(a: float, b: float) -> bool:
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def _base(rng: random.Random) -> float:
    kind = rng.randrange(7)
    if kind == 0:
        return rng.random()  # a retention or a product of factors
    if kind == 1:
        return rng.choice([0.0, -0.0, 1.0, 0.6, 0.2, 0.5, 5e-324, 2.2250738585072014e-308, 1 - 2**-53, 1 + 2**-52])
    if kind == 2:
        return math.ldexp(rng.random(), -rng.randint(0, 1074))  # down to subnormals
    if kind == 3:
        return 1 + (rng.random() - 0.5) * 2.0 ** -rng.randint(10, 50)  # near 1
    if kind == 4:
        return rng.random() * 10.0 ** rng.randint(0, 300)
    return float(rng.randint(0, 50))


def _exponent(rng: random.Random) -> float:
    kind = rng.randrange(7)
    if kind == 0:
        return rng.random() * 8  # a gamma
    if kind == 1:
        return 1 / rng.randint(1, 64)  # a geometric mean's root
    if kind == 2:
        return rng.choice([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0, 4.0, 2.0**31 + 1, 2.0**64 + 2.0**12, 1e300, -1e300])
    if kind == 3:
        return (rng.random() - 0.5) * 2 * 10.0 ** rng.randint(0, 20)
    if kind == 4:
        return float(rng.randint(-2000, 2000))
    return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(52) | (rng.randrange(0x7FF) << 52) | (rng.getrandbits(1) << 63)))[0]


def test_equals_cores_bit_for_bit_where_it_branches() -> None:
    rng = random.Random(20261128)
    pairs = [(_base(rng), _exponent(rng)) for _ in range(200_000)]
    want = core_pows(pairs)
    wrong = [(x, y, v8_pow(x, y), core) for (x, y), core in zip(pairs, want) if not _same(v8_pow(x, y), core)]
    assert wrong == []
    # Not vacuous: Python's own ** (C's pow) differs from core's on many of them.
    differs = sum(1 for (x, y), core in zip(pairs, want) if 0 < x < 1 and 0 < y < 8 and x ** y != core)
    assert differs > 1000


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 16)), min_size=1, max_size=400))
def test_equals_cores_on_retentions_and_gammas(pairs: List[Tuple[float, float]]) -> None:
    for (x, y), core in zip(pairs, core_pows(pairs)):
        assert _same(v8_pow(x, y), core), (x, y)


@pytest.mark.parametrize("x, y", [(-0.5, 2.0), (math.inf, 2.0), (0.5, math.nan), (0.5, -math.inf)])
def test_refuses_what_gear_never_raises(x: float, y: float) -> None:
    with pytest.raises(ValueError, match="v8_pow takes a finite x >= 0"):
        v8_pow(x, y)
