import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateParents, topicTerms } from './lexical-candidates.js';

const words = ['therapy', 'weekly', 'plan', 'provider', 'sleep', 'mood', 'tracking', 'urgent', 'care', 'fever', '心理', '治疗', '合同', '违约'];
const criterion = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' '));
const rubric = fc.uniqueArray(fc.record({ criterion, points: fc.integer({ min: -10, max: 10 }) }), { minLength: 1, maxLength: 10, selector: (r) => r.criterion });

describe('candidate parents', () => {
  it('are positive criteria other than the child, at most the number asked for', () => {
    fc.assert(
      fc.property(rubric, fc.integer({ min: 1, max: 4 }), (spec, k) => {
        const rubrics = spec.map((r, i) => ({ id: `r${i + 1}`, ...r }));
        const out = candidateParents(rubrics, k);
        for (const child of rubrics) {
          const parents = out.get(child.id) ?? [];
          expect(parents.length).toBe(Math.min(k, rubrics.filter((r) => r.points > 0 && r.id !== child.id).length));
          for (const p of parents) {
            expect(p.id).not.toBe(child.id);
            expect(rubrics.find((r) => r.id === p.id)?.points).toBeGreaterThan(0);
            expect(p.similarity).toBeGreaterThanOrEqual(0);
            expect(p.similarity).toBeLessThanOrEqual(1 + 1e-12);
          }
        }
      }),
    );
  });

  it('do not depend on the rubric order or on how the ids are spelled', () => {
    fc.assert(
      fc.property(rubric, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 1000 }), (spec, k, seed) => {
        const rubrics = spec.map((r, i) => ({ id: `r${i + 1}`, ...r }));
        const order = rubrics.map((_, i) => i).sort((a, b) => ((a * seed) % 17) - ((b * seed) % 17) || a - b);
        const renamed = order.map((i) => ({ ...(rubrics[i] as (typeof rubrics)[number]), id: `crit-${(rubrics[i] as (typeof rubrics)[number]).id}-x` }));
        const base = candidateParents(rubrics, k);
        const other = candidateParents(renamed, k);
        for (const child of rubrics) {
          const expected = (base.get(child.id) ?? []).map((p) => ({ id: `crit-${p.id}-x`, similarity: p.similarity }));
          expect(other.get(`crit-${child.id}-x`)).toEqual(expected);
        }
      }),
    );
  });
});

describe('topic terms', () => {
  it('stem Latin words, drop rubric boilerplate, and pair CJK characters', () => {
    expect([...topicTerms('Recommends a weekly therapy plan')].sort()).toEqual(['plan', 'therap', 'weekly']);
    expect([...topicTerms('违约责任')].sort()).toEqual(['任', '约责', '责任', '违约'].filter((t) => t.length === 2).sort());
  });
});
