import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { GearError, compileRubric, type AggregationOptionsInput, type AggregatorName, type CompiledRubric } from '../../core/index.js';
import { createGearContainer, resolveAdapter, type SupportedHost } from '../../adapters/container.js';
import { JudgeRuntime, type JudgeRuntimeConfig } from '../../judge/judge-runtime.js';
import type { JudgeResult } from '../../judge/pipeline/judge-response.js';
import { readLines } from '../io/jsonl-lines.js';
import { errorRecord } from '../io/error-record.js';
import { criterionRecord } from '../io/criterion-record.js';
import { explainHostRecord } from './explain-host-record.js';
import { JudgeProgress } from '../io/judge-progress.js';
import { OrderedWindow } from '../io/ordered-window.js';
import { LruCache } from '../io/compiled-cache.js';
import { TransportConfigSchema } from '../../judge/transport/endpoint-config.js';
import { parseJsonKeepingPointsForm } from '../../adapters/points-form.js';
import type { RubricCompiler } from '../../adapters/scalarizer.js';
import { ParsedRows } from '../../judge/pipeline/parsed-rows.js';

export interface JudgeArgs {
  readonly host: SupportedHost;
  readonly aggregator: AggregatorName;
  readonly options: AggregationOptionsInput;
  readonly judge: JudgeRuntimeConfig;
  readonly input?: string | undefined;
  readonly output?: string | undefined;
  /**
   * Rows judged at the same time (their requests share the endpoints' slots). Default: the
   * endpoints' capacity, the sum of their maxConcurrent (rowsInFlight).
   */
  readonly concurrency?: number | undefined;
  /** Adds each line's `explain` block (all four aggregators, the graph, core's explanation). */
  readonly explain?: boolean | undefined;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: NodeJS.WriteStream;
}

/** What `gear score` writes for a row, plus the judge's stats and raw outputs. */
export function judgeRecord(line: number, id: unknown, result: JudgeResult): Record<string, unknown> {
  return {
    line,
    ...(id !== undefined ? { id } : {}),
    host: result.host,
    aggregator: result.aggregator,
    method: result.method,
    reward: result.reward,
    native_reward: result.nativeReward,
    failed_criteria: result.failedCriteria,
    // Each failed criterion with why: its request ran out of its deadline, was refused (4xx), or the answer was unreadable.
    failures: result.failures,
    criteria: result.criteria.map((c) => ({
      ...criterionRecord(c, c.effective),
      p_verbalized: c.pVerbalized,
      ...(c.pLogprob !== null ? { p_logprob: c.pLogprob } : {}),
    })),
    ...(Object.keys(result.extras).length > 0 ? { extras: result.extras } : {}),
    // The first ask's outputs in request order: what `gear score` reads to re-score offline.
    judge_outputs: result.judge.outputs.filter((o) => o.reask === 0).map((o) => o.output ?? ''),
    judge: {
      stats: result.judge.stats,
      outputs: result.judge.outputs,
    },
  };
}

interface Parsed {
  readonly row: unknown;
  readonly response: string;
  readonly id: unknown;
}

function parseLine(text: string): Parsed {
  const record: unknown = parseJsonKeepingPointsForm(text);
  if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new GearError('invalid_input', [], 'each line must be a JSON object');
  const fields = record as Record<string, unknown>;
  const row = fields['row'] ?? fields['extra_info'];
  if (row === undefined) throw new GearError('invalid_input', ['row'], 'missing: the host row ("row" or "extra_info")');
  const response = fields['response'];
  if (typeof response !== 'string') throw new GearError('invalid_input', ['response'], 'must be the response text');
  return { row, response, id: fields['id'] };
}

/**
 * Rows in flight by default: the endpoints' capacity, the sum of their maxConcurrent (what the
 * transport lets out at once). Each row makes at least one request, so that many rows keep every
 * slot busy; a row of many criteria queues its other requests behind them, in the transport's line.
 */
export function rowsInFlight(judge: JudgeRuntimeConfig): number {
  return TransportConfigSchema.parse(judge.transport).endpoints.reduce((sum, e) => sum + e.maxConcurrent, 0);
}

