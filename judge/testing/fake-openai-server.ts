/**
 * An OpenAI-compatible chat endpoint for tests and benchmarks, with faults on demand: a real HTTP
 * server (node:http on 127.0.0.1, a free port) that can be slow, limited to N requests at a time,
 * hang, answer an error status (429 with Retry-After, 500, 400), answer garbage or empty content.
 *
 * Endpoints: POST /v1/chat/completions, GET /v1/models, GET /health, and GET /metrics in vLLM's
 * Prometheus format (vllm:num_requests_running / vllm:num_requests_waiting), so load-aware routing
 * can be tested against it the way it reads vLLM.
 *
 * Service model (what a benchmark needs to compute an ideal wall time): a request that is to be
 * answered takes one of `slots` (FIFO queue when all are busy; queued requests count as waiting),
 * holds it for `latencyMs`, then answers. 'status' answers are sent at once without a slot, like a
 * rate limiter or proxy in front of a model server. 'hang' takes a slot and never answers. A client
 * that disconnects (timeout, abort) gives its slot or queue place back, as vLLM aborts the request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { completionBody, errorBody, garbageBody, modelsBody, vllmMetrics, type AnswerParts } from './fake-openai-bodies.js';

export type FakeMode = 'ok' | 'hang' | 'status' | 'garbage' | 'empty';

/**
 * What a 'garbage' answer looks like, all with status 200:
 * - 'not-json': an HTML page (a proxy's error page);
 * - 'truncated-json': a chat completion cut in the middle (Content-Type application/json);
 * - 'wrong-shape': valid JSON that is not a chat completion (`choices` is not a list of messages);
 * - 'unreadable-content': a well-formed chat completion whose content is prose, not the JSON asked for.
 */
export type GarbageKind = 'not-json' | 'truncated-json' | 'wrong-shape' | 'unreadable-content';

/** How one request is treated. Server-wide values come from `start`/`set`; per request they can be
 * overridden by `sequence` and `behave`. */
export interface Behaviour {
  mode: FakeMode;
  /** Service time of a request that holds a slot ('ok', 'empty', 'garbage'), in ms. */
  latencyMs: number;
  /** HTTP status for mode 'status'. */
  status: number;
  /** Retry-After header value sent with mode 'status' (seconds or an HTTP date); none if undefined. */
  retryAfter: string | undefined;
  garbage: GarbageKind;
}

/** A chat completions request as received (the zod-checked core; the rest is kept as sent). */
export interface FakeChatRequest {
  model?: string | undefined;
  messages: { role: string; content?: unknown }[];
  [key: string]: unknown;
}

/** What the responder returns: the content, or the content with logprobs (OpenAI's
 * `choices[0].logprobs.content`, sent as `logprobs: null` when absent), finish reason and usage. */
export type FakeAnswer = string | AnswerParts;
export type { AnswerParts };

export interface FakeOpenAiOptions extends Partial<Behaviour> {
  /** Requests served at once; the rest wait in a FIFO queue. Default: unlimited. */
  slots?: number;
  /** Model id reported by /v1/models, in answers and in the metrics labels. Default 'fake-judge'. */
  model?: string;
  /** Content of an 'ok' answer. Default: `DEFAULT_FAKE_ANSWER` whatever the prompt. */
  answer?: (request: FakeChatRequest) => FakeAnswer;
  /** Behaviour overrides for the next requests after `start` or this `set`: the k-th of them gets
   * sequence[k - 1]; later ones get the server's behaviour (e.g. two 429s, then answers). */
  sequence?: Partial<Behaviour>[];
  /** Per-request override, applied after `sequence`; n is the 1-based arrival number. */
  behave?: (request: FakeChatRequest, n: number) => Partial<Behaviour> | undefined;
  /** /health, /metrics and /v1/models never answer either (a stuck process), not only completions. */
  hangProbes?: boolean;
}

export interface ReceivedRequest {
  /** 1-based arrival number among chat completions requests. */
  n: number;
  body: FakeChatRequest;
  headers: Record<string, string | string[] | undefined>;
  mode: FakeMode;
}

export interface FakeOpenAiStats {
  /** Chat completions requests received (valid bodies only; see `rejected`). */
  received: number;
  receivedByMode: Record<FakeMode, number>;
  /** Bodies answered 400 because they were not a chat completions request. */
  rejected: number;
  /** Requests whose answer was fully sent. */
  answered: number;
  /** Requests whose client went away first (timeout, abort). */
  aborted: number;
  /** Holding a slot now (vllm:num_requests_running). */
  running: number;
  /** Queued for a slot now (vllm:num_requests_waiting). */
  waiting: number;
  /** Most requests holding a slot at the same time. */
  maxRunning: number;
  /** Most requests open at the same time (running + waiting). */
  maxInFlight: number;
  healthChecks: number;
  metricsScrapes: number;
}

