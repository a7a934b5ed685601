import { z } from 'zod';
import { GearError, parseWith } from '../../core/index.js';
import type { NodeType } from './vocabulary.js';

/** A chat message as the official builder normalises it (`_normalize_prompt`): role and content as strings. */
export interface PromptMessage {
  readonly role: string;
  readonly content: string;
}

/** One criterion of the rubric the builder annotates (official `_normalize_rubrics`: ids default to r1..rK). */
export interface RubricItem {
  readonly id: string;
  readonly criterion: string;
  readonly points: number;
}

/** An input row made ready for annotation. `row` is what is written back, with the graph added. */
export interface GraphRow {
  /** 0-based position in the input. */
  readonly index: number;
  /** The row in the official VERL layout (raw HealthBench / WritingBench rows converted as prepare_*.py does). */
  readonly row: Record<string, unknown>;
  readonly rubrics: readonly RubricItem[];
  readonly conversation: readonly PromptMessage[];
  readonly sourceMeta: Record<string, unknown>;
  /** The source's own id (HealthBench prompt_id, WritingBench index), for matching reference graphs. */
  readonly sourceId: string | undefined;
}

const PointsSchema = z.union([
  z.number().refine(Number.isFinite, { message: 'must be a finite number' }),
  z
    .string()
    .regex(/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/, { message: 'must be a number or a numeric string' })
    .transform(Number),
]);

const RubricItemSchema = z.looseObject({
  id: z.string().min(1, 'must be a non-empty string').optional().nullable(),
  criterion: z.string(),
  points: PointsSchema,
  tags: z.unknown().optional(),
});

const MessageSchema = z.looseObject({ role: z.unknown().optional(), content: z.unknown().optional() });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** prepare_healthbench.py's tags conversion: ["axis:accuracy", "x"] -> {axis: "accuracy", x: true}. */
export function tagsToRecord(tags: unknown): Record<string, unknown> {
  if (isRecord(tags)) return { ...tags };
  if (!Array.isArray(tags)) return {};
  const out: Record<string, unknown> = {};
  for (const tag of tags) {
    if (typeof tag !== 'string') continue;
    const at = tag.indexOf(':');
    if (at >= 0) out[tag.slice(0, at)] = tag.slice(at + 1);
    else out[tag] = true;
  }
  return out;
}

/** prepare_writingbench.py's format_checklist_item: name, description and the score bands. */
export function writingBenchCriterion(item: Record<string, unknown>): string {
  const lines = [String(item['name'] ?? '').trim(), '', String(item['criteria_description'] ?? '').trim(), '', 'Scoring rubric:'];
  for (const band of ['1-2', '3-4', '5-6', '7-8', '9-10']) {
    const text = String(item[band] ?? '').trim();
    if (text !== '') lines.push(`${band}: ${text}`);
  }
  return lines.filter((l) => l !== '').join('\n').trim();
}

/** A raw HealthBench row ({prompt, rubrics, prompt_id}) as prepare_healthbench.py writes it. */
function fromHealthBench(raw: Record<string, unknown>): Record<string, unknown> {
  const rubrics = parseWith(z.array(RubricItemSchema), raw['rubrics'], ['rubrics']).map((r, i) => ({
    id: r.id ?? `r${i + 1}`,
    criterion: r.criterion,
    points: r.points,
    tags: tagsToRecord(r.tags),
  }));
  const rewardModel = { style: 'rubric', rubrics, ground_truth: '' };
  const prompt = raw['prompt'];
  return {
    data_source: 'healthbench',
    prompt,
    ability: 'medical_chat',
    reward_model: rewardModel,
    extra_info: {
      prompt,
      reward_model: structuredClone(rewardModel),
      ...(typeof raw['prompt_id'] === 'string' ? { prompt_id: raw['prompt_id'] } : {}),
    },
  };
}

/** A raw WritingBench row ({index, domain1, domain2, query, checklist}) as prepare_writingbench.py writes it. */
function fromWritingBench(raw: Record<string, unknown>): Record<string, unknown> {
  const checklist = parseWith(z.array(z.record(z.string(), z.unknown())), raw['checklist'], ['checklist']);
  const rubrics = checklist
    .map((item, i) => ({
      id: `r${i + 1}`,
      criterion: writingBenchCriterion(item),
      points: 10.0,
      tags: { verifier: 'llm', score_type: 'scale_1_10', criterion_name: String(item['name'] ?? '').trim() },
    }))
    .filter((r) => r.criterion !== '');
  return officialRow('writingbench', 'writing', String(raw['query'] ?? ''), rubrics, {
    index: raw['index'] ?? null,
    domain1: raw['domain1'] ?? null,
    domain2: raw['domain2'] ?? null,
    lang: raw['lang'] ?? null,
  });
}

/** A converted benchmark row as the official prepare_*.py scripts lay it out: one user message, both reward_model copies. */
function officialRow(dataSource: string, ability: string, content: string, rubrics: readonly Record<string, unknown>[], sourceMeta: Record<string, unknown>): Record<string, unknown> {
  const prompt = [{ role: 'user', content }];
  const rewardModel = { style: 'rubric', rubrics, ground_truth: '' };
  return {
    data_source: dataSource,
    prompt,
    ability,
    reward_model: rewardModel,
    extra_info: { prompt, reward_model: structuredClone(rewardModel), source_meta: sourceMeta },
  };
}

