/**
 * A real small LLM behind llama.cpp's OpenAI-compatible server, for tests that need a real judge:
 * installs it if needed (scripts/local-llm/install: cached outside the checkout, only the first run
 * downloads), starts scripts/local-llm/serve.py on a free port of 127.0.0.1, waits until /health
 * answers, sends one warm-up request, and stops the process on stop().
 *
 * Tests that use it skip only when GEAR_SKIP_LLM=1 (`localLlmSkipped`); CI never sets it.
 * Prompt-cache reuse is off on the server unless asked for, so temperature 0 + seed is reproducible.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export type LocalLlmModel = 'smollm2-135m' | 'qwen-coder-0.5b' | 'qwen-coder-1.5b';

export interface LocalLlmOptions {
  /** Default 'smollm2-135m' (93 MB, fast, verdicts not meaningful: assert structure only). */
  model?: LocalLlmModel;
  /** Requests decoded at once (server slots). Default 1. */
  parallel?: number;
  /** Context tokens shared by all slots. Default 4096. */
  ctx?: number;
  /**
   * CPU threads. Default 1: vitest runs two files at once on two cores, and llama.cpp's threads
   * spin at every barrier, so a server with more threads than free cores slows several times over
   * (scripts/local-llm/README.md, its "Threads" paragraph); one thread keeps each server near its
   * fair share.
   */
  threads?: number;
  /** The server's default sampling seed (a request's `seed` overrides it). Default 42. */
  seed?: number;
  /** How long the install may take (a first run downloads). Default 15 minutes. */
  installTimeoutMs?: number;
  /** How long to wait for the server to load the model and answer /health. Default 5 minutes. */
  readyTimeoutMs?: number;
  /** Keep llama.cpp's prompt cache (shared prefixes evaluated once; answers then depend on request history). Default false. */
  cachePrompt?: boolean;
  /** Send one short request before returning, so the first test request is not a cold one. Default true. */
  warmUp?: boolean;
}

export interface LocalLlm {
  /** OpenAI base URL: http://127.0.0.1:PORT/v1 */
  url: string;
  /** The model name the server answers with (the `model` option). */
  model: string;
  /** Process id of the server (for RSS measurements and the like). */
  pid: number;
  /** Ends the server (SIGTERM, then SIGKILL after 10 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** True when GEAR_SKIP_LLM=1: tests needing the real LLM skip. */
export const localLlmSkipped = process.env.GEAR_SKIP_LLM === '1';

const READY_LINE = /^gear-local-llm ready: (http:\/\/127\.0\.0\.1:\d+\/v1) model=(.*)$/;

/** The checkout root: the first folder above this file holding scripts/local-llm/install (the same
 * from judge/testing/ in the source tree and dist/judge/testing/ in the build). */
function checkoutRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'scripts', 'local-llm', 'install'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('local LLM: scripts/local-llm/install not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export interface InstalledLocalLlm {
  python: string;
  modelPath: string;
}

/** Runs scripts/local-llm/install (quick when everything is there) and reads the paths it prints. */
export function installLocalLlm(model: LocalLlmModel = 'smollm2-135m', timeoutMs = 15 * 60_000): Promise<InstalledLocalLlm> {
  const script = join(checkoutRoot(), 'scripts', 'local-llm', 'install');
  const command = `scripts/local-llm/install --model ${model}`;
  return new Promise((resolve, reject) => {
    execFile(script, ['--model', model], { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const tail = stderr.trim().split('\n').slice(-8).join('\n');
        reject(new Error(`local LLM: the install failed (${error.message.split('\n')[0]}). Run \`${command}\` by hand.\n${tail}`));
        return;
      }
      const python = /^python: (.+)$/m.exec(stdout)?.[1];
      const modelPath = new RegExp(`^model ${model}: (.+)$`, 'm').exec(stdout)?.[1];
      if (python === undefined || modelPath === undefined) {
        reject(new Error(`local LLM: \`${command}\` did not print the python and model paths; it printed:\n${stdout}`));
        return;
      }
      resolve({ python, modelPath });
    });
  });
}

export async function startLocalLlm(options: LocalLlmOptions = {}): Promise<LocalLlm> {
  const model = options.model ?? 'smollm2-135m';
  const { python, modelPath } = await installLocalLlm(model, options.installTimeoutMs);
  const readyTimeoutMs = options.readyTimeoutMs ?? 5 * 60_000;
  const args = [
    join(checkoutRoot(), 'scripts', 'local-llm', 'serve.py'),
    '--model-path', modelPath,
    '--alias', model,
    '--port', '0',
    '--parallel', String(options.parallel ?? 1),
    '--ctx', String(options.ctx ?? 4096),
    '--seed', String(options.seed ?? 42),
    '--threads', String(options.threads ?? 1),
    '--ready-timeout', String(Math.ceil(readyTimeoutMs / 1000)),
    // The server ends with this process even if stop() is never called (a crashed test worker).
    '--stop-on-stdin-eof',
  ];
  if (options.cachePrompt !== true) args.push('--no-cache-prompt');
  const child = spawn(python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderrTail: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 20) stderrTail.shift();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    const url = await waitReady(child, readyTimeoutMs, stderrTail);
    await expectHealthy(url);
    if (options.warmUp ?? true) await warmUp(url, model);
    return { url, model, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function waitReady(child: ChildProcess, timeoutMs: number, stderrTail: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`local LLM: the server ${why}\n${stderrTail.join('\n')}`));
    };
    const timer = setTimeout(() => fail(`printed no ready line within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (error) => fail(`did not start: ${error.message}`));
    child.once('close', (code, signal) => fail(`exited before it was ready (code ${code}, signal ${signal})`));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const ready = READY_LINE.exec(line);
      if (settled || ready?.[1] === undefined) return;
      settled = true;
      clearTimeout(timer);
      resolve(ready[1]);
    });
  });
}

async function expectHealthy(url: string): Promise<void> {
  const health = url.replace(/\/v1$/, '/health');
  const reply = await fetch(health, { signal: AbortSignal.timeout(30_000) });
  if (reply.status !== 200) throw new Error(`local LLM: ${health} answered ${reply.status}`);
}

async function warmUp(url: string, model: string): Promise<void> {
  const reply = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 4, temperature: 0 }),
    signal: AbortSignal.timeout(120_000),
  });
  if (reply.status !== 200) throw new Error(`local LLM: the warm-up request got HTTP ${reply.status}: ${await reply.text()}`);
}
