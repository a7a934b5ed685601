import type { CriterionJudgment } from '../host-adapter.js';
import { extractJsonCandidates, stripOuterFence } from '../judge-output/json-candidates.js';
import { BatchOutcomes, clamp, readFiniteNumber, toJudgment, unread, type ReadOutcome, type Unread } from '../judge-output/item-reading.js';
import { digitRuns, Scan } from '../judge-output/item-scan.js';
import { findNumericKeyDict, parseNumericKey } from '../judge-output/numeric-keys.js';
import { describePyValue, PyDict, pyJsonLoads, type PyValue } from '../judge-output/python-json.js';
import { pyStrip } from '../judge-output/python-text.js';
import { stripReasoning } from '../judge-output/reasoning.js';
import type { PiMode } from './judge-prompt.js';

export interface JudgedItem {
  readonly index: number;
  readonly id: string;
}

/**
 * Reads one batch judge output for `items` (prompt keys "1".."n") as the official parser reads it
 * (LvCan926/GEAR gear_batch_reward_fn.py `_parse_batch_grading_response`), reasoning stripped first:
 * - JSON candidates in the host's order (the text, fence bodies, the first balanced braces, then
 *   its `parse_json_to_dict` retries), the first with item keys wins; keys "1", "01", "r1",
 *   "item 1" all name item 1; a repeated key keeps its last value (Python's json);
 * - no usable JSON: the host's regex fallback reads each complete item
 *   `"k": {"criteria_met": b, "prob_met": x}` it finds (truncated output, trailing commas,
 *   Python True/False);
 * - `criteria_met` must be a boolean; in judge_prob mode `prob_met` a finite number (a numeric
 *   string is read), clamped to [0, 1] (`clamped`) and flipped to 1 - p when it contradicts the
 *   boolean (`flipped`), as the host does.
 * Unlike the host, a `prob_met` that is NaN, infinite, an object, an array or text is not read
 * (the host reads it as 1.0 when `criteria_met` is true); unread criteria are reported and left
 * to the failure policy. Linear in the output; nesting beyond MAX_JSON_DEPTH is unparsable.
 */
export function parseBatchJudgeOutput(raw: string | undefined, items: readonly JudgedItem[], piMode: PiMode): CriterionJudgment[] {
  const outcomes = raw === undefined ? undefined : readBatchOutput(stripReasoning(raw), items.length, piMode);
  return items.map((item, k) => {
    if (outcomes === undefined) return toJudgment(item.index, item.id, unread('missing', 'no judge output for this request'));
    if ('status' in outcomes) return toJudgment(item.index, item.id, outcomes);
    return toJudgment(item.index, item.id, outcomes.get(k + 1, `no judgment under key "${k + 1}"`));
  });
}

function readBatchOutput(text: string, count: number, piMode: PiMode): BatchOutcomes | Unread {
  let payload: PyDict | undefined;
  for (const candidate of extractJsonCandidates(text)) {
    const value = loadCandidate(candidate);
    if (value === 'too-deep') return unread('unparsable', 'JSON nested deeper than the parser reads');
    if (value === undefined) continue;
    payload = findNumericKeyDict(value, count);
    if (payload !== undefined) break;
  }
  const outcomes = new BatchOutcomes();
  if (payload === undefined) {
    scanItemVerdicts(text, count, piMode, outcomes);
    if (outcomes.size === 0) return unread('unparsable', 'no judgment keyed "1".."n" in the judge output');
    return outcomes;
  }
  for (const [key, value] of payload) {
    const position = parseNumericKey(key, count);
    if (position === undefined) continue;
    const repeated = payload.repeated?.has(key) === true ? `key "${key}" repeated: the last value is read` : undefined;
    const outcome = value instanceof PyDict ? normalizeVerdict(value, piMode) : unread('invalid-value', `judgment under "${key}" is ${describePyValue(value)}, not an object`);
    outcomes.record(position, repeated === undefined ? outcome : withDetail(outcome, repeated));
  }
  return outcomes;
}

