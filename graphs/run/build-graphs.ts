import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { JudgeCache, type JudgeCacheOptions } from '../../judge/cache/judge-cache.js';
import { canonicalJson } from '../../judge/cache/cache-key.js';
import { JudgeClient, type ChatCompleter } from '../../judge/pipeline/judge-client.js';
import { JudgeTransport } from '../../judge/transport/judge-transport.js';
import { parseTransportConfig, type TransportConfigInput } from '../../judge/transport/endpoint-config.js';
import { annotateRow } from '../build/annotate-row.js';
import type { AnnotationSettings } from '../build/annotation-context.js';
import { ProgressJournal } from '../io/progress-journal.js';
import { readRows, writeRowsAtomically } from '../io/row-files.js';
import { readGraphRow } from '../model/graph-row.js';
import { PROFILES, type ProfileName } from '../profiles/profiles.js';
import { summarizeGraphs, type GraphSummary } from '../report/graph-summary.js';
import { BuildProgress } from './build-progress.js';

export interface BuildGraphsArgs {
  readonly profile: ProfileName;
  readonly transport: TransportConfigInput;
  readonly cache?: JudgeCacheOptions | undefined;
  readonly input: string;
  readonly output: string;
  readonly settings: AnnotationSettings;
  /** Rows annotated at the same time (their requests share the endpoints' limits). */
  readonly concurrency: number;
  /** Only the first N rows (0: all). */
  readonly limit: number;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** How often a progress line is written when stderr is not a terminal (default 10 s). */
  readonly progressLineEveryMs?: number;
}

export interface FailedRow {
  readonly index: number;
  readonly error: string;
}

export interface BuildResult {
  readonly rows: number;
  readonly resumed: number;
  readonly failed: readonly FailedRow[];
  readonly summary: GraphSummary;
  readonly summaryPath: string;
}

/** Where the official builder puts its summary: `<output stem>.annotation_summary.json` beside the output. */
export function summaryPathFor(output: string): string {
  const stem = basename(output).replace(/\.(jsonl|json|parquet)$/i, '');
  return join(dirname(output), `${stem}.annotation_summary.json`);
}

export function journalPathFor(output: string): string {
  return `${output}.progress.jsonl`;
}

/**
 * `gear graph build`: annotates every row (roles, candidates, edges, validation, DAG projection)
 * with the LLM behind the transport, `concurrency` rows at a time. Each finished row goes to the
 * progress journal at once (fsynced); a re-run skips rows the journal has and replays the LLM
 * answers of the others from the cache, so an interrupted build loses no row and pays no request
 * twice. A row that fails (bad input, an endpoint that stays down) is reported and skipped, never
 * the end of the run. When every row is done the output is written in input order and the
 * journal removed; with failed rows the output holds the others and the journal stays for a re-run.
 */
export async function buildGraphs(args: BuildGraphsArgs): Promise<BuildResult> {
  const transportConfig = parseTransportConfig(args.transport);
  const transport = new JudgeTransport(transportConfig);
  const cache = new JudgeCache(args.cache);
  const modelKey = [...new Set(transportConfig.endpoints.map((e) => e.model))].sort().join(',');
  const fingerprint = canonicalJson({ v: 1, profile: args.profile, model: modelKey, settings: args.settings });

  let inputs = await readRows(args.input);
  if (args.limit > 0) inputs = inputs.slice(0, args.limit);
  const keys = inputs.map((row) => createHash('sha256').update(fingerprint).update('\u0000').update(canonicalJson(row)).digest('hex'));
  const journal = ProgressJournal.open(journalPathFor(args.output));
  const results: (Record<string, unknown> | undefined)[] = inputs.map((_, i) => journal.done(i, keys[i] as string));
  const resumed = results.filter((r) => r !== undefined).length;
  const progress = new BuildProgress(args.stderr, inputs.length, resumed, args.progressLineEveryMs);
  // Every answer an endpoint gives is counted as it arrives, so a row of many requests shows its pace.
  const counted: ChatCompleter = {
    complete: async (call) => {
      const answer = await transport.complete(call);
      progress.requestAnswered(answer.promptTokens + answer.completionTokens);
      return answer;
    },
  };
  const ctx = { client: new JudgeClient(counted, modelKey, cache), profile: PROFILES[args.profile], settings: args.settings };
  const failed: FailedRow[] = [];
  const todo = inputs.map((_, i) => i).filter((i) => results[i] === undefined);
  if (resumed > 0) args.stderr.write(`gear graph build: resuming: ${resumed} of ${inputs.length} rows already done (${journalPathFor(args.output)})\n`);

  const work = async (index: number): Promise<void> => {
    const key = keys[index] as string;
    try {
      const row = readGraphRow(inputs[index], index);
      const annotated = await annotateRow(ctx, row);
      results[index] = annotated.row;
      journal.append({ status: 'done', index, key, row: annotated.row });
      progress.rowDone(annotated.stats.num_graph_edges);
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      failed.push({ index, error: message });
      journal.append({ status: 'failed', index, key, error: message });
      args.stderr.write(`gear graph build: row ${index + 1} failed and is skipped: ${message}\n`);
      progress.rowFailed();
    }
  };

  let next = 0;
  const lanes = Array.from({ length: Math.min(args.concurrency, todo.length) }, async () => {
    while (next < todo.length) await work(todo[next++] as number);
  });
  try {
    await Promise.all(lanes);
  } finally {
    progress.finish();
    journal.close();
    await transport.close();
    cache.close();
  }

  const done = results.filter((r): r is Record<string, unknown> => r !== undefined);
  writeRowsAtomically(args.output, done);
  if (failed.length === 0) journal.remove();
  const summary = summarizeGraphs(done);
  const summaryPath = summaryPathFor(args.output);
  failed.sort((a, b) => a.index - b.index);
  writeFileSync(
    summaryPath,
    `${JSON.stringify({ ...summary, annotation_profile: args.profile, model: modelKey, input_rows: inputs.length, resumed_rows: resumed, failed_rows: failed }, null, 2)}\n`,
  );
  return { rows: inputs.length, resumed, failed, summary, summaryPath };
}
