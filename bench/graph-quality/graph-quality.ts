/**
 * `gear graph build` against hand-annotated graphs, both strategies with the same model in one run:
 * edge precision / recall / F1, relation-type accuracy on matched edges, role agreement beside the
 * sign rule's, edges per rubric beside the references', requests, tokens and wall time.
 *
 *   node dist/bench/graph-quality/graph-quality.js [--model qwen-coder-1.5b] [--judge-url URL]
 *       [--plawbench FILE --plawbench-reference FILE] [--out DIR] [--strategies pairwise,official]
 *
 * The pairwise strategy's two tuned settings, its edge threshold and similarity weight, are chosen
 * on one half of the 30 bundled HealthBench hand graphs (odd lines) and reported on the other (even
 * lines), then the other way round; the tuning replays the answers from the cache, so it costs no
 * request. Other sets (PLawBench) are reported with the shipped defaults. Without --judge-url the local
 * LLM is started (scripts/local-llm, prompt cache on, 1 slot).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fixturesDir } from '../../conformance/fixtures-loader/fixtures-dir.js';
import { DEFAULT_ANNOTATION_SETTINGS, isStrategy, type AnnotationSettings, type Strategy } from '../../graphs/build/annotation-context.js';
import { readRows } from '../../graphs/io/row-files.js';
import { comparableGraph, compareGraphs, type ComparableGraph, type GraphComparison } from '../../graphs/report/compare-graphs.js';
import { buildGraphs } from '../../graphs/run/build-graphs.js';
import type { ProfileName } from '../../graphs/profiles/profiles.js';
import { startLocalLlm, type LocalLlm, type LocalLlmModel } from '../../judge/testing/local-llm.js';

const THRESHOLDS = Array.from({ length: 21 }, (_, i) => -1 + i / 4);
const SIMILARITY_WEIGHTS = [0, 2, 4, 8];
const quiet = { write: () => true } as unknown as NodeJS.WritableStream;
/** The build's progress lines, without the statistics tables it prints at the end (the bench prints its own). */
const progressOnly = { write: (text: string) => (text.startsWith('gear graph build:') ? process.stderr.write(text) : true) } as unknown as NodeJS.WritableStream;

interface SetSpec {
  readonly name: string;
  readonly profile: ProfileName;
  readonly input: string;
  readonly reference: string;
}

