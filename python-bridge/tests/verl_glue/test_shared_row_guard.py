"""SharedRowGuard: a dict read again for another response is refused while anything else holds
it, however many dicts pass in between; a plain dict by the mark it carries (a copy of it is a
new row), any other mapping by the guard's maps, whose memory stays bounded by ``size`` when the
rows it saw are gone."""
from __future__ import annotations

from typing import Any, Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gear_bridge.exceptions import RowError
from gear_bridge.verl.row_judgments import READ_MARK, SharedRowGuard

SIZE = 8


class Row(dict):  # type: ignore[type-arg]
    """A mapping that is not a plain dict: the guard remembers it in its own maps."""


KINDS = [dict, Row]


@settings(max_examples=300, deadline=None)
@given(gap=st.integers(0, SIZE), again_same=st.booleans(), as_bytes=st.booleans(), kind=st.sampled_from(KINDS))
def test_a_dict_read_again_within_size_other_dicts_is_checked(gap: int, again_same: bool, as_bytes: bool, kind: Any) -> None:
    guard = SharedRowGuard(size=SIZE)
    keep: List[Dict[str, Any]] = []  # alive, as verl's batch holds them
    for k in range(3 * SIZE):  # earlier traffic: the guard has turned over its generations
        keep.append(kind(k=k))
        guard.check(keep[-1], f"r{k}", ("extra_info",), "gear_judgments")
    shared: Dict[str, Any] = kind(gear="row")
    first: str | bytes = b"\x01\x02" if as_bytes else "response a"
    guard.check(shared, first, ("extra_info",), "gear_judgments")
    for k in range(gap):  # at most SIZE other dicts first read in between
        keep.append(kind(gap=k))
        guard.check(keep[-1], f"g{k}", ("extra_info",), "gear_judgments")
    again: str | bytes = first if again_same else (b"\x01\x03" if as_bytes else "response b")
    if again_same:
        guard.check(shared, again, ("extra_info",), "gear_judgments")
    else:
        with pytest.raises(RowError) as refused:
            guard.check(shared, again, ("extra_info",), "gear_judgments")
        assert refused.value.path == ("extra_info", "gear_judgments")


@pytest.mark.parametrize("kind", KINDS)
def test_a_dict_in_use_stays_remembered_across_generations(kind: Any) -> None:
    guard = SharedRowGuard(size=SIZE)
    shared: Dict[str, Any] = kind(gear="row")
    keep: List[Dict[str, Any]] = []
    guard.check(shared, "a", ("extra_info",), "k")
    for k in range(5 * SIZE):  # read again for the same response every few dicts
        keep.append(kind(k=k))
        guard.check(keep[-1], "x", ("extra_info",), "k")
        if k % (SIZE - 1) == 0:
            guard.check(shared, "a", ("extra_info",), "k")
    with pytest.raises(RowError):
        guard.check(shared, "b", ("extra_info",), "k")


@pytest.mark.parametrize("kind", KINDS)
def test_a_dict_held_elsewhere_is_remembered_past_any_number_of_others(kind: Any) -> None:
    guard = SharedRowGuard(size=SIZE)
    shared: Dict[str, Any] = kind(gear="row")
    guard.check(shared, "a", ("extra_info",), "k")
    keep = [kind(k=k) for k in range(40 * SIZE)]  # one step of many more responses than size
    for row in keep:
        guard.check(row, "x", ("extra_info",), "k")
    with pytest.raises(RowError):
        guard.check(shared, "b", ("extra_info",), "k")
    assert guard.remembered() == (len(keep) + 1 if kind is Row else 0)  # a plain dict carries its own mark


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("across_turnover", [False, True])
def test_the_first_reading_stays_the_one_compared_after_a_refusal(kind: Any, across_turnover: bool) -> None:
    """A refused reading is not remembered in place of the first, in the map where it was
    recorded or in a turnover's merge: it was, and the first response, read again, was refused."""
    guard = SharedRowGuard(size=SIZE)
    shared: Dict[str, Any] = kind(gear="row")
    guard.check(shared, "a", ("extra_info",), "k")
    for k in range(SIZE):  # dicts gone after their call: the turnover keeps only the shared one
        guard.check(kind(k=k), "x", ("extra_info",), "k")
    with pytest.raises(RowError):
        guard.check(shared, "b", ("extra_info",), "k")
    if across_turnover:
        for k in range(SIZE):
            guard.check(kind(k=k), "x", ("extra_info",), "k")
    guard.check(shared, "a", ("extra_info",), "k")
    with pytest.raises(RowError):
        guard.check(shared, "b", ("extra_info",), "k")


