import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileOfficialRewardModel } from '../../core/index.js';
import { EDGE_LABELS, NODE_TYPES, type NodeType } from '../model/vocabulary.js';
import { candidatePairs } from './candidate-pairs.js';
import { validateEdges } from './validate-edges.js';

const rubricArb = fc.array(fc.tuple(fc.constantFrom(...NODE_TYPES), fc.integer({ min: -10, max: 10 })), { minLength: 1, maxLength: 9 });

describe('validateEdges', () => {
  it('keeps only allowed candidate labels, as a DAG the official reader accepts whole, and accounts for every decision', () => {
    fc.assert(
      fc.property(
        rubricArb,
        fc.array(fc.record({ parent: fc.integer({ min: 0, max: 10 }), child: fc.integer({ min: 0, max: 10 }), type: fc.constantFrom(...EDGE_LABELS, 'weak', 'none') }), { maxLength: 60 }),
        fc.array(fc.anything(), { maxLength: 3 }),
        (spec, raw, junk) => {
          const rubrics = spec.map(([, points], i) => ({ id: `r${i + 1}`, criterion: `c${i + 1}`, points }));
          const nodeTypes = new Map<string, NodeType>(spec.map(([type], i) => [`r${i + 1}`, type]));
          const candidates = candidatePairs(rubrics, nodeTypes);
          const decisions = [...raw.map((d) => ({ parent: `r${d.parent}`, child: `r${d.child}`, type: d.type })), ...junk];
          const { edges, drops, noEdge } = validateEdges(rubrics, nodeTypes, candidates, decisions);
          // every decision is kept, said no_edge, or dropped for one counted reason
          const dropped = Object.values(drops).reduce((a, b) => a + b, 0);
          expect(edges.length + noEdge + dropped).toBe(decisions.length);
          for (const e of edges) {
            const pair = candidates.find((c) => c.parent === e.parent && c.child === e.child);
            expect(pair?.allowed_edge_types).toContain(e.type);
          }
          const compiled = compileOfficialRewardModel({
            rubrics: rubrics.map((r) => ({ id: r.id, criterion: r.criterion, points: r.points })),
            graph: { nodes: [...nodeTypes].map(([id, node_type]) => ({ id, node_type })), edges },
          });
          expect(compiled.report.droppedEdges).toEqual([]);
          expect(compiled.report.roleWarnings).toEqual([]);
        },
      ),
    );
  });

  it('resolves several labels for one pair as trigger > strong > weak, whatever their order', () => {
    const rubrics = [
      { id: 'r1', criterion: 'a', points: 5 },
      { id: 'r2', criterion: 'b', points: 5 },
    ];
    const nodeTypes = new Map<string, NodeType>([
      ['r1', 'foundation'],
      ['r2', 'foundation'],
    ]);
    const candidates = candidatePairs(rubrics, nodeTypes);
    for (const order of [
      ['weak_prerequisite', 'strong_prerequisite'],
      ['strong_prerequisite', 'weak_prerequisite'],
    ]) {
      const result = validateEdges(rubrics, nodeTypes, candidates, order.map((type) => ({ parent: 'r1', child: 'r2', type })));
      expect(result.edges).toEqual([{ parent: 'r1', child: 'r2', type: 'strong_prerequisite' }]);
      expect(result.drops.lower_priority).toBe(1);
    }
  });

  it('breaks a 2-cycle by dropping the weak edge, whichever comes first in candidate order', () => {
    const rubrics = [
      { id: 'r1', criterion: 'a', points: 5 },
      { id: 'r2', criterion: 'b', points: 5 },
    ];
    const nodeTypes = new Map<string, NodeType>([
      ['r1', 'foundation'],
      ['r2', 'foundation'],
    ]);
    const candidates = candidatePairs(rubrics, nodeTypes); // r1->r2 comes before r2->r1
    const result = validateEdges(rubrics, nodeTypes, candidates, [
      { parent: 'r1', child: 'r2', type: 'weak_prerequisite' },
      { parent: 'r2', child: 'r1', type: 'strong_prerequisite' },
    ]);
    // the official builder keeps r1->r2 (first in candidate order); priority keeps the strong one
    expect(result.edges).toEqual([{ parent: 'r2', child: 'r1', type: 'strong_prerequisite' }]);
    expect(result.drops.cycle).toBe(1);
  });
});
