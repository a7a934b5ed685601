// The real local LLM (SmolLM2-135M behind llama.cpp's server) answers the OpenAI API the way the
// judge needs: chat completions, reproducible text at temperature 0 with a seed, json_schema
// structured output and per-token top_logprobs. Structure and determinism only: a 135M model's
// verdicts are not meaningful. Skipped only when GEAR_SKIP_LLM=1.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { localLlmSkipped, startLocalLlm, type LocalLlm } from './local-llm.js';

describe.skipIf(localLlmSkipped)('local LLM (scripts/local-llm, SmolLM2-135M)', () => {
  let llm: LocalLlm;
  let openai: OpenAI;
  const question = {
    messages: [
      { role: 'system' as const, content: 'You grade answers. Be brief.' },
      { role: 'user' as const, content: 'Answer: "Drink water and rest." Does the answer give advice?' },
    ],
    temperature: 0,
    seed: 42,
    max_tokens: 24,
  };

  beforeAll(async () => {
    llm = await startLocalLlm();
    openai = new OpenAI({ baseURL: llm.url, apiKey: 'unused', maxRetries: 0, timeout: 600_000 });
  }, 15 * 60_000);

  afterAll(async () => {
    await llm?.stop();
  });

  it('serves its model on /v1/models, vLLM-style health and Prometheus metrics', async () => {
    expect(llm.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toContain('smollm2-135m');
    const metrics = await fetch(llm.url.replace(/\/v1$/, '/metrics'));
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^llamacpp:requests_processing \d+/m);
  });

  it('answers chat completions, with identical text twice at temperature 0 and a seed', async () => {
    const first = await openai.chat.completions.create({ model: llm.model, ...question });
    const second = await openai.chat.completions.create({ model: llm.model, ...question });
    const text = first.choices[0]?.message.content ?? '';
    expect(text.trim().length).toBeGreaterThan(0);
    expect(second.choices[0]?.message.content).toBe(text);
    expect(first.model).toBe('smollm2-135m');
    expect(first.choices[0]?.message.role).toBe('assistant');
    expect(['stop', 'length']).toContain(first.choices[0]?.finish_reason);
    const usage = first.usage!;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeLessThanOrEqual(24);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(second.usage?.completion_tokens).toBe(usage.completion_tokens);
  }, 600_000);

  it('follows a json_schema response_format', async () => {
    const verdict = z.strictObject({ met: z.boolean() });
    const reply = await openai.chat.completions.create({
      model: llm.model,
      ...question,
      max_tokens: 40,
      messages: [...question.messages.slice(0, 1), { role: 'user', content: `${question.messages[1]!.content} Reply in JSON.` }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'verdict',
          strict: true,
          schema: { type: 'object', properties: { met: { type: 'boolean' } }, required: ['met'], additionalProperties: false },
        },
      },
    });
    expect(reply.choices[0]?.finish_reason).toBe('stop');
    const parsed = verdict.safeParse(JSON.parse(reply.choices[0]?.message.content ?? ''));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  }, 600_000);

  it('returns the top 5 logprobs of every generated token; at temperature 0 the chosen token is the top one', async () => {
    const reply = await openai.chat.completions.create({ model: llm.model, ...question, logprobs: true, top_logprobs: 5 });
    const content = reply.choices[0]?.message.content ?? '';
    const tokens = reply.choices[0]?.logprobs?.content ?? [];
    expect(tokens.length).toBe(reply.usage?.completion_tokens);
    expect(tokens.map((t) => t.token).join('')).toBe(content);
    for (const token of tokens) {
      expect(token.top_logprobs).toHaveLength(5);
      const logprobs = token.top_logprobs.map((t) => t.logprob);
      expect(logprobs.every((lp) => lp <= 0)).toBe(true);
      expect([...logprobs].sort((a, b) => b - a)).toEqual(logprobs);
      // Greedy decoding: the sampled token is the most likely one, with that token's logprob.
      expect(token.top_logprobs[0]?.token).toBe(token.token);
      expect(token.top_logprobs[0]?.logprob).toBeCloseTo(token.logprob, 6);
    }
    const mass = tokens[0]!.top_logprobs.reduce((sum, t) => sum + Math.exp(t.logprob), 0);
    expect(mass).toBeGreaterThan(0);
    expect(mass).toBeLessThanOrEqual(1 + 1e-6);
  }, 600_000);
});
