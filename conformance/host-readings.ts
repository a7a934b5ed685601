import type { HostFormat } from '../adapters/host-adapter.js';
import { createOfficialGearFormat } from '../adapters/official-gear/format.js';
import { createRuscarlFormat } from '../adapters/ruscarl/format.js';
import { createRarExplicitFormat } from '../adapters/rar-explicit/format.js';
import { createScoredFormat } from '../adapters/scored/format.js';

/*
 * How each host's own code reads hostile judge output, case by case, written from the host's
 * code (RuscaRL @ 18e2b01 health_bench/healthbench_reward_fn.py; LvCan926/GEAR @ 8976106
 * reward_functions/gear_batch_reward_fn.py and scored_gear_reward_fn.py), and gear's reading
 * where it deliberately differs. host-readings.test.ts checks gear against it.
 */

/** A judgment as read: p and the decision, or 'none' (nothing read; the host's default, gear's failure policy). */
export type Reading = { readonly p: number; readonly met: boolean } | 'none';

/** Why gear reads differently (each is explained in the adapters' READMEs under its name). */
export type Divergence =
  | 'reasoning-draft'
  | 'nan-as-credit'
  | 'non-number-as-credit'
  | 'default-not-met'
  | 'cut-number'
  | 'ambiguous-one'
  | 'number-as-verdict'
  | 'boolean-as-score';

export interface HostReadingCase {
  readonly name: string;
  readonly text: string;
  /** What the host's code reads per prompt key "1".."n". */
  readonly host: readonly Reading[];
  /** gear's reading where it deliberately differs from the host's. */
  readonly gear?: { readonly reading: readonly Reading[]; readonly divergence: Divergence };
}

export interface HostReadingTable {
  readonly host: string;
  /** The host code the expectations come from. */
  readonly source: string;
  /** The host's pi_mode / data source as the Python harness calls it. */
  readonly mode: string;
  readonly format: () => HostFormat<unknown>;
  readonly row: unknown;
  /** Rubric positions of one request, in key order. */
  readonly criteria: readonly number[];
  readonly cases: readonly HostReadingCase[];
}

const NONE = 'none' as const;
const r = (p: number, met: boolean): Reading => ({ p, met });
const as = <Row>(format: HostFormat<Row>): HostFormat<unknown> => format as HostFormat<unknown>;
const prompt = [{ role: 'user', content: 'My child has leg cramps at night. Should I worry?' }];
const nest = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const j3 = (a: string, b: string, c: string): string => `{"1": ${a}, "2": ${b}, "3": ${c}}`;
const V1 = '{"criteria_met": true, "prob_met": 0.9}';
const V2 = '{"criteria_met": false, "prob_met": 0.2}';
const V3 = '{"criteria_met": true, "prob_met": 0.8}';
const CLEAN3 = [r(0.9, true), r(0.2, false), r(0.8, true)];

