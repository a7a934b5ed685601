/** A JSON boolean the judge wrote as the value of a verdict field, with where it sits. */
export interface VerdictLiteral {
  /** Keys from the outermost object down to the verdict field's object (e.g. ["3"] for {"3": {"criteria_met": true}}). */
  readonly path: readonly string[];
  readonly field: string;
  readonly value: boolean;
  /** Offset of the literal's first character in the text. */
  readonly offset: number;
}

const VERDICT_FIELDS: ReadonlySet<string> = new Set(['criteria_met', 'satisfied', 'met']);

/**
 * Every `"criteria_met": true|false` (or `satisfied`, `met`) in a judge's JSON answer, with the keys
 * above it. One linear pass that tracks objects, arrays and strings; text that is not JSON yields
 * what it can (a verdict is only found where a field name, a colon and a boolean follow each other).
 * Reasoning before a closing `</think>` is skipped.
 */
export function findVerdictLiterals(text: string): VerdictLiteral[] {
  const thinkEnd = text.lastIndexOf('</think>');
  const start = thinkEnd >= 0 ? thinkEnd + '</think>'.length : 0;
  const found: VerdictLiteral[] = [];
  // One frame per open object/array: the key most recently read in that object.
  const stack: { key: string | undefined; isObject: boolean }[] = [];
  let pendingString: string | undefined;
  let afterColon = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      let raw = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\') {
          raw += text.slice(j, j + 2);
          j += 2;
        } else raw += text[j++];
      }
      pendingString = raw;
      afterColon = false;
      i = j;
    } else if (ch === ':') {
      const top = stack[stack.length - 1];
      if (top !== undefined && top.isObject && pendingString !== undefined) top.key = pendingString;
      pendingString = undefined;
      afterColon = true;
    } else if (ch === '{' || ch === '[') {
      stack.push({ key: undefined, isObject: ch === '{' });
      afterColon = false;
      pendingString = undefined;
    } else if (ch === '}' || ch === ']') {
      stack.pop();
      afterColon = false;
    } else if (ch === ',') {
      afterColon = false;
      pendingString = undefined;
    } else if (afterColon && (text.startsWith('true', i) || text.startsWith('false', i))) {
      const top = stack[stack.length - 1];
      const value = text.startsWith('true', i);
      if (top !== undefined && top.isObject && top.key !== undefined && VERDICT_FIELDS.has(top.key)) {
        // The keys under which the verdict's own object sits, outermost first.
        found.push({ path: stack.slice(0, -1).map((frame) => frame.key ?? ''), field: top.key, value, offset: i });
      }
      afterColon = false;
      i += value ? 3 : 4;
    }
  }
  return found;
}
