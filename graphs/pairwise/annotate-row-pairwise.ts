import type { JudgeAnswer } from '../../judge/pipeline/judge-client.js';
import type { AnnotationContext } from '../build/annotation-context.js';
import { countAnswer, type RequestTally } from '../build/request-tally.js';
import { truncateText } from '../build/user-prompts.js';
import type { GraphRow, RubricItem } from '../model/graph-row.js';
import { signNodeType, type NodeType } from '../model/vocabulary.js';
import { candidateParents } from './lexical-candidates.js';
import { PAIR_SYSTEM_PROMPT, pairPromptPrefix, pairQuestion } from './pair-prompts.js';
import { yesProbability } from './yes-probability.js';

/** One asked pair: does `child` build on `parent`? */
export interface PairVerdict {
  readonly parent: string;
  readonly child: string;
  readonly similarity: number;
  /** P(yes); undefined when the reply was unreadable. */
  readonly pYes: number | undefined;
  /** P(yes) of the reversed question, asked only for a degenerate row. */
  readonly pReverse?: number | undefined;
}

export interface PairwiseAnnotation {
  readonly nodeTypes: ReadonlyMap<string, NodeType>;
  readonly edges: readonly { parent: string; child: string; type: 'weak_prerequisite' }[];
  readonly verdicts: readonly PairVerdict[];
  readonly requests: number;
  readonly unreadable: number;
  /** All readable answers of the row said yes (at least 4 of them): the reversed questions were asked too. */
  readonly degenerate: boolean;
  readonly reverseQuestions: number;
  /** Edges left out because they would close a cycle with better-scored ones. */
  readonly cycleDrops: number;
  /** Positive criteria whose every question went unreadable (role by the sign rule, no parent). */
  readonly fallback: number;
}

const logit = (p: number): number => Math.log(Math.max(p, 1e-6) / Math.max(1 - p, 1e-6));

/** Compares two strings; ties between equal scores are broken by criterion text, which the rubric's order does not change. */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The pairwise strategy for one row. The sign decides penalties. For every criterion, the
 * `pairCandidates` positive criteria that share the most topic terms with it are its candidate
 * parents, and the model answers one yes/no question per pair ("does X build on Y?"); the answer's
 * P(yes) from the verdict token's logprobs, plus the pair's topic similarity, scores the pair. A
 * pair scoring at least `edgeThreshold` becomes a weak prerequisite, best first, at most
 * `maxParents` per child and never closing a cycle. Roles follow from the graph: a parent is a
 * foundation; a positive criterion with a parent, no child and no more points than its parent is a
 * bonus (a refinement of the criterion it builds on); every other positive criterion is a foundation.
 *
 * @throws JudgeTransportError when an endpoint is unavailable (the row is retried on a later run).
 */