const officialProb: HostReadingTable = {
  host: 'gear',
  source: 'gear_batch_reward_fn.py _parse_batch_grading_response, _normalize_grading_result',
  mode: 'judge_prob',
  format: () => as(createOfficialGearFormat('judge_prob')),
  row: { prompt, reward_model: { rubrics: [{ criterion: 'Says cramps are common.', points: 5 }, { criterion: 'Suggests stretching.', points: 3 }, { criterion: 'Invents a lab value.', points: -4 }] } },
  criteria: [0, 1, 2],
  cases: [
    { name: 'well-formed', text: j3(V1, V2, V3), host: CLEAN3 },
    { name: 'fenced, with prose around', text: `Here is my evaluation:\n\`\`\`json\n${j3(V1, V2, V3)}\n\`\`\`\nDone.`, host: CLEAN3 },
    {
      name: 'a closed <think> draft before the answer',
      text: `<think>${j3(V2, V2, V2)}</think>${j3(V1, V2, V3)}`,
      host: [r(0.2, false), r(0.2, false), r(0.2, false)],
      gear: { reading: CLEAN3, divergence: 'reasoning-draft' },
    },
    { name: 'an unclosed <think> draft', text: `<think>${j3(V1, V1, V1)}`, host: [r(0.9, true), r(0.9, true), r(0.9, true)], gear: { reading: [NONE, NONE, NONE], divergence: 'reasoning-draft' } },
    { name: 'keys r1, item 2, criterion-03', text: `{"r1": ${V1}, "item 2": ${V2}, "criterion-03": ${V3}}`, host: CLEAN3 },
    { name: 'judgments nested under another key', text: `{"judgments": ${j3(V1, V2, V3)}}`, host: CLEAN3 },
    { name: 'a repeated key: the last value', text: `{"1": ${V1}, "2": ${V2}, "3": ${V3}, "1": ${V2}}`, host: [r(0.2, false), r(0.2, false), r(0.8, true)] },
    { name: 'trailing comma (regex fallback)', text: `${j3(V1, V2, V3).slice(0, -1)},}`, host: CLEAN3 },
    { name: 'truncated inside item 3 (regex fallback)', text: `{"1": ${V1}, "2": ${V2}, "3": {"criteria_met": tr`, host: [r(0.9, true), r(0.2, false), NONE] },
    { name: 'Python True/False (regex fallback)', text: j3(V1, V2, V3).replaceAll('true', 'True').replaceAll('false', 'False'), host: CLEAN3 },
    { name: 'prob_met as a numeric string', text: j3('{"criteria_met": true, "prob_met": "0.9"}', V2, V3), host: CLEAN3 },
    { name: 'prob_met out of range: clamped', text: j3('{"criteria_met": true, "prob_met": 1.5}', V2, V3), host: [r(1, true), r(0.2, false), r(0.8, true)] },
    { name: 'prob_met against the boolean: flipped', text: j3('{"criteria_met": false, "prob_met": 0.9}', V2, V3), host: [r(1 - 0.9, false), r(0.2, false), r(0.8, true)] },
    { name: 'prob_met true (float(True) = 1.0)', text: j3('{"criteria_met": true, "prob_met": true}', V2, V3), host: [r(1, true), r(0.2, false), r(0.8, true)] },
    {
      name: 'prob_met NaN',
      text: j3('{"criteria_met": true, "prob_met": NaN}', V2, '{"criteria_met": false, "prob_met": NaN}'),
      host: [r(1, true), r(0.2, false), r(0, false)],
      gear: { reading: [NONE, r(0.2, false), NONE], divergence: 'nan-as-credit' },
    },
    {
      name: 'prob_met "1e400" (infinite)',
      text: j3('{"criteria_met": true, "prob_met": "1e400"}', V2, V3),
      host: [r(1, true), r(0.2, false), r(0.8, true)],
      gear: { reading: [NONE, r(0.2, false), r(0.8, true)], divergence: 'nan-as-credit' },
    },
    {
      name: 'prob_met an object or text',
      text: j3('{"criteria_met": true, "prob_met": {}}', '{"criteria_met": true, "prob_met": "high"}', V3),
      host: [r(1, true), r(1, true), r(0.8, true)],
      gear: { reading: [NONE, NONE, r(0.8, true)], divergence: 'non-number-as-credit' },
    },
    { name: 'prob_met null', text: j3('{"criteria_met": true, "prob_met": null}', V2, V3), host: [NONE, r(0.2, false), r(0.8, true)] },
    { name: 'criteria_met as the string "true"', text: j3('{"criteria_met": "true", "prob_met": 0.9}', V2, V3), host: [NONE, r(0.2, false), r(0.8, true)] },
    { name: 'a key missing', text: `{"1": ${V1}, "2": ${V2}}`, host: [r(0.9, true), r(0.2, false), NONE] },
    { name: 'a judgment that is not an object', text: j3('"yes"', V2, V3), host: [NONE, r(0.2, false), r(0.8, true)] },
    { name: 'an array of verdicts', text: `[${V1}, ${V2}, ${V3}]`, host: [NONE, NONE, NONE] },
    { name: 'prose only', text: 'The response meets every criterion.', host: [NONE, NONE, NONE] },
    { name: 'empty', text: '', host: [NONE, NONE, NONE] },
    { name: 'nested 5000 deep (the host raises RecursionError)', text: `{"1": ${nest(5000)}}`, host: [NONE, NONE, NONE] },
  ],
};

