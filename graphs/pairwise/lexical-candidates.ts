import type { RubricItem } from '../model/graph-row.js';

/**
 * Words that carry no topic in rubric criteria ("Recommends ...", "Mentions ...", "the response"),
 * so two criteria sharing them are not related.
 */
const STOP_WORDS = new Set(
  ('the and for with such that this its their are not does any from when how what which who about should must may can ' +
    'response user answer mentions includes include provides states recommends suggests advises explains clearly ' +
    'criterion criteria points score scoring')
    .split(' '),
);

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/u;

/**
 * A criterion's topic terms: Latin words of 3+ letters, lower-cased and cut to 6 letters (a crude
 * stem: "recommendation" and "recommend" meet), and overlapping character pairs of CJK text (which
 * has no spaces between words), without stop words.
 */
export function topicTerms(text: string): Set<string> {
  const terms = new Set<string>();
  for (const word of text.toLowerCase().match(/[a-z]{3,}/g) ?? []) if (!STOP_WORDS.has(word)) terms.add(word.slice(0, 6));
  for (const run of text.match(/[\u3400-\u9fff\uf900-\ufaff]+/gu) ?? []) {
    const chars = Array.from(run);
    for (let i = 0; i + 1 < chars.length; i++) terms.add(`${chars[i]}${chars[i + 1]}`);
    if (chars.length === 1 && CJK.test(run)) terms.add(run);
  }
  return terms;
}

export interface ParentCandidate {
  readonly id: string;
  /** Shared topic weight in [0, 1]. */
  readonly similarity: number;
}

/** The weight of the points prior against topic similarity (which lies in [0, 1]). */
export const POINTS_PRIOR = 0.06;

const pointsPrior = (parent: RubricItem, child: RubricItem): number =>
  parent.points > Math.abs(child.points) ? POINTS_PRIOR : parent.points === Math.abs(child.points) ? POINTS_PRIOR / 2 : 0;

/**
 * For each criterion, the positive-point criteria most likely to be its parent, best first: ranked
 * by shared topic terms, each weighted by how rare it is in the rubric (log(1 + K / df)) and
 * normalised by both criteria's weight, plus a small prior for a parent worth more points than the
 * child (half of it for as many): in the bundled HealthBench hand graphs 79% of parents carry at
 * least their child's points, and the prior lifts the hand edges among the top two candidates from
 * 49% / 39% to 53% / 46% (the two halves). Only positive criteria can be parents (a penalty
 * licenses nothing: the candidate rules). Ties are broken by the criterion text, then the id, so
 * the ranking does not depend on the rubric's order.
 */
export function candidateParents(rubrics: readonly RubricItem[], perChild: number): Map<string, ParentCandidate[]> {
  const terms = rubrics.map((r) => topicTerms(r.criterion));
  const df = new Map<string, number>();
  for (const set of terms) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const weight = (set: Iterable<string>): number => {
    let w = 0;
    for (const t of set) w += Math.log(1 + rubrics.length / (df.get(t) ?? 1));
    return w;
  };
  const self = terms.map(weight);
  const similarity = (a: number, b: number): number => {
    const sa = terms[a] as Set<string>;
    const sb = terms[b] as Set<string>;
    const norm = Math.sqrt((self[a] ?? 0) * (self[b] ?? 0));
    if (norm === 0) return 0;
    return weight([...sa].filter((t) => sb.has(t))) / norm;
  };
  const out = new Map<string, ParentCandidate[]>();
  rubrics.forEach((child, c) => {
    const ranked = rubrics
      .map((parent, p) => ({ parent, p }))
      .filter(({ parent, p }) => p !== c && parent.points > 0 && parent.id !== child.id)
      .map(({ parent, p }) => {
        const shared = similarity(c, p);
        return { parent, similarity: shared, score: shared + pointsPrior(parent, child) };
      })
      .sort((x, y) => y.score - x.score || (x.parent.criterion < y.parent.criterion ? -1 : x.parent.criterion > y.parent.criterion ? 1 : 0) || (x.parent.id < y.parent.id ? -1 : 1));
    out.set(child.id, ranked.slice(0, perChild).map((x) => ({ id: x.parent.id, similarity: x.similarity })));
  });
  return out;
}