/** json.loads, then the host's `parse_json_to_dict` retries (fence stripped, first "{" to last "}"). */
function loadCandidate(candidate: string): PyValue | undefined | 'too-deep' {
  const direct = pyJsonLoads(candidate);
  if (direct.ok) return direct.value;
  if (direct.tooDeep) return 'too-deep';
  const stripped = stripOuterFence(pyStrip(candidate), 'json-optional');
  const unfenced = pyJsonLoads(stripped);
  if (unfenced.ok) return unfenced.value;
  if (unfenced.tooDeep) return 'too-deep';
  const first = stripped.indexOf('{');
  const last = stripped.lastIndexOf('}');
  if (first < 0 || last < first) return undefined;
  const greedy = pyJsonLoads(stripped.slice(first, last + 1));
  if (greedy.ok) return greedy.value;
  return greedy.tooDeep ? 'too-deep' : undefined;
}

/** `_normalize_grading_result`, except that a value float() cannot read finitely is no reading. */
function normalizeVerdict(fields: PyDict, piMode: PiMode): ReadOutcome {
  const met = fields.get('criteria_met');
  if (typeof met !== 'boolean') {
    return met === undefined ? unread('missing', 'no criteria_met') : unread('invalid-value', `criteria_met must be true or false, got ${describePyValue(met)}`);
  }
  if (piMode === 'binary') return { p: met ? 1 : 0, met, status: 'ok' };
  const prob = fields.get('prob_met');
  if (prob === undefined || prob === null) return unread('missing', 'no prob_met');
  const x = readFiniteNumber(prob, 'prob_met');
  if (typeof x !== 'number') return x;
  return probabilityVerdict(met, x);
}

function probabilityVerdict(met: boolean, x: number): ReadOutcome {
  const p = clamp(x, 0, 1);
  const clamped = p !== x ? `prob_met ${x} clamped to ${p}` : undefined;
  if ((met && p < 0.5) || (!met && p > 0.5)) {
    const detail = `prob_met ${p} contradicts criteria_met ${met}: read as ${1 - p}`;
    return { p: 1 - p, met, status: 'flipped', detail: clamped === undefined ? detail : `${clamped}; ${detail}` };
  }
  return clamped === undefined ? { p, met, status: 'ok' } : { p, met, status: 'clamped', detail: clamped };
}

function withDetail(outcome: ReadOutcome, note: string): ReadOutcome {
  return { ...outcome, detail: outcome.detail === undefined ? note : `${outcome.detail}; ${note}` };
}

/**
 * `_parse_batch_response_regex`: every `"?k"?: {"criteria_met": true|false, "prob_met": x}` (binary:
 * without prob_met) in the text, case-insensitively, fields in that order, in finditer order.
 */
function scanItemVerdicts(text: string, count: number, piMode: PiMode, outcomes: BatchOutcomes): void {
  let consumed = 0;
  for (const run of digitRuns(text)) {
    if (run.start < consumed) continue;
    const s = new Scan(text, run.end);
    if (!(s.optional('"') && s.ws() && s.char(':') && s.ws() && s.char('{') && s.ws() && s.literal('"criteria_met"', true) && s.ws() && s.char(':') && s.ws())) continue;
    const met = s.bool(true);
    if (met === undefined) continue;
    let prob: string | undefined;
    if (piMode === 'judge_prob') {
      if (!(s.ws() && s.char(',') && s.ws() && s.literal('"prob_met"', true) && s.ws() && s.char(':') && s.ws())) continue;
      prob = s.unsignedDecimal();
      if (prob === undefined) continue;
    }
    if (!(s.ws() && s.char('}'))) continue;
    consumed = s.at;
    const position = Number(text.slice(run.start, run.end));
    if (!(position >= 1 && position <= count)) continue;
    const outcome = prob === undefined ? { p: met ? 1 : 0, met, status: 'ok' as const } : probabilityVerdict(met, Number(prob));
    outcomes.record(position, withDetail(outcome, 'read by the official regex fallback (the JSON did not parse)'));
  }
}
