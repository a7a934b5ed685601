import type { VerdictLiteral } from './verdict-literals.js';

/** One generated token with the alternatives the server reported at its position. */
export interface TokenAlternatives {
  readonly token: string;
  readonly logprob: number;
  readonly top: readonly { readonly token: string; readonly logprob: number }[];
}

/**
 * P(true) for a verdict literal from the token distribution at its position: the probability mass
 * of alternatives that spell the start of `true` against those that spell the start of `false`,
 * renormalised over the two (G-Eval's reading of a score token, for a boolean). Undefined when the
 * answer carries no logprobs for that position or neither word appears among the alternatives.
 */
export function verdictProbability(tokens: readonly TokenAlternatives[], verdict: VerdictLiteral, contentStart = 0): number | undefined {
  // Offsets are in the answer's content; the tokens may carry text before it (a stripped newline).
  let offset = -contentStart;
  for (const token of tokens) {
    const end = offset + token.token.length;
    if (verdict.offset >= offset && verdict.offset < end) {
      // The chosen token may carry text before the literal (" true", ": true"): alternatives must too.
      const lead = token.token.slice(0, verdict.offset - offset);
      let yes = 0;
      let no = 0;
      const alternatives = token.top.length > 0 ? token.top : [{ token: token.token, logprob: token.logprob }];
      for (const alt of alternatives) {
        if (!alt.token.startsWith(lead) || !Number.isFinite(alt.logprob)) continue;
        const rest = alt.token.slice(lead.length);
        if (rest === '') continue;
        const mass = Math.exp(alt.logprob);
        if (spellsStartOf(rest, 'true')) yes += mass;
        else if (spellsStartOf(rest, 'false')) no += mass;
      }
      return yes + no > 0 ? yes / (yes + no) : undefined;
    }
    offset = end;
  }
  return undefined;
}

/** JSON allows whitespace before a value, so " true" after `":` is as much a "true" as "true". */
function spellsStartOf(piece: string, word: string): boolean {
  const bare = piece.trimStart();
  return bare !== '' && (word.startsWith(bare) || bare.startsWith(word));
}
