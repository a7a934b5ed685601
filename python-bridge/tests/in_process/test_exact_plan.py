"""Exact inference's plan, in-process, against core's own (the built dist/core, run by node).

The visiting order breaks ties by the criteria's canonical ranks (text in JavaScript's order, then
weight, then role, then position). A wrong tie-break changes exact rewards only in their last bits,
and only sometimes, so the differential test on rewards (test_matches_service.py) rarely sees one:
here the plan itself (order, widths, parents' bits, sums-out, width, cost), every gate table and
exact inference's effective scores are compared with core's, and so are the ranks themselves, on rubrics built to tie: few distinct texts, weights and roles, dense graphs.
"""
from __future__ import annotations

import json
import random
import subprocess
from typing import Any, Dict, List

from conftest import ROOT
from gear_bridge.in_process.aggregate import gear_scores
from gear_bridge.in_process.exact import DECLINED, MAX_COST, MEAN_FIELD, MULTITREE_MAX_CRITERIA, canonical_ranks, elimination_plan, exact_plan, exact_scores, gate_table, needs_elimination
from gear_bridge.in_process.layout import compile_layout
from gear_bridge.in_process.options import resolve_options
from gear_bridge.in_process.rubric_rows import read_canonical, read_official

# An astral character sorts before U+FF5E in JavaScript (UTF-16 code units), after it in Python.
TEXTS = ["same", "same", "Same", "\U0001F600", "\uff5e", "\u00e9", ""]
WEIGHTS = [1, 1, 2, -1, 0.5, 0, -0.0]
ROLES = [None, "foundation", "bonus", "penalty", "activation"]
NODE_TYPES = [None, "foundation", "bonus", "penalty", "trigger"]
RELATIONS = ["weak", "strong", "activation"]
EDGE_TYPES = {"weak": "weak_prerequisite", "strong": "strong_prerequisite", "activation": "trigger"}

CORE_PLANS = """
const core = await import(process.argv[1]);
const { canonicalRank } = await import(process.argv[2]);
const specs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = specs.map(({ format, rubric, options, ps }) => {
  const c = format === 'canonical' ? core.compileRubric(rubric, options) : core.compileOfficialRewardModel(rubric, options);
  const p = c.plan;
  const steps = Array.from(p.order, (node, s) => ({
    node,
    width: p.width[s],
    grows: p.extend[s] === 1,
    bits: Array.from(p.edgeBit.slice(c.parentStart[node], c.parentStart[node + 1])),
    removals: Array.from(p.removeBit.slice(p.removeStart[s], p.removeStart[s + 1])),
    gate: Array.from(c.gate.slice(c.gateStart[node], c.gateStart[node + 1])),
  }));
  const q = ps.map((scores) => Array.from(core.effectiveScores(c, 'gear-exact', { p: scores })));
  return { steps, maxWidth: p.maxWidth, cost: p.cost, rank: Array.from(canonicalRank(c.rubric.criteria)), q, needsElimination: core.needsElimination(c) };
});
process.stdout.write(JSON.stringify(out));
"""


def random_rubric(rng: random.Random) -> Dict[str, Any]:
    spec = random_graph(rng)
    count = len(spec["rubric"]["criteria"] if spec["format"] == "canonical" else spec["rubric"]["rubrics"])
    spec["ps"] = [[rng.choice([0.0, 1.0, 0.5, rng.random(), rng.random()]) for _ in range(count)] for _ in range(4)]
    return spec


def random_graph(rng: random.Random) -> Dict[str, Any]:
    count = rng.randint(2, 11)
    ids = [f"c{k}" for k in range(count)]
    # Dense graphs (wide tables), and sparse ones as rubrics are (criteria without parents or children).
    edges = [(rng.choice(ids), rng.choice(ids), rng.choice(RELATIONS)) for _ in range(rng.randint(1, rng.choice([count, 3 * count])))]
    options: Dict[str, Any] = {"retention": {"weak": rng.choice([0.6, 0.2, 0.5]), "strong": rng.choice([0.2, 0.5])}, "gamma": rng.choice([0, 0.5, 1, 2, 4, 1.5])}
    if rng.random() < 0.2:  # an ablation's rule: elimination wherever a criterion has two parents
        options["multiParentRule"] = rng.choice(["arithmetic-mean", "max", "geometric-mean"])
    if rng.random() < 0.5:
        criteria = []
        for criterion_id in ids:
            criterion: Dict[str, Any] = {"id": criterion_id, "text": rng.choice(TEXTS), "weight": rng.choice(WEIGHTS)}
            role = rng.choice(ROLES)
            if role is not None:
                criterion["role"] = role
            criteria.append(criterion)
        rubric: Dict[str, Any] = {"criteria": criteria, "edges": [{"parent": a, "child": b, "relation": r} for a, b, r in edges]}
        return {"format": "canonical", "rubric": rubric, "options": options}
    # Official rows: roles from graph nodes, else from tags, else from the sign of the points.
    items = [{"id": i, "criterion": rng.choice(TEXTS), "points": rng.choice(WEIGHTS), "tags": {"node_type": rng.choice(NODE_TYPES)}} for i in ids]
    nodes = [{"id": i, "node_type": rng.choice(NODE_TYPES)} for i in ids if rng.random() < 0.5]
    model = {"rubrics": items, "graph": {"nodes": nodes, "edges": [{"parent": a, "child": b, "type": EDGE_TYPES[r]} for a, b, r in edges]}}
    return {"format": "official-gear", "rubric": model, "options": options}


