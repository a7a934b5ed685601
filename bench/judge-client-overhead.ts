/**
 * What the judge transport adds per request, against a bare fetch of the same body, both against
 * an endpoint that answers at once (in its own process): requests per second and this process's
 * CPU per request at 64 concurrent, and per-request latency one at a time (p50 / p99), the two
 * clients interleaved.
 */
import { OFFICIAL_DECODING, type ChatMessage } from '../judge/transport/chat-call.js';
import { JudgeTransport } from '../judge/transport/judge-transport.js';
import { chatCompletionBody } from '../judge/transport/openai-exchange.js';
import { withFakeEndpoints } from './judge-endpoints-process.js';

const CONCURRENCY = 64;
const THROUGHPUT_REQUESTS = 4000;
const SEQUENTIAL_PAIRS = 1000;

export interface ClientOverhead {
  readonly gearRps: number;
  readonly fetchRps: number;
  /** This process's CPU (user + system) per request at 64 concurrent. */
  readonly gearCpuMs: number;
  readonly fetchCpuMs: number;
  readonly gearP50Ms: number;
  readonly gearP99Ms: number;
  readonly fetchP50Ms: number;
  readonly fetchP99Ms: number;
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;

export async function measureClientOverhead(requests: readonly ChatMessage[][]): Promise<ClientOverhead> {
  return withFakeEndpoints([{ latencyMs: 0, content: '{"1": {"criteria_met": true, "prob_met": 0.9}}' }], async ({ urls }) => {
    const url = urls[0] as string;
    const transport = new JudgeTransport({ endpoints: [{ url, maxConcurrent: CONCURRENCY }] });
    const messagesOf = (i: number): ChatMessage[] => requests[i % requests.length] as ChatMessage[];
    const viaGear = async (i: number): Promise<void> => {
      await transport.complete({ messages: messagesOf(i), decoding: OFFICIAL_DECODING });
    };
    // The baseline: the same body posted with fetch, the reply parsed and its content read.
    const viaFetch = async (i: number): Promise<void> => {
      const res = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer EMPTY' },
        body: JSON.stringify(chatCompletionBody('default', { messages: messagesOf(i), decoding: OFFICIAL_DECODING })),
      });
      const reply = (await res.json()) as { choices: { message: { content: string } }[] };
      if (reply.choices[0]?.message.content === undefined) throw new Error('no content');
    };
    const throughput = async (one: (i: number) => Promise<void>): Promise<{ rps: number; cpuMs: number }> => {
      let next = 0;
      const start = performance.now();
      const cpu = process.cpuUsage();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < THROUGHPUT_REQUESTS) await one(next++);
        }),
      );
      const used = process.cpuUsage(cpu);
      return { rps: THROUGHPUT_REQUESTS / ((performance.now() - start) / 1000), cpuMs: (used.user + used.system) / 1000 / THROUGHPUT_REQUESTS };
    };
    // Warm both paths (connections, JIT), then measure.
    await throughput(viaGear);
    await throughput(viaFetch);
    const viaFetchRun = await throughput(viaFetch);
    const viaGearRun = await throughput(viaGear);
    const gearMs: number[] = [];
    const fetchMs: number[] = [];
    for (let i = 0; i < SEQUENTIAL_PAIRS; i++) {
      let t = performance.now();
      await viaGear(i);
      gearMs.push(performance.now() - t);
      t = performance.now();
      await viaFetch(i);
      fetchMs.push(performance.now() - t);
    }
    await transport.close();
    gearMs.sort((a, b) => a - b);
    fetchMs.sort((a, b) => a - b);
    return {
      gearRps: viaGearRun.rps,
      fetchRps: viaFetchRun.rps,
      gearCpuMs: viaGearRun.cpuMs,
      fetchCpuMs: viaFetchRun.cpuMs,
      gearP50Ms: quantile(gearMs, 0.5),
      gearP99Ms: quantile(gearMs, 0.99),
      fetchP50Ms: quantile(fetchMs, 0.5),
      fetchP99Ms: quantile(fetchMs, 0.99),
    };
  });
}

/** Prints the overhead lines. */
export async function benchJudgeClientOverhead(requests: readonly ChatMessage[][], log: (line?: string) => void): Promise<ClientOverhead> {
  const o = await measureClientOverhead(requests);
  log(`judge client overhead against an instant endpoint (same HealthBench judge requests; baseline: bare fetch of the same body, same run):`);
  log(`  requests/s at ${CONCURRENCY} concurrent: gear ${o.gearRps.toFixed(0)}, fetch ${o.fetchRps.toFixed(0)} (gear/fetch ${(o.gearRps / o.fetchRps).toFixed(2)})`);
  log(`  CPU ms per request at ${CONCURRENCY} concurrent: gear ${o.gearCpuMs.toFixed(3)}, fetch ${o.fetchCpuMs.toFixed(3)} (gear/fetch ${(o.gearCpuMs / o.fetchCpuMs).toFixed(2)})`);
  log(
    `  one at a time, ms per request: gear p50 ${o.gearP50Ms.toFixed(2)} / p99 ${o.gearP99Ms.toFixed(2)}, fetch p50 ${o.fetchP50Ms.toFixed(2)} / p99 ${o.fetchP99Ms.toFixed(2)}` +
      ` -> added p50 ${(o.gearP50Ms - o.fetchP50Ms).toFixed(2)} ms, p99 ${(o.gearP99Ms - o.fetchP99Ms).toFixed(2)} ms`,
  );
  return o;
}
