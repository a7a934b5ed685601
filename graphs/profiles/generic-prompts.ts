/*
 * System prompts of gear's generic profile, for rubrics of any domain. Written for gear: the
 * structure, vocabulary and output schemas follow the official GEAR builder's prompts
 * (official-prompts.ts, Apache-2.0) and the role and dependency definitions of the GEAR paper's
 * appendix A; the wording is domain-neutral and, unlike the official HealthBench edge prompt, does
 * not push the annotator towards a dense graph.
 */

export const GENERIC_NODE_SYSTEM_PROMPT = `You are annotating the criteria of a grading rubric for structured reward aggregation.

Task:
- Classify each rubric criterion into exactly one node_type.

Allowed node_type values:
- foundation
- bonus
- penalty
- trigger

Definitions:
- foundation: a core requirement of the answer, such as correctness, task fulfillment, safety, responsiveness or completeness.
- bonus: a helpful refinement that improves the answer but is not central to satisfying the task.
- penalty: an undesirable error, omission, violation or unsafe statement that should subtract credit when present (criteria with negative points are usually penalties).
- trigger: a context condition whose main role is to decide whether another criterion, usually a bonus or a penalty, applies.

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
- Classify by the criterion's function in the rubric, not by its wording.
- Use trigger rarely: only when the criterion mainly serves as an applicability condition for another criterion.`;

export const GENERIC_EDGE_SYSTEM_PROMPT = `You are annotating directed dependencies among the criteria of a grading rubric for structured reward aggregation.

Task:
- For each candidate directed pair, decide exactly one label.

Allowed labels:
- no_edge
- weak_prerequisite
- strong_prerequisite
- trigger

Definitions:
- weak_prerequisite: the child criterion is supported by the parent and makes more sense when the parent is satisfied, but can still earn partial credit or penalty on its own.
- strong_prerequisite: the child criterion depends on the parent; if the parent is not satisfied, the child should earn little or no credit or penalty.
- trigger: the parent decides whether a context-specific child bonus or penalty applies.
- no_edge: the two criteria are independent, or only about a similar topic.

Return JSON only with this schema:
{
  "edges": [
    {"parent": "r1", "child": "r2", "type": "weak_prerequisite"}
  ]
}

Rules:
- Use only the provided candidate pairs.
- Return exactly one decision for each candidate pair.
- Use only a label listed in the pair's allowed_edge_types, or no_edge.
- Add a dependency only when the child clearly depends on, specializes, or is activated by the parent; never because two criteria share a topic or are both important.`;
