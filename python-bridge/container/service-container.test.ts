import { execFile } from 'node:child_process';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GenericContainer, ImageName, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';
import {
  RubricSchema,
  aggregate,
  compileRubric,
  isExactFeasible,
  parseWith,
  readOfficialRewardModel,
  type AggregatorName,
  type CompiledRubric,
  type Rubric,
} from '../../core/index.js';
import { loadBundledRubrics, type BundledRubric } from '../../conformance/fixtures-loader/bundled-rubrics.js';
import { ReconnectingRpcClient, RpcError } from './rpc-client.js';

/**
 * `gear serve` from a Docker image built here from local files (python-bridge/container/Dockerfile,
 * FROM the local gear-base image of scripts/container-base; no registry), run with host networking
 * on a free loopback port, and spoken to by two real clients: TypeScript (ws + json-rpc-2.0) and
 * Python (gear_bridge's sync client in the project venv). Every value is compared bit for bit
 * with core run in this process.
 *
 * Needs a Docker engine (scripts/docker-engine) and the base image (scripts/container-base);
 * scripts/test runs both first. Without them this FAILS, saying what to run; set
 * GEAR_SKIP_CONTAINERS=1 to skip it on purpose (CI never does).
 */

// No registry here: testcontainers' ryuk reaper image cannot be pulled, and the host is never
// resolved through a helper container (/.dockerenv exists on these VMs).
process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true';
process.env['TESTCONTAINERS_HOST_OVERRIDE'] ??= '127.0.0.1';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const BASE_IMAGE = 'gear-base:bookworm-node20';
const SERVICE_IMAGE = 'gear-service:test';
const python = join(root, '.venv', 'bin', 'python');
const skip = process.env['GEAR_SKIP_CONTAINERS'] === '1';
const run = promisify(execFile);

/** Each number with its IEEE-754 bits (big-endian hex): equal strings mean bit-for-bit equal values. */
function bits(values: readonly number[] | number): string[] {
  const list = typeof values === 'number' ? [values] : values;
  return list.map((v) => {
    const buffer = Buffer.alloc(8);
    buffer.writeDoubleBE(v);
    return `${v} 0x${buffer.toString('hex')}`;
  });
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function requireDocker(): Promise<void> {
  let client;
  try {
    client = await getContainerRuntimeClient();
  } catch (error) {
    throw new Error(
      `no Docker engine answers (${String(error)}). Run scripts/docker-engine (as root it installs and starts one), ` +
        'or set GEAR_SKIP_CONTAINERS=1 to skip the container tests on purpose.',
    );
  }
  if (!(await client.image.exists(ImageName.fromString(BASE_IMAGE)))) {
    throw new Error(`the base image ${BASE_IMAGE} is missing: run scripts/container-base (scripts/test does), or set GEAR_SKIP_CONTAINERS=1.`);
  }
}

/** testcontainers resolves even when `docker build` failed; rerun it with the CLI for the reason. */
async function buildFailure(context: string, cause: unknown): Promise<Error> {
  let detail = '';
  try {
    await run('docker', ['build', '-q', context], { maxBuffer: 16 << 20 });
  } catch (error) {
    detail = String((error as { stderr?: string }).stderr ?? error).trim().split('\n').slice(-15).join('\n');
  }
  return new Error(`building ${SERVICE_IMAGE} from python-bridge/container/Dockerfile failed: ${String(cause)}\n${detail}`);
}

interface ScoreResult {
  reward: number;
  method: string;
  effective: number[];
  flat: number;
}

interface Case {
  readonly bundled: BundledRubric;
  readonly rubric: Rubric;
  readonly compiled: CompiledRubric;
  readonly p: number[];
  readonly d: boolean[];
}

/** Judge probabilities with awkward doubles: 0, 1, a subnormal, 1 - 2^-53, 1/3 and random mantissas. */
function scoresFor(size: number, seed: number): { p: number[]; d: boolean[] } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return state / 4294967296;
  };
  const special = [0, 1, 5e-324, 1 - 2 ** -53, 1 / 3, Math.SQRT1_2, 0.1];
  const p = Array.from({ length: size }, (_, i) => (i < special.length ? (special[(i + seed) % special.length] as number) : next() ** 1.7));
  return { p, d: p.map((x) => x >= 0.5) };
}

function caseOf(bundled: BundledRubric, seed: number): Case {
  const rubric = parseWith(RubricSchema, readOfficialRewardModel(bundled.rewardModel).rubric);
  const compiled = compileRubric(rubric, {});
  return { bundled, rubric, compiled, ...scoresFor(compiled.size, seed) };
}