def test_a_turnover_between_recording_a_reading_and_looking_for_older_ones_keeps_the_older() -> None:
    """The interleaving that let two of the thread test's 8 threads pass (3 of 18,000 rounds under
    load), made to happen: a reading is recorded in the current map, and a turnover merges that map
    into the old generation before the reading looks there. The merge must keep the older reading,
    not put this one, which would then find only itself, in its place."""
    guard = SharedRowGuard(size=SIZE)
    shared: Dict[str, Any] = Row(gear="row")  # remembered in the maps (a plain dict carries a mark)
    guard.check(shared, "a", ("extra_info",), "k")
    for k in range(SIZE):  # a turnover: the first reading is now in the old generation
        guard.check(Row(k=k), "x", ("extra_info",), "k")
    assert guard._old[id(shared)] == (shared, "a") and id(shared) not in guard._now

    class TurnsOverFirst(dict):  # type: ignore[type-arg]
        def get(self, at: Any, default: Any = None) -> Any:
            guard._turnover_at = 1  # another thread's reading filled the map: this one turns it over
            guard._turn_over()
            return guard._old.get(at, default)

    guard._old = TurnsOverFirst(guard._old)
    with pytest.raises(RowError):
        guard.check(shared, "b", ("extra_info",), "k")


def test_dicts_gone_elsewhere_are_dropped_memory_stays_within_size() -> None:
    kind = Row
    guard = SharedRowGuard(size=SIZE)
    for k in range(50 * SIZE):
        guard.check(kind(k=k), "r", ("extra_info",), "k")  # the dict is gone after the call
        assert guard.remembered() <= SIZE
    step = [kind(k=k) for k in range(3 * SIZE)]  # a step held by its batch, then let go
    for row in step:
        guard.check(row, "r", ("extra_info",), "k")
    assert guard.remembered() >= len(step)
    del step, row
    for k in range(20 * SIZE):  # the next turnovers drop the step's dicts, and the bound comes back
        guard.check(kind(k=k), "r", ("extra_info",), "k")
    assert guard.remembered() <= SIZE


@pytest.mark.parametrize("kind", KINDS)
def test_threads_reading_one_dict_for_different_responses_never_pass_two(kind: Any) -> None:
    """No lock per check: of 8 threads reading one dict for different responses amid turnovers, at
    most one passes, in every one of 40 rounds. (Rarely none does: a reading recorded in a map a
    turnover had just retired, then again in the new one, can find the other's and refuse both;
    the run stops on the error either way.) Before _retiring, ~1-4% of rounds passed two; before
    turnovers kept the first reading (_first_readings), 3 of 18,000 rounds under load."""
    import sys
    import threading

    def one_round() -> List[str]:
        guard = SharedRowGuard(size=SIZE)
        keep: List[Dict[str, Any]] = []
        lock = threading.Lock()
        outcomes: List[str] = []
        shared: Dict[str, Any] = kind(gear="row")
        start = threading.Barrier(8)

        def worker(n: int) -> None:
            mine = [kind(t=n, k=k) for k in range(50)]
            with lock:
                keep.extend(mine)
            start.wait()
            for k, row in enumerate(mine):  # other dicts around the shared one: turnovers meanwhile
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
    assert all(len(outcomes) == 8 for outcomes in rounds)
    assert max(outcomes.count("passed") for outcomes in rounds) <= 1
    # Mostly exactly one: the guard refuses by recording, not by refusing everyone.
    assert sum(outcomes.count("passed") == 1 for outcomes in rounds) >= 30


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
