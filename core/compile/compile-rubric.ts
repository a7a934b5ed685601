import { GearError } from '../errors.js';
import { parseWith } from '../model/parse.js';
import { RubricSchema, type Rubric } from '../model/rubric.js';
import { AggregationOptionsSchema, type AggregationOptions, type AggregationOptionsInput } from '../model/options.js';
import type { Edge } from '../model/edge.js';
import { planElimination } from '../inference/elimination-plan.js';
import { isMultitree } from '../inference/multitree.js';
import { rewardDenominator } from '../reward/normalize.js';
import { exactSum } from '../reward/exact-sum.js';
import { v8Pow } from '../numeric/v8-pow.js';
import { RELATION_CODE, type CompiledRubric } from './compiled-rubric.js';
import type { CompileReport, RoleWarning } from './compile-report.js';
import { validateIds } from './validate-ids.js';
import { projectDag } from './project-dag.js';
import { topologicalOrder } from './topological-order.js';
import { canonicalRank } from './canonical-rank.js';
import { effectiveRole, isAllowedByRoles } from './role-rules.js';

/**
 * The retention an edge applies when its parent fails, after overrides and gamma (raised by v8Pow,
 * so that it is the same float on every Node).
 */
export function effectiveRetention(edge: Edge, options: AggregationOptions): number {
  const base = edge.retention ?? options.sharedRetention ?? options.retention[edge.relation];
  return options.gamma === 0 ? 1 : v8Pow(base, options.gamma);
}

/**
 * Validates a rubric and its graph and lays it out for repeated evaluation: ids checked, the graph
 * projected to a DAG (every dropped edge reported with its reason), a topological order, CSR parent
 * arrays, resolved retentions, the reward denominator and the exact-inference plan.
 *
 * @throws GearError `invalid_input` (path names the field) for a malformed rubric or options, or
 *   `invalid_graph` for a dropped edge when `onInvalidEdge` is `reject`.
 */
export function compileRubric(rubricInput: unknown, optionsInput: AggregationOptionsInput = {}): CompiledRubric {
  const rubric: Rubric = parseWith(RubricSchema, rubricInput);
  const options: AggregationOptions = parseWith(AggregationOptionsSchema, optionsInput, ['options']);
  return compileParsedRubric(rubric, options);
}

/**
 * compileRubric for a rubric and options that are already RubricSchema's and
 * AggregationOptionsSchema's output. Both schemas only fill defaults, so parsing their output again
 * changes nothing: this skips it. The service parses a new rubric once and its options once per
 * request; validating both again at every compile was over half of registering a rubric.
 *
 * @throws GearError as compileRubric, for what only compiling finds (ids, the graph, overflow).
 */
