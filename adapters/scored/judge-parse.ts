import type { CriterionJudgment } from '../host-adapter.js';
import { jsonCandidateVariants } from '../judge-output/json-candidates.js';
import { BatchOutcomes, clamp, isReading, pyFloat, readFiniteNumber, toJudgment, unread, type ReadOutcome, type Unread } from '../judge-output/item-reading.js';
import { digitRuns, matchStart, Scan } from '../judge-output/item-scan.js';
import { findNumericKeyDict, parseNumericKey, topLevelListPayload } from '../judge-output/numeric-keys.js';
import { describePyValue, PyDict, pyJsonLoads, type PyValue } from '../judge-output/python-json.js';
import { pyStrip } from '../judge-output/python-text.js';
import { stripReasoning } from '../judge-output/reasoning.js';
import type { ScoreType } from './judge-prompt.js';
import type { Subitem } from './subitems.js';

/**
 * How the official scored code asks and reads (scored_gear_reward_fn.py): `normalized` (one
 * score per item: WritingBench), `subitem-prob` (a probability per "(+N分)" subitem: PLawBench's
 * default `pi_mode` prob) or `subitem-binary` (a boolean per subitem: `pi_mode` binary).
 */
export type ScoredMode = 'normalized' | 'subitem-prob' | 'subitem-binary';

export interface ScoredJudgedItem {
  readonly index: number;
  readonly id: string;
  readonly scoreType: ScoreType;
  /** The host's upper bound: 10 for scale_1_10, max(points, 0) for partial_points. */
  readonly maxScore: number;
  readonly subitems: readonly Subitem[];
}

/**
 * Reads one scored judge output for `items` (keys "1".."n") as `_parse_batch_scored_response`
 * reads it, reasoning stripped first:
 * - JSON candidates in the host's order (the text, fence bodies, the first balanced braces, the
 *   first `{` to the last `}`, the text with the closers a truncation left out); item keys as
 *   the official parser names them, or a top-level array; a repeated key keeps its last value;
 * - each value coerced as the host does (a bare number is the score, a boolean or "yes"/"是"
 *   criteria_met, a numeric string its number) and normalized: p = awarded / max, clamped to
 *   [0, 1] (`clamped`), met = p >= threshold;
 * - subitem modes sum the subitems (points x probability, or points of satisfied ones); a subitem
 *   left unanswered counts 0 as in the host (`partial`, reported);
 * - no usable JSON: the host's regex fallbacks (per-subitem sections, then flat
 *   `"k": {... "score": x ...}` items).
 * Unlike the host, nothing is read from an empty object, null, NaN, an infinite number or a
 * boolean where a score is due (the host turns those into the minimum score, full marks or
 * "met"); such criteria are reported unread and left to the failure policy.
 */
export function parseScoredJudgeOutput(raw: string | undefined, items: readonly ScoredJudgedItem[], mode: ScoredMode, threshold: number): CriterionJudgment[] {
  const outcomes = raw === undefined ? unread('missing', 'no judge output for this request') : readScoredOutput(stripReasoning(raw), items, mode, threshold);
  return items.map((item, k) => {
    if ('status' in outcomes) return toJudgment(item.index, item.id, outcomes);
    return toJudgment(item.index, item.id, outcomes.get(k + 1, `no judgment under key "${k + 1}"`));
  });
}

