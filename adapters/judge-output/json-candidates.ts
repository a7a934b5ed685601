import { isPyWhitespace, pyStrip, skipPyWhitespace } from './python-text.js';

/*
 * The texts the official GEAR parsers try as JSON, each found in one pass (no backtracking
 * regex): linear in the output, whatever its shape.
 */

/**
 * Bodies of ``` fences as Python's re.findall(r"```(?:json)?\s*(.*?)\s*```", text, DOTALL |
 * IGNORECASE) returns them, each stripped: an opening fence, an optional "json", and everything
 * up to the next fence. After an unclosed fence no later fence can close either.
 */
export function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('```', from);
    if (open < 0) return blocks;
    let start = open + 3;
    if (text.slice(start, start + 4).toLowerCase() === 'json') start += 4;
    start = skipPyWhitespace(text, start);
    const close = text.indexOf('```', start);
    if (close < 0) return blocks;
    blocks.push(pyStrip(text.slice(start, close)));
    from = close + 3;
  }
}

/**
 * The first `{...}` whose braces balance, counted as the official `_extract_json_candidates`
 * counts them: every brace, inside strings too. Undefined when the first `{` never closes.
 */
export function firstBalancedBraces(text: string): string | undefined {
  const first = text.indexOf('{');
  if (first < 0) return undefined;
  let depth = 0;
  for (let i = first; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(first, i + 1);
  }
  return undefined;
}

/** The first `{...}` balanced outside JSON strings (gear's own reading for formats without a host parser). */
export function firstBalancedObject(text: string): string | undefined {
  const first = text.indexOf('{');
  if (first < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = first; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(first, i + 1);
  }
  return undefined;
}

/** Deduplicated, non-empty, in first-seen order. */
function dedupe(candidates: readonly (string | undefined)[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    if (c === undefined || c === '' || seen.has(c)) continue;
    seen.add(c);
    out.push(c);
  }
  return out;
}

/** The official `_extract_json_candidates`: the stripped text, every fence body, the first balanced braces. */
export function extractJsonCandidates(text: string): string[] {
  const stripped = pyStrip(text);
  const balanced = firstBalancedBraces(stripped);
  return dedupe([stripped, ...fencedBlocks(stripped), balanced === undefined ? undefined : pyStrip(balanced)]);
}

/**
 * The official scored `_json_candidate_variants` (after reasoning is stripped): the base
 * candidates, fence bodies, the first `{` to the last `}`, and the text from the first `{` with
 * the closers a tail truncation left out. Unlike the host, a number or string the truncation may
 * have cut ("prob_met": 0.8 of 0.85) is dropped with its key before closing, so only complete
 * values are read.
 */
export function jsonCandidateVariants(text: string): string[] {
  const cleaned = pyStrip(text);
  const candidates: (string | undefined)[] = [...extractJsonCandidates(cleaned), ...fencedBlocks(cleaned)];
  const first = cleaned.indexOf('{');
  const last = cleaned.lastIndexOf('}');
  if (first >= 0) {
    if (last > first) candidates.push(cleaned.slice(first, last + 1));
    candidates.push(appendMissingJsonClosers(dropCutTail(cleaned.slice(first))));
  }
  return dedupe(candidates.map((c) => (c === undefined ? undefined : pyStrip(c))));
}

/**
 * The text without a final value the end of the output may have cut: a number (or a string left
 * open) at the very end, with the key it belongs to and the comma before it.
 */
export function dropCutTail(text: string): string {
  const s = pyStrip(text);
  let end = s.length;
  if (openStringStart(s) >= 0) end = openStringStart(s);
  else if (/[0-9.eE+-]$/.test(s) && !/(true|false|null)$/.test(s)) {
    while (end > 0 && /[0-9.eE+\-]/.test(s[end - 1] as string)) end--;
    // "Infinity" / "NaN" end in letters, not digits: nothing else ends a JSON number.
  } else {
    return s;
  }
  let cut = s.slice(0, end).trimEnd();
  if (cut.endsWith(':')) {
    // Drop the key too: the object gets no entry for a value it did not receive.
    cut = cut.slice(0, -1).trimEnd();
    if (cut.endsWith('"')) {
      const keyStart = cut.lastIndexOf('"', cut.length - 2);
      cut = keyStart >= 0 ? cut.slice(0, keyStart).trimEnd() : cut;
    }
  }
  if (cut.endsWith(',')) cut = cut.slice(0, -1);
  return cut;
}

/** Where the JSON string still open at the end of `text` starts, or -1. */
function openStringStart(text: string): number {
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (start >= 0) {
      if (ch === '\\') i++;
      else if (ch === '"') start = -1;
    } else if (ch === '"') start = i;
  }
  return start;
}

/**
 * The official `_append_missing_json_closers`: closes an open string, then every `[` and `{` still
 * open, innermost first (a closer that does not match the innermost opener is ignored).
 */
export function appendMissingJsonClosers(text: string): string {
  const s = pyStrip(text);
  if (s === '') return s;
  const stack: string[] = [];
  let inString = false;
  let escape = false;
  for (const ch of s) {
    if (escape) {
      escape = false;
      continue;
    }
    if (ch === '\\') {
      escape = true;
      continue;
    }
    if (ch === '"') {
      inString = !inString;
      continue;
    }
    if (inString) continue;
    if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if ((ch === '}' || ch === ']') && stack[stack.length - 1] === ch) stack.pop();
  }
  return s + (inString ? '"' : '') + stack.reverse().join('');
}

/**
 * A fence around the whole text removed as the hosts' `parse_json_to_dict` do it: a leading
 * "```json" (RuscaRL: only with "json"; official GEAR: "```" with an optional "json") and the
 * whitespace after it, and a trailing "```" with the whitespace before it.
 */
export function stripOuterFence(text: string, opening: 'json-required' | 'json-optional'): string {
  let start = 0;
  if (text.startsWith('```json')) start = skipPyWhitespace(text, 7);
  else if (opening === 'json-optional' && text.startsWith('```')) start = skipPyWhitespace(text, 3);
  const rest = text.slice(start);
  if (!rest.endsWith('```')) return rest;
  let end = rest.length - 3;
  while (end > 0 && isPyWhitespace(rest[end - 1])) end--;
  return rest.slice(0, end);
}
