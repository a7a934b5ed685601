import { fencedBlocks, firstBalancedObject } from './json-candidates.js';
import { PyDict, pyJsonLoads } from './python-json.js';
import { pyStrip } from './python-text.js';

/**
 * The JSON object a judge returned, read strictly, for formats without a host parser to follow
 * (RaR-Explicit): the whole text, else the body of a ``` fence, else the first {...} balanced
 * outside strings (prose around JSON). Truncated or otherwise invalid JSON is not repaired. Keys
 * that occur twice in the object are reported (the last value is kept, as Python's json does).
 * Linear in the text; nesting beyond MAX_JSON_DEPTH is not read.
 */
export interface ExtractedObject {
  readonly value: PyDict;
  /** Keys repeated in the top-level object. */
  readonly duplicateKeys: ReadonlySet<string>;
}

export function extractJsonObject(text: string): ExtractedObject | undefined {
  const stripped = pyStrip(text);
  const whole = pyJsonLoads(stripped);
  // Valid JSON of another shape (an array, a string) is the judge's whole answer: not searched inside.
  if (whole.ok) return whole.value instanceof PyDict ? found(whole.value) : undefined;
  if (whole.tooDeep) return undefined;
  const balanced = firstBalancedObject(stripped);
  for (const candidate of [...fencedBlocks(stripped), ...(balanced === undefined ? [] : [balanced])]) {
    const parsed = pyJsonLoads(candidate);
    if (parsed.ok && parsed.value instanceof PyDict) return found(parsed.value);
  }
  return undefined;
}

function found(value: PyDict): ExtractedObject {
  return { value, duplicateKeys: value.repeated ?? new Set() };
}
