import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { deadEndpointUrl } from './dead-endpoint.js';
import { DEFAULT_FAKE_ANSWER, startFakeOpenAi, type FakeOpenAiOptions, type FakeOpenAiServer } from './fake-openai-server.js';

const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(options: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
  const server = await startFakeOpenAi(options);
  servers.push(server);
  return server;
}

function client(server: { url: string } | string, timeout = 10_000): OpenAI {
  const baseURL = typeof server === 'string' ? server : server.url;
  return new OpenAI({ baseURL, apiKey: 'test-key', maxRetries: 0, timeout });
}

const ask = (text = 'Is the response polite?') => ({
  model: 'judge',
  messages: [{ role: 'user' as const, content: text }],
});

function post(server: FakeOpenAiServer, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function gauge(metrics: string, name: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{`));
  if (line === undefined) throw new Error(`${name} missing from /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('fake OpenAI server, mode ok', () => {
  it('answers the openai client in OpenAI shape and logs the decoding parameters it received', async () => {
    const server = await start({ model: 'fake-judge-7b' });
    const reply = await client(server).chat.completions.create({
      ...ask('one two three'),
      temperature: 0,
      top_p: 0.8,
      seed: 7,
      max_tokens: 1024,
    });
    expect(reply.object).toBe('chat.completion');
    expect(reply.model).toBe('fake-judge-7b');
    expect(reply.id).toMatch(/^chatcmpl-/);
    expect(reply.choices).toHaveLength(1);
    expect(reply.choices[0]?.message).toMatchObject({ role: 'assistant', content: DEFAULT_FAKE_ANSWER });
    expect(reply.choices[0]?.finish_reason).toBe('stop');
    expect(reply.choices[0]?.logprobs).toBeNull();
    // Whitespace-separated words stand in for tokens: 3 in the prompt, 5 in the default answer.
    expect(reply.usage).toEqual({ prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 });

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toMatchObject({ temperature: 0, top_p: 0.8, seed: 7, max_tokens: 1024 });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key');
    expect(server.stats()).toMatchObject({ received: 1, answered: 1, running: 0, waiting: 0 });
  });

  it('answers each prompt from the scripted responder, logprobs included', async () => {
    const server = await start({
      answer: (request) => {
        const text = String(request.messages.at(-1)?.content);
        if (!text.includes('logprobs')) return `echo: ${text}`;
        const top = [
          { token: 'true', logprob: Math.log(0.7), bytes: null },
          { token: 'false', logprob: Math.log(0.3), bytes: null },
        ];
        return { content: 'true', logprobs: [{ token: 'true', logprob: Math.log(0.7), bytes: null, top_logprobs: top }] };
      },
    });
    const openai = client(server);
    const plain = await openai.chat.completions.create(ask('hello'));
    expect(plain.choices[0]?.message.content).toBe('echo: hello');
    const withLogprobs = await openai.chat.completions.create({ ...ask('logprobs please'), logprobs: true, top_logprobs: 2 });
    const tokens = withLogprobs.choices[0]?.logprobs?.content ?? [];
    expect(tokens.map((t) => t.token)).toEqual(['true']);
    expect(tokens[0]?.top_logprobs.map((t) => [t.token, Math.exp(t.logprob)])).toEqual([
      ['true', expect.closeTo(0.7, 12)],
      ['false', expect.closeTo(0.3, 12)],
    ]);
  });

  it('lists its model, answers /health, and 404s an unknown path', async () => {
    const server = await start({ model: 'm1' });
    const models = await client(server).models.list();
    expect(models.data.map((m) => m.id)).toEqual(['m1']);
    const health = await fetch(server.url.replace(/\/v1$/, '/health'));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const missing = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(server.stats().healthChecks).toBe(1);
  });

  it('rejects a body that is not a chat completions request with 400 naming the field', async () => {
    const server = await start();
    const notJson = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{"messages": [' });
    expect(notJson.status).toBe(400);
    const noMessages = await post(server, { model: 'x' });
    expect(noMessages.status).toBe(400);
    expect(((await noMessages.json()) as { error: { message: string } }).error.message).toMatch(/^messages:/);
    const wrongMethod = await fetch(`${server.url}/chat/completions`);
    expect(wrongMethod.status).toBe(405);
    expect(server.stats()).toMatchObject({ received: 0, rejected: 2 });
  });

  it('names the option when start() or set() gets a bad one', async () => {
    await expect(startFakeOpenAi({ slots: 0 })).rejects.toThrow(/option slots/);
    await expect(startFakeOpenAi({ latencyMs: -1 })).rejects.toThrow(/option latencyMs/);
    const server = await start();
    expect(() => server.set({ status: 1000 })).toThrow(/option status/);
    expect(() => server.set({ sequence: [{ mode: 'sleep' as never }] })).toThrow(/option sequence\.0\.mode/);
  });
});

describe('fake OpenAI server, fault modes', () => {
  it('status 429 carries Retry-After, to raw fetch and to the openai client', async () => {
    const server = await start({ mode: 'status', status: 429, retryAfter: '2' });
    const raw = await post(server, ask());
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('2');
    expect(((await raw.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');

    const error = await client(server).chat.completions.create(ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('2');
    expect(server.stats().receivedByMode.status).toBe(2);
  });

  it('status 500 and 400 reach the client as their error classes; no Retry-After unless set', async () => {
    const server = await start({ mode: 'status', status: 500 });
    const e500 = await client(server).chat.completions.create(ask()).catch((e: unknown) => e);
    expect(e500).toBeInstanceOf(OpenAI.InternalServerError);
    expect((e500 as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBeNull();
    server.set({ status: 400 });
    const e400 = await client(server).chat.completions.create(ask()).catch((e: unknown) => e);
    expect(e400).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('a sequence gives the first requests their own behaviour, then the server default', async () => {
    const server = await start({ sequence: [{ mode: 'status', status: 429, retryAfter: '0' }, { mode: 'status', status: 503 }] });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(server, ask())).status);
    expect(statuses).toEqual([429, 503, 200]);
    expect(server.requests.map((r) => r.mode)).toEqual(['status', 'status', 'ok']);
    // A sequence set at run time applies to the requests after it, not by absolute number.
    server.set({ sequence: [{ mode: 'status', status: 429 }] });
    for (let i = 0; i < 2; i++) statuses.push((await post(server, ask())).status);
    expect(statuses.slice(3)).toEqual([429, 200]);
  });

  it('behave(request, n) decides per request', async () => {
    const server = await start({
      behave: (request, n) => (String(request.messages[0]?.content).includes('boom') || n === 3 ? { mode: 'empty' } : undefined),
    });
    const openai = client(server);
    const contents: (string | null | undefined)[] = [];
    for (const text of ['a', 'boom', 'c', 'd']) contents.push((await openai.chat.completions.create(ask(text))).choices[0]?.message.content);
    expect(contents).toEqual([DEFAULT_FAKE_ANSWER, '', '', DEFAULT_FAKE_ANSWER]);
    expect(server.stats().receivedByMode).toEqual({ ok: 2, empty: 2, hang: 0, status: 0, garbage: 0 });
  });

  it('garbage: non-JSON, truncated JSON, a wrong shape, or prose where JSON was asked for', async () => {
    const server = await start({ mode: 'garbage', garbage: 'not-json' });
    const notJson = await post(server, ask());
    expect(notJson.status).toBe(200);
    expect(notJson.headers.get('content-type')).toBe('text/html');
    await expect(notJson.text().then((t) => JSON.parse(t))).rejects.toThrow(SyntaxError);

    server.set({ garbage: 'truncated-json' });
    const truncated = await post(server, ask());
    expect(truncated.headers.get('content-type')).toBe('application/json');
    await expect(truncated.text().then((t) => JSON.parse(t))).rejects.toThrow(SyntaxError);
    // The openai client cannot read it either.
    await expect(client(server).chat.completions.create(ask())).rejects.toThrow();

    server.set({ garbage: 'wrong-shape' });
    const wrong = (await (await post(server, ask())).json()) as { choices: unknown };
    expect(Array.isArray(wrong.choices)).toBe(false);

    server.set({ garbage: 'unreadable-content' });
    const prose = await client(server).chat.completions.create(ask());
    const content = prose.choices[0]?.message.content ?? '';
    expect(content.length).toBeGreaterThan(0);
    expect(() => JSON.parse(content)).toThrow(SyntaxError);
    expect(server.stats().receivedByMode.garbage).toBe(5);
  });

  it('empty: a well-formed completion with content ""', async () => {
    const server = await start({ mode: 'empty' });
    const reply = await client(server).chat.completions.create(ask());
    expect(reply.choices[0]?.message.content).toBe('');
    expect(reply.usage?.completion_tokens).toBe(0);
  });

  it('hang: never answers; a client timeout gives the slot back; stop() closes what still hangs', async () => {
    const server = await start({ mode: 'hang', slots: 1 });
    const timedOut = await client(server, 200).chat.completions.create(ask()).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await until(() => server.stats().aborted === 1, 'the aborted request to be counted');
    expect(server.stats()).toMatchObject({ received: 1, answered: 0, running: 0, waiting: 0 });

    const pending = post(server, ask()).then(
      () => 'answered',
      () => 'closed',
    );
    await until(() => server.stats().running === 1, 'the second request to hold the slot');
    await server.stop();
    expect(await pending).toBe('closed');
  });

  it('hangProbes: /health and /metrics hang too, like a stuck process', async () => {
    const server = await start({ mode: 'hang', hangProbes: true });
    const base = server.url.replace(/\/v1$/, '');
    for (const path of ['/health', '/metrics']) {
      const result = await fetch(base + path, { signal: AbortSignal.timeout(150) }).then(
        () => 'answered',
        (e: unknown) => (e as Error).name,
      );
      expect(result).toBe('TimeoutError');
    }
    server.set({ mode: 'ok', hangProbes: false });
    expect((await fetch(base + '/health')).status).toBe(200);
  });

  it('a dead endpoint refuses connections', async () => {
    const url = await deadEndpointUrl();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const error = await client(url).chat.completions.create(ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
    const raw = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(((raw as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('fake OpenAI server, slots and metrics', () => {
  it('serves at most `slots` at once, queues the rest FIFO, and reports both in vLLM metrics', async () => {
    const server = await start({ slots: 2, latencyMs: 300, model: 'm"q' });
    const metricsUrl = server.url.replace(/\/v1$/, '/metrics');
    const order: number[] = [];
    const calls = [1, 2, 3, 4, 5].map((i) =>
      client(server)
        .chat.completions.create(ask(`request ${i}`))
        .then(() => order.push(i)),
    );
    await until(() => server.stats().received === 5, 'all five requests to arrive');
    const during = await (await fetch(metricsUrl)).text();
    expect(gauge(during, 'vllm:num_requests_running')).toBe(2);
    expect(gauge(during, 'vllm:num_requests_waiting')).toBe(3);
    expect(during).toContain('model_name="m\\"q"');
    expect(during).toContain('# TYPE vllm:num_requests_waiting gauge');

    await Promise.all(calls);
    const after = await (await fetch(metricsUrl)).text();
    expect(gauge(after, 'vllm:num_requests_running')).toBe(0);
    expect(gauge(after, 'vllm:num_requests_waiting')).toBe(0);
    expect(server.stats()).toMatchObject({ received: 5, answered: 5, maxRunning: 2, maxInFlight: 5, metricsScrapes: 2 });
    // FIFO: the first two requests (arrival order) hold the slots, so they finish before the last one.
    const arrival = server.requests.map((r) => Number(String(r.body.messages[0]?.content).split(' ')[1]));
    expect(order.indexOf(arrival[0] ?? 0)).toBeLessThan(order.indexOf(arrival[4] ?? 0));
    expect(order.indexOf(arrival[1] ?? 0)).toBeLessThan(order.indexOf(arrival[4] ?? 0));
  });

  it('a queued request that is abandoned leaves the queue; more slots at run time drain it', async () => {
    const server = await start({ slots: 1, latencyMs: 50, sequence: [{ mode: 'hang' }] });
    const hanging = new AbortController();
    const first = post(server, ask(), hanging.signal).catch(() => 'aborted');
    await until(() => server.stats().running === 1, 'the hanging request to hold the slot');
    const abandoned = new AbortController();
    const second = post(server, ask(), abandoned.signal).catch(() => 'aborted');
    const third = post(server, ask());
    await until(() => server.stats().waiting === 2, 'two queued requests');
    abandoned.abort();
    expect(await second).toBe('aborted');
    await until(() => server.stats().waiting === 1, 'the abandoned request to leave the queue');
    server.set({ slots: 2 });
    expect((await third).status).toBe(200);
    expect(server.stats()).toMatchObject({ running: 1, waiting: 0, answered: 1, aborted: 1 });
    hanging.abort();
    expect(await first).toBe('aborted');
    await until(() => server.stats().running === 0, 'the hanging request to give its slot back');
    expect(server.stats().aborted).toBe(2);
  });
});