/**
 * A raw PLawBench case ({label, context, question, rubrics: [{criterion, points: "20", tags:
 * "section"}]}): the case facts, then the question (which refers to "the above case"), as the
 * prompt; points as numbers; the section as the criterion's category, as the official GEAR data
 * for PLawBench has it.
 */
function fromPlawBench(raw: Record<string, unknown>): Record<string, unknown> {
  const items = parseWith(z.array(z.looseObject({ criterion: z.string(), points: PointsSchema, tags: z.unknown().optional() })), raw['rubrics'], ['rubrics']);
  const rubrics = items.map((item, i) => ({
    id: `r${i + 1}`,
    criterion: item.criterion,
    points: item.points,
    tags: { verifier: 'llm', score_type: 'partial_points', category: typeof item.tags === 'string' ? item.tags : '' },
  }));
  return officialRow('plawbench', 'legal', `${String(raw['context'] ?? '')}\n\n${String(raw['question'] ?? '')}`, rubrics, { label: raw['label'] ?? null });
}

/** The row in the official layout: VERL rows as they are; raw benchmark rows converted. */
export function toOfficialLayout(raw: Record<string, unknown>): Record<string, unknown> {
  if (isRecord(raw['reward_model']) || (isRecord(raw['extra_info']) && isRecord(raw['extra_info']['reward_model']))) return raw;
  if (Array.isArray(raw['checklist'])) return fromWritingBench(raw);
  if (Array.isArray(raw['rubrics']) && typeof raw['context'] === 'string' && typeof raw['question'] === 'string') return fromPlawBench(raw);
  if (Array.isArray(raw['rubrics'])) return fromHealthBench(raw);
  throw new GearError('invalid_input', ['reward_model'], 'missing: a row needs reward_model.rubrics (VERL / official GEAR), or rubrics (HealthBench), or checklist (WritingBench), or context, question and rubrics (PLawBench)');
}

/**
 * Reads one input row for annotation.
 *
 * @throws GearError `invalid_input` naming the field (e.g. `reward_model.rubrics[3].points`).
 */
export function readGraphRow(input: unknown, index: number): GraphRow {
  if (!isRecord(input)) throw new GearError('invalid_input', [], 'a row must be a JSON object');
  const row = toOfficialLayout(input);
  const extra = isRecord(row['extra_info']) ? row['extra_info'] : {};
  // The official builder reads the top-level reward_model; a row carrying only extra_info's copy is read from there.
  const where = isRecord(row['reward_model']) ? ['reward_model'] : ['extra_info', 'reward_model'];
  const rewardModel = (isRecord(row['reward_model']) ? row['reward_model'] : extra['reward_model']) as Record<string, unknown>;
  const items = parseWith(z.array(RubricItemSchema), rewardModel['rubrics'] ?? [], [...where, 'rubrics']);
  const seen = new Map<string, number>();
  const rubrics = items.map((item, i) => {
    const id = item.id ?? `r${i + 1}`;
    const earlier = seen.get(id);
    if (earlier !== undefined) throw new GearError('invalid_input', [...where, 'rubrics', i, 'id'], `"${id}" is also the id of rubrics[${earlier}]`);
    seen.set(id, i);
    return { id, criterion: item.criterion, points: item.points };
  });
  const promptSource = row['prompt'] ?? extra['prompt'];
  const conversation = (Array.isArray(promptSource) ? promptSource : [])
    .map((m) => MessageSchema.safeParse(m))
    .filter((m) => m.success)
    .map((m) => ({ role: String(m.data.role ?? 'user'), content: String(m.data.content ?? '') }));
  const sourceMeta = isRecord(extra['source_meta']) ? extra['source_meta'] : {};
  const id = extra['prompt_id'] ?? row['prompt_id'] ?? sourceMeta['index'];
  return {
    index,
    row,
    rubrics,
    conversation,
    sourceMeta,
    sourceId: typeof id === 'string' || typeof id === 'number' ? String(id) : undefined,
  };
}

/** The graph written into a row (official `reward_model.graph`). */
export interface OfficialGraph {
  nodes: { id: string; node_type: NodeType }[];
  edges: { parent: string; child: string; type: string }[];
}

/**
 * The row with the graph, as the official builder writes it: every rubric gets its id and
 * tags.node_type, reward_model.graph is set, extra_info.reward_model is the same content, and the
 * annotation stats sit in extra_info and in a top-level column.
 */
export function withGraph(source: GraphRow, nodeTypes: ReadonlyMap<string, NodeType>, graph: OfficialGraph, stats: Record<string, unknown>): Record<string, unknown> {
  const row = structuredClone(source.row);
  const extra = isRecord(row['extra_info']) ? row['extra_info'] : {};
  const rewardModel = isRecord(row['reward_model']) ? row['reward_model'] : isRecord(extra['reward_model']) ? structuredClone(extra['reward_model']) : {};
  const rubrics = (Array.isArray(rewardModel['rubrics']) ? rewardModel['rubrics'] : []).map((item: unknown, i: number) => {
    const record = isRecord(item) ? item : {};
    const id = source.rubrics[i]?.id ?? `r${i + 1}`;
    return { ...record, id, tags: { ...tagsToRecord(record['tags']), node_type: nodeTypes.get(id) } };
  });
  rewardModel['rubrics'] = rubrics;
  rewardModel['graph'] = graph;
  row['reward_model'] = rewardModel;
  extra['reward_model'] = structuredClone(rewardModel);
  extra['gear_annotation_stats'] = stats;
  row['extra_info'] = extra;
  row['gear_annotation_stats'] = structuredClone(stats);
  return row;
}
