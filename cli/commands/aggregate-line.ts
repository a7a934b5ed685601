import {
  RELATION_BY_CODE,
  chooseAutoMethod,
  effectiveRole,
  explainAggregation,
  compileRubricRecord,
  computeReward,
  effectiveScores,
  isExactFeasible,
  scoresOfRecord,
  type AggregationOptions,
  type CompiledRubric,
  type ScoreVector,
} from '../../core/index.js';
import { LruCache } from '../io/compiled-cache.js';
import { errorRecord } from '../io/error-record.js';
import { scanObjectMembers, type KnownValue, type RawMember } from '../io/json-object-members.js';
import { scoreRecord } from './score-record.js';

/** The output of a batch of lines: their output lines (each ending in a newline) and counts. */
export interface ScoredBatch {
  readonly text: string;
  /** Non-blank lines read. */
  readonly lines: number;
  /** Of those, error lines. */
  readonly errors: number;
}

export interface LineScorer {
  /** One input line, bytes [start, end) of `bytes`, with its 1-based number -> its output line, without the newline. */
  score(bytes: Buffer, start: number, end: number, number: number): string;
  /** Error lines written so far. */
  readonly errors: number;
}

/** A compiled rubric with the parts of its output lines that do not depend on the scores. */
interface RubricEntry {
  readonly compiled: CompiledRubric;
  /** `,"auto_method":"gear-exact","criteria":[` */
  readonly head: string;
  /** `{"id":"r1","p":` per criterion (the first without a leading comma). */
  readonly criterionHeads: readonly string[];
  /** `],"graph":{...}` */
  readonly tail: string;
  /** For --explain: `,"explain":{"method":"gear","denominator":D,"rewards":{"flat":` */
  readonly explainHead: string;
  /** `{"id":"r1","text":"...","role":"foundation","weight":5,"p":` per criterion (leading comma after the first). */
  readonly explainCriteria: readonly string[];
  /** `{"parent":"r1","relation":"weak","retention":0.6,"parent_q":` per parent edge of each criterion. */
  readonly explainParents: readonly (readonly string[])[];
}

/** The members the output depends on (any other member is only checked to be valid JSON). */
const RUBRIC_KEYS: Readonly<Record<string, string>> = { reward_model: 'o', rubric: 'c' };
const SCORE_KEYS = new Set(['id', 'p_list', 'criteria_met_list', 'scores']);

/** Thrown inside the fast path to hand the line to the reference path. */
class Unsupported extends Error {}

/** JSON.stringify of a number, without the generic serializer. */
const num = (x: number): string => (Number.isFinite(x) ? String(x) : 'null');

function entryOf(compiled: CompiledRubric): RubricEntry {
  const { ids, parentStart, parentIndex, edgeRelation, edgeRetention } = compiled;
  return {
    compiled,
    head: `,"auto_method":${JSON.stringify(chooseAutoMethod(compiled))},"criteria":[`,
    criterionHeads: ids.map((id, i) => `${i === 0 ? '' : ','}{"id":${JSON.stringify(id)},"p":`),
    tail: `],"graph":${JSON.stringify({ edges_kept: compiled.report.edgesKept, dropped_edges: compiled.report.droppedEdges })}`,
    // The static parts of explainRecord's JSON, in its key order (the property test holds them to it).
    explainHead: `,"explain":{"method":"gear","denominator":${num(compiled.denominator)},"rewards":{"flat":`,
    explainCriteria: compiled.rubric.criteria.map(
      (c, i) => `${i === 0 ? '' : ','}{"id":${JSON.stringify(ids[i])},"text":${JSON.stringify(c.text)},"role":${JSON.stringify(effectiveRole(c))},"weight":${num(compiled.weight[i] as number)},"p":`,
    ),
    explainParents: ids.map((_, i) => {
      const heads: string[] = [];
      for (let e = parentStart[i] as number; e < (parentStart[i + 1] as number); e++) {
        const relation = RELATION_BY_CODE[edgeRelation[e] as number] as string;
        heads.push(`${heads.length === 0 ? '' : ','}{"parent":${JSON.stringify(ids[parentIndex[e] as number])},"relation":"${relation}","retention":${num(edgeRetention[e] as number)},"parent_q":`);
      }
      return heads;
    }),
  };
}

