"""Gamma and the geometric mean, in-process, against a real ``gear serve``: the same floats.

These are the two pows in gear's arithmetic (retentions raised to gamma; the geometric mean's root
of a criterion's parent factors). Python's ``**`` differs from core's ``v8Pow`` in the last bit for
about 10% of inputs, and a last bit of a retention reaches the rewards only sometimes, so the broad
differential test (test_matches_service.py) rarely sees one: here every rubric is dense (children
with several parents), every edge's retention is raised by a real pow, and every field verl logs
must be the service's.
"""
from __future__ import annotations

import json
from typing import Any, Dict

from hypothesis import given, settings
from hypothesis import strategies as st

from gear_bridge import EmbeddedServer, load_settings
from gear_bridge.in_process import InProcessScorer
from gear_bridge.rows import parse_judgment, parse_row
from gear_bridge.verl.rewarder import Sample

from test_matches_service import served

#: 1, 2 and 0.5 are x, x * x and sqrt(x) in v8Pow: every other gamma is a real pow.
gammas = st.floats(0.01, 8).filter(lambda g: g not in (0.5, 1, 2)) | st.sampled_from([1.5, 3, 4, 0.25])
retentions = st.floats(0.001, 1)


@st.composite
def dense_cases(draw: Any) -> Dict[str, Any]:
    count = draw(st.integers(3, 6))
    criteria = [{"id": f"c{k}", "text": f"criterion {k}", "weight": draw(st.sampled_from([1, 2, 5, -3, 0.5]))} for k in range(count)]
    edges = []
    for child in range(1, count):
        for parent in range(child):
            if draw(st.integers(0, 9)) < 7:
                edge: Dict[str, Any] = {"parent": f"c{parent}", "child": f"c{child}", "relation": draw(st.sampled_from(["weak", "strong", "activation"]))}
                if draw(st.booleans()):
                    edge["retention"] = draw(retentions)
                edges.append(edge)
    options = {"gamma": draw(gammas), "multiParentRule": draw(st.sampled_from(["product", "geometric-mean", "geometric-mean"])),
               "retention": {"weak": draw(retentions), "strong": draw(retentions), "activation": draw(retentions)}}
    p = [draw(st.floats(0, 1)) for _ in range(count)]
    return {"rubric": {"criteria": criteria, "edges": edges}, "options": options, "p": p,
            "aggregator": draw(st.sampled_from(["gear", "gear", "gear-exact", "auto"]))}


@settings(max_examples=300, deadline=None)
@given(case=dense_cases())
def test_raised_retentions_and_geometric_means_are_the_services(server: EmbeddedServer, case: Dict[str, Any]) -> None:
    kwargs = {"aggregator": case["aggregator"], "options": case["options"], "metrics": True}
    extra_info = {"gear": json.dumps({"format": "canonical", "rubric": case["rubric"]})}
    row = parse_row(extra_info)
    judgment = parse_judgment({"p": case["p"]}, row, ("extra_info", "gear_judgments"))
    local = InProcessScorer(load_settings(**kwargs)).fields(row, judgment)
    assert local is not None, case  # every gamma and rule is taken in-process now
    service = served(server.url, Sample(row, "", judgment), **kwargs)
    assert list(local) == list(service) and local == service, case
