// gear graph build against a real HTTP endpoint that answers like an annotation LLM (the fake
// OpenAI server with a scripted annotator): the pipeline, the fault paths (cut-off role replies,
// unreadable edge replies, an endpoint that dies mid-run) and resuming from the journal.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileOfficialRewardModel } from '../../core/index.js';
import { fixturesDir } from '../../conformance/fixtures-loader/fixtures-dir.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../judge/testing/fake-openai-server.js';
import { DEFAULT_ANNOTATION_SETTINGS, type Strategy } from '../build/annotation-context.js';
import { contradictsSign } from '../model/role-rules.js';
import { readRows } from '../io/row-files.js';
import type { ProfileName } from '../profiles/profiles.js';
import { readAnnotationRequest, rolesReply, scriptedAnnotator, type AnnotationRequest } from '../testing/scripted-annotator.js';
import { buildGraphs, journalPathFor } from './build-graphs.js';

const HEALTHBENCH = join(fixturesDir(), 'healthbench', 'oss_eval_first30.jsonl');
const WRITINGBENCH = join(fixturesDir(), 'writingbench', 'length_subset_first20.jsonl');
const GENERIC = join(import.meta.dirname, '..', 'fixtures', 'generic-rubrics.jsonl');

const servers: FakeOpenAiServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function server(answer: Parameters<typeof scriptedAnnotator>[0], extra: Parameters<typeof startFakeOpenAi>[0] = {}): Promise<FakeOpenAiServer> {
  const s = await startFakeOpenAi({ answer: scriptedAnnotator(answer), ...extra });
  servers.push(s);
  return s;
}

const quiet = { write: () => true } as unknown as NodeJS.WritableStream;

function build(url: string, input: string, output: string, options: { profile?: ProfileName; limit?: number; cache?: string; transport?: object; strategy?: Strategy } = {}) {
  return buildGraphs({
    profile: options.profile ?? 'healthbench',
    transport: { endpoints: [{ url }], backoff: { baseMs: 1, capMs: 5 }, deadlineMs: 5000, ...options.transport },
    cache: options.cache === undefined ? undefined : { file: options.cache },
    input,
    output,
    // These suites test the official pipeline's fault paths; the pairwise strategy has its own below.
    settings: { ...DEFAULT_ANNOTATION_SETTINGS, strategy: options.strategy ?? 'official' },
    concurrency: 2,
    limit: options.limit ?? 0,
    stderr: quiet,
  });
}

const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'gear-graphs-'));
  dirs.push(dir);
  return dir;
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON rows read back from files, checked field by field
type Row = Record<string, any>;
const asked = (s: FakeOpenAiServer): AnnotationRequest[] => s.requests.map((r) => readAnnotationRequest(r.body)).filter((a): a is AnnotationRequest => a !== undefined);

