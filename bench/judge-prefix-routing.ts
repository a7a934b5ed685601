/**
 * Prefix-aware against least-outstanding judge routing on real llama.cpp servers (scripts/local-llm:
 * SmolLM2-135M, prompt cache on, 2 slots and 1 thread each): RuscaRL rows (the HealthBench grader,
 * one request per criterion: header + conversation + response, then the criterion and the shared
 * instructions) and official GEAR rows (one batch request per response), bundled HealthBench rows
 * with real responses (`gear sample-rows`), all requests sent at once as `gear judge` does with
 * its rows in flight. Per run, fresh servers: prompt tokens evaluated (the servers'
 * `llamacpp:prompt_tokens_total`, which counts only tokens not reused from the cache), the
 * prompt tokens sent, wall time, requests per server. The prefix-reuse ideal evaluates each
 * response's shared prefix once: sum over responses of (its requests' prompt tokens - (requests -
 * 1) x the tokens of their common templated prefix), counted with the server's own /apply-template
 * and /tokenize.
 *
 * Run: `npx tsc -b && node dist/bench/judge-prefix-routing.js [--servers 2,4] [--ruscarl-rows 2]
 * [--official-rows 2] [--responses 2] [--max-concurrent 32 (gear's default)] [--max-tokens 8] [--hosts ruscarl,gear]`.
 * Hedging is off (an early hedge is a duplicate prompt on another server, in both routings).
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createOfficialGearFormat } from '../adapters/official-gear/format.js';
import { createRuscarlFormat } from '../adapters/ruscarl/format.js';
import { sampleRowLines } from '../cli/commands/sample-rows.js';
import { startLocalLlm, type LocalLlm } from '../judge/testing/local-llm.js';
import type { ChatMessage } from '../judge/transport/chat-call.js';
import { JudgeTransport } from '../judge/transport/judge-transport.js';

type Host = 'ruscarl' | 'gear';
type Routing = 'least-outstanding' | 'prefix';

/** One response's judge requests. */
type ResponseRequests = ChatMessage[][];

interface Workload {
  readonly host: Host;
  readonly rows: number;
  readonly responses: readonly ResponseRequests[];
}

export interface PrefixRun {
  readonly host: Host;
  readonly servers: number;
  readonly routing: Routing;
  readonly requests: number;
  readonly failed: number;
  readonly tokensSent: number;
  readonly evaluated: number;
  readonly cached: number;
  readonly ideal: number;
  readonly wallMs: number;
  readonly perServer: readonly number[];
  readonly affinity: string;
}

/** Rows of `host` from `gear sample-rows`, each with `responses` responses, whose requests fit the context. */
function workload(host: Host, rows: number, responses: number, maxChars: number): Workload {
  const requestsOf = (row: unknown, text: string): ChatMessage[][] => {
    const built = host === 'ruscarl' ? ((f) => f.buildJudgeRequests(f.parseRow(row), text))(createRuscarlFormat()) : ((f) => f.buildJudgeRequests(f.parseRow(row), text))(createOfficialGearFormat());
    return built.map((r) => r.messages.map((m) => ({ role: m.role, content: m.content })));
  };
  const byRow = new Map<string, { row: unknown; responses: string[] }>();
  for (const line of sampleRowLines({ host, limit: Number.MAX_SAFE_INTEGER, responses })) {
    const { row, response } = JSON.parse(line) as { row: unknown; response: string };
    const key = JSON.stringify(row);
    const entry = byRow.get(key) ?? { row, responses: [] };
    entry.responses.push(response);
    byRow.set(key, entry);
  }
  // The shortest rows first (1-thread CPU servers), RuscaRL rows with 6-12 criteria as HealthBench's have.
  const candidates: { requests: ResponseRequests[]; chars: number }[] = [];
  for (const { row, responses: texts } of byRow.values()) {
    if (texts.length < responses || new Set(texts).size < texts.length) continue;
    const built = texts.map((text) => requestsOf(row, text));
    const criteria = built[0]?.length ?? 0;
    if (host === 'ruscarl' && (criteria < 6 || criteria > 12)) continue;
    const chars = built.flat().map((messages) => messages.reduce((s, m) => s + m.content.length, 0));
    if (Math.max(...chars) > maxChars) continue;
    candidates.push({ requests: built, chars: chars.reduce((a, b) => a + b, 0) });
  }
  candidates.sort((a, b) => a.chars - b.chars);
  const chosen = candidates.slice(0, rows);
  const picked = chosen.flatMap((c) => c.requests);
  const taken = chosen.length;
  return { host, rows: taken, responses: picked };
}