export async function annotatePairwise(ctx: AnnotationContext, row: GraphRow, tally: RequestTally): Promise<PairwiseAnnotation> {
  const { client, profile, settings } = ctx;
  const cut = (text: string): string => (profile.truncateMessages ? truncateText(text, settings.promptHeadChars, settings.promptTailChars) : text);
  const prefix = pairPromptPrefix(row, cut);
  const indexOf = new Map(row.rubrics.map((r, i) => [r.id, i]));
  const candidates = candidateParents(row.rubrics, settings.pairCandidates);
  let requests = 0;

  const ask = async (childIndex: number, parentIndex: number): Promise<number | undefined> => {
    requests++;
    let answer: JudgeAnswer;
    try {
      answer = await client.ask({
        messages: [
          { role: 'system', content: PAIR_SYSTEM_PROMPT },
          { role: 'user', content: prefix + pairQuestion(childIndex, parentIndex) },
        ],
        decoding: { ...settings.decoding, max_tokens: 1 },
        logprobs: { top: 10 },
      });
    } catch (error) {
      tally.failed++;
      throw error;
    }
    countAnswer(tally, answer);
    return yesProbability(answer);
  };

  // Rubric order for the requests: a child's questions follow one another, as the cache likes.
  const asked: { parent: string; child: string; similarity: number }[] = [];
  row.rubrics.forEach((child) => {
    for (const parent of candidates.get(child.id) ?? []) asked.push({ parent: parent.id, child: child.id, similarity: parent.similarity });
  });
  const answers = await Promise.all(asked.map((p) => ask(indexOf.get(p.child) as number, indexOf.get(p.parent) as number)));
  let verdicts: PairVerdict[] = asked.map((p, i) => ({ ...p, pYes: answers[i] }));

  const readable = verdicts.filter((v) => v.pYes !== undefined);
  const degenerate = readable.length >= 4 && readable.every((v) => (v.pYes as number) >= 0.5);
  let reverseQuestions = 0;
  if (degenerate) {
    // "Yes" to every pair tells nothing about direction: ask each pair the other way round and
    // keep a pair only when its own direction is the more likely one.
    reverseQuestions = verdicts.length;
    const reverse = await Promise.all(verdicts.map((v) => ask(indexOf.get(v.parent) as number, indexOf.get(v.child) as number)));
    verdicts = verdicts.map((v, i) => ({ ...v, pReverse: reverse[i] }));
  }

  const score = (v: PairVerdict): number => logit(v.pYes as number) + settings.similarityWeight * v.similarity;
  const text = new Map(row.rubrics.map((r) => [r.id, `${r.criterion}\u0000${r.id}`]));
  const accepted = verdicts
    .filter((v) => v.pYes !== undefined && score(v) >= settings.edgeThreshold && (v.pReverse === undefined || v.pYes > v.pReverse))
    .sort((a, b) => score(b) - score(a) || compareText(text.get(a.child) as string, text.get(b.child) as string) || compareText(text.get(a.parent) as string, text.get(b.parent) as string));

  const parentsOf = new Map<string, string[]>();
  const edges: { parent: string; child: string; type: 'weak_prerequisite' }[] = [];
  let cycleDrops = 0;
  const reaches = (from: string, to: string): boolean => {
    // Does `from` reach `to` along the kept edges (parent -> child)?
    const stack = [from];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const at = stack.pop() as string;
      if (at === to) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      for (const e of edges) if (e.parent === at) stack.push(e.child);
    }
    return false;
  };
  for (const v of accepted) {
    const parents = parentsOf.get(v.child) ?? [];
    if (parents.length >= settings.maxParents) continue;
    if (reaches(v.child, v.parent)) {
      cycleDrops++;
      continue;
    }
    parents.push(v.parent);
    parentsOf.set(v.child, parents);
    edges.push({ parent: v.parent, child: v.child, type: 'weak_prerequisite' });
  }

  const hasChild = new Set(edges.map((e) => e.parent));
  const pointsOf = new Map(row.rubrics.map((r) => [r.id, r.points]));
  // A bonus refines what it builds on, so it is worth no more than its parents; a child worth more
  // is a foundation that needs another (on the same built HealthBench graphs this rule agrees with
  // the hand roles about one point more often than "every leaf with a parent is a bonus").
  const refines = (r: RubricItem): boolean => (parentsOf.get(r.id) ?? []).every((p) => r.points <= (pointsOf.get(p) as number));
  const nodeTypes = new Map<string, NodeType>(
    row.rubrics.map((r) => {
      if (r.points < 0) return [r.id, 'penalty'];
      if (r.points > 0 && parentsOf.has(r.id) && !hasChild.has(r.id) && refines(r)) return [r.id, 'bonus'];
      return [r.id, signNodeType(r.points)];
    }),
  );
  const unreadable = verdicts.filter((v) => v.pYes === undefined).length;
  const fallback = row.rubrics.filter((r) => {
    const mine = verdicts.filter((v) => v.child === r.id);
    return r.points > 0 && mine.length > 0 && mine.every((v) => v.pYes === undefined);
  }).length;
  // Listed in rubric order (child, then parent), as a reader expects; the set itself does not depend on that order.
  edges.sort((a, b) => (indexOf.get(a.child) as number) - (indexOf.get(b.child) as number) || (indexOf.get(a.parent) as number) - (indexOf.get(b.parent) as number));
  return { nodeTypes, edges, verdicts, requests, unreadable, degenerate, reverseQuestions, cycleDrops, fallback };
}
