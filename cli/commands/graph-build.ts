import { buildGraphs, type BuildGraphsArgs } from '../../graphs/run/build-graphs.js';
import { renderSummary } from '../../graphs/report/graph-summary.js';

export interface GraphBuildArgs extends BuildGraphsArgs {
  readonly stdout: NodeJS.WritableStream;
}

/** `gear graph build`: the build, then its summary table on stdout. Exit 1 when rows failed. */
export async function runGraphBuild(args: GraphBuildArgs): Promise<number> {
  const result = await buildGraphs(args);
  args.stdout.write(renderSummary(result.summary, args.profile));
  args.stdout.write(`\nwrote ${result.rows - result.failed.length} of ${result.rows} rows to ${args.output} (${result.resumed} resumed); summary: ${result.summaryPath}\n`);
  if (result.failed.length > 0) {
    args.stdout.write(`${result.failed.length} rows failed (run again to retry them): ${result.failed.map((f) => f.index + 1).join(', ')}\n`);
    return 1;
  }
  return 0;
}
