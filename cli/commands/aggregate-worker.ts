import { parentPort, workerData } from 'node:worker_threads';
import { AggregationOptionsSchema } from '../../core/index.js';
import { createLineScorer, scoreLineBatch } from './aggregate-line.js';
import type { BatchRequest, WorkerSetup } from './scoring-pool.js';

/** A scoring thread of `gear aggregate`: batches of line bytes in, their output text out, in order. */
const setup = workerData as WorkerSetup;
const scorer = createLineScorer(AggregationOptionsSchema.parse(setup.options), setup.explain);
const port = parentPort;
if (port === null) throw new Error('aggregate-worker.js runs as a worker thread');
port.on('message', (request: BatchRequest) => {
  const bytes = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
  port.postMessage({ id: request.id, ...scoreLineBatch(scorer, bytes, request.starts, request.ends, request.first) });
});
