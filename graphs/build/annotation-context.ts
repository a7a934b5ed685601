import type { Decoding } from '../../judge/transport/chat-call.js';
import type { JudgeClient } from '../../judge/pipeline/judge-client.js';
import type { GraphProfile } from '../profiles/profiles.js';

/** Output-token budget of one request: `base + perItem x items` (items: criteria or candidate pairs). */
export interface TokenBudget {
  readonly base: number;
  readonly perItem: number;
}

/**
 * How a row is annotated: `pairwise` (default: the sign decides penalties, one yes/no question per
 * candidate pair, roles from the graph) or `official` (the official builder's role list and edge
 * batches, as the paper's graphs were built).
 */
export const STRATEGIES = ['pairwise', 'official'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export function isStrategy(value: string): value is Strategy {
  return (STRATEGIES as readonly string[]).includes(value);
}

export interface AnnotationSettings {
  readonly strategy: Strategy;
  /** pairwise: candidate parents asked about per criterion (those sharing the most topic terms). */
  readonly pairCandidates: number;
  /** pairwise: a pair is an edge when logit(P(yes)) + similarityWeight x similarity >= edgeThreshold. */
  readonly edgeThreshold: number;
  readonly similarityWeight: number;
  /** pairwise: parents kept per criterion, best first. */
  readonly maxParents: number;
  /** Candidate pairs per edge request (official 8). */
  readonly edgeBatchSize: number;
  /** Re-asks for criteria left without a role (only those criteria are asked again). */
  readonly roleReasks: number;
  /** Re-asks for candidate pairs a readable edge reply left undecided. */
  readonly edgeReasks: number;
  readonly roleBudget: TokenBudget;
  readonly edgeBudget: TokenBudget;
  /** Send the official JSON schemas as response_format (json_schema). */
  readonly jsonSchema: boolean;
  /** The official builder keeps the first 4000 and last 1000 characters of long messages (WritingBench). */
  readonly promptHeadChars: number;
  readonly promptTailChars: number;
  /** Decoding without max_tokens (set per request from the budget). */
  readonly decoding: Omit<Decoding, 'max_tokens'>;
}

/** Rows annotated at a time by default: with 4 in flight a 1-slot llama.cpp server still reuses each rubric's cached prefix (graphs/README.md, "Measured"). */
export const DEFAULT_ROWS_IN_FLIGHT = 4;

/**
 * Defaults: the official builder's batch size, decoding and truncation; budgets sized to the
 * request instead of its fixed 128 / 256 tokens (a compact role item is ~12-15 tokens, a spaced
 * one ~18; an edge decision ~22-30).
 */
export const DEFAULT_ANNOTATION_SETTINGS: AnnotationSettings = {
  strategy: 'pairwise',
  pairCandidates: 2,
  edgeThreshold: 0.5,
  similarityWeight: 4,
  maxParents: 1,
  edgeBatchSize: 8,
  roleReasks: 2,
  edgeReasks: 1,
  roleBudget: { base: 48, perItem: 24 },
  edgeBudget: { base: 48, perItem: 40 },
  jsonSchema: true,
  promptHeadChars: 4000,
  promptTailChars: 1000,
  decoding: { temperature: 0, top_p: 0.9, top_k: 20, seed: 0, chat_template_kwargs: { enable_thinking: false } },
};

/** What every stage of one row's annotation shares. */
export interface AnnotationContext {
  readonly client: JudgeClient;
  readonly profile: GraphProfile;
  readonly settings: AnnotationSettings;
}

export function budgetFor(budget: TokenBudget, items: number): number {
  return budget.base + budget.perItem * items;
}
