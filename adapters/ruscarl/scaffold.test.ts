import { describe, expect, it } from 'vitest';
import { createPrng } from '../../core/index.js';
import { buildScaffold, roundHalfEven, scaffoldRatio, RUSCARL_HEALTHBENCH_SCHEDULE } from './scaffold.js';

const items = [
  { criterion: 'Says calcium is normal.', points: 8 },
  { criterion: 'Recommends stretching.', points: 6 },
  { criterion: 'Invents a lab value.', points: -5 },
  { criterion: 'Neutral.', points: 0 },
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
