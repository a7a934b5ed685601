"""Whether the process's ``GEAR_*`` environment variables may have changed: one integer to compare
where reading them costs a dict lookup each (29 of them: ~1 us a call, several inside verl's loop).

Python code changes ``os.environ`` only through ``os.putenv`` / ``os.unsetenv``: the mapping's
``__setitem__`` / ``__delitem__`` call them, then update the mapping. Both raise an audit event
(PEP 578), so an audit hook sees every change before it shows. The hook counts the changes to
``GEAR_*`` names and records the value each one sets. Because the event comes before the mapping
changes, a reading between the two (another thread) would see the old value under the new count;
so a stamp is only given when the mapping already shows every recorded value, and otherwise (or
where the hook could not be added) the caller reads the variables as before.

Not covered, as ``os.environ`` itself does not cover them: a C library's ``setenv`` (``os.environ``
never shows it) and two threads setting one variable at once (``os.environ`` may then disagree with
the process's environment). The hook is process-wide and stays: it costs ~0.16 us per audited event
(``open``, ``sys._getframe``, imports, ...), and nothing when no event is raised.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

__all__ = ["environment_stamp"]

_PREFIX = "GEAR_"
_PREFIX_BYTES = os.fsencode(_PREFIX)

#: os.environ's own mapping of encoded names to encoded values (CPython, every version since 3.2).
_DATA: Any = getattr(os.environ, "_data", None)

#: Changes to GEAR_* variables seen so far (None: no hook, no stamps).
_changes: int | None = None
#: The last value each change set, by encoded name (None: unset), as os.environ stores it.
_expected: dict[Any, Any] = {}
#: The count at which every recorded value last showed in os.environ.
_shown: int | None = None
_tried = False
_install_lock = threading.Lock()
_count_lock = threading.Lock()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    # Every audited event of the process passes here: the two names first, nothing else. An
    # exception here would fail the caller's operation: none may leave.
    global _changes
    if event == "os.putenv" or event == "os.unsetenv":
        try:
            name = args[0]  # as putenv took it: bytes here, the very object os.environ stores
            if name.startswith(_PREFIX_BYTES if isinstance(name, bytes) else _PREFIX):
                # Recorded before it is counted: a reader that sees the count sees the value. One
                # that os.environ never shows (a direct os.putenv's) leaves every stamp None: the
                # caller reads the variables each time, as without the hook.
                with _count_lock:  # two threads' changes: the count only ever rises
                    _expected[name] = args[1] if event == "os.putenv" else None
                    if _changes is not None:
                        _changes += 1
        except Exception:
            _changes = None  # a change it could not follow: no stamps from now on


def _install() -> None:
    global _changes, _tried
    with _install_lock:
        if _tried:
            return
        _tried = True
        if not isinstance(_DATA, dict):
            return
        try:
            sys.addaudithook(_audit)
        except Exception:  # another hook refused it (sys.addaudithook is an audited event too)
            return
        _changes = 0


def environment_stamp() -> int | None:
    """A stamp of the ``GEAR_*`` variables as they are now: two equal stamps, the same variables
    in between. None when it cannot tell (the caller reads them): no hook, or a change that has not
    shown in ``os.environ`` yet.

    Take it before reading the variables: a change after the stamp gives a new one.
    """
    global _shown
    stamp = _changes
    if stamp is None:
        if _tried:
            return None
        _install()
        return None  # counting starts now: the next call's stamp holds
    if stamp == _shown:
        return stamp  # no change counted since every recorded value showed
    # A change since the last stamp: has every value recorded so far shown in os.environ?
    data = _DATA
    for name, value in list(_expected.items()):
        # os.environ stores the very object it passed to putenv: the identity is the value.
        if data.get(name) is not value:
            return None
    _shown = stamp
    return stamp