/**
 * explainRecord's JSON for a line the fast path scored (all four aggregators feasible), from the
 * rubric's fragments and the strings of the line's own numbers: JSON.stringify(explainRecord(...))
 * byte for byte, without building the object or re-serializing the criterion texts.
 */
function explainJson(entry: RubricEntry, scores: ScoreVector, rewards: readonly string[], numbers: readonly (readonly string[])[]): string {
  const explanation = explainAggregation(entry.compiled, 'gear', scores);
  const [ps, hs, gs, es] = numbers as [string[], string[], string[], string[]];
  let out = `${entry.explainHead}${rewards[0] as string},"hard":${rewards[1] as string},"gear":${rewards[2] as string},"gear_exact":${rewards[3] as string}},"criteria":[`;
  explanation.criteria.forEach((c, i) => {
    const met = scores.d === undefined ? c.p >= 0.5 : scores.d[i] === true;
    out +=
      `${entry.explainCriteria[i] as string}${ps[i] as string},"met":${met},"q":{"flat":${ps[i] as string},"hard":${hs[i] as string},"gear":${gs[i] as string},"gear_exact":${es[i] as string}}` +
      `,"suppressed":${num(c.suppressed)},"reward_term":${num(c.rewardTerm)},"flat_reward_term":${num(c.flatRewardTerm)},"parents":[`;
    const heads = entry.explainParents[i] as readonly string[];
    c.parents.forEach((e, k) => {
      out += `${heads[k] as string}${num(e.parentQ)},"factor":${num(e.factor)},"suppressed":${num(e.suppressed)}}`;
    });
    out += ']}';
  });
  return `${out}]}`;
}

/**
 * `gear aggregate`'s line scoring, byte for byte what `JSON.stringify({line, ...scoreRecord(...)})`
 * (or the error line) gives, but fast on real streams, where the 8 (or 512) responses of a prompt
 * repeat the same rubric text: the line's top-level members are located without parsing, the
 * rubric is recognised by its raw text (the previous line's rubric by `startsWith`, others by an
 * LRU keyed by the text: no parse, no re-serialization, no hash), only the scores are parsed, and
 * the output is assembled from per-rubric fragments. Anything unusual (invalid JSON, a malformed
 * record, duplicate or escaped keys, a rubric that does not compile) goes to the reference path,
 * which produces the exact error line.
 */
