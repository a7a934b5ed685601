import { describe, expect, it } from 'vitest';
import { extractPointSubitems } from '../scored/subitems.js';
import { appendMissingJsonClosers, dropCutTail, extractJsonCandidates, fencedBlocks } from './json-candidates.js';
import { parseNumericKey } from './numeric-keys.js';
import { pythonFormatG } from './python-repr.js';
import { pyCollapseWhitespace, pyFloatOfString, pyStrip } from './python-text.js';
import { stripReasoning } from './reasoning.js';

describe('stripReasoning', () => {
  it.each([
    ['<think>draft {"a": 1}</think>{"a": 2}', '{"a": 2}'],
    ['<THINK>x</Think> answer <think>y</think>!', ' answer !'],
    ['prefix <think>draft {"a": 1}', 'prefix '],
    ['reasoning the template opened </think>{"a": 2}', '{"a": 2}'],
    ['<think>a<think>b</think>c</think>d', 'd'],
    ['no reasoning', 'no reasoning'],
  ])('%j -> %j', (text, expected) => {
    expect(stripReasoning(text)).toBe(expected);
  });
});

describe("the official parser's key names (_parse_numeric_key)", () => {
  it.each([
    ['1', 1],
    [' 03 ', 3],
    ['r2', 2],
    ['R_2', 2],
    ['rubric 3', 3],
    ['item-1', 1],
    ['criterion 2', 2],
    ['4', undefined],
    ['0', undefined],
    ['1a', undefined],
    ['x1', undefined],
    ['9'.repeat(30), undefined],
  ])('%j names item %s of 3', (key, expected) => {
    expect(parseNumericKey(key, 3)).toBe(expected);
  });
});

describe('JSON candidates as the official parsers find them', () => {
  it('takes fence bodies pairwise, with or without "json", and stops at an unclosed fence', () => {
    expect(fencedBlocks('a ```json\n{"x": 1}\n``` b ```{"y": 2}``` c ```JSON {"z": 3}')).toEqual(['{"x": 1}', '{"y": 2}']);
  });

  it('counts braces inside strings for the first balanced candidate, as the host does', () => {
    expect(extractJsonCandidates('see {"a": "}"} and {"b": 1}')).toEqual(['see {"a": "}"} and {"b": 1}', '{"a": "}']);
  });

  it('closes a truncated tail, and drops a value the truncation may have cut', () => {
    expect(appendMissingJsonClosers('{"1": {"s": [1, 2')).toBe('{"1": {"s": [1, 2]}}');
    expect(appendMissingJsonClosers(dropCutTail('{"1": {"score": 8}, "2": {"score": 1'))).toBe('{"1": {"score": 8}, "2": {}}');
    expect(appendMissingJsonClosers(dropCutTail('{"1": {"a": "tex'))).toBe('{"1": {}}');
    expect(dropCutTail('{"1": true')).toBe('{"1": true');
  });
});

describe("Python's text rules", () => {
  it('strips and splits on str.isspace() characters, not only ASCII', () => {
    expect(pyStrip('\x1c\u3000 a b \x85')).toBe('a b');
    expect(pyCollapseWhitespace(' a\n\t b\u00a0c ')).toBe('a b c');
    expect('\ufeffa'.trim()).toBe('a');
    expect(pyStrip('\ufeffa')).toBe('\ufeffa');
  });

  it('reads float() of strings', () => {
    expect([' 0.5 ', '1_000', '5.', '.5', '-1e-3', 'inf', '-Infinity'].map(pyFloatOfString)).toEqual([0.5, 1000, 5, 0.5, -0.001, Infinity, -Infinity]);
    expect(Number.isNaN(pyFloatOfString('nan'))).toBe(true);
    expect(['', 'abc', '1__0', '0x10', '1e'].map(pyFloatOfString)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it.each([
    [2, '2'],
    [0.5, '0.5'],
    [1234567, '1.23457e+06'],
    [123456, '123456'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [33.333333333, '33.3333'],
    [-3, '-3'],
    [999999.5, '1e+06'],
  ])('formats %s as Python f"{x:g}": %s', (x, expected) => {
    expect(pythonFormatG(x)).toBe(expected);
  });
});

describe('PLawBench subitems', () => {
  it('splits at (+N分) markers, ASCII or full-width, 分 optional, clamped to the item', () => {
    expect(extractPointSubitems('【结论得分】\n(+2分) 甲有权主张。（＋ 3 分）乙无权。(+9) 过多', 10)).toEqual([
      { points: 2, text: '甲有权主张。（＋ 3 分）乙无权。' },
      { points: 9, text: '过多' },
    ]);
    expect(extractPointSubitems('（+2分）甲。(+1.5 分) 乙', 3)).toEqual([
      { points: 2, text: '甲。' },
      { points: 1.5, text: '乙' },
    ]);
    expect(extractPointSubitems('no markers', 4)).toEqual([{ points: 4, text: 'no markers' }]);
    expect(extractPointSubitems('前文说明(+2分)', 2)).toEqual([{ points: 2, text: '前文说明' }]);
  });
});
