import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOfficialRewardModel, createPrng, explainRecord, simulateJudgment } from '../../core/index.js';
import { loadBundledRubrics } from '../../conformance/fixtures-loader/bundled-rubrics.js';
import type { RunningServer } from './server.js';
import { RpcTestClient } from './testing/rpc-test-client.js';
import { startTestService } from './testing/running-service.js';

const [bundled] = loadBundledRubrics(['healthbench']);

describe('the explain option of rubric.score and rubric.scoreBatch, over a real socket', () => {
  let server: RunningServer;
  let client: RpcTestClient;
  const weights = bundled!.rewardModel.rubrics.map((r) => r.points);
  const { p, d } = simulateJudgment(weights, createPrng(4));
  const scores = { p: Array.from(p), d: Array.from(d) };
  const expected = explainRecord(compileOfficialRewardModel(bundled!.rewardModel), scores);

  beforeAll(async () => {
    server = await startTestService();
    client = await RpcTestClient.open(server.url);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('adds the explain block gear aggregate --explain writes, agreeing with the reward it returns', async () => {
    const result = await client.call<{ reward: number; explain: typeof expected }>('rubric.score', { reward_model: bundled!.rewardModel, scores, explain: true });
    expect(result.explain).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(result.explain.rewards.gear).toBe(result.reward);
    expect(result.explain.criteria.some((c) => c.parents.length > 0)).toBe(true);
  });

  it('leaves results without it unchanged, and explains batch items that ask', async () => {
    const plain = await client.call<Record<string, unknown>>('rubric.score', { reward_model: bundled!.rewardModel, scores });
    expect(Object.keys(plain).sort()).toEqual(['effective', 'flat', 'method', 'reward']);
    const batch = await client.call<{ results: Record<string, unknown>[] }>('rubric.scoreBatch', {
      items: [
        { reward_model: bundled!.rewardModel, scores, explain: true },
        { reward_model: bundled!.rewardModel, scores },
      ],
      aggregator: 'hard',
    });
    expect((batch.results[0]?.['explain'] as typeof expected).rewards.hard).toBe(batch.results[0]?.['reward']);
    expect(batch.results[1]?.['explain']).toBeUndefined();
  });

  it('names the field when explain is not a boolean', async () => {
    const response = await client.request('rubric.score', { reward_model: bundled!.rewardModel, scores, explain: 'yes' });
    expect(response.error).toMatchObject({ code: -32602, data: { code: 'invalid_input', path: ['explain'] } });
  });
});