function readScoredOutput(text: string, items: readonly ScoredJudgedItem[], mode: ScoredMode, threshold: number): BatchOutcomes | Unread {
  const count = items.length;
  let payload: PyDict | undefined;
  for (const candidate of jsonCandidateVariants(text)) {
    const loaded = pyJsonLoads(candidate);
    if (!loaded.ok) {
      if (loaded.tooDeep) return unread('unparsable', 'JSON nested deeper than the parser reads');
      continue;
    }
    payload = findNumericKeyDict(loaded.value, count) ?? topLevelListPayload(loaded.value, count);
    if (payload !== undefined) break;
  }
  const outcomes = new BatchOutcomes();
  if (payload === undefined) {
    if (mode !== 'normalized') scanSubitemSections(text, items, mode, threshold, outcomes);
    if (outcomes.size === 0) scanScoredItems(text, items, mode, threshold, outcomes);
    if (outcomes.size === 0) return unread('unparsable', 'no judgment keyed "1".."n" in the judge output');
    return outcomes;
  }
  for (const [key, value] of payload) {
    const position = parseNumericKey(key, count);
    if (position === undefined) continue;
    const item = items[position - 1] as ScoredJudgedItem;
    const coerced = coerce(value, item, mode);
    let outcome = 'status' in coerced && !(coerced instanceof PyDict) ? coerced : normalize(coerced, item, mode, threshold);
    if (payload.repeated?.has(key) === true) outcome = { ...outcome, detail: `${outcome.detail ?? 'read'}; key "${key}" repeated: the last value is read` };
    outcomes.record(position, outcome);
  }
  return outcomes;
}

/** `_coerce_scored_payload_value`: the item's judgment as an object, or why it has none. */
function coerce(value: PyValue, item: ScoredJudgedItem, mode: ScoredMode): PyDict | Unread {
  if (value instanceof PyDict) return value;
  if (typeof value === 'boolean') return dictOf('criteria_met', value);
  if (typeof value === 'number') return coerceNumber(value, item, mode);
  if (typeof value === 'string') {
    const word = subitemBool(value);
    // "1" on a 1-10 scale is a score of 1 to the judge but "met" (full marks) to the host's word list.
    if (word !== undefined && mode === 'normalized' && /^[01]$/.test(pyStrip(value))) {
      return unread('invalid-value', `judgment "${pyStrip(value)}" is ambiguous: a score or a yes/no verdict`);
    }
    if (word !== undefined) return dictOf('criteria_met', word);
    const x = pyFloat(value);
    if (x === undefined) return unread('invalid-value', `judgment ${describePyValue(value)} is neither a number nor a yes/no word`);
    return coerceNumber(x, item, mode);
  }
  return unread('invalid-value', `judgment is ${describePyValue(value)}`);
}

function coerceNumber(x: number, item: ScoredJudgedItem, mode: ScoredMode): PyDict | Unread {
  if (!Number.isFinite(x)) return unread('invalid-value', `judgment ${describePyValue(x)} is not a finite number`);
  // The host reads any non-zero number as "met" here (bool(x)); gear reads only 1 and 0 as a verdict.
  if (mode === 'subitem-binary') return x === 1 || x === 0 ? dictOf('criteria_met', x === 1) : unread('invalid-value', `a binary judgment must be true or false, got ${x}`);
  if (mode === 'subitem-prob' && x >= 0 && x <= 1) return dictOf('prob_met', x);
  return dictOf(item.scoreType === 'scale_1_10' ? 'score' : 'awarded_points', x);
}

function dictOf(key: string, value: PyValue): PyDict {
  const dict = new PyDict();
  dict.set(key, value);
  return dict;
}

/** `_normalize_scored_result`: awarded points -> p = awarded / max, met = p >= threshold. */
function normalize(raw: PyDict, item: ScoredJudgedItem, mode: ScoredMode, threshold: number): ReadOutcome {
  const low = item.scoreType === 'scale_1_10' ? 1 : 0;
  const max = item.maxScore;
  if (!(max > 0)) return unread('invalid-value', 'the item has no positive maximum');
  let awarded: Awarded | Unread | undefined;
  if (mode === 'subitem-binary') awarded = binarySubitems(raw, item);
  else if (mode === 'subitem-prob') awarded = probSubitems(raw, item);
  awarded ??= directScore(raw, max) ?? rawScore(raw, item.scoreType, low, max);
  if ('status' in awarded) return awarded;
  const ratio = awarded.points / max;
  const p = clamp(ratio, 0, 1);
  const met = p >= threshold;
  const notes = [awarded.note, p !== ratio ? `normalized score ${ratio} clamped to ${p}` : undefined].filter((n) => n !== undefined);
  const status = awarded.partial ? 'partial' : awarded.clamped || p !== ratio ? 'clamped' : 'ok';
  return notes.length === 0 ? { p, met, status } : { p, met, status, detail: notes.join('; ') };
}

