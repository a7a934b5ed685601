import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderedWindow } from './ordered-window.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('OrderedWindow', () => {
  it('writes every result once, in start order, never running more than maxRunning nor leaving more than maxUnwritten unwritten', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 6 }), async (delays, maxRunning, extra) => {
        const written: number[] = [];
        const window = new OrderedWindow<number>(maxRunning, maxRunning + extra, async (v) => {
          written.push(v);
          await sleep(delays[v] === 0 ? 1 : 0);
        });
        let peakRunning = 0;
        let peakUnwritten = 0;
        for (let i = 0; i < delays.length; i++) {
          await window.room();
          window.start(async () => {
            await sleep(delays[i] as number);
            return i;
          });
          const c = window.counts();
          peakRunning = Math.max(peakRunning, c.running);
          peakUnwritten = Math.max(peakUnwritten, c.started - c.written);
        }
        await window.drain();
        expect(written).toEqual(delays.map((_, i) => i));
        expect(peakRunning).toBeLessThanOrEqual(maxRunning);
        expect(peakUnwritten).toBeLessThanOrEqual(maxRunning + extra);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps starting tasks while the first one is still running (no head-of-line blocking)', async () => {
    let releaseFirst!: () => void;
    const firstDone = new Promise<void>((resolve) => (releaseFirst = resolve));
    const written: number[] = [];
    const window = new OrderedWindow<number>(2, 100, async (v) => {
      written.push(v);
    });
    await window.room();
    window.start(async () => {
      await firstDone;
      return 0;
    });
    // With 2 running at most, rows 1..9 each finish while row 0 still runs: all of them start.
    for (let i = 1; i < 10; i++) {
      await window.room();
      window.start(async () => i);
    }
    await sleep(0);
    expect(window.counts()).toMatchObject({ started: 10, running: 1, buffered: 9, written: 0 });
    expect(written).toEqual([]);
    releaseFirst();
    await window.drain();
    expect(written).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('stops starting at maxUnwritten while the first task holds the output', async () => {
    let releaseFirst!: () => void;
    const firstDone = new Promise<void>((resolve) => (releaseFirst = resolve));
    const window = new OrderedWindow<number>(2, 4, async () => {});
    await window.room();
    window.start(async () => {
      await firstDone;
      return 0;
    });
    for (let i = 1; i < 4; i++) {
      await window.room();
      window.start(async () => i);
    }
    let roomGiven = false;
    const next = window.room().then(() => (roomGiven = true));
    await sleep(20);
    expect(roomGiven).toBe(false);
    releaseFirst();
    await next;
    expect(window.counts().written).toBeGreaterThanOrEqual(1);
    window.start(async () => 4);
    await window.drain();
    expect(window.counts()).toMatchObject({ started: 5, written: 5, buffered: 0 });
  });
});
