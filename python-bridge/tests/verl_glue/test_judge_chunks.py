"""judge_chunks: a judge.scoreBatch split within the server's limits keeps every item, in order,
with its own row; no request is over the limits; a request carries only the rows its items name."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from hypothesis import given, settings, strategies as st

from gear_bridge.verl.judge_chunks import judge_chunks

ENVELOPE = {"aggregator": "gear", "alsoAggregators": ["flat", "hard"], "omit": ["judgments", "extras", "outputs"]}
# Text with characters that take 1-4 bytes in UTF-8, quotes, backslashes and control characters.
TEXT = st.text(alphabet=st.sampled_from(["a", " ", "é", "✓", "😀", '"', "\\", "\n", "\x01"]), max_size=400)


def frame_bytes(items: List[Dict[str, Any]], rows: List[Any]) -> int:
    """The bytes the client's frame spends on these params (as protocol.py writes them)."""
    params = {"items": items, "rows": rows, **ENVELOPE}
    return len(json.dumps(params, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


@st.composite
def batches(draw: Any) -> Dict[str, Any]:
    rows = draw(st.lists(st.fixed_dictionaries({"prompt": TEXT, "n": st.integers()}), min_size=1, max_size=6))
    items = draw(st.lists(st.builds(lambda k, r: {"host": "ruscarl", "rowIndex": k % len(rows), "response": r},
                                    st.integers(0, 100), TEXT), min_size=1, max_size=30))
    # As the rewarder builds them: every row is named by an item.
    named = sorted({item["rowIndex"] for item in items})
    rows = [rows[k] for k in named]
    items = [dict(item, rowIndex=named.index(item["rowIndex"])) for item in items]
    max_items = draw(st.one_of(st.none(), st.integers(1, 40)))
    # From tight (every request one item) to loose.
    biggest = max(frame_bytes([i], [rows[i["rowIndex"]]]) for i in items)
    max_bytes = draw(st.one_of(st.none(), st.integers(biggest + 1024 + len(json.dumps(ENVELOPE)), biggest * 40 + 4096)))
    return {"rows": rows, "items": items, "max_items": max_items, "max_bytes": max_bytes}


@settings(max_examples=300, deadline=None)
@given(batches())
def test_every_item_keeps_its_row_in_order_and_no_request_is_over_the_limits(batch: Dict[str, Any]) -> None:
    rows, items = batch["rows"], batch["items"]
    max_items: Optional[int] = batch["max_items"]
    max_bytes: Optional[int] = batch["max_bytes"]
    chunks = judge_chunks(items, rows, max_items, max_bytes, ENVELOPE)
    resolved = [(item["response"], rows[item["rowIndex"]]) for item in items]
    got = [(item["response"], chunk_rows[item["rowIndex"]]) for chunk_items, chunk_rows in chunks for item in chunk_items]
    assert got == resolved
    for chunk_items, chunk_rows in chunks:
        assert chunk_items
        assert sorted({item["rowIndex"] for item in chunk_items}) == list(range(len(chunk_rows)))  # only the rows it names
        if max_items is not None:
            assert len(chunk_items) <= max_items
        if max_bytes is not None:
            assert frame_bytes(chunk_items, chunk_rows) + 100 <= max_bytes  # the JSON-RPC envelope fits in the slack
    if (max_items is None or len(items) <= max_items) and (max_bytes is None or frame_bytes(items, rows) * 6 < max_bytes - 2048):
        assert len(chunks) == 1  # what fits under the cheap bound goes in one request


def test_a_chunk_of_long_responses_is_split_and_short_ones_are_not() -> None:
    rows = [{"prompt": "p0"}, {"prompt": "p1"}]
    long = [{"host": "ruscarl", "rowIndex": k % 2, "response": "x" * 100_000} for k in range(112)]
    chunks = judge_chunks(long, rows, 8192, 8 * 1024 * 1024, ENVELOPE)
    assert len(chunks) == 2 and [len(c[0]) for c in chunks] == [83, 29]
    short = [dict(item, response="x" * 5_000) for item in long]
    assert len(judge_chunks(short, rows, 8192, 8 * 1024 * 1024, ENVELOPE)) == 1


def test_bytes_are_counted_as_sent_escapes_and_rows_included() -> None:
    """A response of control characters takes 6 bytes each in JSON, not 1; each request's rows count
    once in it. Both split here, and every request stays under the limit."""
    rows = [{"prompt": "p"}]
    escaped = [{"host": "ruscarl", "rowIndex": 0, "response": "\x01" * 1_000} for _ in range(20)]
    chunks = judge_chunks(escaped, rows, None, 64 * 1024, ENVELOPE)
    assert len(chunks) == 2 and all(frame_bytes(i, r) <= 64 * 1024 for i, r in chunks)
    big_rows = [{"prompt": "y" * 30_000}, {"prompt": "z" * 30_000}, {"prompt": "w" * 30_000}]
    small = [{"host": "ruscarl", "rowIndex": k % 3, "response": "ok"} for k in range(9)]
    chunks = judge_chunks(small, big_rows, None, 64 * 1024, ENVELOPE)
    # Items in order, rows 0, 1, 2, 0, ...: two 30 KB rows fit a request, so every request takes two.
    assert [len(r) for _, r in chunks] == [2, 2, 2, 2, 1]
    assert all(frame_bytes(i, r) <= 64 * 1024 for i, r in chunks)
