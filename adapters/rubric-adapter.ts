import type { AggregationMethod, AggregatorName } from '../core/index.js';
import type { CriterionJudgment, HostExtras, HostFormat, HostName } from './host-adapter.js';
import type { Scalarizer } from './scalarizer.js';
import { applyJudgeFailurePolicy, countUnread, type OnJudgeFailure } from './judge-output/failure-policy.js';

export interface ScoreInput {
  /** The host's rubric row (for VERL hosts: the row's extra_info). */
  readonly row: unknown;
  /** The response judged (the reward does not depend on it: the judge outputs carry the verdicts). */
  readonly response?: string;
  /** The judge's raw text, one per request of the host's plan, in request order. */
  readonly judgeOutputs: readonly (string | undefined)[];
  /** What an unread criterion counts as (default `pessimistic`). */
  readonly onJudgeFailure?: OnJudgeFailure;
}

/** Judgments a judge already read (e.g. after re-asking what a first parse could not read). */
export interface JudgedInput {
  readonly row: unknown;
  /** At most one per rubric position (by `index`); a position without one counts as missing. */
  readonly judgments: readonly CriterionJudgment[];
  readonly onJudgeFailure?: OnJudgeFailure;
}

export interface AdapterResult {
  readonly host: HostName;
  readonly aggregator: AggregatorName;
  readonly method: AggregationMethod;
  readonly reward: number;
  /** Effective score per criterion (rubric order) under the injected scalarizer. */
  readonly effective: readonly number[];
  /** Everything below is independent of the scalarizer. */
  /** Requests of the host's plan (the outputs expected); `format.buildJudgeRequests` builds them. */
  readonly requestCount: number;
  /** Per criterion in rubric order, the failure policy applied (status and detail as read). */
  readonly judgments: readonly CriterionJudgment[];
  /** Criteria the judge output did not answer readably. */
  readonly failedCriteria: number;
  readonly extras: HostExtras;
  /** The host's own reward from the same judgments (what flat must reproduce). */
  readonly nativeReward: number;
}

/**
 * A host adapter: the host's format and judge protocol around an injected scalarizer. Subclasses
 * only bind a format (adapters/<host>/adapter.ts); they never construct a scalarizer.
 */
export class RubricAdapter<Row> {
  /** Per parsed row: what does not depend on the judgments (a GRPO group's 8 responses share it). */
  private readonly rowFacts = new WeakMap<object, { readonly requestCount: number; readonly extras: HostExtras }>();

  constructor(
    readonly format: HostFormat<Row>,
    private readonly scalarizer: Scalarizer,
  ) {}

  get host(): HostName {
    return this.format.host;
  }

  /**
   * Reads the judge outputs and scores them. No prompt is built here.
   * @throws GearError `invalid_input` naming the field when the row is malformed, or naming the
   * unread criteria under `onJudgeFailure: 'error'`.
   */
  score(input: ScoreInput): AdapterResult {
    return this.scoreRow(this.format.parseRow(input.row), input.judgeOutputs, input.onJudgeFailure);
  }

  /**
   * `score` on a row `format.parseRow` already read: a batch whose responses share a row (a GRPO
   * group) parses it once, and `toRubric` then hands the scalarizer the same rubric object each time.
   */
  scoreRow(row: Row, judgeOutputs: readonly (string | undefined)[], onJudgeFailure?: OnJudgeFailure): AdapterResult {
    return this.scoreParsed(row, this.format.parseJudgeOutputs(row, judgeOutputs), onJudgeFailure);
  }

  /**
   * The reward under this adapter's scalarizer of judgments another adapter of the same host already
   * scored (`AdapterResult.judgments`: the failure policy applied), so one reading of the judge's
   * outputs yields the gear, flat and hard rewards a trainer logs side by side.
   */
  rewardOf(row: Row, judgments: readonly Pick<CriterionJudgment, 'p' | 'met'>[]): number {
    const rubric = this.format.toRubric(row);
    if (judgments.length !== rubric.criteria.length) {
      throw new RangeError(`rewardOf: ${judgments.length} judgments for ${rubric.criteria.length} criteria`);
    }
    return this.scalarizer.scalarize(rubric, { p: judgments.map((j) => j.p), d: judgments.map((j) => j.met) }, this.format.scalarOptions).reward;
  }

  /** Scores judgments read elsewhere (a judge that re-asked part of the rubric). */
  scoreJudgments(input: JudgedInput): AdapterResult {
    return this.scoreJudgedRow(this.format.parseRow(input.row), input.judgments, input.onJudgeFailure);
  }

  /** `scoreJudgments` on a row `format.parseRow` already read (the responses of a GRPO group share it). */
  scoreJudgedRow(row: Row, given: readonly CriterionJudgment[], onJudgeFailure?: OnJudgeFailure): AdapterResult {
    const criteria = this.format.toRubric(row).criteria;
    const byIndex = new Map<number, CriterionJudgment>();
    for (const j of given) byIndex.set(j.index, j);
    const judgments = criteria.map(
      (c, index): CriterionJudgment => byIndex.get(index) ?? { index, id: c.id, p: 0, met: false, status: 'missing', detail: 'no judgment given' },
    );
    return this.scoreParsed(row, judgments, onJudgeFailure);
  }

  private factsOf(row: Row): { readonly requestCount: number; readonly extras: HostExtras } {
    const key = typeof row === 'object' && row !== null ? row : undefined;
    const known = key === undefined ? undefined : this.rowFacts.get(key);
    if (known !== undefined) return known;
    const facts = { requestCount: this.format.planJudgeRequests(row).length, extras: this.format.extras(row) };
    if (key !== undefined) this.rowFacts.set(key, facts);
    return facts;
  }

  private scoreParsed(row: Row, read: readonly CriterionJudgment[], policy: OnJudgeFailure = 'pessimistic'): AdapterResult {
    const rubric = this.format.toRubric(row);
    const judgments = applyJudgeFailurePolicy(
      read,
      rubric.criteria.map((c) => c.weight),
      policy,
    );
    const scalar = this.scalarizer.scalarize(rubric, { p: judgments.map((j) => j.p), d: judgments.map((j) => j.met) }, this.format.scalarOptions);
    return {
      host: this.format.host,
      aggregator: this.scalarizer.aggregator,
      method: scalar.method,
      reward: scalar.reward,
      effective: scalar.q,
      ...this.factsOf(row),
      judgments,
      failedCriteria: countUnread(read),
      nativeReward: this.format.nativeReward(row, judgments),
    };
  }
}
