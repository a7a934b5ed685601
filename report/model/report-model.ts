/**
 * The figures of a `gear report`, as `gear report --format json` writes them and as the HTML page
 * shows them. Every number on the page is one of these (the page marks each with its path here).
 */

/** The aggregators as the output lines name them. */
export const AGGREGATORS = ['flat', 'hard', 'gear', 'gear_exact'] as const;
export type Aggregator = (typeof AGGREGATORS)[number];

export const RELATIONS = ['weak', 'strong', 'activation'] as const;
export type RelationName = (typeof RELATIONS)[number];

export interface Histogram {
  /** Left edge of the first bin; bins are [start + k * step, start + (k + 1) * step). */
  readonly start: number;
  readonly step: number;
  readonly counts: readonly number[];
}

/** Summary of a set of values; null fields when the set is empty. */
export interface Distribution {
  readonly n: number;
  readonly mean: number | null;
  readonly sd: number | null;
  readonly min: number | null;
  readonly q25: number | null;
  readonly median: number | null;
  readonly q75: number | null;
  readonly max: number | null;
  readonly histogram: Histogram;
}

export interface FcpScore {
  /** L_FCP (paper eq. fcp_leakage): lower is better; null without leakage cases. */
  readonly leakage: number | null;
  /** P (paper eq. fcp_preservation): higher is better; null without preserved cases. */
  readonly preservation: number | null;
}

export interface FcpCell {
  readonly responses: number;
  readonly considered_edges: number;
  readonly leakage_cases: number;
  readonly preserved_cases: number;
  readonly by_aggregator: Readonly<Partial<Record<Aggregator, FcpScore>>>;
}

export interface RubricRow {
  /** The ids' common part before '#' (`gear aggregate --demo` ids), else "rubric N". */
  readonly label: string;
  readonly criteria: number;
  readonly edges: number;
  readonly responses: number;
  readonly mean_reward: Readonly<Partial<Record<Aggregator, number>>>;
  readonly fcp: FcpCell;
}

export interface FcpFigures {
  readonly threshold: number;
  readonly overall: FcpCell;
  readonly by_relation: Readonly<Record<RelationName, FcpCell>>;
  readonly by_rubric: readonly RubricRow[];
}

export interface ViewCriterion {
  readonly id: string;
  readonly text: string;
  readonly role: string;
  readonly weight: number;
  readonly p: number;
  readonly met: boolean;
  readonly q: Readonly<Partial<Record<Aggregator, number>>>;
  /** p - q under GEAR. */
  readonly suppressed: number;
  /** What GEAR took from this criterion's reward term: w * (p - q) / denominator. */
  readonly credit_cut: number;
  /** The judge's read status (score and judge lines). */
  readonly status: string | null;
}

export interface ViewEdge {
  readonly parent: string;
  readonly child: string;
  readonly relation: string;
  readonly retention: number;
  /** q_parent + (1 - q_parent) * retention under GEAR. */
  readonly factor: number;
  /** The part of the child's p - q this edge took (core's explanation). */
  readonly suppressed: number;
  /** That part in reward units: w_child * suppressed / denominator. */
  readonly credit_cut: number;
  /** Among the (at most 3) edges of the response that cut the most credit. */
  readonly top: boolean;
}

/** One response drawn: its rubric graph with p, every aggregator's q, and what each edge cut. */
export interface ResponseView {
  readonly line: number;
  readonly id: string | null;
  readonly rubric: string;
  readonly rewards: Readonly<Partial<Record<Aggregator, number>>>;
  readonly native_reward: number | null;
  readonly denominator: number;
  readonly criteria: readonly ViewCriterion[];
  readonly edges: readonly ViewEdge[];
}

export interface JudgeHealth {
  /** Score or judge lines (responses whose judge output was read). */
  readonly responses: number;
  readonly failed_criteria: number;
  readonly responses_with_failed_criteria: number;
  readonly criteria_by_status: Readonly<Record<string, number>>;
  /** From `gear judge` lines only (null without them). */
  readonly judged: {
    readonly responses: number;
    readonly requests: number;
    readonly cache_hits: number;
    readonly retries: number;
    readonly hedges: number;
    readonly reasks: number;
    readonly failed_requests: number;
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly latency_ms: Distribution;
  } | null;
}

export interface GraphStatistics {
  readonly rows: number;
  readonly rubrics: number;
  /** Rows whose rubric did not compile (named in `errors`). */
  readonly rows_failed: number;
  readonly criteria_per_rubric: number | null;
  readonly edges_given_per_rubric: number | null;
  readonly edges_kept_per_rubric: number | null;
  /** K + |E| per rubric (the paper's update size). */
  readonly update_size: number | null;
  readonly non_empty_rate: number | null;
  readonly node_types: Readonly<Record<string, number>>;
  readonly relations: Readonly<Record<string, number>>;
  readonly dropped_edges: Readonly<Record<string, number>>;
  readonly errors: readonly string[];
  /** The numbers of the build summary (`gear graph build`'s), by dotted path, when one was given. */
  readonly summary: Readonly<Record<string, number>> | null;
}

export interface InputSummary {
  readonly lines: number;
  readonly aggregate_lines: number;
  readonly score_lines: number;
  readonly judge_lines: number;
  readonly error_lines: number;
  /** Scored lines that carry an `explain` block (the FCP diagnostics and the drawings need it). */
  readonly explained_lines: number;
  /** The first error lines (line, field, message). */
  readonly errors: readonly { readonly line: number; readonly path: string; readonly message: string }[];
}

export interface ReportModel {
  readonly format: 'gear-report';
  readonly version: 1;
  readonly input: InputSummary;
  /** The aggregators whose rewards the input holds, in the order flat, hard, gear, gear_exact. */
  readonly aggregators: readonly Aggregator[];
  readonly rewards: {
    readonly by_aggregator: Readonly<Partial<Record<Aggregator, Distribution>>>;
    /** The host's own reward (score and judge lines). */
    readonly native: Distribution | null;
    /** Per-response differences, e.g. "gear - flat". */
    readonly differences: Readonly<Record<string, Distribution>>;
  };
  readonly fcp: FcpFigures | null;
  /** The responses drawn: those where GEAR and flat differ most (and any asked for by id). */
  readonly responses: readonly ResponseView[];
  readonly judge: JudgeHealth | null;
  readonly graphs: GraphStatistics | null;
}
