import type { NodeType } from './vocabulary.js';

/**
 * The sign of a criterion's points fixes part of its role: a negative-point criterion takes points
 * away, so it is a penalty; a positive one earns points, so it is never a penalty. Zero points
 * constrain nothing. The pairwise strategy gives roles that never contradict the sign; the official
 * strategy keeps the model's labels (the paper's graphs) and counts the contradictions.
 */
export function contradictsSign(type: NodeType, points: number): boolean {
  if (points < 0) return type !== 'penalty';
  if (points > 0) return type === 'penalty';
  return false;
}

/**
 * A role reply is degenerate when the rubric has criteria of both signs and the reply gives every
 * one of them the same label: no single role fits a criterion that earns points and one that takes
 * them away, so the labels say nothing about the rubric (a small model's "all bonus").
 */
export function isDegenerateRoleReply(labels: readonly { readonly type: NodeType; readonly points: number }[]): boolean {
  if (labels.length < 2) return false;
  const hasPositive = labels.some((l) => l.points > 0);
  const hasNegative = labels.some((l) => l.points < 0);
  if (!hasPositive || !hasNegative) return false;
  const first = labels[0]?.type;
  return labels.every((l) => l.type === first);
}
