import type { CriterionJudgment } from '../../adapters/host-adapter.js';
import { findVerdictLiterals } from '../logprobs/verdict-literals.js';
import { verdictProbability, type TokenAlternatives } from '../logprobs/verdict-probability.js';

/**
 * P(true) of each criterion's verdict token in one answer, by request position: the verdict under
 * key "k+1" (batch prompts) or, for a one-criterion request, the answer's top-level verdict.
 * Undefined where the answer has no such verdict or no logprobs at it.
 */
export function logprobPs(content: string, tokens: readonly TokenAlternatives[] | undefined, criteriaCount: number): (number | undefined)[] {
  const out: (number | undefined)[] = new Array<number | undefined>(criteriaCount).fill(undefined);
  if (tokens === undefined || tokens.length === 0) return out;
  const verdicts = findVerdictLiterals(content);
  // Where the content starts in the generated text (servers and the transport may trim around it).
  const generated = tokens.map((t) => t.token).join('');
  const start = Math.max(0, generated.indexOf(content.trim()) - (content.length - content.trimStart().length));
  for (let k = 0; k < criteriaCount; k++) {
    const keyed = verdicts.find((v) => v.path.length === 1 && v.path[0] === String(k + 1));
    const single = criteriaCount === 1 ? verdicts.find((v) => v.path.length === 0) : undefined;
    const verdict = keyed ?? single;
    if (verdict !== undefined) out[k] = verdictProbability(tokens, verdict, start);
  }
  return out;
}

/** A read judgment with p replaced by the verdict token's P(true); unread ones are left to the failure policy. */
export function withLogprobP(judgment: CriterionJudgment, p: number | undefined, isRead: boolean): CriterionJudgment {
  if (!isRead || p === undefined) return judgment;
  return { ...judgment, p };
}
