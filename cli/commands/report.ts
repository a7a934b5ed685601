import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { GearError } from '../../core/index.js';
import { ReportBuilder } from '../../report/model/build-report.js';
import { isGraphSummary } from '../../report/model/graph-statistics.js';
import { renderReportHtml } from '../../report/render/html-page.js';
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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The summary `gear graph build` (and the official builder) writes beside its output. */
export function summaryPathFor(rows: string): string {
  return join(dirname(rows), `${basename(rows).replace(/\.(jsonl|json)$/i, '')}.annotation_summary.json`);
}

/**
 * Graph-annotated rows (JSONL) and their build summary: a summary line in the file, else the
 * sidecar `<stem>.annotation_summary.json` when it exists.
 * @throws GearError naming the file and line of a line that is not a JSON object.
 */
export function readGraphRows(path: string): { rows: Record<string, unknown>[]; summary: Record<string, unknown> | undefined } {
  const rows: Record<string, unknown>[] = [];
  let summary: Record<string, unknown> | undefined;
  readFileSync(path, 'utf8')
    .split(/\r\n|\n|\r/)
    .forEach((text, i) => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new GearError('invalid_input', ['--graphs', `line ${i + 1}`], `not JSON (${error instanceof Error ? error.message : String(error)})`);
      }
      if (!isRecord(value)) throw new GearError('invalid_input', ['--graphs', `line ${i + 1}`], 'must be a JSON object (a rubric row)');
      if (isGraphSummary(value)) summary = value;
      else rows.push(value);
    });
  const sidecar = summaryPathFor(path);
  if (summary === undefined && existsSync(sidecar)) {
    const value: unknown = JSON.parse(readFileSync(sidecar, 'utf8'));
    if (isRecord(value)) summary = value;
  }
  return { rows, summary };
}

/**
 * `gear report`: the output of gear aggregate, score or judge (JSONL) -> one self-contained HTML
 * page (or, with --format json, the same figures as JSON). Returns the path written (or '-').
 */
export async function runReport(args: ReportArgs): Promise<string> {
  if (args.input !== undefined) statSync(args.input); // a missing file fails before anything is read
  const graphs = args.graphs === undefined ? undefined : readGraphRows(args.graphs);
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
