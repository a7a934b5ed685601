export { HOST_READING_TABLES, type HostReadingCase, type HostReadingTable, type Reading, type Divergence } from './host-readings.js';

/**
 * Ways a judge's output goes wrong, applied to a well-formed output object keyed "1".."n".
 * Each returns the raw text and the keys whose judgment a strict reader can no longer trust
 * (those must come out "not met", p = 0, with a non-ok status; every other key unchanged).
 */
export interface HostileOutput {
  readonly name: string;
  readonly text: string;
  readonly corrupted: ReadonlySet<string>;
}

type Output = Record<string, Record<string, unknown>>;

function mapFields(output: Output, keys: readonly string[], change: (value: unknown) => unknown): Output {
  const copy: Output = JSON.parse(JSON.stringify(output)) as Output;
  for (const key of keys) {
    const fields = copy[key];
    if (fields === undefined) continue;
    for (const name of Object.keys(fields)) fields[name] = change(fields[name]);
  }
  return copy;
}

export function hostileVariants(output: Output): HostileOutput[] {
  const keys = Object.keys(output);
  const all = new Set(keys);
  const first = keys[0] as string;
  const last = keys[keys.length - 1] as string;
  const json = JSON.stringify(output);
  const variants: HostileOutput[] = [];
  const add = (name: string, text: string, corrupted: Iterable<string>): void => {
    variants.push({ name, text, corrupted: new Set(corrupted) });
  };

  add('prose around the JSON (still readable)', `Here is my evaluation:\n${json}\nLet me know if you need more.`, []);
  add('fenced JSON (still readable)', `\`\`\`json\n${JSON.stringify(output, null, 2)}\n\`\`\``, []);
  add('truncated JSON', json.slice(0, Math.max(1, Math.floor(json.length * 0.6))), all);
  add('empty output', '', all);
  add('prose only', 'The response satisfies every criterion.', all);
  add('wrong keys (r1, r2, ...)', JSON.stringify(Object.fromEntries(keys.map((k) => [`r${k}`, output[k]]))), all);
  add('missing criterion', JSON.stringify(Object.fromEntries(keys.filter((k) => k !== last).map((k) => [k, output[k]]))), [last]);
  add(
    'duplicated criterion',
    `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(output[k])}`).join(',')},${JSON.stringify(first)}:${JSON.stringify(output[first])}}`,
    [first],
  );
  add('NaN for numbers', json.replace(/:(-?\d+(\.\d+)?([eE][-+]?\d+)?)/g, ':NaN'), hasNumbers(output) ? all : []);
  add('strings for booleans', JSON.stringify(mapFields(output, [first], (v) => (typeof v === 'boolean' ? String(v) : v))), hasBooleans(output[first]) ? [first] : []);
  add('strings for numbers', JSON.stringify(mapFields(output, [first], (v) => (typeof v === 'number' ? String(v) : v))), hasNumbers({ [first]: output[first] as Record<string, unknown> }) ? [first] : []);
  add('out-of-range numbers', JSON.stringify(mapFields(output, [first], (v) => (typeof v === 'number' ? v + 100 : v))), hasNumbers({ [first]: output[first] as Record<string, unknown> }) ? [first] : []);
  add('negative numbers', JSON.stringify(mapFields(output, [first], (v) => (typeof v === 'number' ? -1 - v : v))), hasNumbers({ [first]: output[first] as Record<string, unknown> }) ? [first] : []);
  add('polarity words instead of booleans', JSON.stringify(mapFields(output, [first], (v) => (typeof v === 'boolean' ? (v ? 'PRESENT' : 'NOT_PRESENT') : v))), hasBooleans(output[first]) ? [first] : []);
  add('judgment that is neither an object nor a verdict word', JSON.stringify({ ...output, [first]: 'see above' }), [first]);
  return variants;
}

/**
 * The same failure modes for a judge that returns one judgment object per call (e.g. the
 * HealthBench grader's {"explanation", "criteria_met"}): `decision` names the field that carries
 * the verdict. Every variant but the readable ones corrupts the single judgment ("1").
 */
export function hostileSingleVariants(fields: Record<string, unknown>, decision: string): HostileOutput[] {
  const json = JSON.stringify(fields);
  const one = new Set(['1']);
  const none = new Set<string>();
  const verdict = fields[decision];
  const withVerdict = (value: unknown): string => JSON.stringify({ ...fields, [decision]: value });
  const variants: HostileOutput[] = [
    { name: 'prose around the JSON (still readable)', text: `My assessment:\n${json}\nThanks.`, corrupted: none },
    { name: 'fenced JSON (still readable)', text: `\`\`\`json\n${JSON.stringify(fields, null, 2)}\n\`\`\``, corrupted: none },
    { name: 'truncated JSON', text: json.slice(0, Math.max(1, Math.floor(json.length * 0.6))), corrupted: one },
    { name: 'empty output', text: '', corrupted: one },
    { name: 'prose only', text: 'The criterion is met.', corrupted: one },
    { name: 'wrong key for the verdict', text: JSON.stringify(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k === decision ? `${k}_` : k, v]))), corrupted: one },
    { name: 'missing verdict', text: JSON.stringify(Object.fromEntries(Object.entries(fields).filter(([k]) => k !== decision))), corrupted: one },
    { name: 'duplicated verdict (same value)', text: `${json.slice(0, -1)},${JSON.stringify(decision)}:${JSON.stringify(verdict)}}`, corrupted: one },
    { name: 'string for the boolean', text: withVerdict(String(verdict)), corrupted: one },
    { name: 'number for the boolean', text: withVerdict(verdict === true ? 1 : 0), corrupted: one },
    { name: 'NaN for the verdict', text: json.replace(new RegExp(`"${decision}":[^,}]*`), `"${decision}":NaN`), corrupted: one },
    { name: 'polarity word for the boolean', text: withVerdict(verdict === true ? 'PRESENT' : 'NOT_PRESENT'), corrupted: one },
    { name: 'an array instead of an object', text: JSON.stringify([fields]), corrupted: one },
  ];
  return variants;
}

/** Whether a number occurs anywhere in the judgments (subitem answers nest them). */
function hasNumbers(output: Output): boolean {
  const walk = (value: unknown): boolean =>
    typeof value === 'number' || (typeof value === 'object' && value !== null && Object.values(value).some(walk));
  return walk(output);
}

function hasBooleans(fields: Record<string, unknown> | undefined): boolean {
  return fields !== undefined && Object.values(fields).some((v) => typeof v === 'boolean');
}