interface Awarded {
  readonly points: number;
  readonly clamped?: boolean;
  readonly partial?: boolean;
  readonly note?: string;
}

/** `_direct_awarded_score`: a probability-like field times max, else criteria_met as all or nothing. */
function directScore(raw: PyDict, max: number): Awarded | Unread | undefined {
  for (const key of ['normalized_score', 'prob_met', 'probability', 'prob', 'p']) {
    if (!raw.has(key)) continue;
    const x = readFiniteNumber(raw.get(key), key);
    if (typeof x !== 'number') return x;
    const p = clamp(x, 0, 1);
    return { points: p * max, clamped: p !== x, ...(p !== x ? { note: `${key} ${x} clamped to ${p}` } : {}) };
  }
  if (raw.has('criteria_met')) {
    const met = subitemBool(raw.get('criteria_met'));
    if (met !== undefined) return { points: met ? max : 0 };
  }
  return undefined;
}

/** `_fallback_raw_score`: the score (or awarded points) clamped to its range. */
function rawScore(raw: PyDict, scoreType: ScoreType, low: number, max: number): Awarded | Unread {
  const [first, second] = scoreType === 'scale_1_10' ? ['score', 'awarded_points'] : ['awarded_points', 'score'];
  const field = raw.has(first) ? first : second;
  const value = raw.get(field);
  // The host reads a missing or null score as the minimum (1 of 10 for scale_1_10) and a boolean as 1 or 0.
  if (value === undefined || value === null) return unread(value === undefined ? 'missing' : 'invalid-value', `no ${first}`);
  if (typeof value === 'boolean') return unread('invalid-value', `${field} must be a number, got ${value}`);
  const x = readFiniteNumber(value, field);
  if (typeof x !== 'number') return x;
  const points = clamp(x, low, max);
  return points === x ? { points } : { points, clamped: true, note: `${field} ${x} clamped to ${points}` };
}

