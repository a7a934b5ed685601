import type { AggregationOptionsInput, AggregatorName, Rubric, ScoreVector } from '../core/index.js';
import { createGearContainer } from '../adapters/container.js';
import { SCALARIZER } from '../adapters/tokens.js';
import { CoreScalarizer, type Scalarization, type Scalarizer } from '../adapters/scalarizer.js';
import type { DependencyContainer } from '../adapters/di.js';
import type { CriterionJudgment, JudgeRequest } from '../adapters/host-adapter.js';
import type { AdapterResult, RubricAdapter } from '../adapters/rubric-adapter.js';
import { hostileSingleVariants, hostileVariants } from './hostile-outputs.js';

/** One scored response: a host row, the response, and the judge's raw outputs. */
export interface AdapterCase {
  readonly name: string;
  readonly row: unknown;
  readonly response: string;
  readonly judgeOutputs: readonly string[];
}

export interface AdapterUnderTest {
  readonly host: string;
  /** Resolve the adapter from a container (the container decides the scalarizer). */
  readonly resolve: (container: DependencyContainer) => RubricAdapter<unknown>;
  readonly cases: readonly AdapterCase[];
  /**
   * A well-formed judge output for `request`, as an object keyed "1".."n" (the host's JSON). The
   * checks corrupt it in the ways hosts see in practice and verify the adapter's reading.
   */
  readonly wellFormedOutput: (request: JudgeRequest, caseIndex: number) => Record<string, Record<string, unknown>>;
  /**
   * `keyed` (default): one output judges several criteria under keys "1".."n". `single`: one
   * output per criterion, the object under key "1" of wellFormedOutput; `decision` names its verdict field.
   */
  readonly layout?: { readonly kind: 'keyed' } | { readonly kind: 'single'; readonly decision: string };
  /** Independently computed native rewards (e.g. by a reference implementation), by case name. */
  readonly referenceRewards?: ReadonlyMap<string, number>;
}

export interface CheckResult {
  readonly check: string;
  /** How many comparisons the check made. */
  readonly checked: number;
  /** Human-readable failures; empty when the check passed. */
  readonly failures: readonly string[];
}

const AGGREGATORS: readonly AggregatorName[] = ['flat', 'hard', 'gear', 'gear-exact'];
const TOLERANCE = 1e-12;

/** A scalarizer that ignores the graph: GEAR over an empty graph. */
class GraphlessScalarizer implements Scalarizer {
  readonly aggregator: AggregatorName = 'gear';
  private readonly inner = new CoreScalarizer('gear');
  scalarize(rubric: Rubric, scores: ScoreVector, hostOptions: AggregationOptionsInput): Scalarization {
    return this.inner.scalarize({ criteria: rubric.criteria, edges: [] }, scores, hostOptions);
  }
}

function run(target: AdapterUnderTest, container: DependencyContainer, c: AdapterCase): AdapterResult {
  return target.resolve(container).score({ row: c.row, response: c.response, judgeOutputs: c.judgeOutputs });
}

/** 1. With the flat scalarizer the reward equals the host's native reward (and the reference). */
export function checkFlatIsNative(target: AdapterUnderTest): CheckResult {
  const flat = createGearContainer('flat');
  const failures: string[] = [];
  let checked = 0;
  for (const c of target.cases) {
    const result = run(target, flat, c);
    checked += 1;
    if (!(Math.abs(result.reward - result.nativeReward) <= TOLERANCE)) failures.push(`${c.name}: flat ${result.reward} vs native ${result.nativeReward}`);
    const reference = target.referenceRewards?.get(c.name);
    if (reference !== undefined && !(Math.abs(result.reward - reference) <= TOLERANCE)) {
      failures.push(`${c.name}: flat ${result.reward} vs reference ${reference}`);
    }
  }
  return { check: 'flat reproduces the native reward (1e-12)', checked, failures };
}

/** 2. Swapping the scalarizer leaves everything but the reward and effective scores byte-identical. */
export function checkOnlyScalarChanges(target: AdapterUnderTest): CheckResult {
  const containers = AGGREGATORS.map((a) => createGearContainer(a));
  const failures: string[] = [];
  let checked = 0;
  for (const c of target.cases) {
    const results = containers.map((container) => run(target, container, c));
    const requests = containers.map((container) => {
      const format = target.resolve(container).format;
      return format.buildJudgeRequests(format.parseRow(c.row), c.response);
    });
    const invariant = results.map((r, k) =>
      JSON.stringify({ requests: requests[k], judgments: r.judgments, failed: r.failedCriteria, extras: r.extras, native: r.nativeReward }),
    );
    invariant.slice(1).forEach((other, k) => {
      checked += 1;
      if (other !== invariant[0]) failures.push(`${c.name}: ${AGGREGATORS[k + 1]} changed requests, judgments, extras or the native reward`);
    });
    results.forEach((r, k) => {
      if (r.aggregator !== AGGREGATORS[k]) failures.push(`${c.name}: resolved scalarizer ${r.aggregator}, registered ${AGGREGATORS[k]}`);
    });
  }
  return { check: 'swapping the scalarizer changes only the scalar', checked, failures };
}