describe('gear graph build on the bundled rows (scripted annotator)', () => {
  it.each([
    ['healthbench', HEALTHBENCH, 3],
    ['writingbench', WRITINGBENCH, 3],
    ['generic', GENERIC, 4],
  ] as const)('%s: writes the rows with reward_model.graph and tags.node_type that the official reader takes whole', async (profile, input, limit) => {
    const s = await server(undefined);
    const out = join(tmp(), 'out.jsonl');
    const result = await build(s.url, input, out, { profile, limit });
    expect(result.failed).toEqual([]);
    const rows = (await readRows(out)) as Row[];
    expect(rows).toHaveLength(limit);
    for (const row of rows) {
      const model = row.reward_model;
      expect(model.graph.nodes.map((n: Row) => n.id)).toEqual(model.rubrics.map((r: Row) => r.id));
      model.rubrics.forEach((r: Row, i: number) => expect(r.tags.node_type).toBe(model.graph.nodes[i].node_type));
      expect(row.extra_info.reward_model).toEqual(model);
      expect(row.gear_annotation_stats).toEqual(row.extra_info.gear_annotation_stats);
      expect(row.gear_annotation_stats.annotation_profile).toBe(profile);
      // the scripted annotator says strong_prerequisite for every candidate whose parent comes first
      const expected = row.gear_annotation_stats.num_edge_candidates === 0 ? 0 : model.graph.edges.length;
      expect(row.gear_annotation_stats.num_graph_edges).toBe(expected);
      expect(model.graph.edges.every((e: Row) => Number(e.parent.slice(1)) < Number(e.child.slice(1)))).toBe(true);
      const compiled = compileOfficialRewardModel(model);
      expect(compiled.report.droppedEdges).toEqual([]);
      expect(compiled.report.edgesKept).toBe(model.graph.edges.length);
    }
    expect(existsSync(journalPathFor(out))).toBe(false);
    expect(JSON.parse(readFileSync(result.summaryPath, 'utf8')).num_rows).toBe(limit);
  });

  it('sizes the role budget to the rubric and re-asks only the criteria a cut-off reply left unlabelled', async () => {
    const s = await server((a) => {
      if (a.kind !== 'roles' || a.rubrics.length < 12) return undefined; // only the first ask (19 criteria) is cut off
      const full = rolesReply(a.rubrics);
      return { content: full.slice(0, Math.floor(full.length * 0.55)), finishReason: 'length' };
    });
    const out = join(tmp(), 'out.jsonl');
    const result = await build(s.url, HEALTHBENCH, out, { limit: 1 });
    expect(result.failed).toEqual([]);
    const [row] = (await readRows(out)) as Row[];
    const k = row!.reward_model.rubrics.length as number;
    const roles = asked(s).filter((a) => a.kind === 'roles') as Extract<AnnotationRequest, { kind: 'roles' }>[];
    expect(roles[0]!.rubrics).toHaveLength(k);
    expect(roles[0]!.maxTokens).toBe(48 + 24 * k);
    // the re-asks hold exactly the criteria the cut-off reply did not label completely
    const firstReply = rolesReply(roles[0]!.rubrics).slice(0, Math.floor(rolesReply(roles[0]!.rubrics).length * 0.55));
    const complete = [...firstReply.matchAll(/\{"id":"(r\d+)","node_type":"[a-z]+"\}/g)].map((m) => m[1]);
    expect(complete.length).toBeGreaterThan(0);
    const reasked = roles.slice(1).flatMap((r) => r.rubrics.map((x) => x.id));
    expect(reasked.sort()).toEqual(row!.reward_model.rubrics.map((r: Row) => r.id).filter((id: string) => !complete.includes(id)).sort());
    const stats = row!.gear_annotation_stats;
    expect(stats.node_truncated_replies).toBe(1);
    expect(stats.node_reasks).toBe(1);
    expect(stats.num_node_judged).toBe(k);
    expect(stats.num_node_fallback).toBe(0);
    expect(stats.node_parse_status).toBe('full');
  });

  it('counts every criterion that no reply labels as a sign fallback, after re-asks in halves and quarters', async () => {
    const s = await server((a) => (a.kind === 'roles' ? 'I think these are mostly foundation criteria.' : undefined));
    const out = join(tmp(), 'out.jsonl');
    await build(s.url, HEALTHBENCH, out, { limit: 1 });
    const [row] = (await readRows(out)) as Row[];
    const stats = row!.gear_annotation_stats;
    const k = row!.reward_model.rubrics.length as number;
    const chunks = (size: number): number => Math.ceil(k / size);
    expect(stats.node_requests).toBe(1 + chunks(Math.ceil(k / 2)) + chunks(Math.ceil(k / 4)));
    expect(stats.node_unreadable_replies).toBe(stats.node_requests);
    expect(stats.num_node_fallback).toBe(k);
    expect(stats.node_parse_status).toBe('failed');
    expect(row!.reward_model.graph.nodes.map((n: Row) => n.node_type)).toEqual(row!.reward_model.rubrics.map((r: Row) => (r.points < 0 ? 'penalty' : 'foundation')));
  });

  it('splits a batch whose reply is unreadable and retries the halves; a pair unreadable alone is a counted failure', async () => {
    const clean = await server(undefined);
    const cleanOut = join(tmp(), 'clean.jsonl');
    await build(clean.url, HEALTHBENCH, cleanOut, { limit: 1 });
    const [reference] = (await readRows(cleanOut)) as Row[];

    const s = await server((a) => {
      if (a.kind !== 'edges') return undefined;
      if (a.pairs.length === 8) return 'Here are my labels: r1 depends on r2, mostly.';
      if (a.pairs.some((p) => p.parent === 'r1' && p.child === 'r2')) return a.pairs.length === 1 ? '{"edges": [' : 'no idea';
      return undefined;
    });
    const out = join(tmp(), 'out.jsonl');
    await build(s.url, HEALTHBENCH, out, { limit: 1 });
    const [row] = (await readRows(out)) as Row[];
    const stats = row!.gear_annotation_stats;
    const fullBatches = Math.floor(stats.num_edge_candidates / 8);
    expect(stats.num_edge_failed_candidates).toBe(1);
    // every full batch split once; the batch holding r1->r2 split again down to that single pair (4 -> 2 -> 1)
    expect(stats.edge_split_batches).toBe(fullBatches + 2);
    expect(stats.edge_unreadable_replies).toBe(fullBatches + 3);
    const withoutFailed = reference!.reward_model.graph.edges.filter((e: Row) => !(e.parent === 'r1' && e.child === 'r2'));
    expect(row!.reward_model.graph.edges).toEqual(withoutFailed);
  });
});

