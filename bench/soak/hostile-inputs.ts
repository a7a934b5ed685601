/** The hostile requests of issue 10, as data: each one a client may send at any time. */

/**
 * 48 criteria, `roots` of them parents of all the others, and the first of those a parent of the
 * rest of them: exact inference needs 2^roots cells. (Without that common parent the graph would be
 * a multitree, where exact inference is the mean-field update, at linear cost.)
 */
export function denseRubric(roots = 20, size = 48): { criteria: { id: string; text: string; weight: number }[]; edges: { parent: string; child: string; relation: string }[] } {
  const criteria = Array.from({ length: size }, (_, i) => ({ id: `c${i}`, text: `criterion ${i}`, weight: 1 + (i % 5) }));
  const edges = [];
  for (let root = 1; root < roots; root++) edges.push({ parent: 'c0', child: `c${root}`, relation: 'weak' });
  for (let child = roots; child < size; child++) {
    for (let root = 0; root < roots; root++) edges.push({ parent: `c${root}`, child: `c${child}`, relation: 'weak' });
  }
  return { criteria, edges };
}

/** A RuscaRL row with `criteria` criteria (host.requests builds one judge prompt per criterion). */
export function wideRuscarlRow(criteria: number): unknown {
  return {
    prompt: [{ role: 'user', content: 'Is a potassium of 3.9 mmol/L why I cramp?' }],
    reward_model: { rubrics: Array.from({ length: criteria }, (_, i) => ({ criterion: `States fact ${i}.`, points: 1 + (i % 5), tags: [] })) },
  };
}

/** The JSON text of `depth` nested arrays, [[[...]]] (JSON.stringify cannot write it). */
export function nestedText(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

export const twoCriteria = {
  criteria: [
    { id: 'a', text: 'A', weight: 2 },
    { id: 'b', text: 'B', weight: 1 },
  ],
  edges: [{ parent: 'a', child: 'b', relation: 'strong' }],
};

/** A HealthBench-sized rubric (19 criteria, ~4 KB of text) made unique by `n`. */
export function realisticRubric(n: number): unknown {
  const criteria = Array.from({ length: 19 }, (_, i) => ({
    id: `r${i + 1}`,
    text: `Criterion ${i + 1} of rubric ${n}: ${'states the relevant clinical fact and advises the right next step. '.repeat(3)}`,
    weight: i % 4 === 3 ? -(1 + (i % 7)) : 1 + (i % 9),
  }));
  const edges = [];
  for (let i = 1; i < 19; i += 2) edges.push({ parent: `r${i}`, child: `r${i + 1}`, relation: i % 3 === 0 ? 'strong' : 'weak' });
  return { criteria, edges };
}
