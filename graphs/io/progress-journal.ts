import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { z } from 'zod';

/** One finished row in the journal: its annotated row, or why it failed. */
const EntrySchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('done'), index: z.int().nonnegative(), key: z.string(), row: z.record(z.string(), z.unknown()) }),
  z.strictObject({ status: z.literal('failed'), index: z.int().nonnegative(), key: z.string(), error: z.string() }),
]);
export type JournalEntry = z.infer<typeof EntrySchema>;

/**
 * The build's progress file (`<output>.progress.jsonl`): one line per finished row, appended and
 * fsynced as the row finishes, so a run killed at any moment (kill -9, power loss) keeps every
 * finished row and a re-run does only the rest. A line cut by the kill is dropped on open. Rows are
 * matched by `key` (a hash of the input row and the build settings), so a row whose input or
 * settings changed is annotated again. The output file is written from the journal, in input
 * order, once every row is done; then the journal is removed.
 */
export class ProgressJournal {
  private readonly entries = new Map<number, JournalEntry>();
  private readonly fd: number;

  private constructor(readonly path: string) {
    let valid = 0;
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      let offset = 0;
      for (const line of text.split('\n')) {
        const end = offset + Buffer.byteLength(line, 'utf8') + 1;
        if (end > Buffer.byteLength(text, 'utf8')) break; // the last line has no newline: cut by a kill
        const entry = parseLine(line);
        if (entry !== undefined) this.entries.set(entry.index, entry);
        offset = end;
        valid = end;
      }
    }
    this.fd = openSync(path, 'a+');
    ftruncateSync(this.fd, valid);
  }

  static open(path: string): ProgressJournal {
    return new ProgressJournal(path);
  }

  /** The annotated row recorded for this input position, if its key still matches. */
  done(index: number, key: string): Record<string, unknown> | undefined {
    const entry = this.entries.get(index);
    return entry?.status === 'done' && entry.key === key ? entry.row : undefined;
  }

  append(entry: JournalEntry): void {
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    fsyncSync(this.fd);
    this.entries.set(entry.index, entry);
  }

  close(): void {
    closeSync(this.fd);
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}

function parseLine(line: string): JournalEntry | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = EntrySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
