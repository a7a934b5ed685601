import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledRubrics } from '../../../conformance/fixtures-loader/bundled-rubrics.js';
import { conformanceTarget } from '../../../conformance/targets.js';
import { startGear, type GearProcess } from '../../../bench/soak/gear-process.js';
import { WsPeer, type Reply } from '../../../bench/soak/ws-peer.js';
import { encodeFloat64Base64 } from '../float64-base64.js';

/**
 * Issue 10, items 6, 7 and 14 (service side), fuzzed against a real `gear serve` process: every
 * method, well-formed params with one value anywhere replaced by something hostile (objects where
 * strings or numbers belong, 20,000-deep nesting, numbers float64 cannot hold, extreme weights).
 * No answer is ever -32603, every reward is finite, and the server keeps serving.
 */

const PLACEHOLDER = '"@@hostile@@"';
const official = loadBundledRubrics(['healthbench'])[0]!.rewardModel;
const canonical = {
  criteria: [
    { id: 'a', text: 'A', weight: 2 },
    { id: 'b', text: 'B', weight: -1 },
  ],
  edges: [{ parent: 'a', child: 'b', relation: 'strong' }],
};
const hostCase = (host: 'ruscarl' | 'gear' | 'writingbench' | 'rar-explicit' | 'merf') => {
  const first = conformanceTarget(host).cases[0]!;
  return { host, row: first.row, response: first.response, judgeOutputs: first.judgeOutputs };
};

/** Well-formed params of every method; the fuzzer replaces one value in them. */
function skeletons(rubricId: string): [string, unknown][] {
  return [
    ['rubric.register', { rubric: canonical }],
    ['rubric.register', { reward_model: official }],
    ['rubric.score', { rubric: canonical, scores: { p: [0.5, 1], d: [true, false] }, aggregator: 'gear', options: { gamma: 1 } }],
    ['rubric.score', { reward_model: official, scores: { p: official.rubrics.map(() => 0.5) }, aggregator: 'auto' }],
    ['rubric.scoreBatch', { items: [{ rubricId, scores: { p: [1, 0.25] } }, { rubric: canonical, scores: { p: [0, 1] }, aggregator: 'gear-exact' }] }],
    ['rubric.scoreColumns', { rubricIds: [rubricId, rubricId], p: encodeFloat64Base64([1, 0.5, 0, 1]), d: [true, true, false, true] }],
    ['diagnostics.fcp', { items: [{ rubricId, scores: { p: [0.1, 0.9] } }], aggregators: ['flat', 'gear-exact'], threshold: 0.5 }],
    ['host.requests', (({ host, row, response }) => ({ host, row, response }))(hostCase('ruscarl'))],
    ['host.score', hostCase('gear')],
    ['host.score', hostCase('rar-explicit')],
    ['host.scoreBatch', { items: [hostCase('writingbench'), hostCase('merf')], aggregator: 'gear' }],
  ];
}

/** Every path to a value inside `value` (the root excluded). */
function pathsOf(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, child] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const path = [...prefix, key];
    out.push(path);
    pathsOf(child, path, out);
  }
  return out;
}

function replaced(value: unknown, path: readonly (string | number)[]): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1] as string | number] = '@@hostile@@';
  return copy;
}

/** What a client could send where a value belongs, as a recipe (so a counterexample prints short). */
type Hostile = readonly ['json', unknown] | readonly ['raw', string] | readonly ['arrays' | 'objects' | 'string', number];

const hostileArb: fc.Arbitrary<Hostile> = fc.oneof(
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v): Hostile => ['json', v]) },
  { weight: 3, arbitrary: fc.constantFrom('{"toString":1}', '{"valueOf":{},"toString":[]}', '[{"toString":1}]', '{"__proto__":{"x":1}}', 'null', '[]', '{}').map((t): Hostile => ['raw', t]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('1e400', '-1e400', '1e-400', '9007199254740993', '5e-324', '-5e-324', '-1', '1.7976931348623157e308', '-0', '"1e400"', '"NaN"').map((t): Hostile => ['raw', t]),
  },
  { weight: 2, arbitrary: fc.integer({ min: 60, max: 20_000 }).map((n): Hostile => ['arrays', n]) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 5_000 }).map((n): Hostile => ['objects', n]) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200_000 }).map((n): Hostile => ['string', n]) },
);

/** The JSON text of a recipe; much of it JSON.stringify cannot write. */
function hostileText([kind, value]: Hostile): string {
  switch (kind) {
    case 'json':
      return JSON.stringify(value);
    case 'raw':
      return value;
    case 'arrays':
      return '['.repeat(value) + ']'.repeat(value);
    case 'objects':
      return '{"a":'.repeat(value) + '1' + '}'.repeat(value);
    case 'string':
      return JSON.stringify('x'.repeat(value));
  }
}

/** Where hostile values hurt most: scores, weights, points, edge ends and tags (chosen half the time). */
const SENSITIVE = /^(p|d|weight|points|parent|child|type|relation|tags|score_type|judgeOutputs|retention|gamma|exactMaxWidth|autoExactMaxCost)$/;

const ALLOWED = new Set([-32602, -32002, -32001, -32601, -32600]);

