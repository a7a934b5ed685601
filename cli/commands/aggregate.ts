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
import { createLineScorer } from './aggregate-line.js';

export interface AggregateArgs {
  readonly input?: string | undefined;
  readonly output?: string | undefined;
  readonly format: 'jsonl' | 'table';
  readonly options: AggregationOptionsInput;
  /** Adds each line's `explain` block (the graph and core's per-criterion explanation). */
  readonly explain?: boolean | undefined;
  /** Lines to read instead of --input (the bundled demo). */
  readonly lines?: AsyncIterable<string> | undefined;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: NodeJS.WriteStream;
}

/** A line of only whitespace (as String.prototype.trim sees it) is skipped, but counted. */
function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) continue;
    // Any other ASCII byte is text; beyond ASCII (no-break spaces, BOM...) ask trim itself.
    return c >= 0x80 ? bytes.toString('utf8', start, end).trim() === '' : false;
  }
  return true;
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

  let lines = 0;
  let errors = 0;
  // Chunks of the input (1 MiB reads), scored and written one batch at a time.
  const input = args.lines !== undefined ? batchesOfLines(args.lines) : readLineBatches(source as Readable);
  for await (const batch of input) {
    let out = '';
    const { bytes } = batch;
    batch.starts.forEach((start, k) => {
      const end = batch.ends[k] as number;
      if (isBlank(bytes, start, end)) return;
      const number = batch.first + k;
      lines += 1;
      if (table === undefined) {
        out += `${scorer.score(bytes, start, end, number)}\n`;
        return;
      }
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
    if (out !== '') await write(out);
    if (table === undefined) errors = scorer.errors;
    progress.update(lines, errors, source !== undefined && 'bytesRead' in source ? (source as { bytesRead: number }).bytesRead : undefined);
  }
  if (table !== undefined && fcp !== undefined) await write(table.render(fcp.report()));
  if (sink !== args.stdout) {
    sink.end();
    await once(sink, 'finish');
  }
  progress.finish(lines, errors);
  return errors;
}