export function createLineScorer(options: AggregationOptions, explain = false): LineScorer {
  const referenceCache = new LruCache<CompiledRubric>(1024);
  // Keys are raw rubric texts: bounded in count and in characters (64 Mi).
  const rubrics = new LruCache<RubricEntry>(1024, 64 * 1024 * 1024);
  const recent: Record<string, { bytes: Buffer; entry: RubricEntry } | undefined> = {};
  let buffers: Float64Array[] = [];
  let errors = 0;

  // The previous line's rubric, compared in place (memcmp): most lines repeat it.
  const known: KnownValue = (bytes, key, start, end) => {
    const kind = RUBRIC_KEYS[key];
    const last = kind === undefined ? undefined : recent[kind];
    if (last === undefined) return -1;
    const stop = start + last.bytes.length;
    return stop <= end && bytes.compare(last.bytes, 0, last.bytes.length, start, stop) === 0 ? stop : -1;
  };

  const reference = (text: string, number: number): string => {
    let out: Record<string, unknown>;
    try {
      out = { line: number, ...scoreRecord(JSON.parse(text), options, referenceCache, explain).output };
    } catch (error) {
      out = errorRecord(number, error);
      errors += 1;
    }
    return JSON.stringify(out);
  };

  const rubricEntry = (kind: string, key: string, bytes: Buffer, start: number, end: number): RubricEntry => {
    const last = recent[kind];
    if (last !== undefined && last.bytes.length === end - start && bytes.compare(last.bytes, 0, last.bytes.length, start, end) === 0) return last.entry;
    if (bytes[start] !== 0x7b) throw new Unsupported();
    // The raw bytes as a one-byte string: an exact, cheap map key.
    const entry = rubrics.getOrCreate(kind + bytes.toString('latin1', start, end), () => {
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8', start, end));
      } catch {
        throw new Unsupported();
      }
      return entryOf(compileRubricRecord({ [key]: value }, options));
    });
    recent[kind] = { bytes: Buffer.from(bytes.subarray(start, end)), entry };
    return entry;
  };

  const fast = (bytes: Buffer, start: number, end: number, number: number): string => {
    const members = scanObjectMembers(bytes, start, end, known);
    if (members === undefined) throw new Unsupported();
    let rubric: RawMember | undefined;
    const fields: Record<string, unknown> = {};
    for (const m of members) {
      if (RUBRIC_KEYS[m.key] !== undefined) {
        if (rubric !== undefined) throw new Unsupported();
        rubric = m;
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString('utf8', m.start, m.end));
      } catch {
        throw new Unsupported();
      }
      if (SCORE_KEYS.has(m.key)) {
        if (m.key in fields) throw new Unsupported();
        fields[m.key] = value;
      }
    }
    if (rubric === undefined) throw new Unsupported();
    const entry = rubricEntry(RUBRIC_KEYS[rubric.key] as string, rubric.key, bytes, rubric.start, rubric.end);
    const { compiled } = entry;
    const scores = scoresOfRecord(compiled, fields);
    if (!isExactFeasible(compiled)) throw new Unsupported();

    const size = compiled.size;
    if ((buffers[0]?.length ?? 0) < size) buffers = [0, 1, 2].map(() => new Float64Array(size * 2));
    const [hard, gear, exact] = buffers as [Float64Array, Float64Array, Float64Array];
    effectiveScores(compiled, 'hard', scores, hard);
    effectiveScores(compiled, 'gear', scores, gear);
    effectiveScores(compiled, 'gear-exact', scores, exact);
    const p = scores.p;
    const rewards = [num(computeReward(compiled, p)), num(computeReward(compiled, hard)), num(computeReward(compiled, gear)), num(computeReward(compiled, exact))];
    let out = `{"line":${number}`;
    if (fields['id'] !== undefined) out += `,"id":${JSON.stringify(fields['id'])}`;
    out += `,"flat":${rewards[0] as string},"hard":${rewards[1] as string},"gear":${rewards[2] as string},"gear_exact":${rewards[3] as string}${entry.head}`;
    const numbers: string[][] = [[], [], [], []];
    for (let i = 0; i < size; i++) {
      const pi = p[i] as number;
      const ps = num(pi);
      const h = hard[i] as number;
      const g = gear[i] as number;
      const e = exact[i] as number;
      // Most criteria have no parent (q = p under every aggregator): one conversion serves all.
      const hs = h === pi ? ps : num(h);
      const gs = g === pi ? ps : num(g);
      const es = e === g ? gs : num(e);
      out += `${entry.criterionHeads[i] as string}${ps},"flat":${ps},"hard":${hs},"gear":${gs},"gear_exact":${es}}`;
      if (explain) {
        numbers[0]?.push(ps);
        numbers[1]?.push(hs);
        numbers[2]?.push(gs);
        numbers[3]?.push(es);
      }
    }
    out += entry.tail;
    if (explain) out += explainJson(entry, scores, rewards, numbers);
    return `${out}}`;
  };

  return {
    score(bytes, start, end, number) {
      try {
        return fast(bytes, start, end, number);
      } catch {
        // Unsupported, or a GearError from the scores: the reference path writes the exact line.
        return reference(bytes.toString('utf8', start, end), number);
      }
    },
    get errors() {
      return errors;
    },
  };
}

/** A line of only whitespace (as String.prototype.trim sees it) is skipped, but counted. */
export function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) continue;
    // Any other ASCII byte is text; beyond ASCII (no-break spaces, BOM...) ask trim itself.
    return c >= 0x80 ? bytes.toString('utf8', start, end).trim() === '' : false;
  }
  return true;
}

/** Scores the lines [starts[k], ends[k]) of `bytes`, numbered from `first`; blank lines count in the numbering only. */
export function scoreLineBatch(scorer: LineScorer, bytes: Buffer, starts: ArrayLike<number>, ends: ArrayLike<number>, first: number): ScoredBatch {
  const errorsBefore = scorer.errors;
  let text = '';
  let lines = 0;
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k] as number;
    const end = ends[k] as number;
    if (isBlank(bytes, start, end)) continue;
    lines += 1;
    text += `${scorer.score(bytes, start, end, first + k)}\n`;
  }
  return { text, lines, errors: scorer.errors - errorsBefore };
}