export function compileParsedRubric(rubric: Rubric, options: AggregationOptions): CompiledRubric {
  const size = rubric.criteria.length;
  const indexById = validateIds(rubric.criteria);

  const weight = Float64Array.from(rubric.criteria, (c) => c.weight);
  const absWeights = Float64Array.from(weight, Math.abs);
  const absSum = exactSum(absWeights);
  if (!Number.isFinite(absSum)) {
    throw new GearError('invalid_input', ['criteria'], 'the sum of |weight| overflows float64');
  }
  const denominator = rewardDenominator(weight, options.normalize, options.emptyDenominator);
  // |reward| <= sum |w| / denominator: refuse weights whose reward could overflow to +-Infinity
  // (weights 5e-324 and -1 give -1 / 5e-324), with a factor 2 of headroom for rounding.
  if (denominator > 0 && !(absSum / denominator <= Number.MAX_VALUE / 2)) {
    throw new GearError(
      'invalid_input',
      ['criteria'],
      `the weights' scale overflows float64: sum |weight| (${absSum}) / reward denominator (${denominator}) is not finite, so a reward could be +-Infinity`,
    );
  }

  const { kept, dropped } = projectDag(rubric.edges, indexById);
  if (options.onInvalidEdge === 'reject' && dropped.length > 0) {
    const first = dropped[0] as (typeof dropped)[number];
    throw new GearError('invalid_graph', ['edges', first.index], `edge ${first.parent} -> ${first.child} dropped: ${first.reason}`);
  }

  // CSR by child; within a child, parent edges keep their input order.
  const parentStart = new Int32Array(size + 1);
  for (const e of kept) parentStart[e.child + 1] = (parentStart[e.child + 1] as number) + 1;
  for (let i = 0; i < size; i++) parentStart[i + 1] = (parentStart[i + 1] as number) + (parentStart[i] as number);
  const fill = parentStart.slice(0, size);
  const edgeCount = kept.length;
  const parentIndex = new Int32Array(edgeCount);
  const edgeSource = new Int32Array(edgeCount);
  const edgeRelation = new Uint8Array(edgeCount);
  const edgeRetention = new Float64Array(edgeCount);
  const roleWarnings: RoleWarning[] = [];
  for (const e of kept) {
    const slot = fill[e.child] as number;
    fill[e.child] = slot + 1;
    parentIndex[slot] = e.parent;
    edgeSource[slot] = e.index;
    edgeRelation[slot] = RELATION_CODE[e.edge.relation];
    edgeRetention[slot] = effectiveRetention(e.edge, options);
    const parentRole = effectiveRole(rubric.criteria[e.parent] as Rubric['criteria'][number]);
    const childRole = effectiveRole(rubric.criteria[e.child] as Rubric['criteria'][number]);
    if (!isAllowedByRoles(parentRole, childRole, e.edge.relation)) {
      roleWarnings.push({ index: e.index, parent: e.edge.parent, child: e.edge.child, relation: e.edge.relation, parentRole, childRole });
    }
  }

  let maxIndegree = 0;
  for (let i = 0; i < size; i++) maxIndegree = Math.max(maxIndegree, (parentStart[i + 1] as number) - (parentStart[i] as number));

  const topoOrder = topologicalOrder(size, parentStart, parentIndex);
  const plan = planElimination(size, parentStart, parentIndex, canonicalRank(rubric.criteria));
  // Gate tables cost up to size * 2^exactMaxWidth products: built on the first exact evaluation,
  // not at compile time, so compiling (and mean-field scoring) never pays for them.
  let gates: { gateStart: Int32Array; gate: Float64Array } | undefined;
  const gatesOf = () => (gates ??= buildGates(size, parentStart, edgeRetention, plan.maxWidth <= options.exactMaxWidth));
  // Read by exact inference only (gear-exact, auto): mean-field scoring never pays for the check.
  let multitree: boolean | undefined;

  const report: CompileReport = {
    criteria: size,
    edgesIn: rubric.edges.length,
    edgesKept: edgeCount,
    droppedEdges: dropped,
    roleWarnings,
    maxIndegree,
    exactWidth: plan.maxWidth,
    exactCost: plan.cost,
  };

  return Object.freeze({
    size,
    ids: Object.freeze(rubric.criteria.map((c) => c.id)),
    weight,
    topoOrder,
    parentStart,
    parentIndex,
    edgeSource,
    edgeRelation,
    edgeRetention,
    get gateStart() {
      return gatesOf().gateStart;
    },
    get gate() {
      return gatesOf().gate;
    },
    maxIndegree,
    get multitree() {
      return (multitree ??= maxIndegree < 2 || isMultitree(size, topoOrder, parentStart, parentIndex));
    },
    denominator,
    plan,
    options,
    rubric,
    report,
  });
}

/**
 * The same compiled rubric with another report, without building its lazy parts (a spread would
 * call the gate getters).
 */
export function withReport(compiled: CompiledRubric, report: CompileReport): CompiledRubric {
  const fields = Object.getOwnPropertyDescriptors(compiled);
  return Object.freeze(Object.defineProperties({}, { ...fields, report: { value: report, enumerable: true } })) as CompiledRubric;
}

/**
 * For each criterion, the retention product for every on/off pattern c of its parents
 * (bit k of c = parent k holds): gate[c] = prod over parents k that fail of retention_k.
 * Only built when exact inference is feasible (a wider graph could need 2^indegree cells).
 */
function buildGates(
  size: number,
  parentStart: Int32Array,
  edgeRetention: Float64Array,
  feasible: boolean,
): { gateStart: Int32Array; gate: Float64Array } {
  const gateStart = new Int32Array(size + 1);
  if (!feasible) return { gateStart, gate: new Float64Array(0) };
  for (let i = 0; i < size; i++) {
    const degree = (parentStart[i + 1] as number) - (parentStart[i] as number);
    gateStart[i + 1] = (gateStart[i] as number) + (1 << degree);
  }
  const gate = new Float64Array(gateStart[size] as number);
  for (let i = 0; i < size; i++) {
    const a = parentStart[i] as number;
    const degree = (parentStart[i + 1] as number) - a;
    // Multiply in ascending order of retention so the value does not depend on how the edges were
    // listed. With the parents sorted that way, the product over a failing set is the product over
    // the set without its largest member, times that member: one multiplication per pattern, the
    // same multiplications in the same order as multiplying the sorted set out.
    const sorted = Array.from({ length: degree }, (_, k) => k).sort(
      (x, y) => (edgeRetention[a + x] as number) - (edgeRetention[a + y] as number) || x - y,
    );
    const rank = new Int32Array(degree);
    sorted.forEach((k, position) => (rank[k] = position));
    const product = new Float64Array(1 << degree);
    product[0] = 1;
    for (let m = 1; m < 1 << degree; m++) {
      const top = 31 - Math.clz32(m);
      product[m] = (product[m ^ (1 << top)] as number) * (edgeRetention[a + (sorted[top] as number)] as number);
    }
    const g0 = gateStart[i] as number;
    for (let c = 0; c < 1 << degree; c++) {
      // Pattern c has bit k set when parent k holds; the failing parents, by sorted position.
      let failing = 0;
      for (let k = 0; k < degree; k++) if (((c >> k) & 1) === 0) failing |= 1 << (rank[k] as number);
      gate[g0 + c] = product[failing] as number;
    }
  }
  return { gateStart, gate };
}
