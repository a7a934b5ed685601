import { JudgeTransportError } from '../../judge/transport/transport-error.js';
import type { GraphRow } from '../model/graph-row.js';
import { budgetFor, type AnnotationContext } from './annotation-context.js';
import type { CandidatePair } from './candidate-pairs.js';
import { readReplyList } from './read-reply.js';
import { countAnswer, type RequestTally } from './request-tally.js';
import { edgeResponseSchema } from './response-schemas.js';
import { edgePrompt } from './user-prompts.js';

export interface EdgeAnnotation {
  /** Every item of every readable reply, as given: validation decides what becomes an edge. */
  readonly decisions: readonly unknown[];
  readonly requests: number;
  /** Batches split in two after a failed request or an unreadable reply. */
  readonly splits: number;
  /** Requests that asked again only for the pairs a readable reply left undecided. */
  readonly reasks: number;
  readonly truncated: number;
  /** Replies from which no decision list could be read (a counted failure, never "no edges"). */
  readonly unreadable: number;
  /** Pairs no request could decide: an unreadable reply, or a request the endpoint refused, for the pair alone. */
  readonly failedPairs: number;
  /** Pairs that readable replies never decided, after the re-asks. */
  readonly undecidedPairs: number;
}

const pairKey = (parent: unknown, child: unknown): string => `${String(parent)}\u0000${String(child)}`;

/**
 * A request the endpoint refused for this prompt (a 4xx such as 400, or a body that was no
 * completion until the deadline): a smaller batch may pass.
 */
function isRequestSpecific(error: unknown): boolean {
  return error instanceof JudgeTransportError && (error.kind === 'client-error' || (error.kind === 'deadline' && error.last === 'bad-response'));
}

/**
 * Stage 3: candidate pairs in batches of `edgeBatchSize` (official 8), all batches of the row at
 * once (the transport bounds what is in flight per endpoint). A failed request or an unreadable
 * reply splits the batch in two and retries the halves, down to single pairs, which are then
 * counted as failed. Pairs a readable reply leaves out are asked again alone (`edgeReasks` times).
 *
 * @throws JudgeTransportError when an endpoint is unavailable (timeouts, connection errors,
 *   retries exhausted): the row is retried on a later run instead of being written with holes.
 */
export async function annotateEdges(ctx: AnnotationContext, row: GraphRow, candidates: readonly CandidatePair[], tally: RequestTally): Promise<EdgeAnnotation> {
  const { client, profile, settings } = ctx;
  const decisions: unknown[] = [];
  const counts = { requests: 0, splits: 0, reasks: 0, truncated: 0, unreadable: 0, failedPairs: 0, undecidedPairs: 0 };

  const split = async (pairs: readonly CandidatePair[], reasksLeft: number): Promise<void> => {
    counts.splits++;
    const middle = Math.ceil(pairs.length / 2);
    await Promise.all([run(pairs.slice(0, middle), reasksLeft), run(pairs.slice(middle), reasksLeft)]);
  };

  const run = async (pairs: readonly CandidatePair[], reasksLeft: number): Promise<void> => {
    counts.requests++;
    let answer;
    try {
      answer = await client.ask({
        messages: [
          { role: 'system', content: profile.edgeSystemPrompt },
          { role: 'user', content: edgePrompt(row, pairs, profile, settings) },
        ],
        decoding: { ...settings.decoding, max_tokens: budgetFor(settings.edgeBudget, pairs.length) },
        ...(settings.jsonSchema ? { responseFormat: { name: 'gear_edge_annotation', schema: edgeResponseSchema(pairs) } } : {}),
      });
    } catch (error) {
      tally.failed++;
      if (!isRequestSpecific(error)) throw error;
      if (pairs.length > 1) return split(pairs, reasksLeft);
      counts.failedPairs += pairs.length;
      return;
    }
    countAnswer(tally, answer);
    if (answer.finishReason === 'length') counts.truncated++;
    const read = readReplyList(answer.content, 'edges');
    if (read.items === undefined) {
      counts.unreadable++;
      if (pairs.length > 1) return split(pairs, reasksLeft);
      counts.failedPairs += pairs.length;
      return;
    }
    decisions.push(...read.items);
    const decided = new Set<string>();
    for (const item of read.items) {
      if (typeof item === 'object' && item !== null) decided.add(pairKey((item as Record<string, unknown>)['parent'], (item as Record<string, unknown>)['child']));
    }
    const missing = pairs.filter((p) => !decided.has(pairKey(p.parent, p.child)));
    if (missing.length === 0) return;
    // The same pairs again would be the same prompt (and, at temperature 0, the same answer): ask halves instead.
    if (missing.length === pairs.length && pairs.length > 1) return split(pairs, reasksLeft);
    if (reasksLeft > 0 && missing.length < pairs.length) {
      counts.reasks++;
      return run(missing, reasksLeft - 1);
    }
    counts.undecidedPairs += missing.length;
  };

  const batches: CandidatePair[][] = [];
  for (let i = 0; i < candidates.length; i += settings.edgeBatchSize) batches.push(candidates.slice(i, i + settings.edgeBatchSize));
  await Promise.all(batches.map((b) => run(b, settings.edgeReasks)));
  return { decisions, ...counts };
}
