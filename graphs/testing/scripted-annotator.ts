/**
 * A deterministic stand-in for the annotation LLM behind the fake OpenAI server (judge/testing):
 * it reads the request the builder sent (the response_format name, the rubric or candidate-pair
 * block of the user prompt) and answers in the official reply format. Tests set its rules to
 * produce the faults they need (cut-off replies, prose, missing decisions).
 */
import type { FakeAnswer, FakeChatRequest } from '../../judge/testing/fake-openai-server.js';

export interface AskedRubric {
  id: string;
  criterion: string;
  points: number;
}

export interface AskedPair {
  parent: string;
  child: string;
  parent_node_type: string;
  child_node_type: string;
  allowed_edge_types: string[];
}

/** A pairwise question: does `child` build on `parent`? Criteria as the lettered rubric shows them. */
export interface AskedQuestion {
  child: { letter: string; index: number; points: number; criterion: string };
  parent: { letter: string; index: number; points: number; criterion: string };
}

export type AnnotationRequest =
  | { kind: 'roles'; rubrics: AskedRubric[]; maxTokens: number; request: FakeChatRequest }
  | { kind: 'edges'; pairs: AskedPair[]; maxTokens: number; request: FakeChatRequest }
  | ({ kind: 'pair'; maxTokens: number; request: FakeChatRequest } & AskedQuestion);

function userText(request: FakeChatRequest): string {
  const user = request.messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

/** The JSON block that follows `heading` on its own line in the builder's user prompt. */
function blockAfter(text: string, heading: string): unknown {
  const at = text.indexOf(`${heading}\n`);
  if (at < 0) return undefined;
  const line = text.slice(at + heading.length + 1).split('\n')[0] ?? '';
  return JSON.parse(line);
}

/** The lettered rubric of a pairwise prompt ("A. (+5) text" lines after "Rubric:") and its question. */
function readQuestion(text: string): AskedQuestion | undefined {
  const question = /Does criterion ([A-Z]+) build on criterion ([A-Z]+)\?/u.exec(text);
  const at = text.indexOf('\nRubric:\n');
  if (question === null || at < 0) return undefined;
  const lines = new Map<string, { letter: string; index: number; points: number; criterion: string }>();
  let index = 0;
  for (const line of text.slice(at + 9).split('\n')) {
    const m = /^([A-Z]+)\. \(([-+]?[\d.]+)\) (.*)$/u.exec(line);
    if (m === null) continue;
    lines.set(m[1] as string, { letter: m[1] as string, index: index++, points: Number(m[2]), criterion: m[3] as string });
  }
  const child = lines.get(question[1] as string);
  const parent = lines.get(question[2] as string);
  return child === undefined || parent === undefined ? undefined : { child, parent };
}

export function readAnnotationRequest(request: FakeChatRequest): AnnotationRequest | undefined {
  const text = userText(request);
  const maxTokens = typeof request['max_tokens'] === 'number' ? request['max_tokens'] : 0;
  const question = readQuestion(text);
  if (question !== undefined) return { kind: 'pair', maxTokens, request, ...question };
  if (text.includes('\nRubrics:\n')) return { kind: 'roles', rubrics: blockAfter(text, 'Rubrics:') as AskedRubric[], maxTokens, request };
  if (text.includes('\nCandidate directed rubric pairs:\n')) return { kind: 'edges', pairs: blockAfter(text, 'Candidate directed rubric pairs:') as AskedPair[], maxTokens, request };
  return undefined;
}

/** Default roles: penalty for negative points, bonus for criteria whose text says "bonus", else foundation. */
export function defaultRole(r: AskedRubric): string {
  if (r.points < 0) return 'penalty';
  return /\bbonus\b/i.test(r.criterion) ? 'bonus' : 'foundation';
}

/** Default edges: strong_prerequisite when the parent comes first in the rubric, else no_edge. */
export function defaultLabel(p: AskedPair): string {
  const index = (id: string): number => Number(id.replace(/\D/g, ''));
  return index(p.parent) < index(p.child) ? p.allowed_edge_types[0] ?? 'no_edge' : 'no_edge';
}

/** Default pairwise answer: yes when the child's text says "bonus" and the parent comes before it. */
export function defaultPairAnswer(q: AskedQuestion): 'yes' | 'no' {
  return /\bbonus\b/i.test(q.child.criterion) && q.parent.index < q.child.index ? 'yes' : 'no';
}

export function rolesReply(rubrics: readonly AskedRubric[], role: (r: AskedRubric) => string = defaultRole): string {
  return JSON.stringify({ nodes: rubrics.map((r) => ({ id: r.id, node_type: role(r) })) });
}

export function edgesReply(pairs: readonly AskedPair[], label: (p: AskedPair) => string = defaultLabel): string {
  return JSON.stringify({ edges: pairs.map((p) => ({ parent: p.parent, child: p.child, type: label(p) })) });
}

/** An answer function for startFakeOpenAi: `custom` may answer a request itself, else the default replies. */
export function scriptedAnnotator(custom?: (asked: AnnotationRequest) => FakeAnswer | undefined): (request: FakeChatRequest) => FakeAnswer {
  return (request) => {
    const asked = readAnnotationRequest(request);
    if (asked === undefined) return 'not an annotation request';
    const answer = custom?.(asked);
    if (answer !== undefined) return answer;
    if (asked.kind === 'pair') return defaultPairAnswer(asked);
    return asked.kind === 'roles' ? rolesReply(asked.rubrics) : edgesReply(asked.pairs);
  };
}
