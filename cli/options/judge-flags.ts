import { GearError } from '../../core/index.js';
import type { JudgeRuntimeConfig } from '../../judge/judge-runtime.js';
import { endpointsFromUrls } from '../../judge/transport/endpoint-config.js';
import { JudgeOptionsSchema, type JudgeOptionsInput } from '../../judge/pipeline/judge-options.js';

/** The judge flags `gear judge` and `gear serve` share (parseArgs options). */
export const JUDGE_FLAGS = {
  'judge-url': { type: 'string' },
  model: { type: 'string' },
  'api-key': { type: 'string' },
  'max-concurrent-requests': { type: 'string' },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  cache: { type: 'string' },
  'on-judge-failure': { type: 'string' },
  'structured-output': { type: 'boolean' },
  'p-from': { type: 'string' },
  seed: { type: 'string' },
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-reasks': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  routing: { type: 'string' },
} as const;

export type JudgeFlagValues = { readonly [K in keyof typeof JUDGE_FLAGS]?: (typeof JUDGE_FLAGS)[K]['type'] extends 'boolean' ? boolean | undefined : string | undefined };

function num(flag: string, text: string | undefined, integer: boolean, min: number): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min) {
    throw new GearError('usage', [flag], `must be ${integer ? 'an integer' : 'a number'} >= ${min}, got "${text}"`);
  }
  return value;
}

/**
 * The judge configuration from flags, falling back to GEAR_JUDGE_URL, GEAR_JUDGE_MODEL,
 * GEAR_JUDGE_API_KEY, GEAR_JUDGE_MAX_CONCURRENT, GEAR_JUDGE_TIMEOUT, GEAR_JUDGE_DEADLINE, GEAR_JUDGE_ROUTING and GEAR_JUDGE_CACHE; undefined
 * when no endpoint is given (a server without a judge answers judge.* with an error that says so).
 */
export function judgeConfigFromFlags(values: JudgeFlagValues, env: NodeJS.ProcessEnv): JudgeRuntimeConfig | undefined {
  const urls = values['judge-url'] ?? (env['GEAR_JUDGE_URL'] || undefined);
  if (urls === undefined) return undefined;
  const model = values.model ?? (env['GEAR_JUDGE_MODEL'] || undefined);
  const apiKey = values['api-key'] ?? (env['GEAR_JUDGE_API_KEY'] || undefined);
  const maxConcurrent = num('--max-concurrent-requests', values['max-concurrent-requests'] ?? env['GEAR_JUDGE_MAX_CONCURRENT'], true, 1);
  const timeout = num('--timeout', values.timeout ?? env['GEAR_JUDGE_TIMEOUT'], false, 0.001);
  const deadline = num('--deadline', values.deadline ?? env['GEAR_JUDGE_DEADLINE'], false, 0.001);
  const rpm = num('--rpm', values.rpm, false, 0.001);
  const tpm = num('--tpm', values.tpm, false, 1);
  let endpoints;
  try {
    endpoints = endpointsFromUrls(urls, {
      ...(model === undefined ? {} : { model }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(maxConcurrent === undefined ? {} : { maxConcurrent }),
    }).map((e) => ({ ...e, ...(rpm === undefined ? {} : { rpm }), ...(tpm === undefined ? {} : { tpm }) }));
  } catch (error) {
    throw new GearError('usage', ['--judge-url'], error instanceof Error ? error.message : String(error));
  }
  const routing = values.routing ?? (env['GEAR_JUDGE_ROUTING'] || undefined);
  if (routing !== undefined && routing !== 'prefix' && routing !== 'least-outstanding') {
    throw new GearError('usage', ['--routing'], `must be prefix or least-outstanding, got "${routing}"`);
  }
  const seed = num('--seed', values.seed, true, 0);
  const temperature = num('--temperature', values.temperature, false, 0);
  const maxTokens = num('--max-tokens', values['max-tokens'], true, 1);
  const maxReasks = num('--max-reasks', values['max-reasks'], true, 0);
  const options: JudgeOptionsInput = {
    ...(values['on-judge-failure'] === undefined ? {} : { onJudgeFailure: values['on-judge-failure'] as JudgeOptionsInput['onJudgeFailure'] }),
    ...(values['structured-output'] === true ? { structuredOutput: true } : {}),
    ...(values['p-from'] === undefined ? {} : { pFrom: values['p-from'] as JudgeOptionsInput['pFrom'] }),
    ...(maxReasks === undefined ? {} : { maxReasks }),
    decoding: {
      ...(seed === undefined ? {} : { seed }),
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    },
  };
  const checked = JudgeOptionsSchema.safeParse(options);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const flag = issue?.path[0] === 'onJudgeFailure' ? '--on-judge-failure' : issue?.path[0] === 'pFrom' ? '--p-from' : '--judge options';
    throw new GearError('usage', [flag], issue?.message ?? 'invalid');
  }
  const cacheFile = values.cache ?? (env['GEAR_JUDGE_CACHE'] || undefined);
  return {
    transport: {
      endpoints,
      ...(timeout === undefined ? {} : { requestTimeoutMs: Math.round(timeout * 1000) }),
      ...(deadline === undefined ? {} : { deadlineMs: Math.round(deadline * 1000) }),
      ...(routing === undefined ? {} : { prefixAffinity: { enabled: routing === 'prefix' } }),
    },
    ...(cacheFile === undefined ? {} : { cache: { file: cacheFile } }),
    options,
  };
}
