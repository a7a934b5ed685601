"""JSON text for the wire: msgspec's encoder and decoder where they give what the standard library
gives, the standard library everywhere else.

A step's frames are tens to hundreds of KB (RuscaRL rows: ~150 KB of grader outputs per chunk of
112 responses), written and read in the worker's event loop. For one such frame ``json.dumps`` took
1.5-1.7 ms and ``json.loads`` 1.2-1.6 ms; :func:`encode` takes 0.5-0.7 ms (0.3-0.5 of it the check
below) and :func:`decode` ~0.45 ms (bench/README.md, "The server path's frames"). But msgspec is
laxer than the standard library in ways that would turn bad input into data: it writes NaN and
infinities as ``null``, and it writes sets, bytes (as base64), dates, enums and dataclasses where
``json.dumps`` refuses them. So it only writes values made of the plain JSON types, which
:func:`_plain` checks first (exact types, finite floats, text keys); anything else takes
``json.dumps``, which refuses it as it always did. Reading, msgspec refuses what it cannot read
as the standard library reads it (numbers past float range, which ``json`` reads as infinity;
``NaN``; lone surrogate escapes), and the standard library reads those.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = ["encode", "decode"]

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder()
#: Leaves that msgspec writes as ``json.dumps`` does (floats are checked apart: NaN, infinities).
_LEAVES = frozenset({str, int, bool, type(None)})


def _plain(value: Any) -> bool:
    """True when ``value`` is built of dicts with ``str`` keys, lists, tuples, ``str``, ``int``,
    ``bool``, ``None`` and finite ``float`` only, each of exactly that type (subclasses, such as
    numpy's ``float64`` or enums, take ``json.dumps``: the safe side)."""
    stack = [value]
    pop, push = stack.pop, stack.extend
    leaves = _LEAVES
    while stack:
        item = pop()
        kind = type(item)
        if kind in leaves:
            continue
        if kind is float:
            if item - item != 0.0:  # NaN and the infinities
                return False
        elif kind is dict:
            for key in item:
                if type(key) is not str:
                    return False
            push(item.values())
        elif kind is list or kind is tuple:
            push(item)
        else:
            return False
    return True


def encode(value: Any) -> bytes:
    """``json.dumps(value, allow_nan=False, separators=(",", ":"), ensure_ascii=False)`` in UTF-8
    (numbers may be spelled otherwise, e.g. ``1e16`` for ``1e+16``: the same float64 either way).
    A float in [1e-5, 1e-4) takes one or two bytes more (``0.000015`` for ``1.5e-05``, ``0.00001``
    for ``1e-05``; no other is longer: tests/test_json_wire.py); the chunkers measure rows with
    ``json`` and keep 1 KB of slack under ``maxPayloadBytes``, and a frame over it is still refused
    before it is sent.

    Raises:
        ValueError: NaN or an infinity; a lone surrogate (``UnicodeEncodeError``).
        TypeError: a value that is not JSON data.
    """
    if _plain(value):
        return _ENCODER.encode(value)
    return json.dumps(value, allow_nan=False, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def decode(frame: str | bytes) -> Any:
    """``json.loads(frame)``.

    Raises:
        ValueError: the frame is not JSON.
    """
    try:
        return _DECODER.decode(frame)
    except msgspec.MsgspecError:
        return json.loads(frame)
