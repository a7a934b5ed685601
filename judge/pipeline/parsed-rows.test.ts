import { describe, expect, it } from 'vitest';
import { createGearContainer, resolveAdapter } from '../../adapters/container.js';
import { GearError } from '../../core/index.js';
import { loadHealthBenchRows } from '../testing/healthbench-rows.js';
import { ParsedRows } from './parsed-rows.js';

const ruscarl = resolveAdapter(createGearContainer('gear'), 'ruscarl').format;
const flatRuscarl = resolveAdapter(createGearContainer('flat'), 'ruscarl').format;
const [row, other] = loadHealthBenchRows(2);

describe('ParsedRows', () => {
  it('parses a row object once per host, for every adapter of that host, and gives what parseRow gives', () => {
    const rows = new ParsedRows();
    const first = rows.parse(ruscarl, row);
    expect(rows.parse(ruscarl, row)).toBe(first);
    // Another aggregator's adapter of the same host: the same parsed row, so the same rubric object.
    expect(rows.parse(flatRuscarl, row)).toBe(first);
    expect(ruscarl.toRubric(first)).toBe(ruscarl.toRubric(rows.parse(ruscarl, row)));
    expect(first).toEqual(ruscarl.parseRow(row));
    // An equal row in another object is another row (rows are told apart by identity only).
    expect(rows.parse(ruscarl, structuredClone(row))).not.toBe(first);
    expect(rows.parse(ruscarl, other)).toEqual(ruscarl.parseRow(other));
  });

  it('refuses a malformed row every time it is named, naming the field, and remembers nothing for it', () => {
    const rows = new ParsedRows();
    const bad = { prompt: row!.prompt, reward_model: { rubrics: [{ criterion: 'x', points: 'ten' }] } };
    for (let i = 0; i < 2; i++) {
      const error = (() => {
        try {
          rows.parse(ruscarl, bad);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(GearError);
      expect((error as GearError).path).toEqual(['reward_model', 'rubrics', 0, 'points']);
    }
    expect(() => rows.parse(ruscarl, 'not a row')).toThrow(GearError);
  });
});
