import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A `gear serve` child process on a free loopback port, with its stderr log lines kept. */
export interface GearProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly logs: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/**
 * The CLI to run: GEAR_SERVE_MAIN (e.g. an unchanged build, for "before" figures) or this
 * checkout's build, whether this file runs built (dist/bench/soak) or from source (vitest).
 */
export function serveMain(): string {
  const here = fileURLToPath(import.meta.url);
  const root = here.includes(`${sep}dist${sep}`) ? resolve(here, '../../../..') : resolve(here, '../../..');
  return process.env['GEAR_SERVE_MAIN'] ?? join(root, 'dist', 'cli', 'main.js');
}

export async function startGear(args: readonly string[] = []): Promise<GearProcess> {
  const child = spawn(process.execPath, [serveMain(), 'serve', '--port', '0', '--log-level', 'info', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      logs.push({ text: line });
    }
  });
  // 'close', not 'exit': by then every log line the process wrote has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`gear serve exited with ${String(code)}`)));
  });
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    pid: child.pid as number,
    child,
    logs,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Resident set size now and its peak (VmHWM), in MiB, from /proc (Linux). */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}

/** CPU seconds (user + system) the process has used, from /proc (Linux). */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
