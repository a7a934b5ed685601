import { describe, expect, it } from 'vitest';
import { extractJsonObject } from './extract-json-object.js';
import { PyDict, type PyValue } from './python-json.js';

/** A parsed value as plain JSON, for comparison. */
const plain = (value: PyValue | undefined): unknown =>
  value instanceof PyDict ? Object.fromEntries([...value].map(([k, v]) => [k, plain(v)])) : Array.isArray(value) ? value.map(plain) : value;

describe('extractJsonObject', () => {
  it('reads a bare object, a fenced one, and one surrounded by prose', () => {
    expect(plain(extractJsonObject('{"1": {"a": 1}}')?.value)).toEqual({ '1': { a: 1 } });
    expect(plain(extractJsonObject('```json\n{"1": 2}\n```')?.value)).toEqual({ '1': 2 });
    expect(plain(extractJsonObject('Sure! Here it is: {"1": "x {y}"} Hope this helps.')?.value)).toEqual({ '1': 'x {y}' });
  });

  it('does not repair truncated JSON', () => {
    expect(extractJsonObject('{"1": {"criteria_met": true}, "2": {"criteria_met": tr')).toBeUndefined();
  });

  it('reads NaN as Python json does (a number, refused as credit by every parser)', () => {
    expect(Number.isNaN((extractJsonObject('{"1": {"prob_met": NaN}}')?.value.get('1') as Map<string, unknown>).get('prob_met'))).toBe(true);
  });

  it('reports keys repeated at the top level (JSON.parse keeps only the last)', () => {
    const got = extractJsonObject('{"1": {"x": 1, "x": 2}, "2": 0, "1": {"y": "1\\"}"}}');
    expect([...(got?.duplicateKeys ?? [])]).toEqual(['1']);
  });

  it('ignores arrays and scalars, and does not look for an object inside valid JSON of another shape', () => {
    expect(extractJsonObject('[1, 2]')).toBeUndefined();
    expect(extractJsonObject('true')).toBeUndefined();
    expect(extractJsonObject('[{"criteria_met": true}]')).toBeUndefined();
    expect(extractJsonObject('"{\\"criteria_met\\": true}"')).toBeUndefined();
  });
});