/** Distinct rows remembered for the lines that repeat them (SharedRows). */
const SHARED_ROWS = 1024;
/** A `"points"` written with a fraction or an exponent (points-form.ts marks such rows). */
const FLOAT_POINTS = /"points"\s*:\s*-?\d+[.eE]/;

/**
 * One object per distinct row, for the lines that repeat a row (a GRPO group's 8 responses to one
 * prompt): with ParsedRows and a compiler that remembers by rubric object, the row is parsed and
 * its rubric compiled once per group instead of once per line, CPU that otherwise sits between an
 * answer and the next request. Keyed by the row's JSON; lines that write a points value as a
 * float (whose marks the text alone carries) keep their own row. The last SHARED_ROWS rows.
 */
class SharedRows {
  private readonly rows = new LruCache<unknown>(SHARED_ROWS);

  canonical(row: unknown, lineText: string): unknown {
    if (typeof row !== 'object' || row === null || FLOAT_POINTS.test(lineText)) return row;
    return this.rows.getOrCreate(JSON.stringify(row), () => row);
  }
}

/** compileRubric, remembered per rubric and options object (both stable for the rows SharedRows shares). */
function rememberingCompiler(): RubricCompiler {
  const byRubric = new WeakMap<object, WeakMap<object, CompiledRubric>>();
  return (rubric, options) => {
    let byOptions = byRubric.get(rubric);
    const known = byOptions?.get(options);
    if (known !== undefined) return known;
    const compiled = compileRubric(rubric, options);
    if (byOptions === undefined) {
      byOptions = new WeakMap();
      byRubric.set(rubric, byOptions);
    }
    byOptions.set(options, compiled);
    return compiled;
  };
}

/** Rows started but not yet written, at most this many times the rows in flight (the reordering buffer's bound). */
const UNWRITTEN_PER_ROW_IN_FLIGHT = 16;

/**
 * `gear judge`: each JSONL line `{"row": <host row>, "response": "..."}` is judged by the LLM at
 * the configured endpoints and scored; output lines come in input order. A slow row does not stop
 * the next ones from starting: finished rows wait in a buffer until the rows before them are
 * written (up to 16 x the rows in flight started but unwritten). A bad line (or a row the judge
 * could not score under the `error` policy) is an error line and the rest still run. Returns the
 * number of error lines.
 */
export async function runJudge(args: JudgeArgs): Promise<number> {
  const adapter = resolveAdapter(createGearContainer(args.aggregator, args.options, rememberingCompiler()), args.host);
  const sharedRows = new SharedRows();
  const parsedRows = new ParsedRows();
  const runtime = JudgeRuntime.create(args.judge);
  const source = args.input !== undefined ? createReadStream(args.input) : args.stdin;
  const sink = args.output !== undefined ? createWriteStream(args.output) : args.stdout;
  const progress = new JudgeProgress('gear judge', args.stderr, () => runtime.info());
  const concurrency = args.concurrency ?? rowsInFlight(args.judge);
  let lines = 0;
  let errors = 0;

  const write = async (record: Record<string, unknown>): Promise<void> => {
    if ('error' in record) errors++;
    if (!sink.write(`${JSON.stringify(record)}\n`)) await once(sink, 'drain');
    progress.rowDone(errors);
  };

  const window = new OrderedWindow<Record<string, unknown>>(concurrency, UNWRITTEN_PER_ROW_IN_FLIGHT * concurrency, write);

  try {
    for await (const { number, text } of readLines(source)) {
      if (text.trim() === '') continue;
      lines++;
      await window.room();
      window.start(async () => {
        try {
          const parsed = parseLine(text);
          const row = sharedRows.canonical(parsed.row, text);
          const result = await runtime.judge(adapter, row, parsed.response, undefined, parsedRows).catch((error: unknown) => {
            throw error instanceof GearError && error.code === 'invalid_input' ? error.under(['row']) : error;
          });
          const record = judgeRecord(number, parsed.id, result);
          return args.explain === true ? { ...record, explain: explainHostRecord(adapter.format, parsed.row, result.criteria, args.options) } : record;
        } catch (error) {
          return errorRecord(number, error);
        }
      });
    }
    await window.drain();
  } finally {
    progress.finish(lines, errors);
    await runtime.close();
    if (sink !== args.stdout) {
      sink.end();
      await once(sink, 'finish');
    }
  }
  return errors;
}
