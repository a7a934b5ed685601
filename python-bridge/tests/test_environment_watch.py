"""The environment's stamp: equal stamps mean the same GEAR_* variables; settings read per call follow
the environment exactly, however variables and keyword arguments change between calls."""
from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gear_bridge import load_settings
from gear_bridge.environment_watch import environment_stamp
from gear_bridge.verl.shared import settings_from_kwargs


def stamp() -> int:
    environment_stamp()  # the first call of a process starts counting (and gives None)
    found = environment_stamp()
    assert found is not None
    return found


def test_a_stamp_changes_with_every_change_to_a_gear_variable_and_only_then(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEAR_WATCH_TEST", raising=False)
    monkeypatch.delenv("GEAR_WATCH_TEST_B", raising=False)
    first = stamp()
    assert environment_stamp() == first
    monkeypatch.setenv("GEAR_WATCH_TEST_B", "x")
    second = stamp()
    assert second != first
    monkeypatch.setenv("NOT_GEAR_WATCH_TEST", "1")  # not a GEAR_ name
    os.environ.pop("PATH_OF_NOTHING", None)
    assert stamp() == second
    monkeypatch.setenv("GEAR_WATCH_TEST", "1")
    third = stamp()
    assert third not in (first, second)
    monkeypatch.setenv("GEAR_WATCH_TEST", "1")  # the same value again: still a change, counted
    fourth = stamp()
    assert fourth != third
    monkeypatch.delenv("GEAR_WATCH_TEST")
    assert stamp() not in (first, second, third, fourth)


def test_no_stamp_while_a_change_has_not_shown_in_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change is seen (audit event) before os.environ shows it: until it shows, no stamp, so the
    caller reads the variables. A direct os.putenv, which os.environ never shows, stands in for the
    moment between the two."""
    monkeypatch.delenv("GEAR_WATCH_PENDING", raising=False)
    stamp()
    os.putenv("GEAR_WATCH_PENDING", "1")
    try:
        assert environment_stamp() is None
        assert environment_stamp() is None
        monkeypatch.setenv("GEAR_WATCH_PENDING", "2")  # os.environ shows this one
        assert environment_stamp() is not None
    finally:
        monkeypatch.delenv("GEAR_WATCH_PENDING", raising=False)
    assert environment_stamp() is not None


def test_stamps_only_rise_under_threads_changing_variables() -> None:
    """Changes from several threads are all counted: a stamp seen once is never seen again after a change."""
    before = stamp()
    seen: List[int] = []
    names = [f"GEAR_WATCH_THREAD_{k}" for k in range(4)]

    def change(name: str) -> None:
        for k in range(300):
            os.environ[name] = str(k)
        del os.environ[name]

    threads = [threading.Thread(target=change, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        found = environment_stamp()
        if found is not None and (not seen or seen[-1] != found):
            seen.append(found)
    for thread in threads:
        thread.join()
    final = stamp()
    assert seen == sorted(set(seen))  # strictly rising
    assert not seen or final >= seen[-1]
    assert final > before


_VARIABLES = {
    "GEAR_AGGREGATOR": st.sampled_from(["gear", "flat", "hard", "gear-exact"]),
    "GEAR_METRICS": st.sampled_from(["true", "false"]),
    "GEAR_JUDGMENTS_KEY": st.sampled_from(["gear_judgments", "judged"]),
    "GEAR_OPTIONS": st.sampled_from(['{"gamma": 2}', '{"gamma": 1, "normalize": "abs-sum"}']),
}
_KWARGS: List[Dict[str, Any]] = [{}, {"metrics": True}, {"aggregator": "flat"}, {"options": {"gamma": 0.5}}]

_step = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(sorted(_VARIABLES)), st.data()),
    st.tuples(st.just("unset"), st.sampled_from(sorted(_VARIABLES)), st.none()),
    st.tuples(st.just("other"), st.just("NOT_GEAR_VARIABLE"), st.none()),
    st.tuples(st.just("call"), st.integers(0, len(_KWARGS) - 1), st.none()),
    st.tuples(st.just("mutate"), st.just("options"), st.none()),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(_step, min_size=1, max_size=30))
def test_settings_of_every_call_are_those_read_afresh(steps: List[Tuple[str, Any, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the order of variable changes, in-place changes of a keyword's dict and calls with
    alternating (the same) keyword arguments, each call's settings equal load_settings' now."""
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
    kwargs = [dict(k, options=dict(k["options"])) if "options" in k else dict(k) for k in _KWARGS]
    for action, what, data in steps:
        if action == "set":
            monkeypatch.setenv(what, data.draw(_VARIABLES[what]))
        elif action == "unset":
            monkeypatch.delenv(what, raising=False)
        elif action == "other":
            monkeypatch.setenv(what, str(len(os.environ)))
        elif action == "mutate":
            kwargs[3]["options"]["gamma"] = 1.5 if kwargs[3]["options"]["gamma"] == 0.5 else 0.5
        else:
            # verl merges the same objects into a new dict per call
            assert settings_from_kwargs(dict(kwargs[what]))[0] == load_settings(**kwargs[what])