/** The payload of subitem verdicts: "subitems", else "items", else "criteria" (null counts as absent). */
function subitemPayload(raw: PyDict): PyValue | undefined {
  for (const key of ['subitems', 'items', 'criteria']) {
    const value = raw.get(key);
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** `_subitem_payload_get`: subitem k (1-based) of a list, or under "k", "item_k", "subitem_k", "criterion_k". */
function subitemValue(payload: PyValue, k: number): PyValue | undefined {
  if (Array.isArray(payload)) return payload[k - 1];
  if (!(payload instanceof PyDict)) return undefined;
  for (const key of [String(k), `item_${k}`, `subitem_${k}`, `criterion_${k}`]) if (payload.has(key)) return payload.get(key);
  return undefined;
}

/** `_score_from_binary_subitems`: points of satisfied subitems; without a subitem payload, criteria_met all or nothing. */
function binarySubitems(raw: PyDict, item: ScoredJudgedItem): Awarded | Unread | undefined {
  const payload = subitemPayload(raw);
  if (!(payload instanceof PyDict || Array.isArray(payload))) {
    const met = subitemBool(raw.get('criteria_met'));
    if (met === undefined) return undefined;
    return { points: met ? item.maxScore : 0 };
  }
  return sumSubitems(item, (k) => {
    const met = subitemBool(subitemValue(payload, k));
    return met === undefined ? undefined : met ? 1 : 0;
  });
}

/** `_score_from_prob_subitems`: the sum of subitem probability x subitem points. */
function probSubitems(raw: PyDict, item: ScoredJudgedItem): Awarded | Unread | undefined {
  const payload = subitemPayload(raw);
  if (!(payload instanceof PyDict || Array.isArray(payload))) return undefined;
  return sumSubitems(item, (k) => subitemProbability(subitemValue(payload, k)));
}

/** Sums points x share over the item's subitems; an unanswered subitem counts 0 as in the host, and is reported. */
function sumSubitems(item: ScoredJudgedItem, share: (k: number) => number | undefined): Awarded | Unread {
  let points = 0;
  const unanswered: number[] = [];
  item.subitems.forEach((subitem, k) => {
    const s = share(k + 1);
    if (s === undefined) unanswered.push(k + 1);
    else points += s * subitem.points;
  });
  if (unanswered.length === item.subitems.length) return unread('invalid-value', 'no subitem was answered readably');
  const total = clamp(points, 0, item.maxScore);
  const notes = [
    unanswered.length > 0 ? `subitems ${unanswered.join(', ')} unanswered: counted 0` : undefined,
    total !== points ? `awarded ${points} clamped to ${total}` : undefined,
  ].filter((n) => n !== undefined);
  return { points: total, partial: unanswered.length > 0, clamped: total !== points, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
}

const TRUE_WORDS = new Set(['true', 'yes', 'present', 'met', 'satisfied', 'fulfilled', 'hit', '1', '是', '满足']);
const FALSE_WORDS = new Set(['false', 'no', 'not_present', 'not present', 'unmet', 'not_met', '0', '否', '不满足']);
const VERDICT_KEYS = ['criteria_met', 'met', 'satisfied', 'present', 'fulfilled', 'hit'];

/** `_subitem_bool`: a boolean, 1 or 0, a yes/no word, or an object holding one of those under a verdict key. */
function subitemBool(value: PyValue | undefined): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : undefined;
  if (typeof value === 'string') {
    const word = pyStrip(value).toLowerCase();
    return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
  }
  if (value instanceof PyDict) {
    for (const key of VERDICT_KEYS) {
      const nested = subitemBool(value.get(key));
      if (nested !== undefined) return nested;
    }
  }
  return undefined;
}

/**
 * `_subitem_probability`: the first of prob_met/probability/prob/p/score in an object (followed
 * down), a verdict as 1 or 0, else a number (or numeric string) clamped to [0, 1]. Unlike the
 * host, NaN and infinite numbers are not read (the host clamps NaN to 1.0).
 */
function subitemProbability(start: PyValue | undefined): number | undefined {
  let value = start;
  // An object chain {"prob_met": {"p": ...}} is followed iteratively; its depth is bounded by the parser.
  for (;;) {
    if (!(value instanceof PyDict)) break;
    const key = ['prob_met', 'probability', 'prob', 'p', 'score'].find((k) => (value as PyDict).has(k));
    if (key === undefined) break;
    value = value.get(key);
  }
  const verdict = subitemBool(value);
  if (verdict !== undefined) return verdict ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'string') {
    const x = pyFloat(value);
    return x !== undefined && Number.isFinite(x) ? clamp(x, 0, 1) : undefined;
  }
  return undefined;
}

/**
 * `_parse_batch_subitem_response_regex` (subitem modes): sections opened by `"k": {"subitems": {`
 * headers, each read for `"j": true|false` (binary) or `"j": {"prob_met": x}` (prob) subitems.
 */
function scanSubitemSections(text: string, items: readonly ScoredJudgedItem[], mode: ScoredMode, threshold: number, outcomes: BatchOutcomes): void {
  const headers: { position: number; start: number; end: number }[] = [];
  let consumed = 0;
  for (const run of digitRuns(text)) {
    if (run.start < consumed) continue;
    const s = new Scan(text, run.end);
    if (!(s.optional('"') && s.ws() && s.char(':') && s.ws() && s.char('{') && s.ws() && s.literal('"subitems"', true) && s.ws() && s.char(':') && s.ws() && s.char('{'))) continue;
    const start = matchStart(text, run, consumed);
    consumed = s.at;
    const position = parseNumericKey(text.slice(run.start, run.end), items.length);
    if (position !== undefined) headers.push({ position, start, end: s.at });
  }
  headers.forEach((header, h) => {
    const section = text.slice(header.end, headers[h + 1]?.start ?? text.length);
    const subitems = mode === 'subitem-binary' ? scanSubitemBooleans(section) : scanSubitemProbabilities(section);
    if (subitems.size === 0) return;
    const raw = new PyDict();
    raw.set('subitems', subitems);
    const outcome = normalize(raw, items[header.position - 1] as ScoredJudgedItem, mode, threshold);
    outcomes.record(header.position, isReading(outcome) ? { ...outcome, detail: withFallbackNote(outcome.detail) } : outcome);
  });
}

const FALLBACK = 'read by the official regex fallback (the JSON did not parse)';
const withFallbackNote = (detail: string | undefined): string => (detail === undefined ? FALLBACK : `${detail}; ${FALLBACK}`);

const isPyWordChar = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

/** `"?(\d+)"?\s*:\s*(true|false)\b`, case-insensitively: subitem key (its digits) -> boolean. */
function scanSubitemBooleans(section: string): PyDict {
  const found = new PyDict();
  let consumed = 0;
  for (const run of digitRuns(section)) {
    if (run.start < consumed) continue;
    const s = new Scan(section, run.end);
    if (!(s.optional('"') && s.ws() && s.char(':') && s.ws())) continue;
    const verdict = s.bool(true);
    if (verdict === undefined || isPyWordChar(section[s.at])) continue;
    consumed = s.at;
    found.set(section.slice(run.start, run.end), verdict);
  }
  return found;
}

/** `"?(\d+)"?\s*:\s*\{\s*"prob_met"\s*:\s*(number)\s*\}`, case-insensitively: subitem key -> {"prob_met": x}. */
function scanSubitemProbabilities(section: string): PyDict {
  const found = new PyDict();
  let consumed = 0;
  for (const run of digitRuns(section)) {
    if (run.start < consumed) continue;
    const s = new Scan(section, run.end);
    if (!(s.optional('"') && s.ws() && s.char(':') && s.ws() && s.char('{') && s.ws() && s.literal('"prob_met"', true) && s.ws() && s.char(':') && s.ws())) continue;
    const number = s.signedNumber();
    if (number === undefined || !(s.ws() && s.char('}'))) continue;
    consumed = s.at;
    found.set(section.slice(run.start, run.end), dictOf('prob_met', Number(number)));
  }
  return found;
}

/**
 * `_parse_batch_response_regex`: `"k": {...}` objects without nested braces holding
 * `"score"` or `"awarded_points"` (the last one in the object, as the host's greedy match finds
 * it) with an unsigned number; the number is read as the score.
 */
function scanScoredItems(text: string, items: readonly ScoredJudgedItem[], mode: ScoredMode, threshold: number, outcomes: BatchOutcomes): void {
  let consumed = 0;
  for (const run of digitRuns(text)) {
    if (run.start < consumed) continue;
    const s = new Scan(text, run.end);
    if (!(s.optional('"') && s.ws() && s.char(':') && s.ws() && s.char('{'))) continue;
    const bodyStart = s.at;
    let bodyEnd = bodyStart;
    while (bodyEnd < text.length && text[bodyEnd] !== '{' && text[bodyEnd] !== '}') bodyEnd++;
    if (text[bodyEnd] !== '}') continue;
    const score = lastScoreIn(text, bodyStart, bodyEnd);
    if (score === undefined) continue;
    consumed = bodyEnd + 1;
    const position = parseNumericKey(text.slice(run.start, run.end), items.length);
    if (position === undefined) continue;
    const outcome = normalize(dictOf('score', Number(score)), items[position - 1] as ScoredJudgedItem, mode, threshold);
    outcomes.record(position, isReading(outcome) ? { ...outcome, detail: withFallbackNote(outcome.detail) } : outcome);
  }
}

/** The number after the last `"score"` or `"awarded_points"` (any case) + `\s*:\s*` in text[start, end). */
function lastScoreIn(text: string, start: number, end: number): string | undefined {
  const body = text.slice(start, end);
  const lower = body.toLowerCase().length === body.length ? body.toLowerCase() : body;
  let bestAt = -1;
  let best: string | undefined;
  for (const key of ['"score"', '"awarded_points"']) {
    for (let at = lower.indexOf(key); at >= 0; at = lower.indexOf(key, at + 1)) {
      if (at < bestAt) continue;
      const s = new Scan(body, at + key.length);
      if (!(s.ws() && s.char(':') && s.ws())) continue;
      const number = s.unsignedDecimal();
      if (number === undefined) continue;
      bestAt = at;
      best = number;
    }
  }
  return best;
}
