import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, judgeCacheKey } from './cache-key.js';
import { JudgeCache } from './judge-cache.js';

const dirs: string[] = [];
const tempFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'gear-cache-'));
  dirs.push(dir);
  return join(dir, 'judge.sqlite');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const answer = (content: string) => ({ content, finishReason: 'stop', promptTokens: 10, completionTokens: 3 });

describe('judgeCacheKey', () => {
  it('is the same for the same content in any key order, and differs when a message differs', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (decoding, content) => {
        const reversed = Object.fromEntries(Object.entries(decoding).reverse());
        const a = judgeCacheKey({ model: 'm', messages: [{ role: 'user', content }], decoding });
        const b = judgeCacheKey({ decoding: reversed, messages: [{ content, role: 'user' }], model: 'm' });
        const c = judgeCacheKey({ model: 'm', messages: [{ role: 'user', content: `${content}.` }], decoding });
        expect(a).toBe(b);
        expect(a).not.toBe(c);
      }),
    );
  });

  it('writes canonical JSON that parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('JudgeCache', () => {
  it('keeps answers across instances in its SQLite file and counts hits and misses', () => {
    const file = tempFile();
    const first = new JudgeCache({ file });
    expect(first.get('k1')).toBeUndefined();
    first.set('k1', answer('{"criteria_met": true}'));
    first.close();
    const second = new JudgeCache({ file });
    expect(second.get('k1')).toEqual(answer('{"criteria_met": true}'));
    expect(second.get('k2')).toBeUndefined();
    expect(second.stats()).toMatchObject({ hits: 1, misses: 1, fileEntries: 1, file });
    second.close();
  });

  it('treats a stored row that is not an answer as a miss, never as a verdict', () => {
    const file = tempFile();
    new JudgeCache({ file }).close();
    const db = new Database(file);
    db.prepare('INSERT INTO judge_answers (key, value, created_ms) VALUES (?, ?, ?)').run('bad', '{"content": 1}', 0);
    db.prepare('INSERT INTO judge_answers (key, value, created_ms) VALUES (?, ?, ?)').run('torn', '{"content": "x", "fin', 0);
    db.close();
    const cache = new JudgeCache({ file });
    expect(cache.get('bad')).toBeUndefined();
    expect(cache.get('torn')).toBeUndefined();
    cache.close();
  });

  it('evicts the least recently used entry beyond maxEntries', () => {
    const cache = new JudgeCache({ maxEntries: 2 });
    cache.set('a', answer('a'));
    cache.set('b', answer('b'));
    cache.get('a');
    cache.set('c', answer('c'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.content).toBe('a');
    expect(cache.stats().memoryEntries).toBe(2);
  });
});
