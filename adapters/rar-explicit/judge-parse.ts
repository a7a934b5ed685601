import type { CriterionJudgment } from '../host-adapter.js';
import { extractJsonObject } from '../judge-output/extract-json-object.js';
import { describePyValue } from '../judge-output/python-json.js';
import { stripReasoning } from '../judge-output/reasoning.js';

/**
 * Reads {"satisfied": true|false} strictly (RaR publishes no judge code to follow), reasoning
 * stripped first; anything else is no verdict, reported as unread for the failure policy.
 */
export function parseExplicitVerdict(raw: string | undefined): { satisfied: boolean } | { status: CriterionJudgment['status']; detail: string } {
  if (raw === undefined) return { status: 'missing', detail: 'no judge output for this criterion' };
  const extracted = extractJsonObject(stripReasoning(raw));
  if (extracted === undefined) return { status: 'unparsable', detail: 'no JSON object in the judge output' };
  if (extracted.duplicateKeys.has('satisfied')) return { status: 'duplicate', detail: 'satisfied appears more than once' };
  const verdict = extracted.value.get('satisfied');
  if (verdict === undefined) return { status: 'missing', detail: 'no satisfied field' };
  if (typeof verdict !== 'boolean') return { status: 'invalid-value', detail: `satisfied must be true or false, got ${describePyValue(verdict)}` };
  return { satisfied: verdict };
}
