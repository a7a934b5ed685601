import { PyDict, type PyValue } from './python-json.js';
import { pyStrip } from './python-text.js';

/*
 * How the official GEAR parsers find the judgment of rubric item k in a judge's JSON
 * (`_parse_numeric_key`, `_find_numeric_key_dict`, `_top_level_list_payload`).
 */

const PREFIXES = ['', 'r', 'rubric', 'item', 'criterion'] as const;
const SEPARATOR = /^[_\-\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;

/**
 * `_parse_numeric_key`: "3", "03", "r3", "R_3", "item 3", "criterion-3" (surrounding whitespace
 * ignored) name item 3 when 1 <= 3 <= count; anything else names none. ASCII digits only (Python
 * also reads other Unicode decimal digits).
 */
export function parseNumericKey(key: string, count: number): number | undefined {
  const text = pyStrip(key);
  const lower = text.toLowerCase().length === text.length ? text.toLowerCase() : text;
  for (const prefix of PREFIXES) {
    if (!lower.startsWith(prefix)) continue;
    const rest = text.slice(prefix.length);
    const digits = rest.slice((SEPARATOR.exec(rest) as RegExpExecArray)[0].length);
    if (!/^[0-9]+$/.test(digits)) continue;
    const value = digits.length > 15 ? Infinity : Number(digits);
    return value >= 1 && value <= count ? value : undefined;
  }
  return undefined;
}

function numericKeyCount(dict: PyDict, count: number): number {
  let n = 0;
  for (const key of dict.keys()) if (parseNumericKey(key, count) !== undefined) n++;
  return n;
}

/**
 * `_find_numeric_key_dict`: the value itself when it is an object with a key naming an item; else
 * the nested object (searched depth first, values in order) with the most such keys, the first
 * one on ties. Recursion depth is bounded by MAX_JSON_DEPTH; each object is visited once.
 */
export function findNumericKeyDict(payload: PyValue, count: number): PyDict | undefined {
  const counts = new Map<PyDict, number>();
  const countOf = (dict: PyDict): number => {
    let n = counts.get(dict);
    if (n === undefined) {
      n = numericKeyCount(dict, count);
      counts.set(dict, n);
    }
    return n;
  };
  const find = (value: PyValue): PyDict | undefined => {
    if (!(value instanceof PyDict)) return undefined;
    if (countOf(value) > 0) return value;
    let best: PyDict | undefined;
    let bestScore = 0;
    for (const child of value.values()) {
      const nested = find(child);
      if (nested === undefined) continue;
      const score = countOf(nested);
      if (score > bestScore) {
        bestScore = score;
        best = nested;
      }
    }
    return best;
  };
  return find(payload);
}

/** `_top_level_list_payload`: a non-empty array read as keys "1".."count" (extra elements dropped). */
export function topLevelListPayload(payload: PyValue, count: number): PyDict | undefined {
  if (!Array.isArray(payload) || payload.length === 0) return undefined;
  const dict = new PyDict();
  payload.slice(0, count).forEach((value, k) => dict.set(String(k + 1), value));
  return dict;
}
