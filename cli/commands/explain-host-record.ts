import { compileRubric, explainRecord, type AggregationOptionsInput, type ExplainRecord, type Rubric } from '../../core/index.js';

/**
 * The `explain` block for a host row scored by an adapter (`gear score`, `gear judge`): the host's
 * rubric compiled with the options its scalarizer uses, and the p and decisions the adapter
 * scored (the failure policy applied).
 */
export function explainHostRecord(
  format: { parseRow(row: unknown): unknown; toRubric(row: never): Rubric; readonly scalarOptions: AggregationOptionsInput },
  row: unknown,
  judgments: readonly { readonly p: number; readonly met: boolean }[],
  options: AggregationOptionsInput,
): ExplainRecord {
  const rubric = format.toRubric(format.parseRow(row) as never);
  const compiled = compileRubric(rubric, { ...options, ...format.scalarOptions });
  return explainRecord(compiled, { p: judgments.map((j) => j.p), d: judgments.map((j) => j.met) });
}
