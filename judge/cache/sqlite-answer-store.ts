import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { CachedAnswerSchema, type CachedAnswer } from './cached-answer.js';

/**
 * Judge answers persisted in one SQLite file (better-sqlite3), so an interrupted run resumes and a
 * re-score under another aggregator costs no LLM call. WAL mode lets several processes of one
 * machine share the file; each answer is written as soon as it arrives. A row that does not read
 * back as an answer (a file from elsewhere, a torn write) is a miss, never a verdict.
 */
export class SqliteAnswerStore {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string], { value: string }>;
  private readonly insert: Database.Statement<[string, string, number]>;

  constructor(readonly path: string) {
    // Loaded here, not imported: a run without --cache (most of them) starts without the native
    // module (better-sqlite3 is CommonJS, so require gives it synchronously).
    const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
    this.db = new Sqlite(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec('CREATE TABLE IF NOT EXISTS judge_answers (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_ms INTEGER NOT NULL)');
    this.select = this.db.prepare('SELECT value FROM judge_answers WHERE key = ?');
    this.insert = this.db.prepare('INSERT OR REPLACE INTO judge_answers (key, value, created_ms) VALUES (?, ?, ?)');
  }

  get(key: string): CachedAnswer | undefined {
    const row = this.select.get(key);
    if (row === undefined) return undefined;
    try {
      const parsed = CachedAnswerSchema.safeParse(JSON.parse(row.value));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  set(key: string, answer: CachedAnswer): void {
    this.insert.run(key, JSON.stringify(answer), Date.now());
  }

  size(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM judge_answers').get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}
