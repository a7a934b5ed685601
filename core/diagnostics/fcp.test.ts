import { describe, expect, it } from 'vitest';
import { compileRubric } from '../compile/compile-rubric.js';
import { computeFcp, createFcpAccumulator } from './fcp.js';

// parent a (w 4) -strong-> child b (w 4), plus an unrelated c (w 2): denominator 10.
const compiled = compileRubric({
  criteria: [
    { id: 'a', text: 'licenses b', weight: 4 },
    { id: 'b', text: 'licensed by a', weight: 4 },
    { id: 'c', text: 'independent', weight: 2 },
  ],
  edges: [{ parent: 'a', child: 'b', relation: 'strong' }],
});

describe('computeFcp', () => {
  const report = computeFcp([
    // leakage: child 0.9 >= 0.5 while parent 0.2 < 0.5
    { compiled, scores: { p: [0.2, 0.9, 1] } },
    // preserved: both supported
    { compiled, scores: { p: [0.8, 0.6, 0] } },
    // neither: the child is not supported
    { compiled, scores: { p: [0.1, 0.3, 1] } },
  ]);

  it('counts cases over (response, edge) pairs', () => {
    expect(report).toMatchObject({ responses: 3, consideredEdges: 3, leakageCases: 1, preservedCases: 1 });
  });

  it('measures flat leakage as |w|/denominator * p_child: 4/10 * 0.9 = 0.36', () => {
    expect(report.byAggregator.flat?.leakage).toBeCloseTo(0.36, 15);
  });

  it('measures GEAR leakage with q_child = 0.9 * (0.2 + 0.8 * 0.2) = 0.324: 0.4 * 0.324 = 0.1296', () => {
    expect(report.byAggregator.gear?.leakage).toBeCloseTo(0.1296, 15);
  });

  it('measures hard gating leakage as 0 (the parent decision is false)', () => {
    expect(report.byAggregator.hard?.leakage).toBe(0);
  });

  it('measures preservation q_child / p_child: flat 1, hard 1, GEAR (0.8 + 0.2 * 0.2) = 0.84', () => {
    expect(report.byAggregator.flat?.preservation).toBe(1);
    expect(report.byAggregator.hard?.preservation).toBe(1);
    expect(report.byAggregator.gear?.preservation).toBeCloseTo(0.84, 15);
  });

  it('returns null statistics when there is no case of a kind', () => {
    const none = computeFcp([{ compiled, scores: { p: [0.1, 0.3, 1] } }]);
    expect(none.byAggregator.gear).toEqual({ leakage: null, preservation: null });
  });

  it('can leave activation edges out, as the official script does by default', () => {
    const activation = compileRubric({ criteria: compiled.rubric.criteria, edges: [{ parent: 'a', child: 'b', relation: 'activation' }] });
    const prereqOnly = computeFcp([{ compiled: activation, scores: { p: [0.2, 0.9, 1] } }], { relations: ['weak', 'strong'] });
    expect(prereqOnly.consideredEdges).toBe(0);
  });

  it('does not count a response an aggregator could not score (gear-exact past exactMaxWidth)', () => {
    // Two parents of c that share a parent: eliminating needs a frontier of 2, over exactMaxWidth 1.
    const diamond = [['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']] as const;
    const wide = compileRubric(
      {
        criteria: ['a', 'b', 'c', 'd'].map((id) => ({ id, text: id, weight: 1 })),
        edges: diamond.map(([parent, child]) => ({ parent, child, relation: 'weak' as const })),
      },
      { exactMaxWidth: 1 },
    );
    const accumulator = createFcpAccumulator({ aggregators: ['flat', 'gear-exact'] });
    expect(() => accumulator.add({ compiled: wide, scores: { p: [0.2, 0.9, 0.9, 0.9] } })).toThrow();
    accumulator.add({ compiled, scores: { p: [0.2, 0.9, 1] } });
    expect(accumulator.report()).toMatchObject({ responses: 1, leakageCases: 1 });
  });
});
