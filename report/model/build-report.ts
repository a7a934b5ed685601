import { GearError } from '../../core/index.js';
import { describe } from './distribution.js';
import { FcpByRelation, FcpSums } from './fcp-cell.js';
import { graphStatistics } from './graph-statistics.js';
import { readScoredLine, type Explain } from './input-line.js';
import { JudgeHealthSums } from './judge-health.js';
import { AGGREGATORS, RELATIONS, type Aggregator, type Distribution, type ReportModel, type ResponseView, type RubricRow } from './report-model.js';
import { responseView } from './response-view.js';

export interface ReportOptions {
  /** How many responses to draw (those where GEAR and flat differ most). Default 24. */
  readonly views?: number;
  /** Ids of responses to draw whatever their difference. */
  readonly responseIds?: readonly string[];
  /** FCP support threshold on p (paper: 0.5). */
  readonly threshold?: number;
  /** Graph-annotated rows (`gear graph build` output) and its build summary, for the graph statistics. */
  readonly graphs?: { readonly rows: readonly Record<string, unknown>[]; readonly summary?: Record<string, unknown> | undefined } | undefined;
}

/** The differences per response the report shows: [name, minuend, subtrahend]. */
const DIFFERENCES: readonly (readonly [string, Aggregator, Aggregator])[] = [
  ['gear - flat', 'gear', 'flat'],
  ['hard - flat', 'hard', 'flat'],
  ['gear_exact - gear', 'gear_exact', 'gear'],
];

interface RubricGroup {
  readonly label: string;
  readonly criteria: number;
  readonly edges: number;
  responses: number;
  readonly sums: Partial<Record<Aggregator, number>>;
  readonly fcp: FcpSums;
}

interface Candidate {
  readonly score: number;
  readonly line: number;
  readonly view: ResponseView;
}

/** The rubric (criteria, weights, roles, edges) an explain block describes, as a map key. */
const rubricSignature = (explain: Explain): string =>
  JSON.stringify(explain.criteria.map((c) => [c.id, c.text, c.weight, c.role, c.parents.map((e) => [e.parent, e.relation, e.retention])]));

/** The rubric part of a `<rubric>#<response>` id. */
const rubricOfId = (id: string | null): string | null => {
  const at = id === null ? -1 : id.lastIndexOf('#');
  return at > 0 ? (id as string).slice(0, at) : null;
};

/** Keeps `b` before `a` when b's difference is larger (ties: the earlier line). */
const better = (a: Candidate, b: { score: number; line: number }): boolean => b.score > a.score || (b.score === a.score && b.line < a.line);

/**
 * Builds the report model line by line (memory: the rewards, one group per rubric and the drawn
 * responses, never the lines). `add` takes each output line of gear aggregate, score or judge.
 */
export class ReportBuilder {
  private lines = 0;
  private readonly kinds = { aggregate: 0, score: 0, judge: 0, error: 0 };
  private explained = 0;
  private readonly errors: { line: number; path: string; message: string }[] = [];
  private readonly rewards = new Map<Aggregator, number[]>();
  private readonly native: number[] = [];
  private readonly differences = new Map<string, number[]>();
  private readonly fcp = new FcpByRelation();
  private readonly rubrics = new Map<string, RubricGroup>();
  private readonly judge = new JudgeHealthSums();
  private readonly top: Candidate[] = [];
  private readonly asked: Candidate[] = [];
  private readonly views: number;
  private readonly ids: ReadonlySet<string>;
  private readonly threshold: number;

  constructor(private readonly options: ReportOptions = {}) {
    this.views = options.views ?? 24;
    this.ids = new Set(options.responseIds ?? []);
    this.threshold = options.threshold ?? 0.5;
  }

