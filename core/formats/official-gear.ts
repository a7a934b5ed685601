import { z } from 'zod';
import { describeValue } from '../errors.js';
import { parseWith } from '../model/parse.js';
import type { Criterion, Role } from '../model/criterion.js';
import type { Edge, Relation } from '../model/edge.js';
import type { Rubric } from '../model/rubric.js';
import type { AggregationOptionsInput } from '../model/options.js';
import type { DroppedEdge } from '../compile/compile-report.js';
import type { CompiledRubric } from '../compile/compiled-rubric.js';
import { compileRubric, withReport } from '../compile/compile-rubric.js';

/**
 * The official GEAR repository's row format (LvCan926/GEAR, verl/utils/reward_score/gear.py):
 * reward_model = {rubrics: [{id?, criterion, points, tags}], graph: {nodes: [{id, node_type}],
 * edges: [{parent, child, type}]}}. Unknown keys are allowed, as in the rows it writes.
 */
const PointsSchema = z.union([
  z.number().refine(Number.isFinite, { message: 'must be a finite number' }),
  z
    .string()
    .regex(/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/, { message: 'must be a number or a numeric string' })
    .transform(Number)
    // "1e400" is numeric text whose value float64 cannot hold.
    .refine(Number.isFinite, { message: 'must be a finite number (the string overflows float64)' }),
]);

const OfficialRubricItemSchema = z.looseObject({
  id: z.unknown().optional(),
  criterion: z.string(),
  points: PointsSchema,
  tags: z.unknown().optional(),
});

const OfficialGraphSchema = z.looseObject({
  nodes: z.array(z.unknown()).nullish(),
  edges: z.array(z.unknown()).nullish(),
});

export const OfficialRewardModelSchema = z.looseObject({
  rubrics: z.array(OfficialRubricItemSchema).min(1, 'a rubric needs at least one criterion'),
  graph: OfficialGraphSchema.nullish(),
});
export type OfficialRewardModel = z.input<typeof OfficialRewardModelSchema>;

const NODE_TYPE_TO_ROLE: Readonly<Record<string, Role>> = {
  foundation: 'foundation',
  bonus: 'bonus',
  penalty: 'penalty',
  trigger: 'activation',
};
const EDGE_TYPE_TO_RELATION: Readonly<Record<string, Relation>> = {
  weak_prerequisite: 'weak',
  strong_prerequisite: 'strong',
  trigger: 'activation',
};
export const ROLE_TO_NODE_TYPE: Readonly<Record<Role, string>> = {
  foundation: 'foundation',
  bonus: 'bonus',
  penalty: 'penalty',
  activation: 'trigger',
};
export const RELATION_TO_EDGE_TYPE: Readonly<Record<Relation, string>> = {
  weak: 'weak_prerequisite',
  strong: 'strong_prerequisite',
  activation: 'trigger',
};

export interface OfficialReading {
  readonly rubric: Rubric;
  /** Edges the official reader skips before projection (malformed or of an unknown type). */
  readonly droppedEdges: readonly DroppedEdge[];
  /** For each canonical edge, its position in reward_model.graph.edges. */
  readonly edgeOrigin: readonly number[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads an official reward_model into the canonical rubric, with the official rules: ids default
 * to r1..rK, the role comes from graph.nodes, else tags.node_type, else the sign of the points.
 * Differences, on purpose: a repeated id is an error (officially the later one silently wins), and
 * a second edge for the same pair is dropped even when its type differs (see README).
 *
 * @throws GearError `invalid_input` naming the field (e.g. `rubrics[2].points`).
 */
export function readOfficialRewardModel(input: unknown): OfficialReading {
  const model = parseWith(OfficialRewardModelSchema, input);
  const nodeType = new Map<string, unknown>();
  for (const node of model.graph?.nodes ?? []) {
    if (isRecord(node) && typeof node['id'] === 'string' && node['id'] !== '') nodeType.set(node['id'], node['node_type']);
  }

  const criteria: Criterion[] = model.rubrics.map((item, index) => {
    const id = typeof item.id === 'string' && item.id !== '' ? item.id : `r${index + 1}`;
    const tags = isRecord(item.tags) ? item.tags : {};
    const declared = nodeType.get(id) || tags['node_type'];
    const role = typeof declared === 'string' ? NODE_TYPE_TO_ROLE[declared] : undefined;
    return { id, text: item.criterion, weight: item.points, role: role ?? (item.points < 0 ? 'penalty' : 'foundation') };
  });

  const edges: Edge[] = [];
  const edgeOrigin: number[] = [];
  const droppedEdges: DroppedEdge[] = [];
  (model.graph?.edges ?? []).forEach((raw, index) => {
    const record = isRecord(raw) ? raw : {};
    const parent = record['parent'];
    const child = record['child'];
    const type = record['type'];
    // Reported, not serialized: an edge field may be any client value, nested 20,000 deep.
    const show = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? 'undefined' : describeValue(v));
    if (typeof parent !== 'string' || parent === '' || typeof child !== 'string' || child === '') {
      droppedEdges.push({ index, parent: show(parent), child: show(child), relation: show(type), reason: 'malformed' });
      return;
    }
    const relation = typeof type === 'string' ? EDGE_TYPE_TO_RELATION[type] : undefined;
    if (relation === undefined) {
      droppedEdges.push({ index, parent, child, relation: show(type), reason: 'unknown-relation' });
      return;
    }
    edges.push({ parent, child, relation });
    edgeOrigin.push(index);
  });

  return { rubric: { criteria, edges }, droppedEdges, edgeOrigin };
}

/** Reads and compiles an official reward_model; dropped-edge indices refer to graph.edges. */
export function compileOfficialRewardModel(input: unknown, options: AggregationOptionsInput = {}): CompiledRubric {
  return compileOfficialReading(readOfficialRewardModel(input), options);
}

/** compileOfficialRewardModel of a reward_model already read (readOfficialRewardModel), not read again. */
export function compileOfficialReading(reading: OfficialReading, options: AggregationOptionsInput = {}): CompiledRubric {
  const compiled = compileRubric(reading.rubric, options);
  const dropped = [
    ...reading.droppedEdges,
    ...compiled.report.droppedEdges.map((d) => ({ ...d, index: reading.edgeOrigin[d.index] as number })),
  ].sort((a, b) => a.index - b.index);
  const roleWarnings = compiled.report.roleWarnings.map((w) => ({ ...w, index: reading.edgeOrigin[w.index] as number }));
  const edgesIn = reading.droppedEdges.length + reading.rubric.edges.length;
  return withReport(compiled, { ...compiled.report, edgesIn, droppedEdges: dropped, roleWarnings });
}

/** Converts a canonical rubric to the official reward_model (for the official tools). */
export function toOfficialRewardModel(rubric: Rubric): {
  rubrics: { id: string; criterion: string; points: number; tags: Record<string, unknown> }[];
  graph: { nodes: { id: string; node_type: string }[]; edges: { parent: string; child: string; type: string }[] };
} {
  return {
    rubrics: rubric.criteria.map((c) => ({ id: c.id, criterion: c.text, points: c.weight, tags: {} })),
    graph: {
      nodes: rubric.criteria.map((c) => ({
        id: c.id,
        node_type: ROLE_TO_NODE_TYPE[c.role ?? (c.weight < 0 ? 'penalty' : 'foundation')],
      })),
      edges: rubric.edges.map((e) => ({ parent: e.parent, child: e.child, type: RELATION_TO_EDGE_TYPE[e.relation] })),
    },
  };
}
