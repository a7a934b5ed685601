import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { aggregate } from '../aggregators/aggregator.js';
import { parseWith } from '../model/parse.js';
import { RubricSchema } from '../model/rubric.js';
import { AggregationOptionsSchema } from '../model/options.js';
import { rubricArb, scoresArb } from '../testing/arbitraries.js';
import { compileParsedRubric, compileRubric } from './compile-rubric.js';

const optionsArb = fc.record(
  {
    gamma: fc.constantFrom(0, 1, 2, 0.5),
    normalize: fc.constantFrom('positive-sum', 'abs-sum'),
    multiParentRule: fc.constantFrom('product', 'geometric-mean', 'arithmetic-mean', 'max'),
    onInvalidEdge: fc.constantFrom('drop', 'reject'),
    clip: fc.boolean(),
  },
  { requiredKeys: [] },
);

describe('compileParsedRubric (the schemas parsed once by the caller)', () => {
  it('compiles exactly what compileRubric compiles from the same input, and scores the same bit for bit', () => {
    fc.assert(
      fc.property(
        rubricArb({ minCriteria: 1, maxCriteria: 9, maxParents: 3 }).chain((rubric) => fc.tuple(fc.constant(rubric), scoresArb(rubric.criteria.length))),
        optionsArb,
        fc.boolean(),
        ([dag, p], optionsInput, withCycle) => {
          // Sometimes an edge that closes a cycle (or a self loop), which projection drops or reject refuses.
          const first = dag.criteria[0]!.id;
          const last = dag.criteria[dag.criteria.length - 1]!.id;
          const rubric = withCycle ? { ...dag, edges: [...dag.edges, { parent: last, child: first, relation: 'weak' as const }] } : dag;
          let direct;
          try {
            direct = compileRubric(rubric, optionsInput);
          } catch (error) {
            // What compileRubric refuses (a dropped edge under reject), compileParsedRubric refuses alike.
            expect(() => compileParsedRubric(parseWith(RubricSchema, rubric), parseWith(AggregationOptionsSchema, optionsInput, ['options']))).toThrow(
              (error as Error).message,
            );
            return;
          }
          const parsed = compileParsedRubric(parseWith(RubricSchema, rubric), parseWith(AggregationOptionsSchema, optionsInput, ['options']));
          expect({ ...parsed, gateStart: Array.from(parsed.gateStart), gate: Array.from(parsed.gate) }).toEqual({
            ...direct,
            gateStart: Array.from(direct.gateStart),
            gate: Array.from(direct.gate),
          });
          for (const method of ['flat', 'hard', 'gear', 'gear-exact'] as const) {
            expect(aggregate(parsed, method, { p }).reward).toBe(aggregate(direct, method, { p }).reward);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