const officialBinary: HostReadingTable = {
  ...officialProb,
  mode: 'binary',
  format: () => as(createOfficialGearFormat('binary')),
  criteria: [0, 2],
  row: { prompt, reward_model: { rubrics: [{ criterion: 'Says cramps are common.', points: 5 }, { criterion: 'Suggests stretching.', points: 3 }, { criterion: 'Invents a lab value.', points: -4 }] } },
  cases: [
    { name: 'well-formed', text: '{"1": {"criteria_met": true}, "2": {"criteria_met": false}}', host: [r(1, true), r(0, false)] },
    { name: 'prob_met is not read in binary mode', text: '{"1": {"criteria_met": true, "prob_met": NaN}, "2": {"criteria_met": false, "prob_met": 0.9}}', host: [r(1, true), r(0, false)] },
    { name: 'truncated (regex fallback)', text: '{"1": {"criteria_met": true}, "2": {"criteria_met": fal', host: [r(1, true), NONE] },
  ],
};

const G = (met: boolean, explanation = 'The response does this.'): string => `{"explanation": "${explanation}", "criteria_met": ${met}}`;

const ruscarl: HostReadingTable = {
  host: 'ruscarl',
  source: 'healthbench_reward_fn.py parse_json_to_dict, grade_rubric_item (and VLLMSampler._filter_think_tags)',
  mode: 'per-criterion',
  format: () => as(createRuscarlFormat()),
  row: { prompt, reward_model: { rubrics: [{ criterion: 'Invents a lab value.', points: -5 }] } },
  criteria: [0],
  cases: [
    { name: 'fenced, as the grader prompt asks', text: `\`\`\`json\n${G(true)}\n\`\`\``, host: [r(1, true)] },
    { name: 'prose around the JSON', text: `My assessment: ${G(false)} Thanks.`, host: [r(0, false)] },
    { name: 'unescaped quotes in the explanation (repaired)', text: '{"explanation": "It says "see a doctor" twice", "criteria_met": true}', host: [r(1, true)] },
    { name: 'trailing comma (regex)', text: '{"explanation": "x", "criteria_met": true,}', host: [r(1, true)] },
    { name: 'truncated after the verdict (regex)', text: '{"explanation": "The response invents a value", "criteria_met": true', host: [r(1, true)] },
    { name: 'a repeated criteria_met: the last value', text: '{"criteria_met": true, "explanation": "x", "criteria_met": false}', host: [r(0, false)] },
    { name: 'a closed <think> draft (the sampler strips it)', text: `<think>${G(true)}</think>${G(false)}`, host: [r(0, false)] },
    { name: 'an unclosed <think> draft', text: `<think>Draft: ${G(true)}`, host: [r(1, true)], gear: { reading: [NONE], divergence: 'reasoning-draft' } },
    { name: 'reasoning closed by a lone </think>', text: `"criteria_met": true, maybe</think>${G(false)}`, host: [r(0, false)] },
    { name: 'criteria_met as the string "true"', text: '{"explanation": "x", "criteria_met": "true"}', host: [NONE] },
    { name: 'criteria_met NaN', text: '{"explanation": "x", "criteria_met": NaN}', host: [NONE] },
    { name: 'an empty object', text: '{}', host: [NONE] },
    { name: 'null (the host raises TypeError)', text: 'null', host: [NONE] },
    { name: 'an array of verdicts', text: `[${G(true)}]`, host: [NONE] },
    { name: 'nested 5000 deep (the host raises RecursionError)', text: `{"explanation": ${nest(5000)}, "criteria_met": true}`, host: [NONE] },
    { name: 'truncated before the verdict', text: '{"explanation": "The response", "criteria_met": tr', host: [r(0, false)], gear: { reading: [NONE], divergence: 'default-not-met' } },
    { name: 'Python True', text: '{"explanation": "x", "criteria_met": True}', host: [r(0, false)], gear: { reading: [NONE], divergence: 'default-not-met' } },
    { name: 'prose only', text: 'The criterion is clearly met.', host: [r(0, false)], gear: { reading: [NONE], divergence: 'default-not-met' } },
    { name: 'empty', text: '', host: [r(0, false)], gear: { reading: [NONE], divergence: 'default-not-met' } },
  ],
};

