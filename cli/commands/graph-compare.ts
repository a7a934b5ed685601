import { readRows } from '../../graphs/io/row-files.js';
import { comparableGraph, compareGraphs, renderComparison, type ComparableGraph } from '../../graphs/report/compare-graphs.js';

export interface GraphCompareArgs {
  readonly file: string;
  readonly reference: string;
  readonly format: 'table' | 'json';
  readonly stdout: NodeJS.WritableStream;
}

const graphs = (rows: readonly Record<string, unknown>[]): ComparableGraph[] => rows.map(comparableGraph).filter((g): g is ComparableGraph => g !== undefined);

/** `gear graph compare`: edge precision / recall and relation-type accuracy against reference graphs. */
export async function runGraphCompare(args: GraphCompareArgs): Promise<number> {
  const result = compareGraphs(graphs(await readRows(args.file)), graphs(await readRows(args.reference)));
  args.stdout.write(args.format === 'json' ? `${JSON.stringify(result, null, 2)}\n` : renderComparison(result));
  return 0;
}
