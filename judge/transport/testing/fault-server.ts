import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A small OpenAI-compatible chat server for the transport's tests and routing benchmark, with
 * fixed latency and slots (like a vLLM server with --max-num-seqs) and fault modes:
 * - ok: answers `content` after `latencyMs` in one of `slots` slots (others wait in line); with
 *   `batch`, holds requests until `batch` of them wait, then answers them all in one go after
 *   `latencyMs` (a continuous-batching server's batch finishing together);
 * - hang: accepts and never answers (chat and /metrics);
 * - status: answers `status` (with Retry-After `retryAfter` when given) at once;
 * - garbage: 200 with a body that is not JSON; empty: 200 with empty content;
 * - reset: drops every connection as soon as it is made;
 * - drop: reads the request, then drops its connection without an answer.
 * `alternate` applies other settings to every other chat request (the 1st, 3rd, ...): a
 * rate-limited API answering every other request with 429, a flaky server with 500.
 * GET /metrics publishes vllm:num_requests_running / waiting.
 */
export type FaultMode = 'ok' | 'hang' | 'status' | 'garbage' | 'empty' | 'reset' | 'drop';

export interface FaultBehaviour {
  mode: FaultMode;
  latencyMs: number;
  slots: number;
  content: string;
  status: number;
  retryAfter?: string;
  retryAfterMs?: string;
  batch?: number;
  /** Settings for the 1st, 3rd, 5th, ... chat request instead (the others get the rest). */
  alternate?: Partial<Omit<FaultBehaviour, 'alternate'>>;
}

export interface FaultServerStats {
  /** TCP connections accepted. */
  connections: number;
  /** Chat completion requests received, with arrival time (Date.now()) and parsed body. */
  readonly requests: { at: number; body: Record<string, unknown> }[];
  metricsRequests: number;
  answered: number;
  /** Most requests in slots at once. */
  maxRunning: number;
  /** Chat requests whose client went away before an answer. */
  abandoned: number;
}

export interface FaultServer {
  readonly url: string;
  readonly port: number;
  readonly stats: FaultServerStats;
  readonly behaviour: FaultBehaviour;
  set(change: Partial<FaultBehaviour>): void;
  close(): Promise<void>;
}

const DEFAULTS: FaultBehaviour = { mode: 'ok', latencyMs: 0, slots: 1_000_000, content: 'ok', status: 500 };

function completion(content: string, body: Record<string, unknown>): Record<string, unknown> {
  const words = content.split(/(?<=\s)/).filter((w) => w !== '');
  const prompt = JSON.stringify(body['messages'] ?? '').length;
  const choice: Record<string, unknown> = { index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' };
  if (body['logprobs'] === true) {
    const k = typeof body['top_logprobs'] === 'number' ? body['top_logprobs'] : 0;
    choice['logprobs'] = {
      content: words.map((token) => ({
        token,
        logprob: -0.1,
        top_logprobs: [{ token, logprob: -0.1 }, ...Array.from({ length: Math.max(0, k - 1) }, (_, i) => ({ token: `alt${i}`, logprob: -3 - i }))],
      })),
    };
  }
  return {
    id: 'chatcmpl-fault-server',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: String(body['model'] ?? 'default'),
    choices: [choice],
    usage: { prompt_tokens: Math.ceil(prompt / 4), completion_tokens: words.length, total_tokens: Math.ceil(prompt / 4) + words.length },
  };
}

/** `recordBodies: false` keeps only arrival times (long benchmark runs). */
export interface FaultServerOptions {
  /** Keep the parsed bodies in `stats.requests` (default true). */
  recordBodies?: boolean;
  /** How long an idle keep-alive connection stays open (node's default: 5,000 ms). */
  keepAliveTimeoutMs?: number;
}

export async function startFaultServer(initial: Partial<FaultBehaviour> = {}, options: FaultServerOptions = {}): Promise<FaultServer> {
  const recordBodies = options.recordBodies ?? true;
  const behaviour: FaultBehaviour = { ...DEFAULTS, ...initial };
  const stats: FaultServerStats = { connections: 0, requests: [], metricsRequests: 0, answered: 0, maxRunning: 0, abandoned: 0 };
  let running = 0;
  const line: (() => void)[] = [];
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();

  const release = (): void => {
    running--;
    const next = line.shift();
    if (next !== undefined) next();
  };

  const answerChat = (body: Record<string, unknown>, res: ServerResponse, n: number): void => {
    const b = behaviour.alternate !== undefined && n % 2 === 1 ? { ...behaviour, ...behaviour.alternate } : behaviour;
    switch (b.mode) {
      case 'hang':
      case 'reset':
        return;
      case 'drop':
        res.socket?.destroy();
        return;
      case 'status': {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (b.retryAfter !== undefined) headers['retry-after'] = b.retryAfter;
        if (b.retryAfterMs !== undefined) headers['retry-after-ms'] = b.retryAfterMs;
        res.writeHead(b.status, headers).end(JSON.stringify({ error: { message: `fault server: ${b.status}`, type: 'fault' } }));
        return;
      }
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html>502 upstream garbage');
        return;
      case 'empty':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion('', body)));
        return;
      case 'ok': {
        if (b.batch !== undefined) {
          held.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(b.content, body))));
          if (held.length < b.batch) return;
          const answers = held.splice(0);
          setTimeout(() => {
            stats.answered += answers.length;
            for (const answer of answers) answer();
          }, b.latencyMs);
          return;
        }
        // Like vLLM, a request whose client went away leaves its slot or its place in line.
        let timer: NodeJS.Timeout | undefined;
        let done = false;
        const run = (): void => {
          running++;
          stats.maxRunning = Math.max(stats.maxRunning, running);
          timer = setTimeout(() => {
            done = true;
            release();
            stats.answered++;
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(b.content, body)));
          }, b.latencyMs);
        };
        res.on('close', () => {
          if (done) return;
          done = true;
          if (timer !== undefined) {
            clearTimeout(timer);
            release();
          } else {
            const i = line.indexOf(run);
            if (i >= 0) line.splice(i, 1);
          }
        });
        if (running < b.slots) run();
        else line.push(run);
      }
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method === 'GET' && req.url?.endsWith('/metrics')) {
      stats.metricsRequests++;
      if (behaviour.mode === 'hang') return;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(
        `# HELP vllm:num_requests_running Number of requests in model execution batches.\n` +
          `vllm:num_requests_running{model_name="default"} ${running}.0\n` +
          `vllm:num_requests_waiting{model_name="default"} ${line.length}.0\n`,
      );
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        res.writeHead(400).end('bad json');
        return;
      }
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      stats.requests.push({ at: Date.now(), body: recordBodies ? body : {} });
      res.on('close', () => {
        if (!res.writableFinished) stats.abandoned++;
      });
      answerChat(body, res, stats.requests.length);
    });
  };

  const server = createServer({ keepAlive: true }, handle);
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  server.on('connection', (socket: Socket) => {
    stats.connections++;
    if (behaviour.mode === 'reset') {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    stats,
    behaviour,
    set: (change) => Object.assign(behaviour, change),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (connection refused): bound once, then closed. */
export async function deadPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
