import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isJudgmentRead } from '../adapters/judge-output/failure-policy.js';
import { HOST_READING_TABLES, type Reading } from './host-readings.js';

const README = readFileSync(new URL('../adapters/README.md', import.meta.url), 'utf8');

describe.each(HOST_READING_TABLES.map((t) => [`${t.host} (${t.mode})`, t] as const))('hostile output as %s reads it', (_, table) => {
  const format = table.format();
  const row = format.parseRow(table.row);

  it.each(table.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const judgments = format.parseJudgeOutput(row, table.criteria, c.text);
    const expected: readonly Reading[] = c.gear?.reading ?? c.host;
    expect(judgments.map((j) => j.index)).toEqual(table.criteria);
    judgments.forEach((j, k) => {
      const want = expected[k] as Reading;
      if (want === 'none') {
        expect({ read: isJudgmentRead(j), p: j.p, met: j.met }).toEqual({ read: false, p: 0, met: false });
      } else {
        expect({ read: isJudgmentRead(j), met: j.met }).toEqual({ read: true, met: want.met });
        expect(j.p).toBeCloseTo(want.p, 12);
      }
    });
  });

  it('reads no more than the host where it diverges (except reasoning, which the host reads as a verdict), and documents why', () => {
    for (const c of table.cases) {
      if (c.gear === undefined) continue;
      expect(README).toContain(`\`${c.gear.divergence}\``);
      if (c.gear.divergence === 'reasoning-draft') continue;
      c.gear.reading.forEach((mine, k) => {
        const host = c.host[k] as Reading;
        if (mine === 'none' || host === 'none') expect(host === 'none' && mine !== 'none').toBe(false);
        else expect(mine.p).toBeLessThanOrEqual(host.p);
      });
    }
  });
});
