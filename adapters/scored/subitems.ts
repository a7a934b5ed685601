import { pyStrip, pyStripChars, PY_WHITESPACE_CLASS } from '../judge-output/python-text.js';

/*
 * PLawBench's scoring subitems, split out of a criterion's text as the official GEAR code does
 * (scored_gear_reward_fn.py `_extract_point_subitems`): each "(+N分)" marker (ASCII or full-width
 * brackets, "分" optional) opens a subitem worth N points (clamped to [0, max]) whose text runs to
 * the next marker.
 */

export interface Subitem {
  readonly points: number;
  readonly text: string;
}

/*
 * The host's pattern is [\(（]\s*\+\s*([0-9]+(?:\.[0-9]+)?)\s*分?\s*[\)）]; "\s*分?\s*" is written
 * "\s*(?:分\s*)?" here: the same language, without the quadratic backtracking on long whitespace.
 */
const WS = `[${PY_WHITESPACE_CLASS}]`;
const MARKER = new RegExp(`[(（]${WS}*\\+${WS}*([0-9]+(?:\\.[0-9]+)?)${WS}*(?:分${WS}*)?[)）]`, 'g');
const TRIM = ' \n\t:：;；)）';

export function extractPointSubitems(criterion: string, maxPoints: number): Subitem[] {
  const matches = [...criterion.matchAll(MARKER)];
  if (matches.length === 0) return [{ points: maxPoints, text: pyStrip(criterion) }];
  return matches.map((match, k) => {
    const points = Math.max(0, Math.min(maxPoints, Number(match[1])));
    const start = match.index + match[0].length;
    const next = matches[k + 1];
    const end = next === undefined ? criterion.length : next.index;
    let text = pyStripChars(criterion.slice(start, end), TRIM);
    if (text === '') text = pyStripChars(criterion.slice(Math.max(0, match.index - 80), match.index), TRIM);
    return { points, text: text === '' ? pyStrip(criterion) : text };
  });
}
