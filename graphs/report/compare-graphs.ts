import { isEdgeLabel, isNodeType, signNodeType } from '../model/vocabulary.js';
import { isRecord, rowGraph } from './graph-of-row.js';

/** A graph to compare: edges by (parent, child) with their type, node types by id. */
export interface ComparableGraph {
  readonly key: string | undefined;
  readonly nodeTypes: ReadonlyMap<string, string>;
  readonly edges: ReadonlyMap<string, string>;
  /** The sign rule's role of each criterion (penalty when points < 0, else foundation), when the row has points. */
  readonly signTypes?: ReadonlyMap<string, string>;
}

export interface GraphComparison {
  /** Rows compared (built rows with a reference graph). */
  rows: number;
  /** Built rows without a reference graph (not compared). */
  unmatched: number;
  builtEdges: number;
  referenceEdges: number;
  /** Built edges whose (parent, child) the reference has. */
  matchedEdges: number;
  /** Matched edges of the same type (weak / strong / trigger). */
  sameType: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  /** sameType / matchedEdges. */
  relationAccuracy: number | null;
  /** Criteria whose node type equals the reference's, over criteria compared. */
  nodeTypeAccuracy: number | null;
  /** The same agreement for the plain sign rule on the same criteria: the baseline a builder must beat. */
  signRuleAccuracy: number | null;
  /** Built and reference edges per compared rubric. */
  builtEdgesPerRubric: number | null;
  referenceEdgesPerRubric: number | null;
  criteria: number;
  perRow: { key: string; built: number; reference: number; matched: number; sameType: number }[];
}

const pairKey = (parent: string, child: string): string => `${parent} -> ${child}`;

function edgeMap(edges: readonly unknown[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const edge of edges) {
    if (!isRecord(edge) || typeof edge['parent'] !== 'string' || typeof edge['child'] !== 'string' || !isEdgeLabel(edge['type'])) continue;
    const key = pairKey(edge['parent'], edge['child']);
    if (!out.has(key)) out.set(key, edge['type']);
  }
  return out;
}

/**
 * A row with a graph (VERL / official layout), or a hand-annotation line `{key, nodes, edges}`
 * (conformance/fixtures/*\/graphs.jsonl).
 */
export function comparableGraph(record: Record<string, unknown>): ComparableGraph | undefined {
  if (Array.isArray(record['nodes']) || Array.isArray(record['edges'])) {
    const nodeTypes = new Map<string, string>();
    for (const node of Array.isArray(record['nodes']) ? record['nodes'] : []) {
      if (isRecord(node) && typeof node['id'] === 'string' && isNodeType(node['node_type'])) nodeTypes.set(node['id'], node['node_type']);
    }
    const key = record['key'];
    return { key: typeof key === 'string' || typeof key === 'number' ? String(key) : undefined, nodeTypes, edges: edgeMap(Array.isArray(record['edges']) ? record['edges'] : []) };
  }
  const graph = rowGraph(record);
  if (graph === undefined) return undefined;
  const signTypes = new Map(graph.ids.map((id, i) => [id, signNodeType(graph.points[i] ?? 0)]));
  return { key: graph.sourceId, nodeTypes: graph.nodeTypes, edges: edgeMap(graph.edges), signTypes };
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

/**
 * Edge precision and recall of built graphs against reference graphs (an edge matches when the
 * reference has the same parent -> child), relation-type accuracy on the matched edges and
 * node-type accuracy. Rows are matched by their source id (HealthBench prompt_id, WritingBench
 * index) when both sides have one, else by position.
 */
export function compareGraphs(built: readonly ComparableGraph[], reference: readonly ComparableGraph[]): GraphComparison {
  const byKey = new Map<string, ComparableGraph>();
  for (const r of reference) if (r.key !== undefined && !byKey.has(r.key)) byKey.set(r.key, r);
  const result: GraphComparison = {
    rows: 0,
    unmatched: 0,
    builtEdges: 0,
    referenceEdges: 0,
    matchedEdges: 0,
    sameType: 0,
    precision: null,
    recall: null,
    f1: null,
    relationAccuracy: null,
    nodeTypeAccuracy: null,
    signRuleAccuracy: null,
    builtEdgesPerRubric: null,
    referenceEdgesPerRubric: null,
    criteria: 0,
    perRow: [],
  };
  let sameNodes = 0;
  let sameSign = 0;
  let signCriteria = 0;
  built.forEach((graph, i) => {
    const ref = (graph.key !== undefined ? byKey.get(graph.key) : undefined) ?? (byKey.size === 0 || graph.key === undefined ? reference[i] : undefined);
    if (ref === undefined) {
      result.unmatched++;
      return;
    }
    result.rows++;
    let matched = 0;
    let sameType = 0;
    for (const [pair, type] of graph.edges) {
      const refType = ref.edges.get(pair);
      if (refType === undefined) continue;
      matched++;
      if (refType === type) sameType++;
    }
    for (const [id, type] of ref.nodeTypes) {
      result.criteria++;
      if (graph.nodeTypes.get(id) === type) sameNodes++;
      const bySign = graph.signTypes?.get(id);
      if (bySign !== undefined) {
        signCriteria++;
        if (bySign === type) sameSign++;
      }
    }
    result.builtEdges += graph.edges.size;
    result.referenceEdges += ref.edges.size;
    result.matchedEdges += matched;
    result.sameType += sameType;
    result.perRow.push({ key: graph.key ?? String(i + 1), built: graph.edges.size, reference: ref.edges.size, matched, sameType });
  });
  result.precision = ratio(result.matchedEdges, result.builtEdges);
  result.recall = ratio(result.matchedEdges, result.referenceEdges);
  result.f1 = result.precision === null || result.recall === null || result.precision + result.recall === 0 ? null : (2 * result.precision * result.recall) / (result.precision + result.recall);
  result.relationAccuracy = ratio(result.sameType, result.matchedEdges);
  result.nodeTypeAccuracy = ratio(sameNodes, result.criteria);
  result.signRuleAccuracy = ratio(sameSign, signCriteria);
  result.builtEdgesPerRubric = ratio(result.builtEdges, result.rows);
  result.referenceEdgesPerRubric = ratio(result.referenceEdges, result.rows);
  return result;
}

export function renderComparison(c: GraphComparison): string {
  const pct = (v: number | null): string => (v === null ? 'n/a' : `${(100 * v).toFixed(1)}%`);
  const num = (v: number | null): string => (v === null ? 'n/a' : v.toFixed(2));
  return (
    `rows compared: ${c.rows} (${c.unmatched} without a reference)\n` +
    `edges: built ${c.builtEdges}, reference ${c.referenceEdges}, matched ${c.matchedEdges} (per rubric: built ${num(c.builtEdgesPerRubric)}, reference ${num(c.referenceEdgesPerRubric)})\n` +
    `edge precision ${pct(c.precision)}, recall ${pct(c.recall)}, F1 ${pct(c.f1)}\n` +
    `relation-type accuracy on matched edges ${pct(c.relationAccuracy)} (${c.sameType}/${c.matchedEdges})\n` +
    `node-type accuracy ${pct(c.nodeTypeAccuracy)} over ${c.criteria} criteria (the sign rule alone: ${pct(c.signRuleAccuracy)})\n`
  );
}
