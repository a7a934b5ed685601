import { createHash } from 'node:crypto';

/**
 * A bounded least-recently-used map keyed by text: the SHA-256 of a rubric's JSON (`keyOf`) or
 * the rubric's raw text itself. The 8 responses of a prompt share one compiled rubric, and memory
 * stays bounded on any stream: at most `capacity` entries and, when given, `maxKeyChars`
 * characters of keys in all.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();
  private keyChars = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxKeyChars = Infinity,
  ) {}

  static keyOf(text: string): string {
    return createHash('sha256').update(text).digest('hex');
  }

  get size(): number {
    return this.entries.size;
  }

  getOrCreate(key: string, create: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = create();
    this.entries.set(key, value);
    this.keyChars += key.length;
    while (this.entries.size > this.capacity || (this.keyChars > this.maxKeyChars && this.entries.size > 1)) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.keyChars -= oldest.length;
    }
    return value;
  }
}
