import { readRows } from '../../graphs/io/row-files.js';
import { isProfileName, type ProfileName } from '../../graphs/profiles/profiles.js';
import { renderSummary, summarizeGraphs } from '../../graphs/report/graph-summary.js';

export interface GraphStatsArgs {
  readonly file: string;
  readonly profile: ProfileName | undefined;
  readonly format: 'table' | 'json';
  readonly stdout: NodeJS.WritableStream;
}

/** The profile the rows were built with (gear's stats), else their data_source, for the paper column. */
function inferProfile(rows: readonly Record<string, unknown>[]): ProfileName | undefined {
  const first = rows[0];
  const stats = first?.['gear_annotation_stats'];
  const fromStats = typeof stats === 'object' && stats !== null ? (stats as Record<string, unknown>)['annotation_profile'] : undefined;
  const guess = typeof fromStats === 'string' ? fromStats : typeof first?.['data_source'] === 'string' ? first['data_source'] : '';
  return isProfileName(guess) ? guess : undefined;
}

export async function runGraphStats(args: GraphStatsArgs): Promise<number> {
  const rows = await readRows(args.file);
  const summary = summarizeGraphs(rows);
  args.stdout.write(args.format === 'json' ? `${JSON.stringify(summary, null, 2)}\n` : renderSummary(summary, args.profile ?? inferProfile(rows)));
  return 0;
}
