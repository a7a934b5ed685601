import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryOf, startGear } from '../../../bench/soak/gear-process.js';
import { realisticRubric } from '../../../bench/soak/hostile-inputs.js';
import { WsPeer } from '../../../bench/soak/ws-peer.js';

/**
 * Issue 10, item 13, against a real `gear serve`: the rubric cache is bounded by estimated bytes
 * as well as by count, whatever sizes the rubrics come in, and an evicted id is answered -32001
 * and registers again.
 */

const BUDGET = 2 * 1024 * 1024;

describe('the rubric cache under a stream of registrations', () => {
  it('stays within maxRubricCacheBytes for rubrics of any size, evicting the least recently used', async () => {
    const server = await startGear(['--max-rubric-cache-bytes', String(BUDGET)]);
    const peer = await WsPeer.open(server.url);
    const health = async () => (await peer.request('server.health')).result as { rubricsCached: number; rubricCacheBytes: number };
    let registered = 0;
    let first: string | undefined;
    try {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 400 }), async (criteria, textLength, edges) => {
          const rubric = {
            criteria: Array.from({ length: criteria }, (_, i) => ({ id: `c${i}`, text: `${registered}:${i}:${'t'.repeat(textLength)}`, weight: 1 + (i % 3) })),
            edges: Array.from({ length: Math.min(edges, criteria - 1) }, (_, k) => ({ parent: `c${k % Math.max(1, criteria - 1)}`, child: `c${criteria - 1}`, relation: 'weak' })).filter(
              (e, k, all) => e.parent !== e.child && all.findIndex((x) => x.parent === e.parent) === k,
            ),
          };
          const reply = await peer.request('rubric.register', { rubric });
          const { rubricId } = reply.result as { rubricId: string };
          first ??= rubricId;
          registered += 1;
          const now = await health();
          // One rubric larger than the whole budget is still kept while it is the one in use.
          if (now.rubricsCached > 1) expect(now.rubricCacheBytes).toBeLessThanOrEqual(BUDGET);
        }),
        { numRuns: 150 },
      );
      // Many HealthBench-sized rubrics: the bytes bind long before the count (10,000).
      for (let n = 0; n < 600; n++) await peer.request('rubric.register', { rubric: realisticRubric(n) });
      const after = await health();
      expect(after.rubricCacheBytes).toBeLessThanOrEqual(BUDGET);
      expect(after.rubricsCached).toBeLessThan(600);
      expect(after.rubricsCached).toBeGreaterThan(50);
      const evicted = await peer.request('rubric.score', { rubricId: first, scores: { p: [0.5] } });
      expect(evicted.error).toMatchObject({ code: -32001, data: { rubricIds: [first] } });
      expect(memoryOf(server.pid).rssMiB).toBeLessThan(400);
    } finally {
      await peer.close();
      await server.stop();
    }
  });
});
