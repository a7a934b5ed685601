import type { CriterionJudgment, JudgmentStatus } from '../host-adapter.js';
import { describePyValue, type PyValue } from './python-json.js';
import { pyFloatOfString } from './python-text.js';

/** A judgment the output answered readably. */
export interface Reading {
  readonly p: number;
  readonly met: boolean;
  readonly status: 'ok' | 'flipped' | 'clamped' | 'partial';
  readonly detail?: string;
}

/** Why a judgment could not be read. */
export interface Unread {
  readonly status: Exclude<JudgmentStatus, Reading['status']>;
  readonly detail: string;
}

export type ReadOutcome = Reading | Unread;

export const isReading = (outcome: ReadOutcome): outcome is Reading => 'p' in outcome;

export function unread(status: Unread['status'], detail: string): Unread {
  return { status, detail };
}

/** The parser's report for criterion `index`: unread ones are not met with p = 0 until the failure policy decides. */
export function toJudgment(index: number, id: string, outcome: ReadOutcome): CriterionJudgment {
  if (isReading(outcome)) return { index, id, ...outcome };
  return { index, id, p: 0, met: false, status: outcome.status, detail: outcome.detail };
}

/** Python's float(value) for a parsed JSON value: undefined where Python raises. */
export function pyFloat(value: PyValue | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') return pyFloatOfString(value);
  return undefined;
}

/**
 * A number the host reads with float(): the number, or why gear does not read it. Non-finite
 * numbers (NaN, Infinity, "1e400") are refused: the hosts clamp them into full or partial credit.
 */
export function readFiniteNumber(value: PyValue | undefined, field: string): number | Unread {
  if (value === undefined) return unread('missing', `no ${field}`);
  const x = pyFloat(value);
  if (x === undefined) return unread('invalid-value', `${field} must be a number, got ${describePyValue(value)}`);
  if (!Number.isFinite(x)) return unread('invalid-value', `${field} must be finite, got ${describePyValue(value)}`);
  return x;
}

export const clamp = (x: number, low: number, high: number): number => Math.max(low, Math.min(high, x));

/** Per-position outcomes of one batch output for positions 1..count; positions never answered are missing. */
export class BatchOutcomes {
  private readonly outcomes = new Map<number, ReadOutcome>();

  /** A readable outcome replaces anything before it; an unread one only fills an empty slot or replaces another unread one. */
  record(position: number, outcome: ReadOutcome): void {
    const before = this.outcomes.get(position);
    if (isReading(outcome) || before === undefined || !isReading(before)) this.outcomes.set(position, outcome);
  }

  get(position: number, missing: string): ReadOutcome {
    return this.outcomes.get(position) ?? unread('missing', missing);
  }

  get size(): number {
    return this.outcomes.size;
  }
}
