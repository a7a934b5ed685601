import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, PyDict, pyJsonLoads, type PyValue } from './python-json.js';

/** A parsed value in a form both sides print the same way (dict entries in order, special floats named). */
function encode(value: PyValue): unknown {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return { $: 'nan' };
    if (!Number.isFinite(value)) return { $: value > 0 ? 'inf' : '-inf' };
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(encode);
  return { $d: [...(value as PyDict).entries()].map(([k, v]) => [k, encode(v)]) };
}

const PYTHON_ENCODER = `
import json, math, sys
def enc(v):
    if isinstance(v, float):
        if math.isnan(v): return {"$": "nan"}
        if math.isinf(v): return {"$": "inf" if v > 0 else "-inf"}
        return v
    if isinstance(v, bool) or v is None or isinstance(v, str): return v
    if isinstance(v, int): return float(v) if abs(v) < 1e300 else {"$": "inf" if v > 0 else "-inf"}
    if isinstance(v, list): return [enc(x) for x in v]
    return {"$d": [[k, enc(x)] for k, x in v.items()]}
out = []
for t in json.load(sys.stdin):
    try: out.append({"ok": True, "v": enc(json.loads(t))})
    except json.JSONDecodeError: out.append({"ok": False})
print(json.dumps(out))
`;

const python = spawnSync('python3', ['--version']).status === 0;

const PIECES = ['{', '}', '[', ']', ',', ':', ' ', '\n', '\t', '"a"', '"b"', '"a"', '1', '-0', '0.5', '1e400', '-2E-3', 'NaN', 'Infinity', '-Infinity', 'true', 'false', 'null', 'True', '01', '1.', '.5', '"x\\u00e9\\n"', '"\\q"', '"\t"', ',}', ',]', '{"a":1}', '[1,2]'];

describe('pyJsonLoads reads exactly what Python json.loads reads', () => {
  it.skipIf(!python)('agrees with python3 on 4000 generated near-JSON texts', () => {
    const texts = fc.sample(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 14 }).map((p) => p.join('')), { numRuns: 4000, seed: 10 });
    const run = spawnSync('python3', ['-c', PYTHON_ENCODER], { input: JSON.stringify(texts), encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(run.status).toBe(0);
    const theirs = JSON.parse(run.stdout) as unknown[];
    const ours = texts.map((t) => {
      const r = pyJsonLoads(t);
      return r.ok ? { ok: true, v: encode(r.value) } : { ok: false };
    });
    const disagreements = texts.filter((_, k) => JSON.stringify(ours[k]) !== JSON.stringify(theirs[k]));
    expect(disagreements).toEqual([]);
    expect(ours.filter((o) => o.ok).length).toBeGreaterThan(100);
  });

  it('keeps the first position and the last value of a repeated key, and records it', () => {
    const r = pyJsonLoads('{"1": 1, "2": 2, "1": 3}');
    expect(r.ok && encode(r.value)).toEqual({ $d: [['1', 3], ['2', 2]] });
    expect(r.ok && [...((r.value as PyDict).repeated ?? [])]).toEqual(['1']);
  });

  it('refuses trailing commas, Python literals, leading zeros and raw control characters, as Python does', () => {
    for (const text of ['{"a": 1,}', '[1,]', '{"a": True}', '01', '"a\tb"', '{"a" 1}', '', ' ']) expect(pyJsonLoads(text).ok, text).toBe(false);
  });

  it('reads NaN and Infinity as numbers and 1e400 as Infinity', () => {
    const r = pyJsonLoads('[NaN, Infinity, -Infinity, 1e400]');
    expect(r.ok && encode(r.value)).toEqual([{ $: 'nan' }, { $: 'inf' }, { $: '-inf' }, { $: 'inf' }]);
  });

  it('bounds nesting at MAX_JSON_DEPTH', () => {
    expect(pyJsonLoads(`${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}`).ok).toBe(true);
    expect(pyJsonLoads(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`)).toEqual({ ok: false, tooDeep: true });
  });
});
