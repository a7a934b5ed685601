import { parseArgs } from 'node:util';
import { GearError } from '../../core/index.js';
import { DEFAULT_ANNOTATION_SETTINGS, DEFAULT_ROWS_IN_FLIGHT, isStrategy, STRATEGIES, type AnnotationSettings } from '../../graphs/build/annotation-context.js';
import { isProfileName, PROFILE_NAMES, type ProfileName } from '../../graphs/profiles/profiles.js';
import { JUDGE_FLAGS, judgeConfigFromFlags } from '../options/judge-flags.js';
import { runGraphBuild } from './graph-build.js';
import { runGraphCheck } from './graph-check.js';
import { runGraphCompare } from './graph-compare.js';
import { runGraphStats } from './graph-stats.js';

export interface GraphIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

import { GRAPH_HELP, GRAPH_USAGE } from './graph-usage.js';

export { GRAPH_HELP, GRAPH_USAGE };

function intFlag(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new GearError('usage', [name], `must be an integer >= ${min}, got "${text}"`);
  return value;
}

function numberFlag(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new GearError('usage', [name], `must be a finite number, got "${text}"`);
  return value;
}

function formatFlag(text: string | undefined, allowed: readonly string[]): string {
  const format = text ?? allowed[0] as string;
  if (!allowed.includes(format)) throw new GearError('usage', ['--format'], `must be ${allowed.join(' or ')}, got "${format}"`);
  return format;
}

const BUILD_JUDGE_FLAGS = (({ 'judge-url': u, model, 'api-key': k, 'max-concurrent-requests': m, timeout, deadline, cache, seed, temperature, rpm, tpm }) => ({
  'judge-url': u,
  model,
  'api-key': k,
  'max-concurrent-requests': m,
  timeout,
  deadline,
  cache,
  seed,
  temperature,
  rpm,
  tpm,
}))(JUDGE_FLAGS);

/** `gear graph build|stats|check|compare ...`; returns the exit code. */
export async function runGraph(argv: readonly string[], io: GraphIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout.write(`Usage:\n${GRAPH_USAGE}`);
    return sub === undefined ? 2 : 0;
  }
  const help = GRAPH_HELP[sub];
  if (help === undefined) throw new GearError('usage', ['graph', sub], 'unknown subcommand (build, stats, check, compare)');
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`Usage:\n${help}`);
    return 0;
  }
  if (sub === 'build') {
    const { values } = parseArgs({
      args: [...rest],
      options: {
        profile: { type: 'string' },
        input: { type: 'string' },
        output: { type: 'string' },
        concurrency: { type: 'string' },
        limit: { type: 'string' },
        'edge-batch-size': { type: 'string' },
        'role-reasks': { type: 'string' },
        'edge-reasks': { type: 'string' },
        'no-schema': { type: 'boolean' },
        strategy: { type: 'string' },
        'pair-candidates': { type: 'string' },
        'edge-threshold': { type: 'string' },
        'max-parents': { type: 'string' },
        ...BUILD_JUDGE_FLAGS,
      },
      strict: true,
    });
    const profile = values.profile ?? '';
    if (!isProfileName(profile)) throw new GearError('usage', ['--profile'], `must be one of ${PROFILE_NAMES.join(', ')}, got "${profile}"`);
    if (values.input === undefined) throw new GearError('usage', ['--input'], 'missing: the rows to annotate (.jsonl or .parquet)');
    if (values.output === undefined) throw new GearError('usage', ['--output'], 'missing: where to write the annotated rows (.jsonl or .parquet)');
    const judge = judgeConfigFromFlags(values, io.env);
    if (judge === undefined) throw new GearError('usage', ['--judge-url'], 'missing: the LLM endpoint(s), e.g. --judge-url http://127.0.0.1:8000/v1 (or GEAR_JUDGE_URL)');
    const d = DEFAULT_ANNOTATION_SETTINGS;
    const decoding = judge.options?.decoding ?? {};
    const strategy = values.strategy ?? d.strategy;
    if (!isStrategy(strategy)) throw new GearError('usage', ['--strategy'], `must be one of ${STRATEGIES.join(', ')}, got "${strategy}"`);
    const settings: AnnotationSettings = {
      ...d,
      strategy,
      pairCandidates: intFlag('--pair-candidates', values['pair-candidates'], d.pairCandidates, 1),
      edgeThreshold: numberFlag('--edge-threshold', values['edge-threshold'], d.edgeThreshold),
      maxParents: intFlag('--max-parents', values['max-parents'], d.maxParents, 1),
      edgeBatchSize: intFlag('--edge-batch-size', values['edge-batch-size'], d.edgeBatchSize, 1),
      roleReasks: intFlag('--role-reasks', values['role-reasks'], d.roleReasks, 0),
      edgeReasks: intFlag('--edge-reasks', values['edge-reasks'], d.edgeReasks, 0),
      jsonSchema: values['no-schema'] !== true,
      decoding: {
        ...d.decoding,
        ...(decoding.seed === undefined ? {} : { seed: decoding.seed }),
        ...(decoding.temperature === undefined ? {} : { temperature: decoding.temperature }),
      },
    };
    return runGraphBuild({
      profile: profile as ProfileName,
      transport: judge.transport,
      cache: judge.cache,
      input: values.input,
      output: values.output,
      settings,
      concurrency: intFlag('--concurrency', values.concurrency, DEFAULT_ROWS_IN_FLIGHT, 1),
      limit: intFlag('--limit', values.limit, 0, 0),
      stdout: io.stdout,
      stderr: io.stderr,
    });
  }
  if (sub === 'stats') {
    const { values, positionals } = parseArgs({ args: [...rest], options: { profile: { type: 'string' }, format: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new GearError('usage', ['FILE'], 'give exactly one file');
    if (values.profile !== undefined && !isProfileName(values.profile)) throw new GearError('usage', ['--profile'], `must be one of ${PROFILE_NAMES.join(', ')}`);
    return runGraphStats({ file: positionals[0] as string, profile: values.profile as ProfileName | undefined, format: formatFlag(values.format, ['table', 'json']) as 'table' | 'json', stdout: io.stdout });
  }
  if (sub === 'check') {
    const { values, positionals } = parseArgs({ args: [...rest], options: { format: { type: 'string' } }, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new GearError('usage', ['FILE'], 'give exactly one file');
    return runGraphCheck({ file: positionals[0] as string, format: formatFlag(values.format, ['table', 'jsonl']) as 'table' | 'jsonl', stdout: io.stdout });
  }
  const { values, positionals } = parseArgs({ args: [...rest], options: { reference: { type: 'string' }, format: { type: 'string' } }, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new GearError('usage', ['FILE'], 'give exactly one file');
  if (values.reference === undefined) throw new GearError('usage', ['--reference'], 'missing: the reference graphs');
  return runGraphCompare({ file: positionals[0] as string, reference: values.reference, format: formatFlag(values.format, ['table', 'json']) as 'table' | 'json', stdout: io.stdout });
}
