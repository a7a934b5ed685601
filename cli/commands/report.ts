import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { GearError } from '../../core/index.js';
import { ReportBuilder } from '../../report/model/build-report.js';
import { isGraphSummary } from '../../report/model/graph-statistics.js';
import { renderReportHtml } from '../../report/render/html-page.js';
import { readRows } from '../../graphs/io/row-files.js';
import { summaryPathFor } from '../../graphs/run/build-graphs.js';
import { readLines } from '../io/jsonl-lines.js';

export interface ReportArgs {
  readonly input?: string | undefined;
  readonly graphs?: string | undefined;
  /** Default: report.html for html, stdout for json. */
  readonly output?: string | undefined;
  readonly format: 'html' | 'json';
  readonly views: number;
  readonly responseIds: readonly string[];
  readonly title?: string | undefined;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: NodeJS.WriteStream;
}

/**
 * Graph-annotated rows (JSONL or VERL parquet, read as `gear graph` reads them) and their build
 * summary: a summary line in the file, else the sidecar `<stem>.annotation_summary.json` that
 * `gear graph build` (and the official builder) writes beside its output.
 * @throws GearError naming the line of a JSONL line that is not a JSON object.
 */
export async function readGraphRows(path: string): Promise<{ rows: Record<string, unknown>[]; summary: Record<string, unknown> | undefined }> {
  let all: Record<string, unknown>[];
  try {
    all = await readRows(path);
  } catch (error) {
    throw error instanceof GearError ? error.under(['--graphs']) : error;
  }
  const summaries = all.filter(isGraphSummary);
  let summary = summaries[summaries.length - 1];
  const sidecar = summaryPathFor(path);
  if (summary === undefined && existsSync(sidecar)) {
    const value: unknown = JSON.parse(readFileSync(sidecar, 'utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) summary = value as Record<string, unknown>;
  }
  return { rows: all.filter((r) => !isGraphSummary(r)), summary };
}

/**
 * `gear report`: the output of gear aggregate, score or judge (JSONL) -> one self-contained HTML
 * page (or, with --format json, the same figures as JSON). Returns the path written (or '-').
 */
export async function runReport(args: ReportArgs): Promise<string> {
  if (args.input !== undefined) statSync(args.input); // a missing file fails before anything is read
  const graphs = args.graphs === undefined ? undefined : await readGraphRows(args.graphs);
  const builder = new ReportBuilder({ views: args.views, responseIds: args.responseIds, graphs });
  const source = args.input !== undefined ? createReadStream(args.input) : args.stdin;
  for await (const { number, text } of readLines(source)) builder.add(text, number);
  const model = builder.finish();
  const text = args.format === 'json' ? `${JSON.stringify(model, null, 1)}\n` : await renderReportHtml(model, args.title ?? `gear report${args.input === undefined ? '' : `: ${basename(args.input)}`}`);
  const output = args.output ?? (args.format === 'json' ? undefined : 'report.html');
  if (output === undefined || output === '-') {
    // A reader that stops early (`| head`) is not an error.
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => (error.code === 'EPIPE' ? resolve() : reject(error));
      // Left attached: the stream reports EPIPE after the write's callback.
      args.stdout.once('error', onError);
      args.stdout.write(text, () => resolve());
    });
    return '-';
  }
  writeFileSync(output, text);
  args.stderr.write(
    `gear report: ${model.input.lines} lines (${model.input.explained_lines} with explain, ${model.input.error_lines} error lines), ` +
      `${model.responses.length} responses drawn -> ${output}\n`,
  );
  return output;
}
