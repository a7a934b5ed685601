import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import {
  AggregationOptionsSchema,
  createFcpAccumulator,
  parseWith,
  type AggregationOptionsInput,
  type CompiledRubric,
} from '../../core/index.js';
import { batchesOfLines, readLineBatches } from '../io/line-batches.js';
import { LruCache } from '../io/compiled-cache.js';
import { Progress } from '../io/progress.js';
import { errorRecord } from '../io/error-record.js';
import { ComparisonTable } from '../render/comparison-table.js';
import { scoreRecord } from './score-record.js';
import { createLineScorer, isBlank, scoreLineBatch, type ScoredBatch } from './aggregate-line.js';
import { ScoringPool } from './scoring-pool.js';

export interface AggregateArgs {
  readonly input?: string | undefined;
  readonly output?: string | undefined;
  readonly format: 'jsonl' | 'table';
  readonly options: AggregationOptionsInput;
  /** Adds each line's `explain` block (the graph and core's per-criterion explanation). */
  readonly explain?: boolean | undefined;
  /**
   * Worker threads scoring beside the main thread (JSONL output; default 0). Opt-in because a
   * worker's start-up and warm-up cost as much as it saves unless the file is very large.
   */
  readonly threads?: number | undefined;
  /** Lines to read instead of --input (the bundled demo). */
  readonly lines?: AsyncIterable<string> | undefined;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: NodeJS.WriteStream;
}

/**
 * `gear aggregate`: JSONL in, one JSON line out per input line (or a comparison table). A bad line
 * becomes an error line naming the line and field; the other lines are still scored. Streams in
 * constant memory (compiled rubrics are cached in a bounded LRU). Returns the number of bad lines.
 */
export async function runAggregate(args: AggregateArgs): Promise<number> {
  const options = parseWith(AggregationOptionsSchema, args.options, ['options']);
  // stat first: a missing file is reported before any stream exists to fail asynchronously.
  const totalBytes = args.input !== undefined ? statSync(args.input).size : undefined;
  const source = args.lines !== undefined ? undefined : args.input !== undefined ? createReadStream(args.input, { highWaterMark: 1 << 20 }) : args.stdin;
  const sink = args.output !== undefined ? createWriteStream(args.output) : args.stdout;
  if (args.output !== undefined) await once(sink, 'open'); // an unwritable path fails here, not mid-stream
  const progress = new Progress('gear aggregate', args.stderr, totalBytes);
  const cache = new LruCache<CompiledRubric>(1024);
  const table = args.format === 'table' ? new ComparisonTable() : undefined;
  const fcp = table !== undefined ? createFcpAccumulator({ aggregators: ['flat', 'hard', 'gear', 'gear-exact'] }) : undefined;

  const write = async (text: string): Promise<void> => {
    if (!sink.write(text)) await once(sink, 'drain');
  };
  const scorer = createLineScorer(options, args.explain === true);
  const threads = args.threads ?? 0;
  const pool = table === undefined && threads > 0 ? new ScoringPool(threads, { options: args.options, explain: args.explain === true }) : undefined;

  let lines = 0;
  let errors = 0;
  const bytesRead = (): number | undefined => (source !== undefined && 'bytesRead' in source ? (source as { bytesRead: number }).bytesRead : undefined);
  // Scored batches in input order: the main thread's are done at once, the workers' arrive later.
  const pending: Promise<ScoredBatch>[] = [];
  const flush = async (keep: number): Promise<void> => {
    while (pending.length > keep) {
      const done = await (pending.shift() as Promise<ScoredBatch>);
      lines += done.lines;
      errors += done.errors;
      if (done.text !== '') await write(done.text);
      progress.update(lines, errors, bytesRead());
    }
  };
  try {
    // Chunks of the input (1 MiB reads), scored a batch at a time, here or on a worker.
    const input = args.lines !== undefined ? batchesOfLines(args.lines) : readLineBatches(source as Readable);
    for await (const batch of input) {
      if (table === undefined) {
        const offered = pool?.offer(batch);
        // Handled when its turn to be written comes; until then a failure must not count as unhandled.
        offered?.catch(() => undefined);
        pending.push(offered ?? Promise.resolve(scoreLineBatch(scorer, batch.bytes, batch.starts, batch.ends, batch.first)));
        await flush(3);
        continue;
      }
      const { bytes } = batch;
      batch.starts.forEach((start, k) => {
        const end = batch.ends[k] as number;
        if (isBlank(bytes, start, end)) return;
        const number = batch.first + k;
        lines += 1;
        const text = bytes.toString('utf8', start, end);
        try {
          const scored = scoreRecord(JSON.parse(text), options, cache);
          table.add(scored, { line: number, ...scored.output });
          fcp?.add(scored);
        } catch (error) {
          errors += 1;
          table.addError(errorRecord(number, error));
        }
      });
      progress.update(lines, errors, bytesRead());
    }
    await flush(0);
  } finally {
    await pool?.close();
  }
  if (table !== undefined && fcp !== undefined) await write(table.render(fcp.report()));
  if (sink !== args.stdout) {
    sink.end();
    await once(sink, 'finish');
  }
  progress.finish(lines, errors);
  return errors;
}
