import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HostFormat } from '../host-adapter.js';
import { createOfficialGearFormat } from '../official-gear/format.js';
import { createRuscarlFormat } from '../ruscarl/format.js';
import { createRarExplicitFormat } from '../rar-explicit/format.js';
import { createScoredFormat } from '../scored/format.js';
import { extractPointSubitems } from '../scored/subitems.js';
import { pyJsonLoads } from './python-json.js';

/*
 * Item 9/14 of issue 10: no judge output may stall the process or exhaust its stack. Each parser
 * reads 100 KB outputs built to trigger backtracking, rescanning and recursion; the bound is the
 * test's timeout (a quadratic step on 100 KB is ~10^10 operations and would not finish in it).
 */

const prompt = [{ role: 'user', content: 'q' }];
const official = { prompt, reward_model: { rubrics: [{ criterion: 'a', points: 5 }, { criterion: 'b', points: -3 }] } };
const scored = {
  prompt,
  reward_model: {
    rubrics: [
      { criterion: '(+2分) a (+3分) b', points: 5, tags: { score_type: 'partial_points' } },
      { criterion: 'c', points: 10, tags: { score_type: 'scale_1_10' } },
    ],
  },
};
const PARSERS: readonly [string, HostFormat<unknown>, unknown][] = [
  ['gear judge_prob', createOfficialGearFormat('judge_prob') as HostFormat<unknown>, official],
  ['gear binary', createOfficialGearFormat('binary') as HostFormat<unknown>, official],
  ['ruscarl', createRuscarlFormat() as HostFormat<unknown>, { prompt, reward_model: { rubrics: [{ criterion: 'a', points: 5 }] } }],
  ['writingbench', createScoredFormat('writingbench') as HostFormat<unknown>, scored],
  ['plawbench prob', createScoredFormat('plawbench') as HostFormat<unknown>, scored],
  ['plawbench binary', createScoredFormat('plawbench', { piMode: 'binary' }) as HostFormat<unknown>, scored],
  ['rar-explicit', createRarExplicitFormat() as HostFormat<unknown>, { question: 'q', rubric: [{ title: 't', description: 'Essential Criteria: x', weight: 1 }] }],
];

const SIZE = 100_000;
const fill = (unit: string, tail = ''): string => unit.repeat(Math.ceil(SIZE / unit.length)) + tail;

/** Inputs aimed at each scan: fences, braces, digit runs, whitespace after keys, unterminated values, nesting. */
const ADVERSARIAL: readonly [string, string][] = [
  ['``` then spaces then x', `\`\`\`${' '.repeat(SIZE)}x`],
  ['fences without a body end', fill('```json ')],
  ['open braces', fill('{')],
  ['close braces', fill('}')],
  ['open brackets (nesting)', fill('[')],
  ['nested objects', fill('{"a":')],
  ['nested arrays closed', `${'['.repeat(SIZE / 2)}${']'.repeat(SIZE / 2)}`],
  ['digits', fill('1')],
  ['digits then spaces', `1${' '.repeat(SIZE)}x`],
  ['keys opening items', fill('"1": {')],
  ['criteria_met keys followed by spaces', fill(`"criteria_met"${' '.repeat(50)}`)],
  ['item verdicts missing the close', fill('"1": {"criteria_met": true, "prob_met": 0.5 ')],
  ['explanations never closed', fill('{"explanation": "')],
  ['explanations with quotes', fill('"explanation": " a " b ')],
  ['subitem headers', fill('"1": {"subitems": {')],
  ['subitem probabilities unterminated', fill('"1": {"prob_met": 1e')],
  ['scores in one brace-less body', `"1": {${fill('"score": 1 ')}`],
  ['numbers with long fractions', `{"1": {"score": 0.${'1'.repeat(SIZE)}}}`],
  ['think tags', fill('<think>')],
  ['closing think tags', fill('</think>{')],
  ['strings never closed', `{"1": "${'\\"'.repeat(SIZE / 2)}`],
  ['Python literals', fill('True, False, ')],
];

describe('judge output of any shape is read in linear time without exhausting the stack', () => {
  it.each(PARSERS.map(([name, format, row]) => [name, format, row] as const))(
    '%s reads every 100 KB adversarial output',
    (_, format, rowInput) => {
      const row = format.parseRow(rowInput);
      const [criteria] = format.planJudgeRequests(row);
      for (const [name, text] of ADVERSARIAL) {
        const judgments = format.parseJudgeOutput(row, criteria ?? [], text);
        expect(judgments.length, name).toBe(criteria?.length);
        for (const j of judgments) expect(j.p >= 0 && j.p <= 1, name).toBe(true);
      }
    },
    20_000,
  );

  it('parses 100 KB-deep JSON nesting without recursion (refused past MAX_JSON_DEPTH)', () => {
    expect(pyJsonLoads(`${'['.repeat(SIZE)}${']'.repeat(SIZE)}`)).toEqual({ ok: false, tooDeep: true });
    expect(pyJsonLoads(`${'['.repeat(512)}${']'.repeat(512)}`).ok).toBe(true);
  });

  it('splits PLawBench subitems of a 100 KB criterion in linear time', () => {
    const criterion = `(+1${' '.repeat(SIZE)}x ${fill('(+2分 ')}`;
    expect(extractPointSubitems(criterion, 5)).toEqual([{ points: 5, text: criterion.trim() }]);
  }, 5_000);
});

const TOKENS = ['{', '}', '[', ']', ',', ':', '"', '"1"', '"2"', '"r1"', ' ', '\n', 'true', 'True', 'false', 'null', 'NaN', '0.5', '1e400', '-1', '"criteria_met"', '"prob_met"', '"score"', '"awarded_points"', '"subitems"', '"explanation"', '"satisfied"', '```', '```json', '<think>', '</think>', '"yes"', '是', '\\'];

describe('judge output fuzzing', () => {
  it('never throws, and gives one judgment per criterion with p in [0, 1]', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 80 }).map((t) => t.join('')), fc.constantFrom(...PARSERS), (text, [, format, rowInput]) => {
        const row = format.parseRow(rowInput);
        for (const criteria of format.planJudgeRequests(row)) {
          const judgments = format.parseJudgeOutput(row, criteria, text);
          expect(judgments.map((j) => j.index)).toEqual(criteria);
          for (const j of judgments) {
            expect(j.p >= 0 && j.p <= 1 && Number.isFinite(j.p)).toBe(true);
            if (j.status === 'ok' || j.status === 'clamped' || j.status === 'flipped' || j.status === 'partial') continue;
            expect([j.p, j.met]).toEqual([0, false]);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
