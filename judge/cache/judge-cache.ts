import { LRUCache } from 'lru-cache';
import type { CachedAnswer } from './cached-answer.js';
import { SqliteAnswerStore } from './sqlite-answer-store.js';

export interface JudgeCacheOptions {
  /** Entries kept in memory (LRU). 0 turns the memory tier off. */
  readonly maxEntries?: number;
  /** Bytes of answer text kept in memory, besides the entry count. */
  readonly maxBytes?: number;
  /** A SQLite file that keeps every answer across runs; none by default. */
  readonly file?: string | undefined;
}

export interface JudgeCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly memoryEntries: number;
  readonly fileEntries: number | null;
  readonly file: string | null;
}

const DEFAULT_MAX_ENTRIES = 50_000;
const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;

/** Judge answers by content hash: a bounded in-memory LRU in front of an optional SQLite file. */
export class JudgeCache {
  private readonly memory: LRUCache<string, CachedAnswer> | undefined;
  private readonly store: SqliteAnswerStore | undefined;
  private hits = 0;
  private misses = 0;

  constructor(options: JudgeCacheOptions = {}) {
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.memory =
      maxEntries > 0
        ? new LRUCache<string, CachedAnswer>({
            max: maxEntries,
            maxSize: options.maxBytes ?? DEFAULT_MAX_BYTES,
            sizeCalculation: (answer) => Math.max(1, 2 * answer.content.length + 64 * (answer.logprobs?.length ?? 0)),
          })
        : undefined;
    this.store = options.file === undefined ? undefined : new SqliteAnswerStore(options.file);
  }

  get(key: string): CachedAnswer | undefined {
    const inMemory = this.memory?.get(key);
    if (inMemory !== undefined) {
      this.hits++;
      return inMemory;
    }
    const stored = this.store?.get(key);
    if (stored !== undefined) {
      this.memory?.set(key, stored);
      this.hits++;
      return stored;
    }
    this.misses++;
    return undefined;
  }

  set(key: string, answer: CachedAnswer): void {
    this.memory?.set(key, answer);
    this.store?.set(key, answer);
  }

  stats(): JudgeCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      memoryEntries: this.memory?.size ?? 0,
      fileEntries: this.store?.size() ?? null,
      file: this.store?.path ?? null,
    };
  }

  close(): void {
    this.store?.close();
  }
}
