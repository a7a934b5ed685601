import type { CriterionJudgment } from '../host-adapter.js';
import { stripOuterFence } from '../judge-output/json-candidates.js';
import { toJudgment, unread, type ReadOutcome } from '../judge-output/item-reading.js';
import { describePyValue, PyDict, pyJsonLoads } from '../judge-output/python-json.js';
import { isPyWhitespace, pyStrip, skipPyWhitespace } from '../judge-output/python-text.js';
import { stripReasoning } from '../judge-output/reasoning.js';

/**
 * Reads one HealthBench-grader output ({"explanation": ..., "criteria_met": true|false}) as
 * RuscaRL reads it (IANNXANG/RuscaRL health_bench/healthbench_reward_fn.py `parse_json_to_dict`
 * and `grade_rubric_item`), reasoning stripped first:
 * 1. the text without an outer ```json fence, as JSON: a verdict when it is an object whose
 *    `criteria_met` is a boolean (a repeated key keeps its last value);
 * 2. else the first brace-balanced `{...}` with unescaped quotes in "explanation" escaped, as JSON;
 * 3. else the first `"criteria_met": true|false` anywhere in the text (truncated JSON, trailing
 *    commas, text around the JSON).
 * Where RuscaRL finds nothing in step 3 it reads "not met" (a default, not the judge's verdict:
 * for a penalty that drops it); gear reports such output as unread and the failure policy decides.
 * Linear in the output.
 */
export function parseGraderOutput(raw: string | undefined, index: number, id: string): CriterionJudgment {
  return toJudgment(index, id, raw === undefined ? unread('missing', 'no judge output for this criterion') : readGraderOutput(stripReasoning(raw)));
}

const SALVAGED = 'read by RuscaRL\'s "criteria_met" regex (the JSON did not parse)';

function readGraderOutput(text: string): ReadOutcome {
  const whole = pyJsonLoads(stripOuterFence(pyStrip(text), 'json-required'));
  if (whole.ok) {
    // RuscaRL retries (then gives up with "not met") unless the object holds a boolean criteria_met.
    if (!(whole.value instanceof PyDict)) return unread('unparsable', `the output is ${describePyValue(whole.value)}, not a JSON object`);
    return verdictOf(whole.value);
  }
  if (whole.tooDeep) return unread('unparsable', 'JSON nested deeper than the parser reads');
  const object = firstBalancedObject(text);
  if (object !== undefined) {
    const repaired = pyJsonLoads(escapeExplanationQuotes(object));
    if (repaired.ok && repaired.value instanceof PyDict) return verdictOf(repaired.value);
  }
  const salvaged = firstCriteriaMet(text);
  if (salvaged === undefined) return unread('unparsable', 'no JSON verdict and no "criteria_met": true|false in the judge output');
  return { p: salvaged ? 1 : 0, met: salvaged, status: 'ok', detail: SALVAGED };
}

function verdictOf(fields: PyDict): ReadOutcome {
  const met = fields.get('criteria_met');
  if (met === undefined) return unread('missing', 'no criteria_met field');
  if (typeof met !== 'boolean') return unread('invalid-value', `criteria_met must be true or false, got ${describePyValue(met)}`);
  const repeated = fields.repeated?.has('criteria_met') === true ? { detail: 'criteria_met repeated: the last value is read' } : {};
  return { p: met ? 1 : 0, met, status: 'ok', ...repeated };
}

/**
 * RuscaRL's brace counter: the text from the `{` seen at depth 0 to the `}` that brings the depth
 * back to 0, counting every brace (inside strings too; a stray `}` first makes the depth negative).
 */
function firstBalancedObject(text: string): string | undefined {
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}') {
      depth--;
      if (depth === 0 && start !== -1) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

/**
 * RuscaRL's `fix_quotes_in_json`: re.sub(r'("explanation"\s*:\s*")(.*?)("(?:\s*,|\s*}))', ...)
 * escapes the double quotes inside each explanation value (its end is the first quote followed by
 * optional whitespace and "," or "}"). Written as a scan: once an explanation finds no end, no
 * later one can.
 */
function escapeExplanationQuotes(json: string): string {
  let out = '';
  let copied = 0;
  let search = 0;
  for (;;) {
    const key = json.indexOf('"explanation"', search);
    if (key < 0) break;
    let at = skipPyWhitespace(json, key + '"explanation"'.length);
    if (json[at] !== ':') {
      search = key + 1;
      continue;
    }
    at = skipPyWhitespace(json, at + 1);
    if (json[at] !== '"') {
      search = key + 1;
      continue;
    }
    const contentStart = at + 1;
    let end = -1;
    let quote = contentStart;
    while ((quote = json.indexOf('"', quote)) >= 0) {
      let after = quote + 1;
      while (isPyWhitespace(json[after])) after++;
      if (json[after] === ',' || json[after] === '}') {
        end = quote;
        break;
      }
      quote += 1;
    }
    if (end < 0) break;
    const content = json
      .slice(contentStart, end)
      .replaceAll('\\"', () => '###ESCAPED_QUOTE###')
      .replaceAll('"', () => '\\"')
      .replaceAll('###ESCAPED_QUOTE###', () => '\\"');
    out += json.slice(copied, contentStart) + content;
    copied = end;
    search = end + 1;
  }
  return out + json.slice(copied);
}

/** re.search(r'"criteria_met"\s*:\s*(true|false)'), case-sensitive. */
function firstCriteriaMet(text: string): boolean | undefined {
  let from = 0;
  for (;;) {
    const key = text.indexOf('"criteria_met"', from);
    if (key < 0) return undefined;
    let at = skipPyWhitespace(text, key + '"criteria_met"'.length);
    if (text[at] === ':') {
      at = skipPyWhitespace(text, at + 1);
      if (text.startsWith('true', at)) return true;
      if (text.startsWith('false', at)) return false;
    }
    from = key + 1;
  }
}
