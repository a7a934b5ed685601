import type { JudgeAnswer } from '../../judge/pipeline/judge-client.js';

/** "y", "ye", "yes", " Yes", "yes." all begin the word: the first token of an answer need not be all of it. */
function begins(piece: string, word: string): boolean {
  const bare = piece.trim().toLowerCase().replace(/[^a-z]+$/u, '');
  return bare !== '' && (word.startsWith(bare) || bare === word);
}

/**
 * P(yes) of a one-word yes/no answer: the probability mass the first token's alternatives give to
 * spellings of "yes" against those of "no", renormalised over the two (the verdict token's
 * probability rather than its greedy text, so a threshold can trade precision for recall). Without
 * logprobs (a server that does not return them) the answer's own word decides: 1 or 0. Undefined
 * when the answer is neither: an unreadable reply, never a "no".
 */
export function yesProbability(answer: Pick<JudgeAnswer, 'content' | 'logprobs'>): number | undefined {
  const first = answer.logprobs?.[0];
  if (first !== undefined) {
    const alternatives = first.top.length > 0 ? first.top : [{ token: first.token, logprob: first.logprob }];
    let yes = 0;
    let no = 0;
    for (const alt of alternatives) {
      if (!Number.isFinite(alt.logprob)) continue;
      if (begins(alt.token, 'yes')) yes += Math.exp(alt.logprob);
      else if (begins(alt.token, 'no')) no += Math.exp(alt.logprob);
    }
    if (yes + no > 0) return yes / (yes + no);
  }
  const word = /^[\s"'*]*(yes|no)\b/iu.exec(answer.content)?.[1]?.toLowerCase();
  return word === 'yes' ? 1 : word === 'no' ? 0 : undefined;
}