async function metric(server: LocalLlm, name: string): Promise<number> {
  const text = await (await fetch(server.url.replace(/\/v1$/, '/metrics'))).text();
  const value = new RegExp(`^llamacpp:${name} (\\S+)$`, 'm').exec(text)?.[1];
  if (value === undefined) throw new Error(`${server.url}: no llamacpp:${name} in /metrics`);
  return Number(value);
}

async function post<T>(server: LocalLlm, path: string, body: unknown): Promise<T> {
  const reply = await fetch(server.url.replace(/\/v1$/, path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (reply.status !== 200) throw new Error(`${path}: HTTP ${reply.status}`);
  return (await reply.json()) as T;
}

/** Tokens of each response's common templated prefix, from the server's own template and tokenizer. */
async function sharedPrefixTokens(server: LocalLlm, responses: readonly ResponseRequests[]): Promise<number[]> {
  const out: number[] = [];
  for (const requests of responses) {
    if (requests.length < 2) {
      out.push(0);
      continue;
    }
    const prompts: string[] = [];
    for (const messages of requests) prompts.push((await post<{ prompt: string }>(server, '/apply-template', { messages })).prompt);
    let n = (prompts[0] as string).length;
    for (const p of prompts) {
      let i = 0;
      while (i < n && p.charCodeAt(i) === (prompts[0] as string).charCodeAt(i)) i++;
      n = i;
    }
    const { tokens } = await post<{ tokens: number[] }>(server, '/tokenize', { content: (prompts[0] as string).slice(0, n), add_special: true, parse_special: true });
    out.push(tokens.length);
  }
  return out;
}

async function runOnce(work: Workload, servers: number, routing: Routing, opts: { maxConcurrent: number; maxTokens: number }): Promise<PrefixRun> {
  const llms = await Promise.all(Array.from({ length: servers }, () => startLocalLlm({ parallel: 2, threads: 1, ctx: 8192, cachePrompt: true })));
  try {
    const before = await Promise.all(llms.map(async (s) => [await metric(s, 'prompt_tokens_total'), await metric(s, 'prompt_tokens_cached_total')] as const));
    const transport = new JudgeTransport({
      endpoints: llms.map((s) => ({ url: s.url, model: s.model, maxConcurrent: opts.maxConcurrent })),
      hedge: { enabled: false },
      // 1-thread CPU servers queue requests for minutes: no request may fail on the clock.
      requestTimeoutMs: 3_600_000,
      deadlineMs: 3_600_000,
      prefixAffinity: { enabled: routing === 'prefix' },
    });
    const decoding = { temperature: 0, top_p: 1, max_tokens: opts.maxTokens, seed: 0 };
    const start = performance.now();
    const results = await Promise.all(work.responses.map((requests) => Promise.allSettled(requests.map((messages) => transport.complete({ messages, decoding })))));
    const wallMs = performance.now() - start;
    const info = transport.info();
    await transport.close();
    const after = await Promise.all(llms.map(async (s) => [await metric(s, 'prompt_tokens_total'), await metric(s, 'prompt_tokens_cached_total')] as const));
    const answers = results.map((settled) => settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
    const requests = work.responses.reduce((s, r) => s + r.length, 0);
    // The ideal, from the answers' prompt tokens and each response's shared prefix.
    const shared = await sharedPrefixTokens(llms[0] as LocalLlm, work.responses);
    let ideal = 0;
    answers.forEach((responseAnswers, k) => {
      const sent = responseAnswers.reduce((s, a) => s + a.promptTokens, 0);
      ideal += sent - (responseAnswers.length - 1) * (shared[k] ?? 0);
    });
    const a = info.prefixAffinity;
    return {
      host: work.host,
      servers,
      routing,
      requests,
      failed: requests - answers.reduce((s, r) => s + r.length, 0),
      tokensSent: answers.flat().reduce((s, x) => s + x.promptTokens, 0),
      evaluated: after.reduce((s, [t], i) => s + t - (before[i]?.[0] ?? 0), 0),
      cached: after.reduce((s, [, c], i) => s + c - (before[i]?.[1] ?? 0), 0),
      ideal,
      wallMs,
      perServer: info.endpoints.map((e) => e.served),
      affinity: a === undefined ? '-' : `followed ${a.followed}, moved ${a.moved}, new ${a.unknown}, unbalanced ${a.unbalanced}`,
    };
  } finally {
    await Promise.all(llms.map((s) => s.stop()));
  }
}

export async function benchJudgePrefixRouting(
  log: (line?: string) => void,
  opts: { servers: readonly number[]; hosts: readonly Host[]; ruscarlRows: number; officialRows: number; responses: number; maxConcurrent: number; maxTokens: number },
): Promise<PrefixRun[]> {
  const runs: PrefixRun[] = [];
  const head = `${'host'.padEnd(8)}${'servers'.padStart(8)}  ${'routing'.padEnd(18)}${'requests'.padStart(9)}${'sent'.padStart(8)}${'evaluated'.padStart(10)}${'ideal'.padStart(8)}${'eval/ideal'.padStart(11)}${'wall s'.padStart(8)}  per server; affinity`;
  for (const host of opts.hosts) {
    const work = workload(host, host === 'ruscarl' ? opts.ruscarlRows : opts.officialRows, opts.responses, host === 'ruscarl' ? 9000 : 14000);
    const chars = work.responses.flat().map((m) => m.reduce((s, x) => s + x.content.length, 0));
    log(`${host}: ${work.rows} rows x ${opts.responses} responses, ${work.responses.reduce((s, r) => s + r.length, 0)} requests of ${Math.min(...chars)}-${Math.max(...chars)} chars; maxConcurrent ${opts.maxConcurrent} per server, max_tokens ${opts.maxTokens}`);
    log(head);
    log('-'.repeat(head.length));
    for (const servers of opts.servers) {
      for (const routing of ['least-outstanding', 'prefix'] as const) {
        const r = await runOnce(work, servers, routing, opts);
        runs.push(r);
        log(
          `${host.padEnd(8)}${String(servers).padStart(8)}  ${routing.padEnd(18)}${String(r.requests).padStart(9)}${String(r.tokensSent).padStart(8)}${String(r.evaluated).padStart(10)}` +
            `${String(r.ideal).padStart(8)}${(r.evaluated / r.ideal).toFixed(2).padStart(11)}${(r.wallMs / 1000).toFixed(1).padStart(8)}  ${r.perServer.join('/')}; ${r.affinity}${r.failed > 0 ? `; ${r.failed} FAILED` : ''}`,
        );
      }
    }
    log();
  }
  return runs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      servers: { type: 'string', default: '2,4' },
      hosts: { type: 'string', default: 'ruscarl,gear' },
      'ruscarl-rows': { type: 'string', default: '2' },
      'official-rows': { type: 'string', default: '2' },
      responses: { type: 'string', default: '2' },
      'max-concurrent': { type: 'string', default: '32' },
      'max-tokens': { type: 'string', default: '8' },
    },
  });
  const hosts = values.hosts.split(',').map((h) => h.trim());
  for (const h of hosts) if (h !== 'ruscarl' && h !== 'gear') throw new Error(`--hosts: ruscarl or gear, got ${h}`);
  await benchJudgePrefixRouting((line = '') => console.log(line), {
    servers: values.servers.split(',').map(Number),
    hosts: hosts as Host[],
    ruscarlRows: Number(values['ruscarl-rows']),
    officialRows: Number(values['official-rows']),
    responses: Number(values.responses),
    maxConcurrent: Number(values['max-concurrent']),
    maxTokens: Number(values['max-tokens']),
  });
}
