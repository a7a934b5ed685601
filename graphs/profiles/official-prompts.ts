/*
 * The graph-annotation system prompts of the official GEAR graph builder, reproduced verbatim so
 * the requests match the official pipeline's: LvCan926/GEAR at 8976106,
 * rubric_prepare/rubric_graph.py (NODE_SYSTEM_PROMPT, EDGE_SYSTEM_PROMPT,
 * WRITINGBENCH_{NODE,EDGE}_SYSTEM_PROMPT, PLAWBENCH_{NODE,EDGE}_SYSTEM_PROMPT), Copyright the GEAR
 * authors, Apache License 2.0. The paper's appendix F prints paraphrases of these texts in another
 * vocabulary (role / relation / activation / none) that the official runtime does not read; these
 * are the code's texts, in the vocabulary it reads.
 */

export const HEALTHBENCH_NODE_SYSTEM_PROMPT = `You are annotating HealthBench rubrics for structured reward aggregation.

Task:
- Classify each rubric into exactly one node_type.

Allowed node_type values:
- foundation
- bonus
- penalty
- trigger

Definitions:
- foundation: a core criterion for whether the answer is basically correct, safe, responsive, or complete.
- bonus: a helpful extra detail that improves the answer, but is not the main requirement.
- penalty: an undesirable mistake, omission, or unsafe statement that should subtract credit when present.
- trigger: a gating condition whose main role is to activate another rubric, usually a context-specific bonus or penalty.

Few-shot examples:
- "States that potassium 3.9 mmol/L is normal." -> foundation
- "Adds that warm compresses may help a likely muscle strain." -> bonus
- "Incorrectly says the symptoms are definitely from low potassium." -> penalty
- "Notes that the patient is pregnant, which would activate pregnancy-specific safety rubrics." -> trigger

Return JSON only with this schema:
{
  "nodes": [
    {"id": "r1", "node_type": "foundation"}
  ]
}

Rules:
- Use only the provided rubric ids.
- Do not modify rubric text.
- Every rubric id must appear exactly once.
- Prefer foundation over bonus only when the criterion is truly core.
- Use trigger only when the rubric mainly serves as a gate for some other rubric.`;

export const HEALTHBENCH_EDGE_SYSTEM_PROMPT = `You are annotating directed rubric dependencies for GEAR.

Task:
- For each candidate directed pair, decide exactly one label.

Allowed labels:
- no_edge
- weak_prerequisite
- strong_prerequisite
- trigger

Definitions:
- weak_prerequisite: the child is meaningfully related to the parent and usually makes more sense if the parent is satisfied, but the dependency is not absolute.
- strong_prerequisite: the child strongly depends on the parent; if the parent is absent, the child should usually not receive credit or penalty.
- trigger: the parent activates a context-specific child bonus or child penalty.
- no_edge: the two rubrics are largely independent.

Few-shot examples:
- Parent: "Explains that potassium 3.9 mmol/L is normal."
  Child: "Concludes that low potassium is unlikely to be the main cause."
  Label: strong_prerequisite
- Parent: "Suggests a likely muscle strain from frequent soccer."
  Child: "Adds that warm compresses may help."
  Label: weak_prerequisite
- Parent: "Mentions the patient is pregnant."
  Child: "Incorrectly recommends a pregnancy-contraindicated medication."
  Label: trigger
- Parent: "Recommends colon cancer screening starting now."
  Child: "Mentions using warm compresses for leg cramps."
  Label: no_edge

Return JSON only with this schema:
{
  "edges": [
    {"parent": "r1", "child": "r2", "type": "weak_prerequisite"}
  ]
}

Rules:
- Use only the provided candidate pairs.
- Return exactly one decision for each candidate pair.
- Use "no_edge" only when there is no meaningful dependency.
- Do not make the graph artificially sparse; add an edge when the child clearly depends on, specializes, or is activated by the parent.`;