describe('hostile params on every method, against a real gear serve', () => {
  let server: GearProcess;
  let peer: WsPeer;
  let rubricId: string;

  beforeAll(async () => {
    server = await startGear(process.env['GEAR_SERVE_MAIN'] ? [] : ['--max-reply-bytes', String(4 << 20)]);
    peer = await WsPeer.open(server.url);
    rubricId = ((await peer.request('rubric.register', { rubric: canonical })).result as { rubricId: string }).rubricId;
  });
  afterAll(async () => {
    await peer.close();
    await server.stop();
  });

  it('never answers -32603, never a non-finite reward, and keeps serving', async () => {
    const bases = skeletons(rubricId);
    let nextId = 1;
    const codes = new Map<number | string, number>();
    await fc.assert(
      fc.asyncProperty(fc.nat(bases.length - 1), fc.nat(), fc.boolean(), hostileArb, async (which, pick, sensitive, recipe) => {
        const hostile = hostileText(recipe);
        const [method, params] = bases[which]!;
        const all = pathsOf(params);
        const focused = all.filter((path) => path.some((key) => typeof key === 'string' && SENSITIVE.test(key)));
        const paths = sensitive && focused.length > 0 ? focused : all;
        const path = paths[pick % paths.length]!;
        const id = nextId++;
        // A replacer function: a string replacement would read "$&" and "$'" in the hostile text as patterns.
        const text = JSON.stringify({ jsonrpc: '2.0', id, method, params: replaced(params, path) }).replace(PLACEHOLDER, () => hostile);
        let timer: NodeJS.Timeout | undefined;
        const reply = await Promise.race([
          peer.sendRaw(text, id) as Promise<Reply>,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer in 20 s: ${method} at ${path.join('.')} = ${JSON.stringify(recipe).slice(0, 80)}`)), 20_000);
          }),
        ]);
        clearTimeout(timer);
        const code = reply.error?.code ?? 'result';
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (reply.error !== undefined) {
          expect(ALLOWED, `${method} at ${path.join('.')} = ${JSON.stringify(recipe).slice(0, 80)}: ${JSON.stringify(reply.error).slice(0, 300)}`).toContain(reply.error.code);
        }
        const rewards = JSON.stringify(reply.result ?? {}).match(/"(reward|flat|nativeReward)":(null|-?[\d.e+-]+)/g) ?? [];
        for (const r of rewards) expect(r, `${method} at ${path.join('.')} = ${JSON.stringify(recipe).slice(0, 80)}`).not.toMatch(/null$/);
      }),
      { numRuns: 400, endOnFailure: true },
    );
    // The fuzzer reached both outcomes: some answers, many refusals naming a field.
    expect(codes.get(-32602) ?? 0).toBeGreaterThan(50);
    expect(codes.get('result') ?? 0).toBeGreaterThan(10);
    expect(((await peer.request('server.health')).result as { status: string }).status).toBe('ok');
    expect(server.logs.filter((l) => l['event'] === 'internal_error')).toEqual([]);
  });

  it('answers the issue examples with -32602 naming the field', async () => {
    const score = (params: unknown): Promise<Reply> => peer.request('rubric.score', params);
    const cases: [string, Promise<Reply>, (string | number)[]][] = [
      ['an object in p', score({ rubric: canonical, scores: { p: [{ toString: 1 }, 0.5] } }), ['scores', 'p', 0]],
      ['an object in d', score({ rubric: canonical, scores: { p: [1, 0.5], d: [true, { toString: 1 }] } }), ['scores', 'd', 1]],
      ['weights 5e-324 and -1', score({ rubric: { criteria: [{ id: 'a', text: 'A', weight: 5e-324 }, { id: 'b', text: 'B', weight: -1 }] }, scores: { p: [1, 1] } }), ['rubric', 'criteria']],
      ['points "1e400"', score({ reward_model: { rubrics: [{ criterion: 'a', points: '1e400' }, { criterion: 'b', points: 1 }] }, scores: { p: [1, 0] } }), ['reward_model', 'rubrics', 0, 'points']],
    ];
    for (const [what, reply, path] of cases) expect((await reply).error, what).toMatchObject({ code: -32602, data: { path } });
    // How a PLawBench tag that is an object reads is the scored adapter's to say (adapters/scored):
    // the service guarantees it is never -32603, and an error sits under the row.
    const plawbench = await peer.request('host.score', {
      host: 'plawbench',
      row: { prompt: [{ role: 'user', content: 'q' }], reward_model: { rubrics: [{ id: 'r1', criterion: 'c', points: 2, tags: { score_type: { toString: 1 } } }] } },
      response: 'r',
      judgeOutputs: ['{}'],
    });
    if (plawbench.error !== undefined) expect(plawbench.error).toMatchObject({ code: -32602, data: { path: expect.arrayContaining(['row']) } });
    const deep = `{"jsonrpc":"2.0","id":"deep","method":"rubric.score","params":{"rubric":${JSON.stringify(canonical)},"scores":{"p":[${'['.repeat(20_000)}${']'.repeat(20_000)},0.5]}}}`;
    const reply = (await peer.sendRaw(deep, 'deep')) as Reply;
    expect(reply.error).toMatchObject({ code: -32602, data: { path: ['scores', 'p', 0, ...Array<number>(61).fill(0)] } });
  });
});