  /** @throws GearError naming the line and field of a line that is not gear output. */
  add(text: string, number: number): void {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new GearError('invalid_input', [`line ${number}`], `not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const scored = readScoredLine(value, number);
    this.lines += 1;
    this.kinds[scored.kind] += 1;
    if (scored.kind === 'error') {
      if (this.errors.length < 20) this.errors.push({ line: scored.line, path: scored.path, message: scored.message });
      return;
    }
    for (const a of AGGREGATORS) {
      const r = scored.rewards[a];
      if (r === undefined) continue;
      let values = this.rewards.get(a);
      if (values === undefined) this.rewards.set(a, (values = []));
      values.push(r);
    }
    for (const [name, x, y] of DIFFERENCES) {
      const rx = scored.rewards[x];
      const ry = scored.rewards[y];
      if (rx === undefined || ry === undefined) continue;
      let values = this.differences.get(name);
      if (values === undefined) this.differences.set(name, (values = []));
      values.push(rx - ry);
    }
    if (scored.nativeReward !== null) this.native.push(scored.nativeReward);
    if (scored.failedCriteria !== null) this.judge.add(scored.failedCriteria, scored.statuses, scored.judge);
    const explain = scored.explain;
    if (explain === null) return;
    this.explained += 1;
    this.fcp.add(explain, this.threshold);
    // Ids of the form <rubric>#<response> name the rubric; the signature tells rubrics apart otherwise.
    const signature = `${rubricOfId(scored.id) ?? ''}\u0000${rubricSignature(explain)}`;
    let group = this.rubrics.get(signature);
    if (group === undefined) {
      group = {
        label: rubricOfId(scored.id) ?? `rubric ${this.rubrics.size + 1}`,
        criteria: explain.criteria.length,
        edges: explain.criteria.reduce((s, c) => s + c.parents.length, 0),
        responses: 0,
        sums: {},
        fcp: new FcpSums(),
      };
      this.rubrics.set(signature, group);
    }
    group.responses += 1;
    for (const a of AGGREGATORS) {
      const r = scored.rewards[a];
      if (r !== undefined) group.sums[a] = (group.sums[a] ?? 0) + r;
    }
    group.fcp.add(explain, this.threshold);

    const gear = scored.rewards.gear;
    const flat = scored.rewards.flat;
    const key = { score: gear !== undefined && flat !== undefined ? Math.abs(gear - flat) : 0, line: scored.line };
    const wanted = scored.id !== null && this.ids.has(scored.id);
    let worst: Candidate | undefined;
    if (!wanted) {
      if (this.views === 0) return;
      if (this.top.length >= this.views) {
        worst = this.top.reduce((w, c) => (better(c, w) ? c : w));
        if (!better(worst, key)) return;
      }
    }
    const candidate = { ...key, view: responseView(scored.line, scored.id, group.label, scored.rewards, scored.nativeReward, scored.statuses, explain) };
    if (wanted) this.asked.push(candidate);
    else if (this.top.length < this.views) this.top.push(candidate);
    else if (worst !== undefined) this.top[this.top.indexOf(worst)] = candidate;
  }

  finish(): ReportModel {
    const aggregators = AGGREGATORS.filter((a) => this.rewards.has(a));
    const domain: [number, number] = [Infinity, -Infinity];
    for (const a of aggregators) {
      for (const r of this.rewards.get(a) as number[]) {
        if (r < domain[0]) domain[0] = r;
        if (r > domain[1]) domain[1] = r;
      }
    }
    const byAggregator: Partial<Record<Aggregator, Distribution>> = {};
    for (const a of aggregators) byAggregator[a] = describe(this.rewards.get(a) as number[], domain);
    const differences: Record<string, Distribution> = {};
    for (const [name] of DIFFERENCES) {
      const values = this.differences.get(name);
      if (values !== undefined) differences[name] = describe(values);
    }
    const rubricRows: RubricRow[] = [...this.rubrics.values()].map((g) => ({
      label: g.label,
      criteria: g.criteria,
      edges: g.edges,
      responses: g.responses,
      mean_reward: Object.fromEntries(Object.entries(g.sums).map(([a, s]) => [a, s / g.responses])),
      fcp: g.fcp.cell(),
    }));
    const views = [...this.asked, ...this.top.filter((c) => !this.asked.includes(c))]
      .sort((a, b) => b.score - a.score || a.line - b.line)
      .map((c) => c.view);
    return {
      format: 'gear-report',
      version: 1,
      input: {
        lines: this.lines,
        aggregate_lines: this.kinds.aggregate,
        score_lines: this.kinds.score,
        judge_lines: this.kinds.judge,
        error_lines: this.kinds.error,
        explained_lines: this.explained,
        errors: this.errors,
      },
      aggregators,
      rewards: { by_aggregator: byAggregator, native: this.native.length > 0 ? describe(this.native) : null, differences },
      fcp:
        this.explained === 0
          ? null
          : {
              threshold: this.threshold,
              overall: this.fcp.overall.cell(),
              by_relation: Object.fromEntries(RELATIONS.map((r) => [r, this.fcp.byRelation[r].cell()])) as Record<(typeof RELATIONS)[number], ReturnType<FcpSums['cell']>>,
              by_rubric: rubricRows,
            },
      responses: views,
      judge: this.judge.health(),
      graphs: this.options.graphs === undefined ? null : graphStatistics(this.options.graphs.rows, this.options.graphs.summary),
    };
  }
}

/** The report model of gear aggregate / score / judge output lines (a pure function of them). */
export function buildReportModel(lines: Iterable<string>, options: ReportOptions = {}): ReportModel {
  const builder = new ReportBuilder(options);
  let number = 0;
  for (const line of lines) builder.add(line, ++number);
  return builder.finish();
}
