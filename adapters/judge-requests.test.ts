import { describe, expect, it } from 'vitest';
import { loadBundledRubrics } from '../conformance/fixtures-loader/bundled-rubrics.js';
import { createGearContainer, resolveAdapter, SUPPORTED_HOSTS } from './container.js';
import { createOfficialGearFormat } from './official-gear/format.js';
import { createScoredFormat } from './scored/format.js';
import { createRuscarlFormat } from './ruscarl/format.js';

const [health] = loadBundledRubrics(['healthbench']);
const [writing] = loadBundledRubrics(['writingbench']);
const officialRow = { prompt: [{ role: 'user', content: 'Is a potassium of 3.9 low?' }], reward_model: health!.rewardModel };
const writingRow = { prompt: [{ role: 'user', content: 'Write a speech.' }], reward_model: writing!.rewardModel };

describe('planning, building and reading one judge request at a time', () => {
  it('plans the official GEAR batch as one request, and a re-ask as the host batch of just those criteria', () => {
    const format = createOfficialGearFormat();
    const row = format.parseRow(officialRow);
    const n = row.reading.rubric.criteria.length;
    expect(format.planJudgeRequests(row)).toEqual([Array.from({ length: n }, (_, i) => i)]);
    expect(format.planJudgeRequests(row, [5, 2, 5])).toEqual([[2, 5]]);
    expect(format.planJudgeRequests(row, [])).toEqual([]);
  });

  it('numbers a re-asked subset "1".."n" as the host prompt would for a rubric of those items', () => {
    const format = createOfficialGearFormat();
    const row = format.parseRow(officialRow);
    const [c2, c5] = [row.reading.rubric.criteria[2]!, row.reading.rubric.criteria[5]!];
    const request = format.buildJudgeRequest(row, 'reply', [2, 5]);
    const content = request.messages[0]!.content;
    expect(request.criteria).toEqual([2, 5]);
    expect(content).toContain(`\n1. (points=${c2.weight.toFixed(1)}) ${c2.text}\n2. (points=${c5.weight.toFixed(1)}) ${c5.text}\n`);
    expect(content).toContain('Required rubric keys:\n"1", "2"\n');
    expect(content).toContain('fewer than 2 rubric judgments');
    const judgments = format.parseJudgeOutput(row, [2, 5], '{"1": {"criteria_met": true, "prob_met": 0.9}, "2": {"criteria_met": false, "prob_met": 0.2}}');
    expect(judgments.map((j) => [j.index, j.id, j.p, j.met, j.status])).toEqual([
      [2, c2.id, 0.9, true, 'ok'],
      [5, c5.id, 0.2, false, 'ok'],
    ]);
  });

  it('chunks the scored benchmarks 4 per request, for the whole rubric and for a re-ask', () => {
    const format = createScoredFormat('writingbench');
    const row = format.parseRow(writingRow);
    expect(format.planJudgeRequests(row)).toEqual([[0, 1, 2, 3], [4]]);
    expect(format.planJudgeRequests(row, [4, 0, 3])).toEqual([[0, 3, 4]]);
  });

  it('judges one criterion per request for per-criterion hosts', () => {
    const format = createRuscarlFormat();
    const row = format.parseRow({ prompt: officialRow.prompt, reward_model: { rubrics: health!.rewardModel.rubrics.map((r) => ({ criterion: r.criterion, points: r.points })) } });
    expect(format.planJudgeRequests(row, [3, 1])).toEqual([[1], [3]]);
    expect(() => format.buildJudgeRequest(row, 'x', [1, 3])).toThrowError(expect.objectContaining({ code: 'invalid_input', path: ['criteria'] }));
  });

  it('rejects positions outside the rubric, naming them', () => {
    const format = createOfficialGearFormat();
    const row = format.parseRow(officialRow);
    expect(() => format.planJudgeRequests(row, [0, 999])).toThrowError(expect.objectContaining({ code: 'invalid_input', path: ['only', 1] }));
    expect(() => format.buildJudgeRequest(row, 'x', [])).toThrowError(expect.objectContaining({ code: 'invalid_input', path: ['criteria'] }));
    expect(() => format.buildJudgeRequest(row, 'x', [1, 1])).toThrowError(expect.objectContaining({ code: 'invalid_input', path: ['criteria', 1] }));
  });

  it('gives every host request a response schema that names exactly the prompt keys, without touching the prompt', () => {
    for (const host of SUPPORTED_HOSTS) {
      const adapter = resolveAdapter(createGearContainer('flat'), host);
      if (host === 'plawbench') continue;
      const rowInput =
        host === 'writingbench'
          ? writingRow
          : host === 'gear'
            ? officialRow
            : host === 'rar-explicit'
              ? { question: 'q', rubric: [{ title: 't', description: 'Essential Criteria: says hi', weight: 1 }] }
              : { prompt: officialRow.prompt, reward_model: { rubrics: [{ criterion: 'says hi', points: 1 }] } };
      const format = adapter.format;
      const row = format.parseRow(rowInput);
      for (const criteria of format.planJudgeRequests(row)) {
        const request = format.buildJudgeRequest(row, 'reply', criteria);
        const schema = request.responseSchema?.schema as { required: string[]; additionalProperties: boolean };
        expect(request.responseSchema?.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(schema.additionalProperties).toBe(false);
        if (host === 'gear' || host === 'writingbench') expect(schema.required).toEqual(criteria.map((_, k) => String(k + 1)));
        expect(JSON.stringify(request.messages)).not.toContain('additionalProperties');
      }
    }
  });
});

describe('RubricAdapter.score', () => {
  it('builds no prompt and counts the criteria it could not read', () => {
    const adapter = resolveAdapter(createGearContainer('flat'), 'gear');
    const n = adapter.format.toRubric(adapter.format.parseRow(officialRow)).criteria.length;
    const result = adapter.score({ row: officialRow, judgeOutputs: ['{"1": {"criteria_met": true, "prob_met": 1}}'] });
    expect(result.requestCount).toBe(1);
    expect(result.failedCriteria).toBe(n - 1);
    expect(result.judgments[0]).toMatchObject({ p: 1, status: 'ok' });
  });
});

describe('hostile rows', () => {
  it('refuses points that are not finite before they reach a prompt ("1e400" is Infinity)', () => {
    for (const format of [createOfficialGearFormat(), createScoredFormat('writingbench'), createScoredFormat('plawbench')]) {
      const row = { prompt: officialRow.prompt, reward_model: { rubrics: [{ criterion: 'a', points: '1e400' }] } };
      expect(() => format.parseRow(row)).toThrowError(expect.objectContaining({ code: 'invalid_input', path: ['reward_model', 'rubrics', 0, 'points'] }));
    }
  });

  it('rejects a score_type that is not a string, naming the field (never calls its toString)', () => {
    const format = createScoredFormat('plawbench');
    const parse = () => format.parseRow({ prompt: officialRow.prompt, reward_model: { rubrics: [{ criterion: '(+2分) a', points: 2, tags: { score_type: { toString: 1 } } }] } });
    expect(parse).toThrow(expect.objectContaining({ code: 'invalid_input', path: ['reward_model', 'rubrics', 0, 'tags', 'score_type'] }));
  });
});
