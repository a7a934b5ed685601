import { readRows } from '../../graphs/io/row-files.js';
import { checkRow } from '../../graphs/report/check-graphs.js';

export interface GraphCheckArgs {
  readonly file: string;
  readonly format: 'table' | 'jsonl';
  readonly stdout: NodeJS.WritableStream;
}

/** `gear graph check`: every problem per row, then counts by kind. Exit 1 when any row has one. */
export async function runGraphCheck(args: GraphCheckArgs): Promise<number> {
  const rows = await readRows(args.file);
  const checks = rows.map((row, i) => checkRow(row, i + 1)).filter((c) => c.problems.length > 0);
  const byKind: Record<string, number> = {};
  for (const c of checks) for (const p of c.problems) byKind[p.kind] = (byKind[p.kind] ?? 0) + 1;
  if (args.format === 'jsonl') {
    for (const c of checks) args.stdout.write(`${JSON.stringify(c)}\n`);
  } else {
    for (const c of checks) for (const p of c.problems) args.stdout.write(`row ${c.row}: ${p.kind}: ${p.detail}\n`);
    args.stdout.write(`${rows.length} rows checked, ${checks.length} with problems${checks.length > 0 ? ` ${JSON.stringify(byKind)}` : ''}\n`);
  }
  return checks.length > 0 ? 1 : 0;
}