const S = (score: number | string): string => `{"score": ${score}}`;
const A = (points: number | string): string => `{"awarded_points": ${points}}`;
const CLEAN_WB = [r(0.8, true), r(0.3, false), r(15 / 20, true)];
const scoredRubrics = [
  { criterion: 'Introduction: states the thesis.', points: 10, tags: { score_type: 'scale_1_10' } },
  { criterion: 'Structure: clear sections.', points: 10, tags: { score_type: 'scale_1_10' } },
  { criterion: 'Covers the three requested topics.', points: 20, tags: { score_type: 'partial_points' } },
];

const writingbench: HostReadingTable = {
  host: 'writingbench',
  source: 'scored_gear_reward_fn.py _parse_batch_scored_response, _coerce_scored_payload_value, _normalize_scored_result',
  mode: 'judge_prob',
  format: () => as(createScoredFormat('writingbench')),
  row: { prompt, reward_model: { rubrics: scoredRubrics } },
  criteria: [0, 1, 2],
  cases: [
    { name: 'well-formed', text: j3(S(8), S(3), A(15)), host: CLEAN_WB },
    { name: 'a closed <think> draft (the host strips it)', text: `<think>${j3(S(2), S(2), A(2))}</think>${j3(S(8), S(3), A(15))}`, host: CLEAN_WB },
    {
      name: 'an unclosed <think> draft',
      text: `<think>${j3(S(9), S(9), A(20))}`,
      host: [r(0.9, true), r(0.9, true), r(1, true)],
      gear: { reading: [NONE, NONE, NONE], divergence: 'reasoning-draft' },
    },
    { name: 'bare numbers and a numeric string', text: j3('8', '"3"', '15'), host: CLEAN_WB },
    { name: 'a score as a numeric string', text: j3(S('"8"'), S(3), A(15)), host: CLEAN_WB },
    { name: 'yes/no words', text: j3('"yes"', '"no"', A(10)), host: [r(1, true), r(0, false), r(0.5, false)] },
    { name: 'criteria_met instead of a score', text: j3('{"criteria_met": true}', S(3), A(15)), host: [r(1, true), r(0.3, false), r(0.75, true)] },
    { name: 'prob_met instead of a score', text: j3('{"prob_met": 0.7}', S(3), A(15)), host: [r(0.7, true), r(0.3, false), r(0.75, true)] },
    { name: 'out of range: clamped', text: j3(S(15), S(3), A(-5)), host: [r(1, true), r(0.3, false), r(0, false)] },
    { name: 'a top-level array', text: `[${S(8)}, ${S(3)}, ${A(15)}]`, host: CLEAN_WB },
    { name: 'keys r1, item_2, 03', text: `{"r1": ${S(8)}, "item_2": ${S(3)}, "03": ${A(15)}}`, host: CLEAN_WB },
    { name: 'a repeated key: the last value', text: `{"1": ${S(8)}, "2": ${S(3)}, "3": ${A(15)}, "1": ${S(2)}}`, host: [r(0.2, false), r(0.3, false), r(0.75, true)] },
    { name: 'trailing comma (regex fallback)', text: `${j3(S(8), S(3), A(15)).slice(0, -1)},}`, host: CLEAN_WB },
    { name: 'truncated inside a key (closers appended)', text: `{"1": ${S(8)}, "2": ${S(3)}, "3": {"awarded_poi`, host: [r(0.8, true), r(0.3, false), NONE] },
    {
      name: 'truncated inside a number (closers appended)',
      text: `{"1": ${S(8)}, "2": ${S(3)}, "3": {"awarded_points": 1`,
      host: [r(0.8, true), r(0.3, false), r(1 / 20, false)],
      gear: { reading: [r(0.8, true), r(0.3, false), NONE], divergence: 'cut-number' },
    },
    { name: 'Python True for an item (regex fallback reads the others)', text: j3('True', S(3), A(15)), host: [NONE, r(0.3, false), r(0.75, true)] },
    {
      name: 'an empty object or null for a score',
      text: j3('{}', S('null'), A(15)),
      host: [r(0.1, false), r(0.1, false), r(0.75, true)],
      gear: { reading: [NONE, NONE, r(0.75, true)], divergence: 'non-number-as-credit' },
    },
    {
      name: 'NaN and Infinity scores',
      text: j3(S('NaN'), S('Infinity'), A('NaN')),
      host: [r(1, true), r(1, true), r(1, true)],
      gear: { reading: [NONE, NONE, NONE], divergence: 'nan-as-credit' },
    },
    { name: 'the string "1" or "0" for a score', text: j3('"1"', '"0"', A(15)), host: [r(1, true), r(0, false), r(0.75, true)], gear: { reading: [NONE, NONE, r(0.75, true)], divergence: 'ambiguous-one' } },
    { name: 'a boolean score', text: j3(S('true'), S(3), A(15)), host: [r(0.1, false), r(0.3, false), r(0.75, true)], gear: { reading: [NONE, r(0.3, false), r(0.75, true)], divergence: 'boolean-as-score' } },
    { name: 'prose only', text: 'Great essay, 8/10.', host: [NONE, NONE, NONE] },
    { name: 'nested 5000 deep (the host raises RecursionError)', text: `{"1": ${nest(5000)}}`, host: [NONE, NONE, NONE] },
  ],
};