def _linked(layout: Any) -> List[bool]:
    """Whether each criterion has a parent or a child in the compiled graph."""
    linked = [False] * layout.size
    for child, edges in layout.steps:
        linked[child] = True
        for parent, _ in edges:
            linked[parent] = True
    return linked


def test_exact_plans_and_gates_are_cores() -> None:
    rng = random.Random(11)
    specs = [random_rubric(rng) for _ in range(400)]
    core = ROOT / "dist" / "core"
    result = subprocess.run(["node", "--input-type=commonjs", "-e", f"(async () => {{ {CORE_PLANS} }})()", (core / "index.js").as_uri(),
                             (core / "compile" / "canonical-rank.js").as_uri()],
                            input=json.dumps(specs), capture_output=True, text=True, check=True)
    core_plans: List[Dict[str, Any]] = json.loads(result.stdout)
    tied = wide = alone = forests = multitrees = 0
    for spec, core in zip(specs, core_plans):
        parts = (read_canonical if spec["format"] == "canonical" else read_official)(spec["rubric"])
        assert parts is not None, spec
        options = resolve_options(spec["options"])
        assert options is not None
        layout = compile_layout(parts, options)
        assert layout is not None, spec
        plan = elimination_plan(layout, parts)
        runnable = exact_plan(layout, parts, options, "gear-exact")
        mean_field = not needs_elimination(layout)
        # core decides alike: mean-field on a forest, and on a multitree under the product rule.
        assert mean_field == (not core.pop("needsElimination")), spec
        if mean_field:  # core takes the mean-field update there, exact there, and so does the worker
            assert runnable is MEAN_FIELD, spec
        else:
            assert (runnable is DECLINED) == (plan.cost > MAX_COST), spec  # costlier plans go to the service
        if runnable is not DECLINED and runnable is not MEAN_FIELD:
            # The plan that runs ranks only the criteria with parents or children, and skips the
            # others: it must visit those in core's order.
            linked = sum(_linked(layout))
            assert [step[1] for step in runnable.steps] == plan.order[len(plan.order) - linked:], spec
        retentions = {child: tuple(r for _, r in edges) for child, edges in layout.steps}
        mine = {
            "steps": [{"node": node, "width": plan.widths[s], "grows": plan.grows[s], "bits": list(plan.bits[s]),
                       "removals": plan.removals[s], "gate": gate_table(retentions.get(node, ()))}
                      for s, node in enumerate(plan.order)],
            "maxWidth": plan.max_width,
            "cost": plan.cost,
            "rank": canonical_ranks(parts),
            # Exact inference's effective scores, run in-process, for four score vectors each.
            "q": (core["q"] if runnable is DECLINED else [gear_scores(layout, p) for p in spec["ps"]] if runnable is MEAN_FIELD
                  else [exact_scores(runnable, p) for p in spec["ps"]]),
        }
        assert mine == core, spec
        tied += len(set(zip(parts.texts, parts.weights))) < len(parts.texts)
        wide += plan.max_width >= 3 and runnable is not DECLINED  # sums of 8 cells and more, where the order of additions shows
        alone += not all(_linked(layout))
        two_parents = any(len(edges) >= 2 for _, edges in layout.steps)
        forests += not two_parents
        multitrees += mean_field and two_parents
    # Criteria only role or position tells apart; wide tables; criteria without parents or children;
    # forests and multitrees of criteria with two parents (mean-field), and graphs that eliminate.
    assert tied > 100 and wide > 40 and alone > 100 and forests > 40 and multitrees > 20 and forests + multitrees < 360, (
        tied, wide, alone, forests, multitrees)


def test_multitree_bound_is_cores() -> None:
    """Past this many criteria neither side checks for a multitree (both eliminate): the same bound."""
    core = ROOT / "dist" / "core" / "index.js"
    result = subprocess.run(["node", "--input-type=module", "-e", f"import('{core.as_uri()}').then((c) => process.stdout.write(String(c.MULTITREE_MAX_CRITERIA)))"],
                            capture_output=True, text=True, check=True)
    assert int(result.stdout) == MULTITREE_MAX_CRITERIA == 4096