/** 3a. GEAR over an empty graph, or with every retention 1, equals the native reward. */
export function checkLosslessGearIsNative(target: AdapterUnderTest): CheckResult {
  const graphless = createGearContainer('flat');
  graphless.register(SCALARIZER, { useValue: new GraphlessScalarizer() });
  const lossless = createGearContainer('gear', { retention: { weak: 1, strong: 1, activation: 1 } });
  const failures: string[] = [];
  let checked = 0;
  for (const c of target.cases) {
    for (const [label, container] of [['empty graph', graphless], ['retention 1', lossless]] as const) {
      const result = run(target, container, c);
      checked += 1;
      if (!(Math.abs(result.reward - result.nativeReward) <= TOLERANCE)) failures.push(`${c.name} (${label}): ${result.reward} vs native ${result.nativeReward}`);
    }
  }
  return { check: 'GEAR with an empty graph or retention 1 equals native', checked, failures };
}

/** 3b. With a graph and only positive weights, GEAR is never above flat. */
export function checkGearNeverAboveFlat(target: AdapterUnderTest): CheckResult {
  const flat = createGearContainer('flat');
  const gear = createGearContainer('gear');
  const adapter = target.resolve(flat);
  const failures: string[] = [];
  let checked = 0;
  for (const c of target.cases) {
    const rubric = adapter.format.toRubric(adapter.format.parseRow(c.row));
    if (rubric.criteria.some((x) => x.weight < 0)) continue;
    checked += 1;
    const f = run(target, flat, c).reward;
    const g = run(target, gear, c).reward;
    if (!(g <= f)) failures.push(`${c.name}: gear ${g} > flat ${f}`);
  }
  if (checked === 0) failures.push('no case has only positive weights');
  return { check: 'with positive weights GEAR is never above flat', checked, failures };
}

/** Statuses of a judgment read through a repair the adapter reports (its value may differ from the clean output's). */
const REPAIRED = new Set(['clamped', 'flipped', 'partial']);
const READ = new Set(['ok', ...REPAIRED]);

/**
 * 4. Hostile judge output never throws, and never reads what the text does not say: a damaged
 * judgment is either unread (not met, p = 0, an unread status for the failure policy), or read
 * as the clean output says (the host repairs the damage: truncation, wrong keys, trailing text),
 * or read through a reported repair (clamped, flipped, partial); every other judgment is unchanged.
 * Each host's exact reading of such output is in host-readings.test.ts.
 */
export function checkHostileJudgeOutput(target: AdapterUnderTest): CheckResult {
  const adapter = target.resolve(createGearContainer('gear'));
  const single = target.layout?.kind === 'single' ? target.layout : undefined;
  const serialize = (o: Record<string, Record<string, unknown>>): string => JSON.stringify(single !== undefined ? o['1'] : o);
  const failures: string[] = [];
  let checked = 0;
  target.cases.forEach((c, caseIndex) => {
    const row = adapter.format.parseRow(c.row);
    const requests = adapter.format.buildJudgeRequests(row, c.response);
    const outputs = requests.map((q) => serialize(target.wellFormedOutput(q, caseIndex)));
    const baseline = adapter.format.parseJudgeOutputs(row, outputs);
    requests.forEach((request) => {
      const clean = target.wellFormedOutput(request, caseIndex);
      const variants = single !== undefined ? hostileSingleVariants(clean['1'] ?? {}, single.decision) : hostileVariants(clean);
      for (const variant of variants) {
        let judgments: CriterionJudgment[];
        try {
          judgments = adapter.format.parseJudgeOutput(row, request.criteria, variant.text);
        } catch (error) {
          failures.push(`${c.name}, ${variant.name}: threw ${String(error)}`);
          continue;
        }
        checked += 1;
        request.criteria.forEach((criterion, k) => {
          const j = judgments[k];
          const before = baseline[criterion];
          const label = `${c.name}, ${variant.name}, criterion ${criterion}`;
          if (j === undefined || j.index !== criterion) {
            failures.push(`${label}: no judgment for the criterion`);
            return;
          }
          const asClean = j.p === before?.p && j.met === before.met && READ.has(j.status);
          const unreadCleanly = j.p === 0 && !j.met && !READ.has(j.status);
          if (variant.corrupted.has(String(k + 1))) {
            if (!(asClean || unreadCleanly || REPAIRED.has(j.status))) failures.push(`${label}: read as p ${j.p}, met ${j.met}, status ${j.status}`);
          } else if (!asClean) {
            failures.push(`${label}: intact judgment changed from p ${before?.p} to ${j.p} (${j.status})`);
          }
        });
      }
    });
  });
  return { check: 'hostile judge output never throws nor reads what the text does not say', checked, failures };
}

export interface ConformanceCheck {
  readonly name: string;
  readonly run: (target: AdapterUnderTest) => CheckResult;
}

const named = (run: (target: AdapterUnderTest) => CheckResult, name: string): ConformanceCheck => ({ name, run });

/** The checks, in the order the issue states the requirements. */
export const CONFORMANCE_CHECKS: readonly ConformanceCheck[] = [
  named(checkFlatIsNative, 'flat reproduces the native reward (1e-12)'),
  named(checkOnlyScalarChanges, 'swapping the scalarizer changes only the scalar'),
  named(checkLosslessGearIsNative, 'GEAR with an empty graph or retention 1 equals native'),
  named(checkGearNeverAboveFlat, 'with positive weights GEAR is never above flat'),
  named(checkHostileJudgeOutput, 'hostile judge output never throws nor reads what the text does not say'),
];

/** Every conformance check on one adapter. */
export function runConformance(target: AdapterUnderTest): CheckResult[] {
  if (target.cases.length === 0) return [{ check: 'has cases to check', checked: 0, failures: ['no cases'] }];
  return CONFORMANCE_CHECKS.map((check) => check.run(target));
}