describe('gear graph build when the endpoint dies mid-run', () => {
  it('reports and skips the rows it could not finish, keeps the journal, and a re-run finishes them from the cache', async () => {
    const dir = tmp();
    const cache = join(dir, 'answers.sqlite');
    const out = join(dir, 'out.jsonl');
    const dying = await server(undefined, { behave: (_request, n) => (n > 30 ? { mode: 'status', status: 503 } : undefined) });
    // Its 503s are retried until each request's deadline (1.5 s here), then the row fails.
    const first = await build(dying.url, HEALTHBENCH, out, { limit: 5, cache, transport: { deadlineMs: 1500 } });
    expect(first.failed.length).toBeGreaterThan(0);
    expect(first.failed.every((f) => /JudgeTransportError/.test(f.error))).toBe(true);
    const written = (await readRows(out)) as Row[];
    expect(written.length).toBe(5 - first.failed.length);
    expect(existsSync(journalPathFor(out))).toBe(true);

    const healthy = await server(undefined);
    const second = await build(healthy.url, HEALTHBENCH, out, { limit: 5, cache });
    expect(second.failed).toEqual([]);
    expect(second.resumed).toBe(5 - first.failed.length);
    const rows = (await readRows(out)) as Row[];
    const inputs = (await readRows(HEALTHBENCH)).slice(0, 5) as Row[];
    expect(rows.map((r) => r.prompt)).toEqual(inputs.map((r) => r.prompt));
    // the answers the dying endpoint gave before it died are replayed, not asked again
    const cached = rows.reduce((n, r) => n + r.gear_annotation_stats.llm_cached_requests, 0);
    expect(cached).toBeGreaterThan(0);
    const answeredBefore = dying.requests.filter((r) => r.mode === 'ok').length;
    const askedAgain = new Set(healthy.requests.map((r) => JSON.stringify(r.body.messages)));
    const answeredBeforeSet = new Set(dying.requests.filter((r) => r.mode === 'ok').map((r) => JSON.stringify(r.body.messages)));
    expect(answeredBefore).toBeGreaterThan(0);
    expect([...askedAgain].filter((m) => answeredBeforeSet.has(m))).toEqual([]);
    expect(existsSync(journalPathFor(out))).toBe(false);
  });

  it('skips rows whose input is malformed (a non-numeric points, a repeated id), naming the field, and annotates the others', async () => {
    const dir = tmp();
    const input = join(dir, 'in.jsonl');
    const rows = readFileSync(GENERIC, 'utf8').trim().split('\n');
    const bad = JSON.parse(rows[1]!);
    bad.reward_model.rubrics[2].points = 'lots';
    const twice = JSON.parse(rows[3]!);
    twice.reward_model.rubrics[1].id = 'r1';
    writeFileSync(input, `${[rows[0], JSON.stringify(bad), rows[2], JSON.stringify(twice)].join('\n')}\n`);
    const s = await server(undefined);
    const result = await build(s.url, input, join(dir, 'out.jsonl'), { profile: 'generic' });
    expect(result.failed.map((f) => f.index)).toEqual([1, 3]);
    expect(result.failed[0]!.error).toContain('reward_model.rubrics[2].points');
    expect(result.failed[1]!.error).toContain('reward_model.rubrics[1].id');
    expect(((await readRows(join(dir, 'out.jsonl'))) as Row[]).map((r) => r.prompt)).toEqual([JSON.parse(rows[0]!).prompt, JSON.parse(rows[2]!).prompt]);
  });
});

