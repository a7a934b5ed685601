import { GearError } from '../../../core/index.js';

/**
 * The batch's `rows[rowIndex]` an item names instead of carrying its row (host.scoreBatch,
 * judge.scoreBatch: a GRPO group's responses share one row, sent once).
 * @throws GearError `invalid_input` at the item's `rowIndex` when the batch has no such row.
 */
export function sharedRowAt(rows: readonly unknown[] | undefined, rowIndex: number, at: readonly (string | number)[]): unknown {
  if (rows === undefined || rowIndex >= rows.length) {
    throw new GearError('invalid_input', [...at, 'rowIndex'], `names rows[${rowIndex}] but the batch has ${rows?.length ?? 0} rows`);
  }
  return rows[rowIndex];
}
