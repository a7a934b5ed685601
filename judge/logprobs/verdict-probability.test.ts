import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findVerdictLiterals } from './verdict-literals.js';
import { verdictProbability, type TokenAlternatives } from './verdict-probability.js';

describe('findVerdictLiterals', () => {
  it('finds a top-level criteria_met with no keys above it', () => {
    const text = '{"explanation": "says \\"true\\" in prose", "criteria_met": false}';
    expect(findVerdictLiterals(text)).toEqual([{ path: [], field: 'criteria_met', value: false, offset: text.indexOf('false') }]);
  });

  it('finds keyed verdicts of a batch answer under their keys, in any key order', () => {
    const text = '```json\n{"2": {"criteria_met": true, "prob_met": 0.9}, "1": {"criteria_met": false, "prob_met": 0.2}}\n```';
    const found = findVerdictLiterals(text);
    expect(found.map((v) => [v.path, v.value])).toEqual([
      [['2'], true],
      [['1'], false],
    ]);
  });

  it('skips a reasoning block before the answer', () => {
    const text = '<think>{"1": {"criteria_met": true}}</think>{"1": {"criteria_met": false}}';
    const found = findVerdictLiterals(text);
    expect(found).toHaveLength(1);
    expect(found[0]?.value).toBe(false);
    expect(found[0]?.offset).toBeGreaterThan(text.indexOf('</think>'));
  });

  it('ignores booleans under other field names and inside strings', () => {
    expect(findVerdictLiterals('{"note": "criteria_met: true", "other": true}')).toEqual([]);
  });

  it('reads any text in one linear pass (100 kB of nesting and quotes)', () => {
    fc.assert(
      fc.property(fc.constantFrom('{', '[', '"', ':', 'true', ',', '}', ' '), fc.integer({ min: 1000, max: 20_000 }), (piece, times) => {
        expect(Array.isArray(findVerdictLiterals(piece.repeat(times)))).toBe(true);
      }),
      { numRuns: 30 },
    );
  });
});

describe('verdictProbability', () => {
  const tokensOf = (pieces: readonly [string, readonly [string, number][]][]): TokenAlternatives[] =>
    pieces.map(([token, top]) => ({ token, logprob: top.find(([t]) => t === token)?.[1] ?? 0, top: top.map(([t, logprob]) => ({ token: t, logprob })) }));

  it('renormalises the mass of "true" against "false" at the verdict token', () => {
    const text = '{"criteria_met": true}';
    const tokens = tokensOf([
      ['{"', []],
      ['criteria', []],
      ['_met', []],
      ['":', []],
      [' true', [[' true', Math.log(0.6)], [' false', Math.log(0.2)], [' "', Math.log(0.2)]]],
      ['}', []],
    ]);
    const [verdict] = findVerdictLiterals(text);
    // 0.6 / (0.6 + 0.2) = 0.75: the 0.2 on '"' is neither word and drops out.
    expect(verdictProbability(tokens, verdict!)).toBeCloseTo(0.75, 12);
  });

  it('counts prefixes of a word split over tokens ("tr" + "ue")', () => {
    const text = '{"criteria_met":true}';
    const tokens = tokensOf([
      ['{"criteria_met":', []],
      ['tr', [['tr', Math.log(0.3)], ['f', Math.log(0.7)]]],
      ['ue}', []],
    ]);
    expect(verdictProbability(tokens, findVerdictLiterals(text)[0]!)).toBeCloseTo(0.3, 12);
  });

  it('is undefined when neither word is among the alternatives', () => {
    const text = '{"criteria_met": true}';
    const tokens = tokensOf([
      ['{"criteria_met": ', []],
      ['true', [['yes', Math.log(0.9)]]],
      ['}', []],
    ]);
    expect(verdictProbability(tokens, findVerdictLiterals(text)[0]!)).toBeUndefined();
  });
});
