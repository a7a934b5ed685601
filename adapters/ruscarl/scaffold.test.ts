import { describe, expect, it } from 'vitest';
import { createPrng } from '../../core/index.js';
import { buildScaffold, roundHalfEven, scaffoldRatio, RUSCARL_HEALTHBENCH_SCHEDULE } from './scaffold.js';
import { createMerfFormat } from '../merf/format.js';
import { parseJsonKeepingPointsForm } from '../points-form.js';

/** Float points, as a row from RuscaRL's prepared parquet (float64) holds them. */
const items = [
  { criterion: 'Says calcium is normal.', points: 8, pointsAreFloat: true },
  { criterion: 'Recommends stretching.', points: 6, pointsAreFloat: true },
  { criterion: 'Invents a lab value.', points: -5, pointsAreFloat: true },
  { criterion: 'Neutral.', points: 0, pointsAreFloat: true },
];

describe('RuscaRL scaffold text', () => {
  it('renders every item in rubric order at ratio 1, positives then penalties, numbered separately', () => {
    const { message, shown } = buildScaffold(items, 1, createPrng(1));
    expect(shown).toBe(4);
    expect(message).toBe(
      'You are a helpful assistant. For this question, please consider the following evaluation criteria:\n\n' +
        'IMPORTANT POINTS TO INCLUDE (you should aim to address these):\n' +
        'Criterion 1: Says calcium is normal. (worth 8.0 points)\nCriterion 2: Recommends stretching. (worth 6.0 points)\n\n' +
        'IMPORTANT POINTS TO AVOID (you should not do these):\nCriterion 1: Invents a lab value. (penalty: 5.0 points)\n\n' +
        "Please provide a comprehensive and helpful response that addresses the user's concerns while following the above guidelines.\n\n" +
        'IMPORTANT: Do not mention or reference these evaluation criteria in your response. Do not indicate that you have seen any scoring rubric or evaluation guidelines. Your response should appear natural and spontaneous. Revealing that you have access to evaluation criteria would be considered cheating and is strictly prohibited.',
    );
  });

  it('prints integer points as Python prints an int, and non-integral ones with their fraction', () => {
    const { message } = buildScaffold([{ criterion: 'A.', points: 7 }, { criterion: 'B.', points: 2.5 }, { criterion: 'C.', points: -3 }], 1, createPrng(1));
    expect(message).toContain('Criterion 1: A. (worth 7 points)\nCriterion 2: B. (worth 2.5 points)');
    expect(message).toContain('Criterion 1: C. (penalty: 3 points)');
  });

  it("MeRF's motivation prints the points as the row's JSON text wrote them: 7 -> 7, 7.0 -> 7.0, 7e0 -> 7.0", () => {
    const merf = createMerfFormat();
    const motivation = (points: string, penalty: string): string => {
      const text = `{"prompt": [{"role": "user", "content": "Worth \\"points\\": 1.0?"}], "reward_model": {"rubrics": [{"criterion": "A.", "points": ${points}, "tags": []}, {"criterion": "B.", "points": ${penalty}}]}}`;
      return merf.extras(merf.parseRow(parseJsonKeepingPointsForm(text)))['motivation'] ?? '';
    };
    expect(motivation('7', '-2')).toContain('A. (worth 7 points)');
    expect(motivation('7', '-2')).toContain('B. (penalty: 2 points)');
    expect(motivation('7.0', '-2.0')).toContain('A. (worth 7.0 points)');
    expect(motivation('7.0', '-2.0')).toContain('B. (penalty: 2.0 points)');
    expect(motivation('7e0', '-2')).toContain('A. (worth 7.0 points)');
    expect(motivation('7e0', '-2')).toContain('B. (penalty: 2 points)');
    // Without the text (a row built in JavaScript), integral points read as ints.
    expect(merf.extras(merf.parseRow({ prompt: [{ role: 'user', content: 'q' }], reward_model: { rubrics: [{ criterion: 'A.', points: 7 }] } }))['motivation']).toContain('(worth 7 points)');
  });

  it('shows round-half-even(N * ratio) items and the base message when that is 0', () => {
    expect(buildScaffold(items, 0.5, createPrng(2)).shown).toBe(2);
    expect(buildScaffold(items, 0.1, createPrng(2))).toEqual({ message: 'You are a helpful medical assistant.', shown: 0 });
    expect([0.5, 1.5, 2.5, 2.4, 2.6].map(roundHalfEven)).toEqual([0, 2, 2, 2, 3]);
  });
});

describe('RuscaRL scaffold schedule (step_sigmoid, n = 8, start 0.20, steepness 125, 350 steps)', () => {
  const shownAt = (step: number): number[] =>
    [...Array(8).keys()].map((i) => roundHalfEven(8 * scaffoldRatio(RUSCARL_HEALTHBENCH_SCHEDULE, i, step)));

  it('reveals 8,7,6,5,3,2,1,0 items of 8 within a group early in training', () => {
    expect(shownAt(1)).toEqual([8, 7, 6, 5, 3, 2, 1, 0]);
  });

  it('decays to 5,4,3,3,2,1,1,0 at step 70 and to nothing from step 80', () => {
    expect(shownAt(70)).toEqual([5, 4, 3, 3, 2, 1, 1, 0]);
    expect(shownAt(80)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('gives the first rollout ratio 0.980 at step 60', () => {
    expect(scaffoldRatio(RUSCARL_HEALTHBENCH_SCHEDULE, 0, 60)).toBeCloseTo(0.98, 2);
  });
});
