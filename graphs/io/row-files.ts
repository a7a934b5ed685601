import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { GearError } from '../../core/index.js';
import { finalShape, mergeShapes, schemaElements, shapeOf, toColumnValue, type Shape } from './parquet-schema.js';

export type RowFileFormat = 'jsonl' | 'parquet';

/** By extension: .parquet is VERL's parquet, anything else JSON lines. */
export function rowFileFormat(path: string): RowFileFormat {
  return /\.parquet$/i.test(path) ? 'parquet' : 'jsonl';
}

/** INT64 cells come back as bigint; rubric points and indices are small: plain numbers again. */
function plainNumbers(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(plainNumbers);
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, plainNumbers(v)]));
  }
  return value;
}

/**
 * Every row of a JSONL or parquet file, in file order.
 *
 * @throws GearError `invalid_input` naming the line of a JSONL line that is not a JSON object.
 */
export async function readRows(path: string): Promise<Record<string, unknown>[]> {
  if (rowFileFormat(path) === 'parquet') {
    const file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    const rows = await parquetReadObjects({ file, metadata });
    return rows.map((r) => plainNumbers(r) as Record<string, unknown>);
  }
  const rows: Record<string, unknown>[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new GearError('invalid_input', [`line ${i + 1}`], `not JSON (${error instanceof Error ? error.message : String(error)})`);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GearError('invalid_input', [`line ${i + 1}`], 'must be a JSON object');
      rows.push(value as Record<string, unknown>);
    });
  return rows;
}

/** Parquet bytes for these rows: one column per top-level key, nested values as structs and lists. */
export function parquetBytes(rows: readonly Record<string, unknown>[]): ArrayBuffer {
  const columns = new Map<string, Shape>();
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) columns.set(k, mergeShapes(columns.get(k) ?? { kind: 'null' }, shapeOf(v)));
  }
  const shapes = [...columns].map(([name, shape]) => [name, finalShape(shape)] as const);
  const schema = [{ name: 'root', num_children: shapes.length }, ...shapes.flatMap(([name, shape]) => schemaElements(name, shape))];
  return parquetWriteBuffer({
    schema,
    columnData: shapes.map(([name, shape]) => ({ name, data: rows.map((r) => toColumnValue(r[name], shape)) })),
  });
}

/** Writes the file whole, then renames it into place: a reader never sees half a file, an old file stays until then. */
export function writeRowsAtomically(path: string, rows: readonly Record<string, unknown>[]): void {
  const bytes = rowFileFormat(path) === 'parquet' ? Buffer.from(parquetBytes(rows)) : Buffer.from(rows.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');
  const temporary = `${path}.tmp-${process.pid}`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}