/* PLawBench: item 1 = subitems (+2分), (+3分) of 5 points; item 2 = one (+4分) subitem of 4 points. */
const plawRubrics = [
  { criterion: '【结论得分】\n(+2分) 某甲有权主张精神损害赔偿。(+3分) 某乙应承担连带责任。', points: '5', tags: { score_type: 'partial_points', section: '结论得分' } },
  { criterion: '【法条依据得分】(+4分) 《民法典》第一千一百八十三条', points: 4, tags: { score_type: 'partial_points' } },
];
const P = (...probs: (number | string)[]): string => `{"subitems": {${probs.map((x, k) => `"${k + 1}": {"prob_met": ${x}}`).join(', ')}}}`;
const j2 = (a: string, b: string): string => `{"1": ${a}, "2": ${b}}`;
const item1 = (first: number, second: number): number => (0 + first * 2 + second * 3) / 5;
const CLEAN_PB = [r(item1(0.9, 0.2), false), r(0.75, true)];

const plawbenchProb: HostReadingTable = {
  host: 'plawbench',
  source: 'scored_gear_reward_fn.py _parse_batch_scored_response, _score_from_prob_subitems, _subitem_probability, _parse_batch_subitem_response_regex',
  mode: 'prob',
  format: () => as(createScoredFormat('plawbench', { piMode: 'prob' })),
  row: { prompt, reward_model: { rubrics: plawRubrics } },
  criteria: [0, 1],
  cases: [
    { name: 'well-formed', text: j2(P(0.9, 0.2), P(0.75)), host: CLEAN_PB },
    { name: 'a subitem unanswered counts 0 (partial)', text: j2(P(0.9), P(0.75)), host: [r(item1(0.9, 0), false), r(0.75, true)] },
    { name: 'bare and string subitem probabilities', text: j2('{"subitems": {"1": 0.9, "2": "0.2"}}', '{"subitems": {"1": 0.75}}'), host: CLEAN_PB },
    { name: 'subitems as a list', text: j2('{"subitems": [{"prob_met": 0.9}, {"prob_met": 0.2}]}', '{"subitems": [0.75]}'), host: CLEAN_PB },
    { name: 'yes/no words for subitems', text: j2('{"subitems": {"1": "yes", "2": "否"}}', '{"subitems": {"1": true}}'), host: [r(item1(1, 0), false), r(1, true)] },
    { name: 'an item answered with one number', text: j2('0.6', '3'), host: [r(0.6, false), r(0.75, true)] },
    { name: 'a missing closing brace nests item 2 inside item 1', text: `{"1": {"subitems": {"1": {"prob_met": 0.9}, "2": {"prob_met": 0.2}}, "2": ${P(0.75)}}}`, host: [r(item1(0.9, 0.2), false), NONE] },
    {
      name: 'a NaN subitem probability',
      text: j2(P('NaN', 0.2), P(0.75)),
      host: [r(item1(1, 0.2), false), r(0.75, true)],
      gear: { reading: [r(item1(0, 0.2), false), r(0.75, true)], divergence: 'nan-as-credit' },
    },
    {
      name: 'truncated inside the last number (closers appended)',
      text: `{"1": ${P(0.9, 0.2)}, "2": {"subitems": {"1": {"prob_met": 0.7`,
      host: [r(item1(0.9, 0.2), false), r(0.7, true)],
      gear: { reading: [r(item1(0.9, 0.2), false), NONE], divergence: 'cut-number' },
    },
    { name: 'no comma between items (subitem regex fallback)', text: `{"1": ${P(0.9, 0.2)} "2": ${P(0.75)}}`, host: CLEAN_PB },
    // The host's nested-key search finds item 1's subitems first and reads them as the items.
    { name: 'outer braces missing: subitems read as items', text: `"1": ${P(0.9, 0.2)} "2": ${P(0.75)}`, host: [r(0.9, true), r(0.2, false)] },
    { name: 'an unclosed <think> draft', text: `<think>${j2(P(1, 1), P(1))}`, host: [r(1, true), r(1, true)], gear: { reading: [NONE, NONE], divergence: 'reasoning-draft' } },
    { name: 'an empty subitems object', text: j2('{"subitems": {}}', P(0.75)), host: [r(0, false), r(0.75, true)], gear: { reading: [NONE, r(0.75, true)], divergence: 'non-number-as-credit' } },
  ],
};