function expected(c: Case, aggregator: AggregatorName, withDecisions = false): ScoreResult {
  const scores = withDecisions ? { p: c.p, d: c.d } : { p: c.p };
  const { method, reward, q } = aggregate(c.compiled, aggregator, scores);
  return { reward, method, effective: Array.from(q), flat: aggregate(c.compiled, 'flat', scores).reward };
}

function expectSameBits(got: ScoreResult, want: ScoreResult): void {
  expect(got.method).toBe(want.method);
  expect(bits(got.reward)).toEqual(bits(want.reward));
  expect(bits(got.flat)).toEqual(bits(want.flat));
  expect(bits(got.effective)).toEqual(bits(want.effective));
}

/** The container's log (both streams, from its first start) once it matches `pattern`, or after `ms`. */
async function logsUntil(container: StartedTestContainer, pattern: RegExp, ms: number): Promise<string> {
  const stream = await container.logs();
  let text = '';
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      stream.on('data', (chunk: Buffer | string) => {
        text += chunk.toString();
        if (pattern.test(text)) {
          clearTimeout(timer);
          resolve();
        }
      });
      stream.on('end', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } finally {
    stream.destroy();
  }
  return text;
}

/** A running py_client.py (gear_bridge's sync client): one JSON line in, one JSON line out. */
class PythonClient {
  private readonly lines: AsyncIterator<string>;
  private stderr = '';
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }

  static start(url: string): PythonClient {
    if (!existsSync(python)) throw new Error(`${python} is missing: run scripts/setup (it creates the project venv)`);
    return new PythonClient(spawn(python, [join(here, 'py_client.py'), url], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  async call(method: string, params?: unknown): Promise<{ result?: unknown; error?: { code: number; type: string; message: string }; connects: number }> {
    this.child.stdin.write(`${JSON.stringify({ method, params: params ?? null })}\n`);
    const line = await this.lines.next();
    if (line.done === true) throw new Error(`the Python client exited (code ${this.child.exitCode}): ${this.stderr}`);
    const out = JSON.parse(line.value) as { failure?: string; result?: unknown; error?: { code: number; type: string; message: string }; connects: number };
    if (out.failure !== undefined) throw new Error(`the Python client failed: ${out.failure}\n${this.stderr}`);
    return out;
  }

  async stop(): Promise<number | null> {
    this.child.stdin.end();
    if (this.child.exitCode !== null) return this.child.exitCode;
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }
}

describe.skipIf(skip)('gear serve in a container built from local files', () => {
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const bundled = loadBundledRubrics(['healthbench']);
  const oss = bundled.filter((b) => b.key.startsWith('healthbench/oss_eval'));
  // The real rubric with the most annotated edges: the one where dependencies matter most.
  const main = caseOf([...oss].sort((a, b) => b.rewardModel.graph.edges.length - a.rewardModel.graph.edges.length)[0] as BundledRubric, 7);
  const aggregators: AggregatorName[] = ['flat', 'hard', 'gear', 'auto', ...(isExactFeasible(main.compiled) ? (['gear-exact'] as const) : [])];
  const idOf = (c: Case): string => `sha256:${createHash('sha256').update(JSON.stringify(c.rubric)).digest('hex')}`;
  const rubricId = idOf(main);
  // A second rubric only the Python client registers: after the restart it meets the empty cache.
  const second = caseOf(oss.find((b) => b !== main.bundled && b.rewardModel.graph.edges.length > 0) as BundledRubric, 11);
  const secondId = idOf(second);

  let context: string | undefined;
  let container: StartedTestContainer | undefined;
  let url = '';
  let ts: ReconnectingRpcClient;
  let py: PythonClient | undefined;
  let logs = '';
  const timings: Record<string, number> = {};
  // A setup failure fails every test (not only the suite): the summary counts it as failures.
  let setupError: unknown;

  beforeAll(async () => {
    try {
      await setUp();
    } catch (error) {
      setupError = error;
    }
  }, 240_000);

  beforeEach(() => {
    if (setupError !== undefined) throw setupError;
  });

  async function setUp(): Promise<void> {
    await requireDocker();
    let t = Date.now();
    context = mkdtempSync(join(tmpdir(), 'gear-service-context-'));
    await run(join(here, 'stage-context'), [context]).catch((error: { stderr?: string }) => {
      throw new Error(`staging the build context failed: ${error.stderr ?? String(error)}`);
    });
    const buildId = randomUUID();
    let image: GenericContainer;
    try {
      // The default pull policy never pulls: FROM resolves to the local base image.
      image = await GenericContainer.fromDockerfile(context, 'Dockerfile').withBuildArgs({ GEAR_BUILD_ID: buildId }).build(SERVICE_IMAGE, { deleteOnExit: false });
    } catch (error) {
      throw await buildFailure(context, error);
    }
    // A failed build can leave an older image under the same tag: make sure this one is ours.
    const client = await getContainerRuntimeClient();
    const built = await client.image.inspect(ImageName.fromString(SERVICE_IMAGE));
    if (built.Config.Labels?.['gear.build-id'] !== buildId) throw await buildFailure(context, `${SERVICE_IMAGE} is not the image just built`);
    timings['build'] = Date.now() - t;

    t = Date.now();
    const port = await freeLoopbackPort();
    url = `ws://127.0.0.1:${port}/`;
    container = await image
      .withNetworkMode('host')
      .withEnvironment({ GEAR_PORT: String(port), GEAR_LOG_LEVEL: 'info' })
      .withWaitStrategy(Wait.forLogMessage(/"event":"listening"/))
      .withStartupTimeout(30_000)
      .start();
    timings['start'] = Date.now() - t;
    (await container.logs()).on('data', (chunk: Buffer | string) => (logs += chunk.toString()));
    ts = new ReconnectingRpcClient(url);
  }

  afterAll(async () => {
    ts?.close();
    await py?.stop();
    await container?.stop({ timeout: 10_000 });
    if (context !== undefined) rmSync(context, { recursive: true, force: true });
    // Each build leaves the previous gear-service:test untagged; drop those no container uses.
    await run('docker', ['image', 'prune', '--force', '--filter', 'label=gear.build-id']).catch(() => undefined);
    console.log(`service container timings (ms): ${JSON.stringify(timings)}`);
  }, 60_000);

  it('runs as the unprivileged user, listening on the loopback port it was given', async () => {
    const id = await container!.exec(['id', '-u']);
    expect(id.output.trim()).toBe('10001');
    expect(logs).toContain(`"url":"${url}"`);
  });

  it('(a) TypeScript client: server.info and rubric.register on a real HealthBench rubric', async () => {
    const info = await ts.call<{ name: string; version: string; protocol: number; aggregators: string[] }>('server.info');
    expect(info).toMatchObject({ name: 'gear', version, protocol: 1 });
    expect(info.aggregators).toEqual(['flat', 'hard', 'gear', 'gear-exact', 'auto']);

    const registered = await ts.call<{ rubricId: string; size: number; ids: string[]; report: { edgesKept: number } }>('rubric.register', {
      reward_model: main.bundled.rewardModel,
    });
    expect(registered.rubricId).toBe(rubricId);
    expect(registered.size).toBe(main.compiled.size);
    expect(registered.ids).toEqual([...main.compiled.ids]);
    expect(registered.report.edgesKept).toBe(main.compiled.report.edgesKept);
    expect(main.compiled.report.edgesKept).toBeGreaterThan(3);
  });

  it('(a) TypeScript client: rubric.score equals core in process, bit for bit, for every aggregator', async () => {
    for (const aggregator of aggregators) {
      const byId = await ts.call<ScoreResult>('rubric.score', { rubricId, scores: { p: main.p }, aggregator });
      expectSameBits(byId, expected(main, aggregator));
      const inline = await ts.call<ScoreResult>('rubric.score', { rubric: main.rubric, scores: { p: main.p }, aggregator });
      expectSameBits(inline, expected(main, aggregator));
    }
    const hard = await ts.call<ScoreResult>('rubric.score', { rubricId, scores: { p: main.p, d: main.d }, aggregator: 'hard' });
    expectSameBits(hard, expected(main, 'hard', true));
    // Dependencies change this reward: the test would not notice a service that ignored the graph.
    expect(bits(expected(main, 'gear').reward)).not.toEqual(bits(expected(main, 'flat').reward));
  });

  it('(a) TypeScript client: rubric.scoreBatch over all 30 HealthBench oss_eval rubrics', async () => {
    const cases = oss.map((b, i) => caseOf(b, 100 + i));
    const { results } = await ts.call<{ results: (ScoreResult & { index: number })[] }>('rubric.scoreBatch', {
      items: cases.map((c) => ({ reward_model: c.bundled.rewardModel, scores: { p: c.p } })),
    });
    expect(results).toHaveLength(30);
    results.forEach((r, i) => {
      expect(r.index).toBe(i);
      expectSameBits(r, expected(cases[i] as Case, 'gear'));
    });
  });

  it('(b) Python client (gear_bridge.sync in the project venv) gets the same values', async () => {
    py = PythonClient.start(url);
    const info = await py.call('server.info');
    expect(info.result).toMatchObject({ name: 'gear', version, protocol: 1 });
    const registered = await py.call('rubric.register', { reward_model: main.bundled.rewardModel });
    expect((registered.result as { rubricId: string }).rubricId).toBe(rubricId);
    for (const aggregator of aggregators) {
      const scored = await py.call('rubric.score', { rubricId, scores: { p: main.p }, aggregator });
      expectSameBits(scored.result as ScoreResult, expected(main, aggregator));
    }
    const other = await py.call('rubric.register', { reward_model: second.bundled.rewardModel });
    expect((other.result as { rubricId: string }).rubricId).toBe(secondId);
    const bad = await py.call('rubric.score', { rubricId, scores: { p: main.p.slice(1) } });
    expect(bad.error).toMatchObject({ code: -32602, type: 'InvalidParams' });
    expect(bad.connects).toBe(1);
  });

  it('reports healthy to Docker (HEALTHCHECK: GET /healthz)', async () => {
    const client = await getContainerRuntimeClient();
    const handle = client.container.getById(container!.getId());
    const deadline = Date.now() + 20_000;
    let status = '';
    while (Date.now() < deadline) {
      status = (await client.container.inspect(handle)).State.Health?.Status ?? 'none';
      if (status === 'healthy') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe('healthy');
  }, 30_000);

  it('(c) after the container is stopped and started again, both clients reconnect and their next calls succeed', async () => {
    const t = Date.now();
    // docker restart: SIGTERM (graceful drain), then the same container again, same port, host network.
    await container!.restart({ timeout: 10_000 }); // ms: SIGKILL only after 10 s
    timings['restart'] = Date.now() - t;
    // A follow stream can end before a stopping container's last lines: read the whole log again.
    const history = await logsUntil(container!, /"event":"shutdown_done"[\s\S]*"event":"listening"/, 5_000);
    expect(history).toMatch(/"event":"shutdown_done"[\s\S]*"event":"listening"/);

    const info = await ts.call<{ name: string }>('server.info');
    expect(info.name).toBe('gear');
    expect(ts.connects).toBe(2);
    // The new process has an empty rubric cache: the id is unknown until registered again.
    const unknown = await ts.call('rubric.score', { rubricId, scores: { p: main.p } }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(RpcError);
    expect((unknown as RpcError).code).toBe(-32001);
    const inline = await ts.call<ScoreResult>('rubric.score', { reward_model: main.bundled.rewardModel, scores: { p: main.p } });
    expectSameBits(inline, expected(main, 'gear'));
    const again = await ts.call<{ rubricId: string; cached: boolean }>('rubric.register', { reward_model: main.bundled.rewardModel });
    expect(again.rubricId).toBe(rubricId);
    expectSameBits(await ts.call<ScoreResult>('rubric.score', { rubricId, scores: { p: main.p }, aggregator: 'hard' }), expected(main, 'hard'));

    const pyInfo = await py!.call('server.info');
    expect(pyInfo.result).toMatchObject({ name: 'gear' });
    expect(pyInfo.connects).toBe(2);
    const pyScored = await py!.call('rubric.score', { rubricId, scores: { p: main.p }, aggregator: 'gear' });
    expectSameBits(pyScored.result as ScoreResult, expected(main, 'gear'));
    const pyUnknown = await py!.call('rubric.score', { rubricId: secondId, scores: { p: second.p } });
    expect(pyUnknown.error).toMatchObject({ code: -32001, type: 'UnknownRubric' });
    const pyAgain = await py!.call('rubric.register', { reward_model: second.bundled.rewardModel });
    expect((pyAgain.result as { rubricId: string }).rubricId).toBe(secondId);
    const pySecond = await py!.call('rubric.score', { rubricId: secondId, scores: { p: second.p }, aggregator: 'gear' });
    expectSameBits(pySecond.result as ScoreResult, expected(second, 'gear'));
    expect(pySecond.connects).toBe(2);
    expect(await py!.stop()).toBe(0);
    py = undefined;
  }, 60_000);
});
