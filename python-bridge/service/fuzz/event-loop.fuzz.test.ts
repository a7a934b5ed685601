import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRubric, needsElimination } from '../../../core/index.js';
import { createGearContainer, resolveAdapter } from '../../../adapters/container.js';
import { denseRubric, wideRuscarlRow } from '../../../bench/soak/hostile-inputs.js';
import { startGear, type GearProcess } from '../../../bench/soak/gear-process.js';
import { WsPeer, type Reply } from '../../../bench/soak/ws-peer.js';
import { exactCostOf } from '../methods/exact-cost.js';

/**
 * Issue 10, item 9, against a real `gear serve`: work is bounded before it starts (exact inference
 * by maxExactCost, rubric size by maxCriteria/maxEdges, replies by maxReplyBytes), and what is
 * allowed runs in slices: a second client's ping is answered while a long batch is still computing.
 */

const MAX_REPLY = 2 * 1024 * 1024;
const MAX_EXACT = 2 ** 24;

describe('the event loop under hostile work', () => {
  let server: GearProcess;
  let hostile: WsPeer;
  let pinger: WsPeer;

  beforeAll(async () => {
    server = await startGear(['--max-reply-bytes', String(MAX_REPLY)]);
    hostile = await WsPeer.open(server.url);
    pinger = await WsPeer.open(server.url);
  });
  afterAll(async () => {
    await hostile.close();
    await pinger.close();
    await server.stop();
  });

  it('refuses exact inference over maxExactCost before building a table, and only then', async () => {
    let refused = 0;
    let answered = 0;
    let tag = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 0, max: 22 }), fc.integer({ min: 12, max: 20 })),
        fc.integer({ min: 1, max: 48 }),
        fc.constantFrom('gear-exact', 'auto'),
        fc.oneof(fc.constant(20), fc.integer({ min: 1, max: 24 })),
        async (roots, extra, aggregator, exactMaxWidth) => {
          const rubric = denseRubric(roots, Math.min(48, roots + extra));
          rubric.criteria[0]!.text = `unique ${tag++}`; // a fresh rubric: its gate tables are not built yet
          const options = { exactMaxWidth, autoExactMaxCost: 2 ** 40 };
          const compiled = compileRubric(rubric, options);
          // Only a graph where two parents of a criterion share an ancestor takes elimination: elsewhere
          // (a forest, a multitree) both take mean-field, exact there.
          const exact = needsElimination(compiled);
          const feasible = compiled.plan.maxWidth <= exactMaxWidth;
          const reply = await hostile.request('rubric.score', { rubric, scores: { p: rubric.criteria.map(() => 0.5) }, aggregator, options });
          if (exact && feasible && exactCostOf(compiled) > MAX_EXACT) {
            refused += 1;
            expect(reply.error).toMatchObject({ code: -32002, data: { limit: 'maxExactCost', max: MAX_EXACT, actual: exactCostOf(compiled) } });
          } else if (aggregator === 'gear-exact' && exact && !feasible) {
            expect(reply.error).toMatchObject({ code: -32602, data: { path: ['aggregator'] } });
          } else {
            answered += 1;
            expect(Number.isFinite((reply.result as { reward: number }).reward)).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
    // Both sides of the limit were reached (about 28% of the cases refused, 58% answered).
    expect(refused).toBeGreaterThan(3);
    expect(answered).toBeGreaterThan(3);
  });

  it('answers a dense 48-criterion rubric under the default exactMaxWidth with -32002 maxExactCost (it took 13 s)', async () => {
    const dense = denseRubric(20);
    const reply = await hostile.request('rubric.score', { rubric: dense, scores: { p: dense.criteria.map(() => 0.5) }, aggregator: 'gear-exact' });
    expect(reply.error).toMatchObject({ code: -32002, data: { limit: 'maxExactCost' } });
    // Registering it compiles without gate tables (it took 6 s): answered.
    expect((await hostile.request('rubric.register', { rubric: dense })).result).toMatchObject({ size: 48 });
  });

  it('bounds host.requests replies by maxReplyBytes before building the prompts', async () => {
    const local = resolveAdapter(createGearContainer('flat'), 'ruscarl').format;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 40_000 }), async (criteria, length) => {
        const row = wideRuscarlRow(criteria);
        const response = 'é'.repeat(length % 7) + 'x'.repeat(length);
        const expected = JSON.stringify(local.buildJudgeRequests(local.parseRow(row), response)).length;
        const reply = await hostile.request('host.requests', { host: 'ruscarl', row, response });
        // é is one character and two UTF-8 bytes: between those two sizes either answer is right.
        if (expected > MAX_REPLY) {
          refused += 1;
          expect(reply.error).toMatchObject({ code: -32002, data: { limit: 'maxReplyBytes' } });
        } else if (expected + criteria * (length % 7) + 200 < MAX_REPLY) {
          expect((reply.result as { requests: unknown[] }).requests).toHaveLength(criteria);
        }
      }),
      { numRuns: 40 },
    );
    expect(refused).toBeGreaterThan(3);
    expect(hostile.largestReply).toBeLessThanOrEqual(MAX_REPLY);
    for (const [criteria, length, limit] of [
      [1000, 200_000, 'maxCriteria'],
      [500, 300_000, 'maxReplyBytes'],
    ] as const) {
      const reply = await hostile.request('host.requests', { host: 'ruscarl', row: wideRuscarlRow(criteria), response: 'x'.repeat(length) });
      expect(reply.error).toMatchObject({ code: -32002, data: { limit } });
    }
  });

  it('answers a second client while a long batch is still computing', async () => {
    // 192 responses at ~2^22 exact operations each: several seconds of work, in 10 ms slices.
    const rubric = denseRubric(13, 48);
    const { rubricId } = (await hostile.request('rubric.register', { rubric })).result as { rubricId: string };
    const items = Array.from({ length: 192 }, (_, i) => ({ rubricId, scores: { p: rubric.criteria.map((_, k) => ((i + k) % 10) / 10) } }));
    let batchDone = false;
    const batch = hostile.request('rubric.scoreBatch', { items, aggregator: 'gear-exact' }).then((reply) => {
      batchDone = true;
      return reply;
    });
    let pingsWhileComputing = 0;
    while (!batchDone) {
      const ping = await pinger.request('server.health');
      expect(ping.result).toMatchObject({ status: 'ok' });
      if (!batchDone) pingsWhileComputing += 1;
    }
    const reply: Reply = await batch;
    expect((reply.result as { results: { reward: number }[] }).results.every((r) => Number.isFinite(r.reward))).toBe(true);
    expect(pingsWhileComputing).toBeGreaterThan(2);
  });
});