const B = (...verdicts: string[]): string => `{"subitems": {${verdicts.map((v, k) => `"${k + 1}": ${v}`).join(', ')}}}`;

const plawbenchBinary: HostReadingTable = {
  ...plawbenchProb,
  mode: 'binary',
  source: 'scored_gear_reward_fn.py _parse_batch_scored_response, _score_from_binary_subitems, _subitem_bool, _parse_batch_subitem_response_regex',
  format: () => as(createScoredFormat('plawbench', { piMode: 'binary' })),
  cases: [
    { name: 'well-formed', text: j2(B('true', 'false'), B('true')), host: [r(item1(1, 0), false), r(1, true)] },
    { name: 'criteria_met for the whole item', text: j2('{"criteria_met": true}', '{"criteria_met": false}'), host: [r(1, true), r(0, false)] },
    { name: 'verdict words (是 / 不满足 / met)', text: j2(B('"是"', '"不满足"'), B('"met"')), host: [r(item1(1, 0), false), r(1, true)] },
    { name: 'Python True, truncated (subitem regex fallback)', text: '{"1": {"subitems": {"1": True, "2": False}}, "2": {"subitems": {"1": True', host: [r(item1(1, 0), false), r(1, true)] },
    { name: 'a number other than 0 or 1 for an item', text: j2('0.3', 'true'), host: [r(1, true), r(1, true)], gear: { reading: [NONE, r(1, true)], divergence: 'number-as-verdict' } },
  ],
};

/** RaR publishes no judge code: gear's own strict reading, kept in the table so it stays fixed. */
const rarExplicit: HostReadingTable = {
  host: 'rar-explicit',
  source: '(none published: gear reads strictly)',
  mode: 'per-criterion',
  format: () => as(createRarExplicitFormat()),
  row: { question: 'What is the best imaging for a suspected ureteric stone?', rubric: [{ title: 'CT', description: 'Essential Criteria: Names non-contrast CT.', weight: 5 }] },
  criteria: [0],
  cases: [
    { name: 'fenced', text: '```json\n{"satisfied": true}\n```', host: [r(1, true)] },
    { name: 'prose around', text: 'Verdict: {"satisfied": false} done', host: [r(0, false)] },
    { name: 'a closed <think> draft', text: '<think>{"satisfied": true}</think>{"satisfied": false}', host: [r(0, false)] },
    { name: 'a repeated verdict', text: '{"satisfied": true, "satisfied": false}', host: [NONE] },
    { name: 'a string verdict', text: '{"satisfied": "yes"}', host: [NONE] },
    { name: 'truncated', text: '{"satisfied": tru', host: [NONE] },
  ],
};

export const HOST_READING_TABLES: readonly HostReadingTable[] = [officialProb, officialBinary, ruscarl, writingbench, plawbenchProb, plawbenchBinary, rarExplicit];
