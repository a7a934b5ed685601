"""The worker's reasoning stripping against the service's (adapters/judge-output/reasoning.ts, the
built dist run by node): the same text for outputs made of tags in every case (and look-alikes that
JavaScript's case folding does not take: the Kelvin sign, the dotless i), nested, unclosed and stray
closing tags, and pieces that the removal brings together into a new tag."""
from __future__ import annotations

from typing import List

from hypothesis import given, settings
from hypothesis import strategies as st

from built_service import mapped
from gear_bridge.in_process.grader_output import read_verdict
from gear_bridge.in_process.json_reading import strip_reasoning

PIECES = ["<think>", "</think>", "<THINK>", "</Think>", "<tHiNk>", "<th\u0131nk>", "</thin\u212a>", "<thi", "nk>", "</", "think>", "<",
          "reasoning ", '{"explanation": "ok", "criteria_met": true}', "\u00e9t\u00e9 ", "\U0001F600", " ", "\n"]


def service_strips(texts: List[str]) -> List[str]:
    return mapped("adapters/judge-output/reasoning.js", "return m.stripReasoning(raw);", texts)


#: Text without a tag: what a reasoning judge writes inside and after its one block.
PLAIN = st.lists(st.sampled_from([piece for piece in PIECES if "<" not in piece]), max_size=6).map("".join)
#: The usual output of a reasoning judge: one block first, its tags in some case, then the answer.
ONE_BLOCK = st.tuples(st.sampled_from(["<think>", "<THINK>", "<Think>"]), PLAIN, st.sampled_from(["</think>", "</THINK>", "</thinK>"]), PLAIN).map("".join)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.one_of(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), ONE_BLOCK,
                          st.tuples(ONE_BLOCK, st.sampled_from(PIECES), PLAIN).map("".join)), min_size=1, max_size=300))
def test_strips_what_the_service_strips(texts: List[str]) -> None:
    assert [strip_reasoning(text) for text in texts] == service_strips(texts)


def test_a_verdict_after_reasoning_is_read_in_process() -> None:
    verdict = '{"explanation": "fine", "criteria_met": true}'
    assert read_verdict(f"<think>It says {{criteria_met: false}}</think>\n{verdict}") is True
    assert read_verdict(f"the prompt's reasoning</think>{verdict}") is True
    assert read_verdict(f"{verdict}<think>an unclosed draft") is True
    # A tag the removal makes is text to the reader, as to the service's: the object after it is read.
    assert read_verdict("<thi<think>x</think>nk>" + verdict) is True
