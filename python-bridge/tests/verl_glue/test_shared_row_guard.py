"""SharedRowGuard: a dict read again for another response is refused; a plain dict by the mark it
carries (a copy of it is a new row), however many dicts pass in between; any other mapping by the
guard's map of the ``size`` most recent ones, whose memory stays bounded."""
from __future__ import annotations

import sys
import threading
from typing import Any, Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gear_bridge.exceptions import RowError
from gear_bridge.verl.row_judgments import READ_MARK, SharedRowGuard

SIZE = 8


class Row(dict):  # type: ignore[type-arg]
    """A mapping that is not a plain dict: the guard remembers it in its own map."""


KINDS = [dict, Row]


@settings(max_examples=300, deadline=None)
@given(gap=st.integers(0, SIZE - 1), again_same=st.booleans(), as_bytes=st.booleans(), kind=st.sampled_from(KINDS))
def test_a_dict_read_again_within_size_other_dicts_is_checked(gap: int, again_same: bool, as_bytes: bool, kind: Any) -> None:
    guard = SharedRowGuard(size=SIZE)
    keep: List[Dict[str, Any]] = []  # alive, as verl's batch holds them
    for k in range(3 * SIZE):  # earlier traffic
        keep.append(kind(k=k))
        guard.check(keep[-1], f"r{k}", ("extra_info",), "gear_judgments")
    shared: Dict[str, Any] = kind(gear="row")
    first: str | bytes = b"\x01\x02" if as_bytes else "response a"
    guard.check(shared, first, ("extra_info",), "gear_judgments")
    for k in range(gap):
        keep.append(kind(gap=k))
        guard.check(keep[-1], f"g{k}", ("extra_info",), "gear_judgments")
    again: str | bytes = first if again_same else (b"\x01\x03" if as_bytes else "response b")
    if again_same:
        guard.check(shared, again, ("extra_info",), "gear_judgments")
    else:
        with pytest.raises(RowError) as refused:
            guard.check(shared, again, ("extra_info",), "gear_judgments")
        assert refused.value.path == ("extra_info", "gear_judgments")


def test_a_plain_dict_is_remembered_past_any_number_of_others() -> None:
    guard = SharedRowGuard(size=SIZE)
    shared: Dict[str, Any] = {"gear": "row"}
    guard.check(shared, "a", ("extra_info",), "k")
    keep = [{"k": k} for k in range(20 * SIZE)]
    for row in keep:
        guard.check(row, "x", ("extra_info",), "k")
    with pytest.raises(RowError):
        guard.check(shared, "b", ("extra_info",), "k")


def test_other_mappings_take_at_most_size_entries() -> None:
    guard = SharedRowGuard(size=SIZE)
    keep = [Row(k=k) for k in range(20 * SIZE)]
    for row in keep:
        guard.check(row, "x", ("extra_info",), "k")
    assert guard.remembered() == SIZE


@pytest.mark.parametrize("kind", KINDS)
def test_threads_reading_one_dict_for_different_responses_pass_exactly_one(kind: Any) -> None:
    """Of 8 threads reading one dict for different responses, exactly one passes, in every round."""

    def one_round() -> List[str]:
        guard = SharedRowGuard(size=1000)  # every dict of the round stays in sight
        outcomes: List[str] = []
        lock = threading.Lock()
        shared: Dict[str, Any] = kind(gear="row")
        start = threading.Barrier(8)

        def worker(n: int) -> None:
            mine = [kind(t=n, k=k) for k in range(50)]
            start.wait()
            for k, row in enumerate(mine):
                guard.check(row, f"x{n}", ("extra_info",), "k")
                if k == 25:
                    try:
                        guard.check(shared, f"response {n}", ("extra_info",), "k")
                        outcome = "passed"
                    except RowError:
                        outcome = "refused"
                    with lock:
                        outcomes.append(outcome)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return outcomes

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        rounds = [one_round() for _ in range(40)]
    finally:
        sys.setswitchinterval(interval)
    assert all(len(outcomes) == 8 and outcomes.count("passed") == 1 for outcomes in rounds)


def test_a_plain_dict_carries_the_mark_of_its_first_reading_and_a_copy_is_a_new_row() -> None:
    guard = SharedRowGuard(size=SIZE)
    shared: Dict[str, Any] = {"gear": "row", "gear_judgments": {"p": [1]}}
    guard.check(shared, "response a", ("extra_info",), "gear_judgments")
    assert shared == {"gear": "row", "gear_judgments": {"p": [1]}, READ_MARK: (id(shared), "response a")}
    guard.check(shared, "response " + "a", ("extra_info",), "gear_judgments")  # equal text, another object
    copied = dict(shared)  # carries the mark of another dict: read for the first time
    guard.check(copied, "response b", ("extra_info",), "gear_judgments")
    assert copied[READ_MARK] == (id(copied), "response b")
    with pytest.raises(RowError):
        guard.check(copied, "response c", ("extra_info",), "gear_judgments")
    with pytest.raises(RowError):
        guard.check(shared, "response b", ("extra_info",), "gear_judgments")
    shared[READ_MARK] = "something else under the name"
    guard.check(shared, "response d", ("extra_info",), "gear_judgments")
    assert shared[READ_MARK] == (id(shared), "response d")
    guard.check(shared, b"\x01", ("extra_info",), "gear_judgments")  # token ids after text: a new kind of reading
    with pytest.raises(RowError):
        guard.check(shared, b"\x02", ("extra_info",), "gear_judgments")
    assert guard.remembered() == 0