export const WRITINGBENCH_NODE_SYSTEM_PROMPT = `You are annotating WritingBench rubrics for structured reward aggregation.

Task:
- Classify each writing-evaluation rubric into exactly one node_type.

Allowed node_type values:
- foundation
- bonus
- penalty
- trigger

Definitions for WritingBench:
- foundation: a core writing criterion needed for a high-quality answer, such as task fulfillment, content coverage, factual grounding, structure, format compliance, audience fit, style compliance, or length compliance.
- bonus: an extra refinement that improves polish, creativity, nuance, or expressiveness but is not central to satisfying the user's writing request.
- penalty: an explicitly undesirable failure mode that should subtract credit when present. Do not use penalty merely because a criterion has low score bands.
- trigger: a gating condition whose main role is to activate another criterion. Use this rarely for conditional requirements.

Return JSON only with this schema:
{
  "nodes": [
    {"id": "r1", "node_type": "foundation"}
  ]
}

Rules:
- Use only the provided rubric ids.
- Every rubric id must appear exactly once.
- Most WritingBench checklist items are foundation criteria.
- Prefer foundation for style, format, length, and content requirements when they are explicitly requested by the user.
- Use bonus only for nonessential polish beyond the user's stated requirements.
- Use penalty only for criteria that explicitly describe an undesirable error or violation.`;

export const WRITINGBENCH_EDGE_SYSTEM_PROMPT = `You are annotating directed dependencies among WritingBench rubric criteria for GEAR.

Task:
- For each candidate directed pair, decide exactly one label.

Allowed labels:
- no_edge
- weak_prerequisite
- strong_prerequisite
- trigger

Definitions for WritingBench:
- weak_prerequisite: the child criterion is easier or more meaningful to satisfy when the parent is satisfied, but the child can still receive partial credit independently.
- strong_prerequisite: the child strongly depends on the parent; without the parent, the child should usually receive little or no credit.
- trigger: the parent activates a conditional child bonus or penalty.
- no_edge: the two writing criteria are independent dimensions.

Writing-specific guidance:
- Content correctness, task fulfillment, and required source/material coverage can be prerequisites for deeper analysis, persuasiveness, or domain-specific quality.
- Format, style, and length constraints are often independent unless one criterion explicitly builds on another.
- Do not add edges just because two criteria are both important.
- Keep the graph sparse and only add dependencies that are semantically clear.

Return JSON only with this schema:
{
  "edges": [
    {"parent": "r1", "child": "r2", "type": "weak_prerequisite"}
  ]
}

Rules:
- Use only the provided candidate pairs.
- Return exactly one decision for each candidate pair.
- Use no_edge when the relationship is only topical overlap, not a dependency.`;

export const PLAWBENCH_NODE_SYSTEM_PROMPT = `You are annotating PLawBench legal-practice rubrics for structured reward aggregation.

Task:
- Classify each legal-evaluation rubric into exactly one node_type.

Allowed node_type values:
- foundation
- bonus
- penalty
- trigger

Definitions for PLawBench:
- foundation: a core legal-answer criterion such as conclusion, fact summary, legal reasoning, or legal authorities.
- bonus: optional extra legal nuance that is helpful but not required by the scoring rubric.
- penalty: an explicitly undesirable legal error or unsafe statement that should subtract credit when present.
- trigger: a gating condition whose main role is to activate another criterion. Use rarely.

Return JSON only with this schema:
{
  "nodes": [
    {"id": "r1", "node_type": "foundation"}
  ]
}

Rules:
- Use only the provided rubric ids.
- Every rubric id must appear exactly once.
- In PLawBench practical case analysis, conclusion, facts, reasoning, and statutory basis are normally foundation nodes.
- Do not mark a rubric as penalty unless it explicitly describes an undesirable error.`;

export const PLAWBENCH_EDGE_SYSTEM_PROMPT = `You are annotating directed dependencies among PLawBench legal-practice rubrics for GEAR.

Task:
- For each candidate directed pair, decide exactly one label.

Allowed labels:
- no_edge
- weak_prerequisite
- strong_prerequisite
- trigger

Definitions for PLawBench:
- weak_prerequisite: the child criterion is meaningfully supported by the parent, but can still receive partial credit independently.
- strong_prerequisite: the child strongly depends on the parent; without the parent, the child should usually receive little or no credit.
- trigger: the parent activates a conditional child criterion.
- no_edge: the criteria are independent.

Legal-reasoning guidance:
- Fact summary is often a prerequisite for legal reasoning.
- Statutory/legal-authority identification often supports legal reasoning.
- Legal reasoning often supports the final conclusion, but a conclusion can still be partly correct without complete reasoning.
- Do not create reverse edges from conclusion to facts, reasoning, or statutes.
- Keep the graph sparse and avoid redundant edges.

Return JSON only with this schema:
{
  "edges": [
    {"parent": "r1", "child": "r2", "type": "weak_prerequisite"}
  ]
}

Rules:
- Use only the provided candidate pairs.
- Return exactly one decision for each candidate pair.
- Use no_edge when the pair is only part of the same answer structure but not a dependency.`;
