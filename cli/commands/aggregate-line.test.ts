import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AggregationOptionsSchema, createPrng, simulateJudgment, type CompiledRubric } from '../../core/index.js';
import { loadBundledRubrics } from '../../conformance/fixtures-loader/bundled-rubrics.js';
import { LruCache } from '../io/compiled-cache.js';
import { errorRecord } from '../io/error-record.js';
import { createLineScorer } from './aggregate-line.js';
import { scoreRecord } from './score-record.js';

/** What `gear aggregate` wrote for a line before the fast path: parse, score, stringify. */
function referenceLine(text: string, number: number, cache: LruCache<CompiledRubric>, explain = false): string {
  const options = AggregationOptionsSchema.parse({});
  try {
    return JSON.stringify({ line: number, ...scoreRecord(JSON.parse(text), options, cache, explain).output });
  } catch (error) {
    return JSON.stringify(errorRecord(number, error));
  }
}

const bundled = loadBundledRubrics(['healthbench', 'writingbench']);
const prng = createPrng(3);
/** Real rubric rows with simulated judge scores, official and canonical formats. */
const records = bundled.slice(0, 12).flatMap((b, k) => {
  const weights = b.rewardModel.rubrics.map((r) => r.points);
  return [0, 1].map((r) => {
    const { p, d } = simulateJudgment(weights, prng);
    return k % 4 === 3
      ? {
          id: `${b.key}#${r}`,
          rubric: {
            criteria: b.rewardModel.rubrics.map((c) => ({ id: c.id, text: c.criterion, weight: c.points })),
            edges: b.rewardModel.graph.edges.map((e) => ({ parent: e.parent, child: e.child, relation: e.type === 'trigger' ? 'activation' : e.type.split('_')[0] })),
          },
          scores: { p, d },
        }
      : { id: r === 0 ? `${b.key}#${r}` : k, reward_model: b.rewardModel, p_list: p, criteria_met_list: d };
  });
});

/** Ways a line can differ from the canonical serialization while meaning the same, or not. */
const mutation = fc.constantFrom(
  (t: string) => t,
  (t: string) => ` \t${t}  `,
  (t: string) => t.replaceAll('":', '" : ').replaceAll(',"', ', "'),
  (t: string) => t.replace('{"id"', '{"extra":[1,{"a":"}]"}],"id"'),
  (t: string) => t.replace('"p_list"', '"p\\u005flist"'),
  (t: string) => t.replace('"id":', '"id":"dup","id":'),
  (t: string) => t.replace('"p_list":[', '"p_list":[0.5,'),
  (t: string) => t.replace(/}$/, ',"reward_model":{}}'),
  (t: string) => t.replace(/}$/, '}}'),
  (t: string) => t.slice(0, -1),
  (t: string) => t.replace(/}$/, ',}'),
  (t: string) => t.replace('"criteria_met_list":[', '"criteria_met_list":[1,'),
  (t: string) => t.replace(/"points":(\d+)/, '"points":"$1"'),
  (t: string) => t.replace('"weight":', '"weight":1e400,"w":'),
  (t: string) => t.replace(/"p_list":\[[^\]]*\]/, '"p_list":[]'),
  (t: string) => t.replace('{', '{"scores":null,'),
  (t: string) => t.replace('"criterion":"', '"criterion":"\u00e9\u2028\\"'),
  (t: string) => `\ufeff${t}`,
  (t: string) => t.replace('"id":', '"\u00fcid":1,"id":'),
  (t: string) => t.replace('0.', '-0.'),
  (t: string) => t.replace(/"id":"[^"]*"/, '"id":{"nested":[true,null]}'),
);

describe('the fast line scorer writes what parse + scoreRecord + stringify wrote', () => {
  it('byte for byte on real rubrics in both formats, any spacing, key order or malformation, across a stream', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(records.length - 1), mutation), { minLength: 1, maxLength: 12 }), fc.boolean(), (picks, explain) => {
        const options = AggregationOptionsSchema.parse({});
        const scorer = createLineScorer(options, explain);
        const cache = new LruCache<CompiledRubric>(16);
        let errors = 0;
        picks.forEach(([index, mutate], k) => {
          const text = mutate(JSON.stringify(records[index]));
          const bytes = Buffer.from(`xx${text}yy`, 'utf8');
          const expected = referenceLine(text, k + 1, cache, explain);
          if ((JSON.parse(expected) as Record<string, unknown>)['error'] !== undefined) errors++;
          expect(scorer.score(bytes, 2, bytes.length - 2, k + 1)).toBe(expected);
        });
        expect(scorer.errors).toBe(errors);
      }),
      { numRuns: 150 },
    );
  });

  it('keeps a rubric seen several lines back (the LRU), not only the previous line', () => {
    const options = AggregationOptionsSchema.parse({});
    const scorer = createLineScorer(options);
    const cache = new LruCache<CompiledRubric>(16);
    const order = [0, 2, 4, 0, 2, 4, 0];
    order.forEach((i, k) => {
      const text = JSON.stringify(records[i]);
      expect(scorer.score(Buffer.from(text), 0, Buffer.byteLength(text), k + 1)).toBe(referenceLine(text, k + 1, cache));
    });
  });
});