export interface FakeOpenAiServer {
  /** Base URL for an OpenAI client: http://127.0.0.1:PORT/v1 */
  readonly url: string;
  readonly port: number;
  /** Every chat completions request received, in arrival order. */
  readonly requests: readonly ReceivedRequest[];
  stats(): FakeOpenAiStats;
  /** Changes the server's behaviour for requests that arrive from now on (slots: at once). */
  set(options: FakeOpenAiOptions): void;
  /** Closes the server and every open connection, hanging and queued ones included. */
  stop(): Promise<void>;
}

export const DEFAULT_FAKE_ANSWER = '{"1": {"criteria_met": true, "prob_met": 0.9}}';

const MAX_BODY_BYTES = 16 * 1024 * 1024;

const chatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string() })).min(1),
  stream: z.literal(false).optional(),
});

const behaviourSchema = z.object({
  mode: z.enum(['ok', 'hang', 'status', 'garbage', 'empty']),
  latencyMs: z.number().finite().min(0),
  status: z.number().int().min(100).max(599),
  retryAfter: z.string().min(1).optional(),
  garbage: z.enum(['not-json', 'truncated-json', 'wrong-shape', 'unreadable-content']),
});
const aFunction = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'expected a function');
const optionsSchema = behaviourSchema.partial().extend({
  slots: z.union([z.number().int().min(1), z.literal(Number.POSITIVE_INFINITY)]).optional(),
  model: z.string().min(1).optional(),
  answer: aFunction.optional(),
  sequence: z.array(behaviourSchema.partial()).optional(),
  behave: aFunction.optional(),
  hangProbes: z.boolean().optional(),
});

function checkOptions(options: FakeOpenAiOptions): void {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(`fake OpenAI server: option ${issue?.path.join('.') || '?'}: ${issue?.message ?? 'invalid'}`);
  }
}

interface Settings {
  behaviour: Behaviour;
  slots: number;
  model: string;
  answer: (request: FakeChatRequest) => FakeAnswer;
  sequence: Partial<Behaviour>[];
  /** `received` when the sequence was set: it applies to the requests after that. */
  sequenceFrom: number;
  behave: ((request: FakeChatRequest, n: number) => Partial<Behaviour> | undefined) | undefined;
  hangProbes: boolean;
}

function merge(settings: Settings, options: FakeOpenAiOptions, received: number): Settings {
  const { slots, model, answer, sequence, behave, hangProbes, ...behaviour } = options;
  return {
    behaviour: { ...settings.behaviour, ...definedOnly(behaviour) },
    slots: slots ?? settings.slots,
    model: model ?? settings.model,
    answer: answer ?? settings.answer,
    sequence: sequence ?? settings.sequence,
    sequenceFrom: sequence === undefined ? settings.sequenceFrom : received,
    behave: 'behave' in options ? behave : settings.behave,
    hangProbes: hangProbes ?? settings.hangProbes,
  };
}

/** Keeps `retryAfter: undefined` meaningful (no header) while dropping other undefined values. */
function definedOnly(partial: Partial<Behaviour>): Partial<Behaviour> {
  const out: Partial<Behaviour> = {};
  for (const [key, value] of Object.entries(partial) as [keyof Behaviour, unknown][]) {
    if (value !== undefined || key === 'retryAfter') Object.assign(out, { [key]: value });
  }
  return out;
}

/** A request waiting for, or holding, a slot. */
interface Job {
  run(): void;
  state: 'waiting' | 'running' | 'done';
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
  checkOptions(options);
  let settings = merge(
    {
      behaviour: { mode: 'ok', latencyMs: 0, status: 500, retryAfter: undefined, garbage: 'not-json' },
      slots: Number.POSITIVE_INFINITY,
      model: 'fake-judge',
      answer: () => DEFAULT_FAKE_ANSWER,
      sequence: [],
      sequenceFrom: 0,
      behave: undefined,
      hangProbes: false,
    },
    options,
    0,
  );
  const requests: ReceivedRequest[] = [];
  const stats: FakeOpenAiStats = {
    received: 0,
    receivedByMode: { ok: 0, hang: 0, status: 0, garbage: 0, empty: 0 },
    rejected: 0,
    answered: 0,
    aborted: 0,
    running: 0,
    waiting: 0,
    maxRunning: 0,
    maxInFlight: 0,
    healthChecks: 0,
    metricsScrapes: 0,
  };
  const queue: Job[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  const dispatch = (): void => {
    while (stats.running < settings.slots && queue.length > 0) {
      const job = queue.shift();
      if (job === undefined || job.state !== 'waiting') continue;
      stats.waiting -= 1;
      stats.running += 1;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      job.state = 'running';
      job.run();
    }
  };

  const finish = (job: Job, answered: boolean): void => {
    if (job.state === 'done') return;
    if (job.state === 'running') stats.running -= 1;
    if (job.state === 'waiting') stats.waiting -= 1;
    job.state = 'done';
    if (answered) stats.answered += 1;
    else stats.aborted += 1;
    dispatch();
  };

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };

  const chatCompletion = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      stats.rejected += 1;
      send(res, 400, errorBody('request body is not JSON', 'invalid_request_error'));
      return;
    }
    const parsed = chatRequestSchema.safeParse(json);
    if (!parsed.success) {
      stats.rejected += 1;
      const issue = parsed.error.issues[0];
      send(res, 400, errorBody(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`, 'invalid_request_error'));
      return;
    }
    const body = parsed.data as FakeChatRequest;
    const n = stats.received + 1;
    const now = settings;
    const behaviour: Behaviour = {
      ...now.behaviour,
      ...definedOnlyIfPresent(now.sequence[n - 1 - now.sequenceFrom]),
      ...definedOnlyIfPresent(now.behave?.(body, n)),
    };
    stats.received = n;
    stats.receivedByMode[behaviour.mode] += 1;
    requests.push({ n, body, headers: { ...req.headers }, mode: behaviour.mode });

    if (behaviour.mode === 'status') {
      const headers: Record<string, string> = behaviour.retryAfter === undefined ? {} : { 'retry-after': behaviour.retryAfter };
      const type = behaviour.status === 429 ? 'rate_limit_error' : behaviour.status >= 500 ? 'server_error' : 'invalid_request_error';
      send(res, behaviour.status, errorBody(`fake server: status ${behaviour.status}`, type), headers);
      stats.answered += 1;
      return;
    }

    const job: Job = {
      state: 'waiting',
      run: () => {
        if (behaviour.mode === 'hang') return; // holds the slot until the client or stop() closes
        if (behaviour.latencyMs === 0) {
          // An instant endpoint (client-overhead benchmarks): no timer tick per request.
          respond(res, body, behaviour, now);
          finish(job, true);
          return;
        }
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (job.state !== 'running') return;
          respond(res, body, behaviour, now);
          finish(job, true);
        }, behaviour.latencyMs);
        timers.add(timer);
      },
    };
    if (res.destroyed || req.socket.destroyed) {
      // The client left while its body was still arriving: 'close' has fired already.
      stats.aborted += 1;
      return;
    }
    queue.push(job);
    res.on('close', () => {
      if (job.state !== 'done') finish(job, false);
    });
    stats.waiting += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.waiting + stats.running);
    dispatch();
  };

  const respond = (res: ServerResponse, body: FakeChatRequest, behaviour: Behaviour, now: Settings): void => {
    const model = now.model;
    if (behaviour.mode === 'garbage') {
      const garbage = garbageBody(behaviour.garbage, model);
      send(res, 200, garbage.body, { 'content-type': garbage.contentType });
      return;
    }
    let answer: FakeAnswer;
    if (behaviour.mode === 'empty') answer = '';
    else {
      try {
        answer = now.answer(body);
      } catch (error) {
        send(res, 500, errorBody(`fake server: the answer() responder threw: ${String(error)}`, 'server_error'));
        return;
      }
    }
    send(res, 200, completionBody(body, typeof answer === 'string' ? { content: answer } : answer, model));
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const probe = path === '/health' || path === '/metrics' || path === '/v1/models';
    if (stopped) {
      res.destroy();
      return;
    }
    if (probe && settings.hangProbes) return; // never answered; closed by the client or stop()
    if (req.method === 'GET' && path === '/health') {
      stats.healthChecks += 1;
      send(res, 200, '{"status":"ok"}');
    } else if (req.method === 'GET' && path === '/metrics') {
      stats.metricsScrapes += 1;
      send(res, 200, vllmMetrics(settings.model, stats.running, stats.waiting), {
        'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      });
    } else if (req.method === 'GET' && path === '/v1/models') {
      send(res, 200, modelsBody(settings.model));
    } else if (path === '/v1/chat/completions') {
      if (req.method !== 'POST') {
        send(res, 405, errorBody(`method ${req.method ?? '?'} not allowed`, 'invalid_request_error'), { allow: 'POST' });
        return;
      }
      readBody(req, MAX_BODY_BYTES).then(
        (raw) => chatCompletion(req, res, raw),
        (error: unknown) => {
          stats.rejected += 1;
          send(res, 413, errorBody(String(error), 'invalid_request_error'));
        },
      );
    } else {
      send(res, 404, errorBody(`no route ${req.method ?? '?'} ${path}`, 'invalid_request_error'));
    }
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    stats: () => ({ ...stats, receivedByMode: { ...stats.receivedByMode } }),
    set(partial) {
      checkOptions(partial);
      settings = merge(settings, partial, stats.received);
      dispatch();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function definedOnlyIfPresent(partial: Partial<Behaviour> | undefined): Partial<Behaviour> {
  return partial === undefined ? {} : definedOnly(partial);
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error(`request body over ${limit} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