describe('gear graph build, pairwise strategy (scripted yes/no answers)', () => {
  const pairsOf = (s: FakeOpenAiServer) => asked(s).filter((a): a is Extract<AnnotationRequest, { kind: 'pair' }> => a.kind === 'pair');

  it('asks one yes/no question per candidate pair, keeps the yes pairs as weak prerequisites and never contradicts a sign', async () => {
    const s = await server(undefined);
    const out = join(tmp(), 'out.jsonl');
    const result = await build(s.url, HEALTHBENCH, out, { limit: 4, strategy: 'pairwise' });
    expect(result.failed).toEqual([]);
    const rows = (await readRows(out)) as Row[];
    const questions = pairsOf(s);
    expect(questions.length).toBe(rows.reduce((n, r) => n + r.gear_annotation_stats.pair_questions, 0));
    for (const q of questions) {
      expect(q.parent.points).toBeGreaterThan(0); // a penalty is never asked about as a parent
      expect(q.request['max_tokens']).toBe(1);
      expect(q.request['logprobs']).toBe(true);
    }
    for (const row of rows) {
      const stats = row.gear_annotation_stats;
      const rubrics = row.reward_model.rubrics as Row[];
      expect(stats.annotation_strategy).toBe('pairwise');
      expect(stats.node_parse_status).toBe('full');
      expect(stats.llm_requests).toBe(stats.pair_questions);
      for (const r of rubrics) expect(contradictsSign(r.tags.node_type, r.points)).toBe(false);
      expect(stats.node_roles_by_sign).toBe(rubrics.filter((r) => r.points <= 0).length);
      const typeOf = new Map(rubrics.map((r) => [r.id, r.tags.node_type]));
      const parents = new Set(row.reward_model.graph.edges.map((e: Row) => e.parent));
      for (const e of row.reward_model.graph.edges) {
        expect(e.type).toBe('weak_prerequisite');
        expect(typeOf.get(e.parent)).toBe('foundation');
        // the scripted model says yes only for a child whose text says "bonus", after its parent
        const child = rubrics.find((r) => r.id === e.child) as Row;
        expect(child.criterion).toMatch(/\bbonus\b/i);
      }
      const pointsOf = new Map(rubrics.map((r) => [r.id, r.points]));
      for (const r of rubrics) {
        const mine = (row.reward_model.graph.edges as Row[]).filter((e) => e.child === r.id);
        const refines = mine.length > 0 && mine.every((e) => r.points <= (pointsOf.get(e.parent) as number));
        if (r.points > 0) expect(r.tags.node_type).toBe(refines && !parents.has(r.id) ? 'bonus' : 'foundation');
      }
      expect(compileOfficialRewardModel(row.reward_model).report.droppedEdges).toEqual([]);
    }
  });

  it('does not depend on the order of the criteria', async () => {
    // Order-free answers: yes when the child mentions "pain" and the parent does not.
    const answer = (a: AnnotationRequest) => (a.kind === 'pair' ? (/pain/i.test(a.child.criterion) && !/pain/i.test(a.parent.criterion) ? 'yes' : 'no') : undefined);
    const s = await server(answer);
    const dir = tmp();
    const line = (readFileSync(HEALTHBENCH, 'utf8').split('\n')[4] as string);
    const row = JSON.parse(line) as Row;
    const reversed = { ...row, rubrics: [...row.rubrics].reverse() };
    writeFileSync(join(dir, 'a.jsonl'), `${JSON.stringify(row)}\n`);
    writeFileSync(join(dir, 'b.jsonl'), `${JSON.stringify(reversed)}\n`);
    await build(s.url, join(dir, 'a.jsonl'), join(dir, 'a-out.jsonl'), { strategy: 'pairwise' });
    await build(s.url, join(dir, 'b.jsonl'), join(dir, 'b-out.jsonl'), { strategy: 'pairwise' });
    const byText = (r: Row) => {
      const text = new Map((r.reward_model.rubrics as Row[]).map((x) => [x.id, x.criterion]));
      return {
        edges: (r.reward_model.graph.edges as Row[]).map((e) => `${text.get(e.parent)} -> ${text.get(e.child)}`).sort(),
        roles: (r.reward_model.rubrics as Row[]).map((x) => `${x.criterion}: ${x.tags.node_type}`).sort(),
      };
    };
    const [a] = (await readRows(join(dir, 'a-out.jsonl'))) as Row[];
    const [b] = (await readRows(join(dir, 'b-out.jsonl'))) as Row[];
    expect(byText(a as Row).edges.length).toBeGreaterThan(0);
    expect(byText(b as Row)).toEqual(byText(a as Row));
  });

  it('counts unreadable answers (never a "no") and reports such a row partial, or failed when nothing was readable', async () => {
    let n = 0;
    const s = await server((a) => (a.kind === 'pair' ? (n++ % 2 === 0 ? 'perhaps' : 'no') : undefined));
    const out = join(tmp(), 'out.jsonl');
    await build(s.url, HEALTHBENCH, out, { limit: 2, strategy: 'pairwise' });
    const rows = (await readRows(out)) as Row[];
    const total = rows.reduce((k, r) => k + r.gear_annotation_stats.pair_unreadable, 0);
    expect(total).toBe(Math.ceil(pairsOf(s).length / 2));
    for (const row of rows) {
      const stats = row.gear_annotation_stats;
      expect(stats.num_edge_failed_candidates).toBe(stats.pair_unreadable);
      if (stats.pair_unreadable > 0) expect(stats.node_parse_status).toBe(stats.pair_unreadable === stats.pair_questions ? 'failed' : 'partial');
      expect(row.reward_model.graph.edges).toEqual([]);
    }

    const t = await server((a) => (a.kind === 'pair' ? 'maybe' : undefined));
    const out2 = join(tmp(), 'out.jsonl');
    await build(t.url, HEALTHBENCH, out2, { limit: 1, strategy: 'pairwise' });
    const [only] = (await readRows(out2)) as Row[];
    expect((only as Row).gear_annotation_stats.node_parse_status).toBe('failed');
    expect((only as Row).gear_annotation_stats.num_node_fallback).toBe(((only as Row).reward_model.rubrics as Row[]).filter((r) => r.points > 0).length);
  });

  it('detects a row where every answer says yes, asks each pair the other way round, and reports the row partial', async () => {
    const s = await server((a) => (a.kind === 'pair' ? 'yes' : undefined));
    const out = join(tmp(), 'out.jsonl');
    await build(s.url, HEALTHBENCH, out, { limit: 1, strategy: 'pairwise' });
    const [row] = (await readRows(out)) as Row[];
    const stats = (row as Row).gear_annotation_stats;
    expect(stats.node_degenerate_replies).toBe(1);
    expect(stats.node_parse_status).toBe('partial');
    expect(stats.pair_reversed).toBeGreaterThanOrEqual(4);
    expect(stats.pair_questions).toBe(2 * stats.pair_reversed);
    // Yes both ways gives no direction: no pair is likelier in its own direction, so no edge.
    expect((row as Row).reward_model.graph.edges).toEqual([]);
  });
});

