import type { CriterionJudgment } from '../host-adapter.js';
import { extractJsonObject } from '../judge-output/extract-json-object.js';
import { readKeyedJudgment, unreadJudgment } from '../judge-output/keyed-judgment.js';
import type { PiMode } from './judge-prompt.js';

export interface JudgedItem {
  readonly index: number;
  readonly id: string;
}

/**
 * Reads one batch judge output for `items` (prompt keys "1".."n"), as the official parser does
 * for well-formed output, and strictly otherwise:
 * - only the exact keys "1".."n" count (the official parser also accepts "r1", "rubric 1", nested
 *   objects and regex salvage of broken JSON; gear does not, so malformed output never earns more);
 * - `criteria_met` must be a JSON boolean; in judge_prob mode `prob_met` a number in [0, 1];
 * - a probability that contradicts the boolean is flipped (1 - p), as the official parser does;
 * - anything unreadable, missing, repeated or out of range is "not met" with p = 0, and reported.
 */
export function parseBatchJudgeOutput(raw: string | undefined, items: readonly JudgedItem[], piMode: PiMode): CriterionJudgment[] {
  if (raw === undefined) return items.map((item) => unreadJudgment(item.index, item.id, 'missing', 'no judge output for this request'));
  const extracted = extractJsonObject(raw);
  return items.map((item, k) => {
    const fail = (status: CriterionJudgment['status'], detail: string): CriterionJudgment => unreadJudgment(item.index, item.id, status, detail);
    const read = readKeyedJudgment(extracted, String(k + 1));
    if (!('fields' in read)) return fail(read.status, read.detail);
    const fields = read.fields;
    const met = fields['criteria_met'];
    if (typeof met !== 'boolean') return fail('invalid-value', `criteria_met must be true or false, got ${JSON.stringify(met)}`);
    if (piMode === 'binary') return { index: item.index, id: item.id, p: met ? 1 : 0, met, status: 'ok' };
    const prob = fields['prob_met'];
    if (typeof prob !== 'number' || !(prob >= 0 && prob <= 1)) {
      return fail('invalid-value', `prob_met must be a number in [0, 1], got ${JSON.stringify(prob)}`);
    }
    if ((met && prob < 0.5) || (!met && prob > 0.5)) {
      return { index: item.index, id: item.id, p: 1 - prob, met, status: 'flipped', detail: `prob_met ${prob} contradicts criteria_met ${met}` };
    }
    return { index: item.index, id: item.id, p: prob, met, status: 'ok' };
  });
}
