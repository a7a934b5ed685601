/*
 * The user prompts of the official GEAR graph builder (LvCan926/GEAR at 8976106,
 * rubric_prepare/rubric_graph.py: _build_node_prompt, _build_edge_prompt, _truncate_text;
 * Copyright the GEAR authors, Apache License 2.0), rebuilt with the same texts and compact JSON
 * blocks (Python's json.dumps(ensure_ascii=False, separators=(",", ":"))).
 */
import type { GraphRow, PromptMessage, RubricItem } from '../model/graph-row.js';
import type { GraphProfile } from '../profiles/profiles.js';
import type { AnnotationSettings } from './annotation-context.js';
import type { CandidatePair } from './candidate-pairs.js';

const EDGE_INSTRUCTION = 'For each candidate pair, return exactly one label in {no_edge, weak_prerequisite, strong_prerequisite, trigger}.';

/** `_truncate_text`: head + a marker naming the omitted length + tail, counted in code points as Python does. */
export function truncateText(text: string, head: number, tail: number): string {
  if (head <= 0 || tail <= 0) return text;
  const points = Array.from(text);
  if (points.length <= head + tail) return text;
  const omitted = points.length - head - tail;
  return `${points.slice(0, head).join('')}\n\n[... omitted ${omitted} characters for graph annotation ...]\n\n${points.slice(-tail).join('')}`;
}

function conversationBlock(row: GraphRow, profile: GraphProfile, settings: AnnotationSettings): string {
  const messages: PromptMessage[] = row.conversation.map((m) =>
    profile.truncateMessages ? { role: m.role, content: truncateText(m.content, settings.promptHeadChars, settings.promptTailChars) } : m,
  );
  return JSON.stringify(messages);
}

/** The official prompts leave out Profile and Source metadata for HealthBench rows without metadata. */
function header(row: GraphRow, profile: GraphProfile, settings: AnnotationSettings): string {
  const conversation = conversationBlock(row, profile, settings);
  if (profile.name === 'healthbench' && Object.keys(row.sourceMeta).length === 0) return `Conversation:\n${conversation}`;
  return `Profile:\n${profile.name}\n\nSource metadata:\n${JSON.stringify(row.sourceMeta)}\n\nConversation:\n${conversation}`;
}

/** The role request's user prompt for these criteria (all of the row's, or the ones a re-ask repeats). */
export function rolePrompt(row: GraphRow, rubrics: readonly RubricItem[], profile: GraphProfile, settings: AnnotationSettings): string {
  const block = JSON.stringify(rubrics.map((r) => ({ id: r.id, criterion: r.criterion, points: r.points })));
  return `${header(row, profile, settings)}\n\nRubrics:\n${block}\n\nClassify each rubric into one node_type.\nReturn JSON only.`;
}

/** The edge request's user prompt for a batch of candidate pairs. */
export function edgePrompt(row: GraphRow, pairs: readonly CandidatePair[], profile: GraphProfile, settings: AnnotationSettings): string {
  return `${header(row, profile, settings)}\n\nCandidate directed rubric pairs:\n${JSON.stringify(pairs)}\n\n${EDGE_INSTRUCTION}\nReturn JSON only.`;
}