interface Measured {
  readonly set: string;
  readonly strategy: Strategy;
  readonly threshold: number | null;
  readonly similarityWeight: number;
  readonly comparison: GraphComparison;
  readonly requests: number;
  readonly promptTokens: number;
  readonly evaluatedPromptTokens: number;
  readonly completionTokens: number;
  readonly wallS: number;
  readonly notFull: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string', default: 'qwen-coder-1.5b' },
      'judge-url': { type: 'string' },
      plawbench: { type: 'string' },
      'plawbench-reference': { type: 'string' },
      out: { type: 'string', default: 'graph-quality-out' },
      strategies: { type: 'string', default: 'pairwise,official' },
    },
  });
  const strategies = (values.strategies ?? '').split(',').filter(isStrategy);
  const out = values.out as string;
  mkdirSync(out, { recursive: true });
  const hb = readFileSync(join(fixturesDir(), 'healthbench', 'oss_eval_first30.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(join(out, 'hb-odd.jsonl'), `${hb.filter((_, i) => i % 2 === 0).join('\n')}\n`);
  writeFileSync(join(out, 'hb-even.jsonl'), `${hb.filter((_, i) => i % 2 === 1).join('\n')}\n`);
  const hbReference = join(fixturesDir(), 'healthbench', 'graphs.jsonl');
  const halves: SetSpec[] = [
    { name: 'HealthBench odd lines (15)', profile: 'healthbench', input: join(out, 'hb-odd.jsonl'), reference: hbReference },
    { name: 'HealthBench even lines (15)', profile: 'healthbench', input: join(out, 'hb-even.jsonl'), reference: hbReference },
  ];
  const others: SetSpec[] = [];
  if (values.plawbench !== undefined && values['plawbench-reference'] !== undefined) {
    const reference = await readRows(values['plawbench-reference']);
    const lines = readFileSync(values.plawbench, 'utf8').trim().split('\n').slice(0, reference.length);
    writeFileSync(join(out, 'plawbench.jsonl'), `${lines.join('\n')}\n`);
    others.push({ name: `PLawBench (${lines.length})`, profile: 'plawbench', input: join(out, 'plawbench.jsonl'), reference: values['plawbench-reference'] });
  }

  let llm: LocalLlm | undefined;
  const url = values['judge-url'] ?? (llm = await startLocalLlm({ model: values.model as LocalLlmModel, threads: availableParallelism(), ctx: 8192, cachePrompt: true, readyTimeoutMs: 10 * 60_000 })).url;
  const cache = join(out, `answers-${values.model}.sqlite`);
  // Builds that ask the LLM run for minutes to hours, so they show the build's progress line; the sweep replays the cache in seconds.
  const run = async (set: SetSpec, strategy: Strategy, threshold: number, tag: string, similarityWeight = DEFAULT_ANNOTATION_SETTINGS.similarityWeight, replay = false): Promise<Measured> => {
    if (!replay) process.stderr.write(`graph-quality: building ${set.name} with the ${strategy} strategy\n`);
    const settings: AnnotationSettings = { ...DEFAULT_ANNOTATION_SETTINGS, strategy, edgeThreshold: threshold, similarityWeight };
    const output = join(out, `${tag}.jsonl`);
    const started = performance.now();
    const result = await buildGraphs({
      profile: set.profile,
      transport: { endpoints: [{ url, model: values.model as string, maxConcurrent: 1 }], requestTimeoutMs: 1_800_000, hedge: { enabled: false } },
      cache: { file: cache },
      input: set.input,
      output,
      settings,
      concurrency: 1,
      limit: 0,
      stderr: replay ? quiet : progressOnly,
    });
    const wallS = (performance.now() - started) / 1000;
    const built = (await readRows(output)).map(comparableGraph).filter((g): g is ComparableGraph => g !== undefined);
    const reference = (await readRows(set.reference)).map(comparableGraph).filter((g): g is ComparableGraph => g !== undefined);
    const t = result.summary.totals;
    return {
      set: set.name,
      strategy,
      threshold: strategy === 'pairwise' ? threshold : null,
      similarityWeight,
      comparison: compareGraphs(built, reference),
      requests: t.llm_requests - t.llm_cached_requests,
      promptTokens: t.prompt_tokens,
      evaluatedPromptTokens: t.prompt_tokens - t.prompt_tokens_cached,
      completionTokens: t.completion_tokens,
      wallS,
      notFull: result.rows - (result.summary.node_parse_status_counts['full'] ?? 0),
    };
  };

  const rows: Measured[] = [];
  try {
    for (const strategy of strategies) {
      if (strategy === 'official') {
        for (const set of [...halves, ...others]) rows.push(await run(set, 'official', DEFAULT_ANNOTATION_SETTINGS.edgeThreshold, `official-${set.profile}-${rows.length}`));
        continue;
      }
      // First pass at the default threshold pays every request (and its wall time); the sweep replays.
      const paidOdd = await run(halves[0] as SetSpec, strategy, DEFAULT_ANNOTATION_SETTINGS.edgeThreshold, 'pw-odd-default');
      const paidEven = await run(halves[1] as SetSpec, strategy, DEFAULT_ANNOTATION_SETTINGS.edgeThreshold, 'pw-even-default');
      for (const [tune, report, paid] of [[0, 1, paidEven], [1, 0, paidOdd]] as const) {
        let best = { f1: -1, threshold: DEFAULT_ANNOTATION_SETTINGS.edgeThreshold, weight: DEFAULT_ANNOTATION_SETTINGS.similarityWeight };
        for (const weight of SIMILARITY_WEIGHTS) {
          for (const threshold of THRESHOLDS) {
            const m = await run(halves[tune] as SetSpec, strategy, threshold, `pw-tune${tune}`, weight, true);
            const f1 = m.comparison.f1 ?? 0;
            if (f1 > best.f1) best = { f1, threshold, weight };
          }
        }
        process.stderr.write(`tuned on ${(halves[tune] as SetSpec).name}: threshold ${best.threshold}, similarity weight ${best.weight} (F1 ${best.f1.toFixed(3)})\n`);
        const m = await run(halves[report] as SetSpec, strategy, best.threshold, `pw-report${report}`, best.weight, true);
        rows.push({ ...m, requests: paid.requests, evaluatedPromptTokens: paid.evaluatedPromptTokens, promptTokens: paid.promptTokens, completionTokens: paid.completionTokens, wallS: paid.wallS });
      }
      for (const set of others) rows.push(await run(set, strategy, DEFAULT_ANNOTATION_SETTINGS.edgeThreshold, `pw-${set.profile}`));
    }
  } finally {
    await llm?.stop();
  }

  const pct = (v: number | null): string => (v === null ? 'n/a' : v.toFixed(3));
  const lines = [
    `model ${values.model}; ${new Date().toISOString()}`,
    '',
    '| set | strategy (threshold, similarity weight) | edge P | edge R | edge F1 | relation acc. | role agreement | sign rule | edges / rubric (ref) | requests | prompt tokens (evaluated) | completion tokens | wall s | rows not full |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((m) => {
      const c = m.comparison;
      return `| ${m.set} | ${m.strategy}${m.threshold === null ? '' : ` (${m.threshold}, ${m.similarityWeight})`} | ${pct(c.precision)} | ${pct(c.recall)} | ${pct(c.f1)} | ${pct(c.relationAccuracy)} | ${pct(c.nodeTypeAccuracy)} | ${pct(c.signRuleAccuracy)} | ${c.builtEdgesPerRubric?.toFixed(2) ?? 'n/a'} (${c.referenceEdgesPerRubric?.toFixed(2) ?? 'n/a'}) | ${m.requests} | ${m.promptTokens} (${m.evaluatedPromptTokens}) | ${m.completionTokens} | ${m.wallS.toFixed(0)} | ${m.notFull} |`;
    }),
  ];
  writeFileSync(join(out, `graph-quality-${values.model}.md`), `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`graph-quality: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
