import { describe, expect, it } from 'vitest';
import { readGraphRow } from './graph-row.js';

// A case shaped like PLawBench's practical_case_analysis rows (invented text: the benchmark's own
// rows have no license to be shipped).
const CASE = {
  label: '合同纠纷',
  context: '甲与乙签订买卖合同，乙逾期交货。',
  question: '以【结论 + 案情简述 + 分析过程+依据法条】的逻辑回答以下问题：乙是否违约？',
  rubrics: [
    { criterion: '【结论得分】\n(+5分) 乙构成违约。', points: '5', tags: '结论得分' },
    { criterion: '【分析过程得分】\n(+10分) 分析逾期交货是否违反合同约定。', points: '10', tags: '分析过程得分' },
  ],
};

describe('readGraphRow on a raw PLawBench case', () => {
  it('lays it out as the official rows: the facts then the question as the prompt, numeric points, the section as category', () => {
    const row = readGraphRow(CASE, 0);
    expect(row.rubrics).toEqual([
      { id: 'r1', criterion: CASE.rubrics[0]?.criterion, points: 5 },
      { id: 'r2', criterion: CASE.rubrics[1]?.criterion, points: 10 },
    ]);
    expect(row.conversation).toEqual([{ role: 'user', content: `${CASE.context}\n\n${CASE.question}` }]);
    expect(row.row['data_source']).toBe('plawbench');
    const rewardModel = row.row['reward_model'] as { rubrics: { tags: Record<string, unknown> }[] };
    expect(rewardModel.rubrics.map((r) => r.tags['category'])).toEqual(['结论得分', '分析过程得分']);
    expect((row.row['extra_info'] as Record<string, unknown>)['reward_model']).toEqual(rewardModel);
    expect(row.sourceMeta).toEqual({ label: '合同纠纷' });
  });

  it('refuses points that are no number, naming the field', () => {
    const bad = { ...CASE, rubrics: [CASE.rubrics[0], { ...CASE.rubrics[1], points: '十' }] };
    expect(() => readGraphRow(bad, 0)).toThrow(/rubrics\.1\.points|rubrics\[1\]\.points|\["rubrics",1,"points"\]/);
  });
});
