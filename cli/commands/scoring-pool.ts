import { Worker } from 'node:worker_threads';
import type { AggregationOptionsInput } from '../../core/index.js';
import type { LineBatch } from '../io/line-batches.js';
import type { ScoredBatch } from './aggregate-line.js';

export interface WorkerSetup {
  readonly options: AggregationOptionsInput;
  readonly explain: boolean;
}

export interface BatchRequest {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly first: number;
}

/** Batches a worker may hold at once (one being scored, one waiting): memory stays a few chunks. */
const PER_WORKER = 2;

/**
 * The worker's own module, next to this one in dist/cli/commands; from the CLI's bundle
 * (dist/cli/gear.cjs, where import.meta.url is the bundle's) it is one folder down.
 */
const WORKER_FILE = new URL(import.meta.url.endsWith('.cjs') ? './commands/aggregate-worker.js' : './aggregate-worker.js', import.meta.url);

/**
 * Worker threads that score batches of lines for `gear aggregate` beside the main thread. A batch
 * goes to a worker with room, else the caller scores it itself; results come
 * back as promises the caller awaits in input order, so the output order is the input order.
 */
export class ScoringPool {
  private readonly workers: { worker: Worker; inFlight: number }[] = [];
  private readonly waiting = new Map<number, { resolve: (r: ScoredBatch) => void; reject: (e: unknown) => void }>();
  private nextId = 0;
  private failure: unknown;

  constructor(threads: number, setup: WorkerSetup) {
    for (let t = 0; t < threads; t++) {
      const worker = new Worker(WORKER_FILE, { workerData: setup });
      const slot = { worker, inFlight: 0 };
      worker.on('message', (message: { id: number } & ScoredBatch) => {
        slot.inFlight -= 1;
        const waiter = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        waiter?.resolve({ text: message.text, lines: message.lines, errors: message.errors });
      });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`a scoring thread exited with code ${code}`));
      });
      this.workers.push(slot);
    }
  }

  /**
   * The batch's result from a worker, or undefined when every worker is full (score it yourself).
   * A worker still starting takes its batches too: they wait in its queue until it has loaded.
   */
  offer(batch: LineBatch): Promise<ScoredBatch> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const slot = this.workers.filter((w) => w.inFlight < PER_WORKER).sort((a, b) => a.inFlight - b.inFlight)[0];
    if (slot === undefined) return undefined;
    // A copy the worker owns: the chunk's buffer may be shared (Node's pool) and must not move.
    const buffers = { bytes: new ArrayBuffer(batch.bytes.length), starts: new ArrayBuffer(batch.starts.length * 4), ends: new ArrayBuffer(batch.ends.length * 4) };
    const bytes = new Uint8Array(buffers.bytes);
    bytes.set(batch.bytes);
    const starts = new Int32Array(buffers.starts);
    starts.set(batch.starts);
    const ends = new Int32Array(buffers.ends);
    ends.set(batch.ends);
    const request: BatchRequest = { id: this.nextId++, bytes, starts, ends, first: batch.first };
    slot.inFlight += 1;
    return new Promise<ScoredBatch>((resolve, reject) => {
      this.waiting.set(request.id, { resolve, reject });
      slot.worker.postMessage(request, [buffers.bytes, buffers.starts, buffers.ends]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
