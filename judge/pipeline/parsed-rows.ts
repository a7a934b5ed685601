import type { HostFormat } from '../../adapters/host-adapter.js';

/**
 * Host rows parsed once for the responses that share them: a GRPO group's responses name one row
 * of a judge.scoreBatch (`rowIndex`), and each of its responses would otherwise parse it again (and
 * hand the scalarizer a new rubric object, which compiles again). Keyed by the row object itself,
 * so it must live no longer than its rows stay unchanged: one batch.
 */
export class ParsedRows {
  private readonly byRow = new WeakMap<object, Map<string, unknown>>();

  /** `format.parseRow(row)`, read once per row object and host; a row that does not parse throws each time. */
  parse<Row>(format: HostFormat<Row>, row: unknown): Row {
    if (typeof row !== 'object' || row === null) return format.parseRow(row);
    let byHost = this.byRow.get(row);
    const known = byHost?.get(format.host);
    if (known !== undefined) return known as Row;
    const parsed = format.parseRow(row);
    if (byHost === undefined) {
      byHost = new Map();
      this.byRow.set(row, byHost);
    }
    byHost.set(format.host, parsed);
    return parsed;
  }
}
