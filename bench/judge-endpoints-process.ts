import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { FaultBehaviour } from '../judge/transport/testing/fault-server.js';

export type EndpointSpec = Partial<FaultBehaviour> | 'refused';

export interface EndpointStats {
  readonly requests: number;
  readonly answered: number;
  readonly connections: number;
  readonly metricsRequests: number;
}

export interface RunningEndpoints {
  readonly urls: readonly string[];
  /** Per endpoint; null for a refused port. */
  stats(): Promise<(EndpointStats | null)[]>;
}

/** Starts bench/fake-judge-endpoints.js as its own process for the duration of `use`. */
export async function withFakeEndpoints<T>(specs: readonly EndpointSpec[], use: (endpoints: RunningEndpoints) => Promise<T>): Promise<T> {
  const script = fileURLToPath(new URL('./fake-judge-endpoints.js', import.meta.url));
  const child = spawn(process.execPath, [script, JSON.stringify(specs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = (): Promise<string> =>
    new Promise((resolve, reject) => {
      waiting.push(resolve);
      child.once('exit', (code) => reject(new Error(`fake judge endpoints exited with ${String(code)}`)));
    });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const { urls } = JSON.parse(await nextLine()) as { urls: string[] };
    return await use({
      urls,
      stats: async () => {
        const line = nextLine();
        child.stdin.write('stats\n');
        return (JSON.parse(await line) as { stats: (EndpointStats | null)[] }).stats;
      },
    });
  } finally {
    child.stdin.end();
    await exited;
  }
}
