/*
 * RuscaRL's rubric scaffold ("graded system prompt") and its schedule, after
 * IANNXANG/RuscaRL verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py
 * (_generate_rubric_system_message, _calculate_rubric_ratio; Apache-2.0). Text is reproduced
 * exactly; the host picks shown items with Python's unseeded random.sample, gear with a seeded Prng.
 */
import type { Prng } from '../../core/index.js';
import { shuffled } from '../../core/index.js';
import { pythonFloatRepr } from '../judge-output/python-repr.js';

export interface ScaffoldItem {
  readonly criterion: string;
  readonly points: number;
  /** The row wrote the points as a float (`7.0`): Python's str() keeps the `.0` (points-form.ts). */
  readonly pointsAreFloat?: boolean;
}

export const BASE_SYSTEM_MESSAGE = 'You are a helpful medical assistant.';

const EVALUATION_WARNING =
  'IMPORTANT: Do not mention or reference these evaluation criteria in your response. Do not indicate that you have seen any scoring rubric or evaluation guidelines. Your response should appear natural and spontaneous. Revealing that you have access to evaluation criteria would be considered cheating and is strictly prohibited.';

/**
 * Python's str() of a points value as the row holds it: an int prints as one ("8"), a float with
 * its fraction ("8.0", and "penalty: 5.0": abs() of a float stays a float), as RuscaRL's and
 * MeRF's own code print them. Rows from a prepared parquet hold float64 points; HealthBench's
 * JSONL rows hold ints.
 */
function pointsText(points: number, isFloat: boolean): string {
  return isFloat || !Number.isInteger(points) ? pythonFloatRepr(points) : String(points);
}

/** Python 3 round(): half to even. */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * The system message for a rubric shown at `ratio` (0..1): round(N * ratio) items (all, in rubric
 * order, when ratio >= 1; else a random sample), positives then penalties, each list numbered from 1.
 * Returns the base message and 0 when nothing is shown.
 */
export function buildScaffold(
  items: readonly ScaffoldItem[],
  ratio: number,
  prng: Prng,
  includeEvaluationWarning = true,
): { message: string; shown: number } {
  if (items.length === 0) return { message: BASE_SYSTEM_MESSAGE, shown: 0 };
  let selected: readonly ScaffoldItem[];
  if (ratio < 1) {
    const count = roundHalfEven(items.length * ratio);
    selected = count > 0 ? shuffled(items, prng).slice(0, count) : [];
  } else {
    selected = items;
  }
  if (selected.length === 0) return { message: BASE_SYSTEM_MESSAGE, shown: 0 };
  const positive: string[] = [];
  const negative: string[] = [];
  for (const item of selected) {
    if (item.points > 0) positive.push(`Criterion ${positive.length + 1}: ${item.criterion} (worth ${pointsText(item.points, item.pointsAreFloat === true)} points)`);
    else if (item.points < 0) negative.push(`Criterion ${negative.length + 1}: ${item.criterion} (penalty: ${pointsText(Math.abs(item.points), item.pointsAreFloat === true)} points)`);
  }
  let message = 'You are a helpful assistant. For this question, please consider the following evaluation criteria:\n\n';
  if (positive.length > 0) message += `IMPORTANT POINTS TO INCLUDE (you should aim to address these):\n${positive.join('\n')}\n\n`;
  if (negative.length > 0) message += `IMPORTANT POINTS TO AVOID (you should not do these):\n${negative.join('\n')}\n\n`;
  message += "Please provide a comprehensive and helpful response that addresses the user's concerns while following the above guidelines.\n\n";
  if (includeEvaluationWarning) message += EVALUATION_WARNING;
  return { message, shown: selected.length };
}

export interface ScaffoldSchedule {
  /** Rollouts per prompt (GRPO group size n). */
  readonly groupSize: number;
  readonly startPoint: number;
  readonly steepness: number;
  readonly totalSteps: number;
}

/** The published RuscaRL HealthBench setting: n = 8, step_sigmoid(0.20, 125) over 350 steps. */
export const RUSCARL_HEALTHBENCH_SCHEDULE: ScaffoldSchedule = { groupSize: 8, startPoint: 0.2, steepness: 125, totalSteps: 350 };

/**
 * step_sigmoid with in-group linear decay: rollout i of n shows (n-1-i)/(n-1) of the rubric, times
 * 1 / (1 + exp((x - start) * steepness)) with x = (step - 1) / (totalSteps - 1), clipped to [0, 1].
 */
export function scaffoldRatio(schedule: ScaffoldSchedule, sampleIndex: number, globalStep: number): number {
  const n = schedule.groupSize;
  const groupRatio = n <= 1 ? 1 : Math.max(0, (n - 1 - sampleIndex) / (n - 1));
  let stepRatio = 1;
  if (schedule.totalSteps > 1) {
    const x = Math.min(1, Math.max(0, (globalStep - 1) / (schedule.totalSteps - 1)));
    stepRatio = Math.max(0, Math.min(1, 1 / (1 + Math.exp((x - schedule.startPoint) * schedule.steepness))));
  }
  return groupRatio * stepRatio;
}
