import type { GraphRow, RubricItem } from '../model/graph-row.js';
import { contradictsSign, isDegenerateRoleReply } from '../model/role-rules.js';
import { isNodeType, signNodeType, type NodeType } from '../model/vocabulary.js';
import { budgetFor, type AnnotationContext } from './annotation-context.js';
import { readReplyList } from './read-reply.js';
import { countAnswer, type RequestTally } from './request-tally.js';
import { nodeResponseSchema } from './response-schemas.js';
import { rolePrompt } from './user-prompts.js';

export type NodeParseStatus = 'full' | 'partial' | 'failed' | 'not_applicable';

export interface RoleAnnotation {
  /** A role for every criterion: the annotator's, else the sign fallback. */
  readonly nodeTypes: ReadonlyMap<string, NodeType>;
  readonly judged: number;
  /** Criteria no reply labelled, given the official sign-based role (penalty if points < 0, else foundation). */
  readonly fallback: number;
  readonly parseStatus: NodeParseStatus;
  readonly requests: number;
  readonly reasks: number;
  /** Replies cut off by max_tokens (finish_reason "length"). */
  readonly truncated: number;
  /** Replies from which no label list could be read. */
  readonly unreadable: number;
  /** A criterion labelled twice in one reply (the later label is kept, as officially). */
  readonly duplicateLabels: number;
  /** Labels for ids not asked about, or with a type outside the vocabulary. */
  readonly invalidLabels: number;
  /**
   * Kept labels the criterion's sign contradicts (a negative-point foundation, a positive penalty).
   * The official strategy keeps them, as the official builder does, so its graphs stay the paper's;
   * they are counted and the row is never `full`.
   */
  readonly signContradictions: number;
  /** Replies that gave every criterion of a both-signs chunk one label (counted; the row is never `full`). */
  readonly degenerateReplies: number;
}

/**
 * Stage 1: one request with every criterion (official), with an output budget sized to the
 * rubric; then, for the criteria still unlabelled (a reply cut off, unreadable or incomplete),
 * up to `roleReasks` re-asks of only those criteria, in halves, then quarters (a smaller request
 * is a different prompt, so a deterministic model can answer differently, and it fits its budget).
 * Criteria never labelled fall back to the sign rule and are counted.
 *
 * @throws JudgeTransportError when an endpoint cannot answer (the row is retried on a later run).
 */
export async function annotateRoles(ctx: AnnotationContext, row: GraphRow, tally: RequestTally): Promise<RoleAnnotation> {
  const { client, profile, settings } = ctx;
  const labelled = new Map<string, NodeType>();
  let requests = 0;
  let reasks = 0;
  let truncated = 0;
  let unreadable = 0;
  let duplicateLabels = 0;
  let invalidLabels = 0;
  let degenerateReplies = 0;
  const pointsOf = new Map(row.rubrics.map((r) => [r.id, r.points]));

  const ask = async (chunk: readonly RubricItem[]): Promise<void> => {
    const ids = chunk.map((r) => r.id);
    requests++;
    const answer = await client.ask({
      messages: [
        { role: 'system', content: profile.nodeSystemPrompt },
        { role: 'user', content: rolePrompt(row, chunk, profile, settings) },
      ],
      decoding: { ...settings.decoding, max_tokens: budgetFor(settings.roleBudget, chunk.length) },
      ...(settings.jsonSchema ? { responseFormat: { name: 'gear_node_annotation', schema: nodeResponseSchema(ids) } } : {}),
    }).catch((error: unknown) => {
      tally.failed++;
      throw error;
    });
    countAnswer(tally, answer);
    if (answer.finishReason === 'length') truncated++;
    const read = readReplyList(answer.content, 'nodes');
    if (read.items === undefined) {
      unreadable++;
      return;
    }
    const asked = new Set(ids);
    const seen = new Set<string>();
    const replyLabels: { type: NodeType; points: number }[] = [];
    for (const item of read.items) {
      const record = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
      const id = record['id'];
      const type = record['node_type'];
      if (typeof id !== 'string' || !asked.has(id) || !isNodeType(type)) {
        invalidLabels++;
        continue;
      }
      if (seen.has(id)) duplicateLabels++;
      seen.add(id);
      labelled.set(id, type);
      replyLabels.push({ type, points: pointsOf.get(id) ?? 0 });
    }
    if (isDegenerateRoleReply(replyLabels)) degenerateReplies++;
  };

  const total = row.rubrics.length;
  for (let attempt = 0; attempt <= settings.roleReasks; attempt++) {
    const pending = row.rubrics.filter((r) => !labelled.has(r.id));
    if (pending.length === 0) break;
    if (attempt > 0) reasks++;
    const size = Math.max(1, Math.ceil(total / 2 ** attempt));
    const chunks: RubricItem[][] = [];
    for (let i = 0; i < pending.length; i += size) chunks.push(pending.slice(i, i + size));
    await Promise.all(chunks.map(ask));
  }

  const nodeTypes = new Map<string, NodeType>(row.rubrics.map((r) => [r.id, labelled.get(r.id) ?? signNodeType(r.points)]));
  const judged = labelled.size;
  const signContradictions = row.rubrics.filter((r) => {
    const type = labelled.get(r.id);
    return type !== undefined && contradictsSign(type, r.points);
  }).length;
  const clean = signContradictions === 0 && degenerateReplies === 0;
  const parseStatus: NodeParseStatus = total === 0 ? 'not_applicable' : judged === 0 ? 'failed' : judged < total || !clean ? 'partial' : 'full';
  return { nodeTypes, judged, fallback: total - judged, parseStatus, requests, reasks, truncated, unreadable, duplicateLabels, invalidLabels, signContradictions, degenerateReplies };
}
