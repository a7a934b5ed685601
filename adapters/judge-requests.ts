import { GearError } from '../core/index.js';
import type { CriterionJudgment, HostFormat, JudgeRequest } from './host-adapter.js';

/** A host format's own parts: plan, build and read one request at a time. */
export type HostFormatCore<Row> = Omit<HostFormat<Row>, 'buildJudgeRequests' | 'parseJudgeOutputs'> & {
  /** The reading of a criterion no request judges (default: missing, "not sent to a judge"). */
  readonly notJudged?: (row: Row, index: number) => CriterionJudgment;
};

/** A HostFormat whose whole-plan methods are the generic ones below. */
export function defineHostFormat<Row>(core: HostFormatCore<Row>): HostFormat<Row> {
  const { notJudged, ...format } = core;
  return {
    ...format,
    buildJudgeRequests: (row, response) => buildAllJudgeRequests(core, row, response),
    parseJudgeOutputs: (row, outputs) => parseAllJudgeOutputs(core, row, outputs, notJudged),
  };
}

type Planner<Row> = Pick<HostFormat<Row>, 'planJudgeRequests' | 'buildJudgeRequest'>;

/** Every request of the host's plan for one response, in order. */
export function buildAllJudgeRequests<Row>(format: Planner<Row>, row: Row, response: string): JudgeRequest[] {
  return format.planJudgeRequests(row).map((criteria) => format.buildJudgeRequest(row, response, criteria));
}

/** The outputs of the host's full plan (one per request, in order) read into judgments in rubric order. */
export function parseAllJudgeOutputs<Row>(
  format: Pick<HostFormat<Row>, 'planJudgeRequests' | 'parseJudgeOutput' | 'toRubric'>,
  row: Row,
  outputs: readonly (string | undefined)[],
  notJudged: (row: Row, index: number) => CriterionJudgment = defaultNotJudged(format),
): CriterionJudgment[] {
  const count = format.toRubric(row).criteria.length;
  const judgments: (CriterionJudgment | undefined)[] = new Array<CriterionJudgment | undefined>(count).fill(undefined);
  format.planJudgeRequests(row).forEach((criteria, r) => {
    for (const j of format.parseJudgeOutput(row, criteria, outputs[r])) judgments[j.index] = j;
  });
  return judgments.map((j, index) => j ?? notJudged(row, index));
}

function defaultNotJudged<Row>(format: Pick<HostFormat<Row>, 'toRubric'>): (row: Row, index: number) => CriterionJudgment {
  return (row, index) => ({
    index,
    id: format.toRubric(row).criteria[index]?.id ?? String(index),
    p: 0,
    met: false,
    status: 'missing',
    detail: 'not sent to a judge',
  });
}

/**
 * Positions `only` names (re-asks), deduplicated in rubric order, or every position of `eligible`.
 * @throws GearError `invalid_input` at ['only', k] for a position outside the rubric.
 */
export function selectPositions(count: number, eligible: readonly number[], only: readonly number[] | undefined): number[] {
  if (only === undefined) return eligible.slice();
  only.forEach((position, k) => {
    if (!Number.isInteger(position) || position < 0 || position >= count) {
      throw new GearError('invalid_input', ['only', k], `must be a rubric position in 0..${count - 1}, got ${String(position)}`);
    }
  });
  const wanted = new Set(only);
  return eligible.filter((position) => wanted.has(position));
}

/** The host batching "at most `size` criteria per request, in rubric order". */
export function chunkPositions(positions: readonly number[], size: number): number[][] {
  const plan: number[][] = [];
  for (let start = 0; start < positions.length; start += size) plan.push(positions.slice(start, start + size));
  return plan;
}

/**
 * @throws GearError `invalid_input` at ['criteria', k] unless `criteria` is a non-empty list of
 * distinct rubric positions.
 */
export function checkRequestCriteria(count: number, criteria: readonly number[]): void {
  if (criteria.length === 0) throw new GearError('invalid_input', ['criteria'], 'a judge request needs at least one criterion');
  const seen = new Set<number>();
  criteria.forEach((position, k) => {
    if (!Number.isInteger(position) || position < 0 || position >= count || seen.has(position)) {
      throw new GearError('invalid_input', ['criteria', k], `must be a distinct rubric position in 0..${count - 1}, got ${String(position)}`);
    }
    seen.add(position);
  });
}

/** All positions 0..count-1. */
export function allPositions(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}
