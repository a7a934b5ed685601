import type { GraphRow } from '../model/graph-row.js';

/**
 * The pairwise strategy's prompts. One request asks one yes/no question about one ordered pair of
 * criteria; every request of a rubric starts with the same text (instructions, conversation, the
 * lettered rubric) and differs only in its last line, so a server's prompt cache evaluates that
 * prefix once per rubric and each question costs a dozen tokens. The worked example is invented,
 * not taken from any benchmark.
 */
export const PAIR_SYSTEM_PROMPT = `You analyse grading rubrics. Each criterion gives points to a response (positive points) or takes points away (negative points).
Criterion X BUILDS ON criterion Y when X is a more specific detail, a part, or a follow-up of Y: a response only earns X in a meaningful way once it meets Y. Criteria that are merely about a related topic, or that ask for different things, do not build on each other. Most criteria build on nothing.

Example rubric (question: "How can I lower my blood pressure?"):
A. (+8) Recommends lifestyle changes such as diet and exercise.
B. (+5) Suggests the DASH diet with specific foods to eat.
C. (+7) Advises confirming the readings with a doctor.
D. (-6) Recommends stopping prescribed medication without asking a doctor.
E. (+4) Says to limit salt to under 2 g a day.
Does criterion B build on criterion A? yes
Does criterion C build on criterion A? no
Does criterion E build on criterion A? yes
Does criterion D build on criterion C? no
Does criterion E build on criterion B? no

Answer with one word: yes or no.`;

/** Criteria are lettered A, B, ..., Z, then AA, AB, ... in rubric order (spreadsheet columns). */
export function criterionLetter(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

const signed = (points: number): string => (points > 0 ? `+${points}` : String(points));

/** Long WritingBench documents are cut as the official builder cuts them (head + tail characters). */
export type TextCut = (text: string) => string;

/** The shared prefix: the conversation and the lettered rubric. */
export function pairPromptPrefix(row: GraphRow, cut: TextCut): string {
  const conversation = row.conversation.map((m) => `${m.role}: ${cut(m.content)}`).join('\n\n');
  const rubric = row.rubrics.map((r, i) => `${criterionLetter(i)}. (${signed(r.points)}) ${r.criterion}`).join('\n');
  return `Conversation:\n${conversation}\n\nRubric:\n${rubric}\n\n`;
}

/** The question about one ordered pair: does `child` build on `parent`? */
export function pairQuestion(childIndex: number, parentIndex: number): string {
  return `Does criterion ${criterionLetter(childIndex)} build on criterion ${criterionLetter(parentIndex)}? Answer yes or no.`;
}
