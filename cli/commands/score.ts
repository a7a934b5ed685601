import { createReadStream, statSync } from 'node:fs';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { GearError, type AggregationOptionsInput, type AggregatorName } from '../../core/index.js';
import { createGearContainer, resolveAdapter, type SupportedHost } from '../../adapters/container.js';
import type { OnJudgeFailure } from '../../adapters/judge-output/failure-policy.js';
import { readLines } from '../io/jsonl-lines.js';
import { Progress } from '../io/progress.js';
import { errorRecord } from '../io/error-record.js';
import { criterionRecord } from '../io/criterion-record.js';
import { explainHostRecord } from './explain-host-record.js';
import { parseJsonKeepingPointsForm } from '../../adapters/points-form.js';

export interface ScoreArgs {
  readonly host: SupportedHost;
  readonly aggregator: AggregatorName;
  readonly options: AggregationOptionsInput;
  readonly input?: string | undefined;
  readonly withRequests: boolean;
  /** Adds each line's `explain` block (all four aggregators, the graph, core's explanation). */
  readonly explain?: boolean | undefined;
  /** What an unread criterion counts as (default pessimistic: against the response). */
  readonly onJudgeFailure?: OnJudgeFailure;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: NodeJS.WriteStream;
}

/**
 * `gear score`: each JSONL line holds a host row (`row`, or VERL's `extra_info`), the `response`
 * and the judge's raw outputs (`judge_outputs`, one string per judge request). Writes the reward
 * under the chosen aggregator, the host's native reward, the number of criteria the judge output
 * did not answer readably, and per criterion p (the failure policy applied), decision, read status
 * and effective score. Bad lines (and, under `--on-judge-failure error`, lines with an unread
 * criterion) become error lines; returns their number.
 */
export async function runScore(args: ScoreArgs): Promise<number> {
  const total = args.input !== undefined ? statSync(args.input).size : undefined;
  const source = args.input !== undefined ? createReadStream(args.input) : args.stdin;
  const adapter = resolveAdapter(createGearContainer(args.aggregator, args.options), args.host);
  const progress = new Progress('gear score', args.stderr, total);
  let lines = 0;
  let errors = 0;
  for await (const { number, text } of readLines(source)) {
    if (text.trim() === '') continue;
    lines += 1;
    let out: Record<string, unknown>;
    try {
      const record: unknown = parseJsonKeepingPointsForm(text);
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        throw new GearError('invalid_input', [], 'each line must be a JSON object');
      }
      const fields = record as Record<string, unknown>;
      const row = fields['row'] ?? fields['extra_info'];
      if (row === undefined) throw new GearError('invalid_input', ['row'], 'missing: the host row ("row" or "extra_info")');
      const response = fields['response'];
      if (typeof response !== 'string') throw new GearError('invalid_input', ['response'], 'must be the response text');
      const outputs = fields['judge_outputs'];
      if (!Array.isArray(outputs) || outputs.some((o) => typeof o !== 'string')) {
        throw new GearError('invalid_input', ['judge_outputs'], 'must be an array of the judge\'s raw output strings, one per request');
      }
      let result;
      try {
        result = adapter.score({ row, response, judgeOutputs: outputs as string[], onJudgeFailure: args.onJudgeFailure ?? 'pessimistic' });
      } catch (error) {
        throw error instanceof GearError ? error.under([fields['row'] !== undefined ? 'row' : 'extra_info']) : error;
      }
      out = {
        line: number,
        ...(fields['id'] !== undefined ? { id: fields['id'] } : {}),
        host: result.host,
        aggregator: result.aggregator,
        method: result.method,
        reward: result.reward,
        native_reward: result.nativeReward,
        failed_criteria: result.failedCriteria,
        criteria: result.judgments.map((j, i) => criterionRecord(j, result.effective[i])),
        ...(Object.keys(result.extras).length > 0 ? { extras: result.extras } : {}),
        ...(args.withRequests
          ? { requests: adapter.format.buildJudgeRequests(adapter.format.parseRow(row), response) }
          : { request_count: result.requestCount }),
        ...(args.explain === true ? { explain: explainHostRecord(adapter.format, row, result.judgments, args.options) } : {}),
      };
    } catch (error) {
      errors += 1;
      out = errorRecord(number, error);
    }
    if (!args.stdout.write(`${JSON.stringify(out)}\n`)) await once(args.stdout, 'drain');
    progress.update(lines, errors, 'bytesRead' in source ? (source as { bytesRead: number }).bytesRead : undefined);
  }
  progress.finish(lines, errors);
  return errors;
}
