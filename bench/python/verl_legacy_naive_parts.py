"""Where gear's step cost goes under verl's legacy naive manager: many paired steps, a figure to +-1%.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_legacy_naive_parts.py [STEPS] [FORM]

verl_legacy_step.py's medians of 30 steps move by +-2.5% between runs on this machine, more than
the parts of gear's cost measured here. This runs STEPS (default 250) steps of the legacy naive
manager (896 responses, judgments precomputed, FORM rows: canonical or ruscarl), each configuration
on rows of its own that no step saw before (a base of 12 steps, retagged per step and
configuration, so memory stays flat), every configuration running each step in turn:

- flat Python (the baseline), and the same returning gear's 12 keys (verl's handling of them);
- gear's ``compute_score_sync``;
- the same with the shared-row guard's check skipped (what the guard costs; the guard stays
  on in every shipped path);
- its path with the settings read at the first call only (what reading them from every call's
  keyword arguments and the environment costs), and the in-process scorer alone (no settings, no
  checks of the call, no guard);
- ``compute_score_sync`` with each step's rows compiled before it is timed (what compiling a new
  row costs inside verl's loop: in training every row is new in the first epoch), and, for the
  share of that which is only the rows' data being warm, with each row's judgments read before;
- ``compute_score_sync`` with new rows' texts parsed by orjson and then read, as every row was
  before canonical rows were read by msgspec (gear_bridge.in_process.canonical_text); only with the
  interpreted scorer (a compiled one, scripts/compile-scorer's, takes no patched method).

Each gear configuration has reward_kwargs of its own (all with the default's values), so settings
and an in-process scorer of its own.

Every function, flat's too, is loaded by verl's ``get_custom_reward_fn`` (``loaded_reward_fn``), as
the trainer loads it: it wraps each to merge ``reward_kwargs`` into every call. (Flat's functions
were called bare before, gear's through a wrapper; the wrapper costs flat 0.9% +- 0.8% of a step.)

Per configuration: the median of each step's ratio to flat, with its standard error (from the
quartiles) and quartiles.
"""
from __future__ import annotations

from typing import Any, List

from verl.utils import hf_tokenizer
from verl.workers.reward_manager.naive import NaiveRewardManager as LegacyNaive

import gear_bridge.verl.row_judgments as row_judgments
from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from gear_bridge.in_process import InProcessScorer
import gear_bridge.in_process.scorer as in_process_scorer_module
from gear_bridge.verl.reward_fn import _scored_or_sample, compute_score_sync
from gear_bridge.verl.row_judgments import known_row_fields
from gear_bridge.verl.shared import CallSettings, call_settings
from paired_steps import base_steps, paired_times, print_ratios, table_main  # noqa: E402  (bench/python)
from verl_step import loaded_reward_fn, tokenizer_dir  # noqa: E402



class _NoCheck:
    def check(self, *args: Any) -> None:
        return None


def unguarded_compute_score_sync(*args: Any, **kwargs: Any) -> Any:
    """compute_score_sync with the shared-row guard's check skipped (the bench's only)."""
    guard = row_judgments._guard
    row_judgments._guard = _NoCheck()  # type: ignore[assignment]
    try:
        return compute_score_sync(*args, **kwargs)
    finally:
        row_judgments._guard = guard


#: The settings of settings_once's first call.
_ONCE: List[CallSettings] = []


def settings_once(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Any:
    """compute_score_sync's path for these rows with its settings read at the first call only
    (what reading them from each call's keyword arguments and the environment costs)."""
    if not _ONCE:
        _ONCE.append(call_settings(kwargs))
    call = _ONCE[0]
    fields = known_row_fields(call.known, call.judgments_key, solution_str, extra_info, ("extra_info",))
    return fields if fields is not None else _scored_or_sample(call.settings, solution_str, extra_info)


#: The in-process scorer of scorer_alone's first call's settings.
_ALONE: List[InProcessScorer] = []


def scorer_alone(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Any:
    """The in-process scorer alone: no settings read, no checks of the call, no guard."""
    if not _ALONE:
        known = call_settings(kwargs).known
        assert known is not None
        _ALONE.append(known)
    return _ALONE[0].fields_of_text_row(extra_info["gear"], extra_info["gear_judgments"])


def _judgments_read(data: Any) -> None:
    """Every response's judgments read (not its row's text, whose hash the scorer would then find made)."""
    for extra_info in data.non_tensor_batch["extra_info"]:
        judgments = extra_info["gear_judgments"]
        if isinstance(judgments, dict):
            sum(judgments["p"])
            len(judgments.get("d") or ())
        else:
            sum(map(len, judgments))


def _rows_compiled(scorer: InProcessScorer, data: Any) -> None:
    """Every response scored once by ``scorer``: its row compiled, its judgments read."""
    for extra_info in data.non_tensor_batch["extra_info"]:
        scorer.fields_of_text_row(extra_info["gear"], extra_info["gear_judgments"])


def main(steps: int, form: str) -> int:
    tokenizer = hf_tokenizer(tokenizer_dir())
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        # Every function as verl loads it (loaded_reward_fn): flat's get verl's wrapper too.
        functions: List[tuple[str, Any]] = [
            ("flat Python", loaded_reward_fn("pkg://verl_legacy_step", "flat_sync")),
            ("flat Python, returning gear's 12 keys", loaded_reward_fn("pkg://verl_legacy_step", "flat_keys_sync")),
            ("compute_score_sync", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score_sync", url=server.url)),
            # Its own settings (metrics given), so its own scorer.
            ("compute_score_sync, the shared-row guard's check skipped",
             loaded_reward_fn("pkg://verl_legacy_naive_parts", "unguarded_compute_score_sync", url=server.url, metrics=True)),
            ("compute_score_sync's path, settings read once",
             loaded_reward_fn("pkg://verl_legacy_naive_parts", "settings_once", url=server.url, in_process=True)),
            ("the in-process scorer alone", loaded_reward_fn("pkg://verl_legacy_naive_parts", "scorer_alone", url=server.url, judgments="auto")),
            ("compute_score_sync, each row's judgments read before the step",
             loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score_sync", url=server.url, judgments_key="gear_judgments")),
            ("compute_score_sync, the step's rows compiled before it",
             loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score_sync", url=server.url, aggregator="gear"))]
        # The last configuration's scorer: the one its calls get (settings of the same keyword arguments).
        compiled = call_settings({"url": server.url, "aggregator": "gear"}).known
        assert compiled is not None
        before: List[Any] = [None] * (len(functions) - 2) + [_judgments_read, lambda data: _rows_compiled(compiled, data)]
        if in_process_scorer_module.__file__.endswith(".py"):  # mypyc's compiled classes take no patched methods
            functions.append(("compute_score_sync, new rows parsed then read (no msgspec)",
                              loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score_sync", url=server.url, metrics="true")))
            # Its scorer reads a new row's text as every row was read before
            # gear_bridge.in_process.canonical_text: orjson's parse, then read_canonical.
            parsed = call_settings({"url": server.url, "metrics": "true"}).known
            assert parsed is not None
            parsed._entry_of_text = parsed._entry_of_parsed_text  # type: ignore[method-assign]
            before.append(None)
        managers = [LegacyNaive(tokenizer, 0, compute_score=function) for _, function in functions]
        base = base_steps(tokenizer, form)
        times = paired_times([lambda data, manager=manager: manager(data, return_dict=True) for manager in managers], base, steps, before)
        print_ratios(form, [name for name, _ in functions], times)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    table_main(main, 250)