describe('gear graph build progress on stderr', () => {
  const capture = () => {
    const lines: string[] = [];
    const stream = { write: (text: string) => lines.push(...text.split('\n').filter((l) => l !== '')) > 0 } as unknown as NodeJS.WritableStream;
    return { lines, stream };
  };
  const run = (url: string, output: string, cache: string, stderr: NodeJS.WritableStream) =>
    buildGraphs({
      profile: 'healthbench',
      // One request at a time, as against a one-slot llama.cpp server.
      transport: { endpoints: [{ url, maxConcurrent: 1 }], deadlineMs: 5000 },
      cache: { file: cache },
      input: HEALTHBENCH,
      output,
      settings: { ...DEFAULT_ANNOTATION_SETTINGS, strategy: 'pairwise' },
      concurrency: 1,
      limit: 1,
      stderr,
      progressLineEveryMs: 100,
    });
  const answered = (line: string) => Number(/(\d+) LLM requests answered/.exec(line)?.[1]);

  it('writes lines while a long row is still running, counting the answers as they come; answers replayed from the cache are not counted', async () => {
    const s = await server(undefined, { latencyMs: 60 });
    const dir = tmp();
    const first = capture();
    await run(s.url, join(dir, 'out.jsonl'), join(dir, 'answers.sqlite'), first.stream);
    const during = first.lines.filter((l) => l.includes(' 0/1 rows'));
    const counts = during.map(answered);
    // The row's questions take 60 ms each, one at a time, so lines come before it ends, with rising counts.
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(counts.every((n, i) => i === 0 || n >= counts[i - 1]!)).toBe(true);
    expect(counts.at(-1)!).toBeGreaterThan(counts[0]!);
    expect(first.lines.at(-1)).toContain(' 1/1 rows');
    expect(answered(first.lines.at(-1)!)).toBe(s.requests.length);

    const again = capture();
    await run(s.url, join(dir, 'out-again.jsonl'), join(dir, 'answers.sqlite'), again.stream);
    expect(again.lines.at(-1)).toContain(' 1/1 rows');
    expect(answered(again.lines.at(-1)!)).toBe(0);
  });
});
