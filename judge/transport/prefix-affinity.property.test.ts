import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-call.js';
import { PrefixAffinity, blockEnds, leadingText, prefixKeyOf, type AffinityEndpoint } from './prefix-affinity.js';

const BLOCK = 8;
const role = fc.constantFrom<ChatMessage['role']>('system', 'user', 'assistant');
const messagesArb = fc.array(fc.record({ role, content: fc.string({ maxLength: 40 }) }), { minLength: 1, maxLength: 3 });

/** Whole blocks shared by two texts: the blocks that end within their common prefix. */
const sharedBlocks = (x: string, y: string): number => {
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return blockEnds(i, BLOCK, 1000).length;
};

describe('prefixKeyOf', () => {
  it('same leading text, same key: two requests agree on every whole block of their common leading text, whatever follows', () => {
    fc.assert(
      fc.property(messagesArb, fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), (head, tailA, tailB) => {
        // One response's per-criterion requests: the same messages, then a different last tail.
        const last = head[head.length - 1] as ChatMessage;
        const a = [...head.slice(0, -1), { role: last.role, content: last.content + tailA }];
        const b = [...head.slice(0, -1), { role: last.role, content: last.content + tailB }];
        const ka = prefixKeyOf(a, BLOCK, 1000)?.blocks ?? [];
        const kb = prefixKeyOf(b, BLOCK, 1000)?.blocks ?? [];
        const common = sharedBlocks(leadingText(a), leadingText(b));
        expect(ka.slice(0, common)).toEqual(kb.slice(0, common));
        // The shared messages' whole blocks never depend on the tail.
        const headBlocks = blockEnds(leadingText(head).length - 1, BLOCK, 1000).length;
        if (headBlocks > 0) expect(ka.slice(0, headBlocks)).toEqual((prefixKeyOf(head, BLOCK, 1000)?.blocks ?? []).slice(0, headBlocks));
      }),
    );
  });

  it('different leading text, different key from the first block that differs (48-bit chained hashes)', () => {
    fc.assert(
      fc.property(messagesArb, messagesArb, (a, b) => {
        const ka = prefixKeyOf(a, BLOCK, 1000)?.blocks ?? [];
        const kb = prefixKeyOf(b, BLOCK, 1000)?.blocks ?? [];
        const common = sharedBlocks(leadingText(a), leadingText(b));
        for (let i = common; i < Math.min(ka.length, kb.length); i++) expect(ka[i]).not.toBe(kb[i]);
      }),
    );
  });

  it('counts only whole blocks (the first block in quarters), at most maxBlocks', () => {
    fc.assert(
      fc.property(messagesArb, fc.integer({ min: 1, max: 12 }), (messages, maxBlocks) => {
        const length = leadingText(messages).length;
        const whole = length < BLOCK ? Math.floor(length / (BLOCK / 4)) : 4 + Math.floor(length / BLOCK) - 1;
        const key = prefixKeyOf(messages, BLOCK, maxBlocks);
        if (whole === 0) expect(key).toBeUndefined();
        else expect(key?.blocks.length).toBe(Math.min(whole, maxBlocks));
      }),
    );
  });
});

class Fake implements AffinityEndpoint {
  constructor(
    readonly name: string,
    public outstanding = 0,
    public room = true,
  ) {}
  load(): number {
    return this.outstanding;
  }
  hasCapacity(): boolean {
    return this.room;
  }
}

describe('PrefixAffinity', () => {
  it('matches the longest known prefix, on the endpoint it was sent to last, even after LRU evictions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: fc.string({ minLength: 0, maxLength: 80 }), to: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 30 }),
        fc.string({ maxLength: 80 }),
        fc.integer({ min: 4, max: 64 }),
        (sent, probe, maxEntries) => {
          const endpoints = [new Fake('a'), new Fake('b'), new Fake('c')];
          const affinity = new PrefixAffinity({ enabled: true, blockChars: BLOCK, maxBlocks: 1000, maxEntries, balanceAbsolute: 32, balanceRelative: 1.5, lookahead: 64 }, endpoints);
          const messages = (text: string): ChatMessage[] => [{ role: 'user', content: text }];
          for (const s of sent) affinity.record(affinity.keyOf(messages(s.text)), endpoints[s.to] as Fake, 'followed');
          const key = affinity.keyOf(messages(probe));
          const found = key === undefined ? undefined : affinity.match(key);
          // Without evictions (enough entries): the longest shared prefix over everything sent.
          const totalBlocks = sent.reduce((n, s) => n + (affinity.keyOf(messages(s.text))?.blocks.length ?? 0), 0);
          if (totalBlocks <= maxEntries) {
            const best = Math.max(0, ...sent.map((s) => sharedBlocks(leadingText(messages(s.text)), leadingText(messages(probe)))));
            expect(found?.blocks ?? 0).toBe(Math.min(best, key?.blocks.length ?? 0));
            if (found !== undefined) {
              // The endpoint of the last request sent with that prefix.
              const last = [...sent].reverse().find((s) => sharedBlocks(leadingText(messages(s.text)), leadingText(messages(probe))) >= found.blocks);
              expect(found.endpoint).toBe(endpoints[last?.to ?? -1]);
            }
          }
          // Always: the blocks found are known, the next one is not (a prefix-closed map).
          if (found !== undefined && key !== undefined) expect(found.blocks).toBeLessThanOrEqual(key.blocks.length);
        },
      ),
    );
  });

  it('follows the preference unless past both thresholds or full; then the router decides who goes elsewhere (wait)', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.nat(100), fc.boolean(), (preferredLoad, otherLoad, room) => {
        const p = new Fake('p', preferredLoad, room);
        const o = new Fake('o', otherLoad);
        const affinity = new PrefixAffinity({ enabled: true, blockChars: BLOCK, maxBlocks: 100, maxEntries: 100, balanceAbsolute: 32, balanceRelative: 1.5, lookahead: 64 }, [p, o]);
        const key = affinity.keyOf([{ role: 'user', content: 'a shared prefix of several blocks, then a tail' }]);
        affinity.record(key, p, 'followed');
        const choice = affinity.choose(key, [p, o]);
        const min = Math.min(preferredLoad, otherLoad);
        const unbalanced = preferredLoad - min > 32 && preferredLoad > 1.5 * min;
        if (unbalanced) expect(choice).toMatchObject({ kind: 'wait', why: 'unbalanced' });
        else if (room) expect(choice).toEqual({ kind: 'go', endpoint: p });
        else expect(choice).toMatchObject({ kind: 'wait', why: 'full' });
        // An endpoint this call may not use is never preferred.
        expect(affinity.choose(key, [o])).toEqual({ kind: 'none', why: 'unknown' });
      }),
    );
  });
});
