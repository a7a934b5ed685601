import { z } from 'zod';
import { OFFICIAL_DECODING, type Decoding } from '../transport/chat-call.js';

export const OnJudgeFailureSchema = z.enum(['pessimistic', 'official', 'error']);
export const PSourceSchema = z.enum(['verbalized', 'logprobs']);

const DecodingOverridesSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().min(-1).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  seed: z.number().int().optional(),
  chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

/**
 * How one response is judged. Defaults are the official GEAR judge's decoding (temperature 0,
 * top_p 0.8, top_k 20, max_tokens 1024, Qwen3 thinking off) plus a seed, verbalised p, no schema.
 */
export const JudgeOptionsSchema = z.strictObject({
  decoding: DecodingOverridesSchema.optional(),
  /** Send the adapter's answer schema as response_format json_schema (the endpoint must support it). */
  structuredOutput: z.boolean().optional(),
  /** p from the judge's verbalised prob_met / verdict (official), or P(true) of the verdict token. */
  pFrom: PSourceSchema.optional(),
  topLogprobs: z.number().int().min(1).max(20).optional(),
  /** How many times criteria whose verdict could not be read are asked again, on their own. */
  maxReasks: z.number().int().min(0).max(5).optional(),
  /** Temperature of a re-ask (with seed + attempt): a greedy re-ask of the same prompt repeats itself. */
  reaskTemperature: z.number().min(0).max(2).optional(),
  onJudgeFailure: OnJudgeFailureSchema.optional(),
});
export type JudgeOptionsInput = z.input<typeof JudgeOptionsSchema>;

export interface JudgeOptions {
  readonly decoding: Decoding;
  readonly structuredOutput: boolean;
  readonly pFrom: z.infer<typeof PSourceSchema>;
  readonly topLogprobs: number;
  readonly maxReasks: number;
  readonly reaskTemperature: number;
  readonly onJudgeFailure: z.infer<typeof OnJudgeFailureSchema>;
}

export const DEFAULT_SEED = 0;

/** Options with every default filled in; `base` (e.g. the server's flags) under the call's own. */
export function resolveJudgeOptions(input: JudgeOptionsInput | undefined, base?: JudgeOptionsInput): JudgeOptions {
  const merged = { ...base, ...input, decoding: { ...base?.decoding, ...input?.decoding } };
  const { extra, chat_template_kwargs, ...plain } = merged.decoding;
  const decoding: Decoding = {
    ...OFFICIAL_DECODING,
    seed: DEFAULT_SEED,
    ...(stripUndefined(plain) as Partial<Decoding>),
    ...(chat_template_kwargs === undefined ? {} : { chat_template_kwargs }),
    ...(extra === undefined ? {} : { extra }),
  };
  return {
    decoding,
    structuredOutput: merged.structuredOutput ?? false,
    pFrom: merged.pFrom ?? 'verbalized',
    topLogprobs: merged.topLogprobs ?? 5,
    maxReasks: merged.maxReasks ?? 2,
    reaskTemperature: merged.reaskTemperature ?? 0.7,
    onJudgeFailure: merged.onJudgeFailure ?? 'pessimistic',
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
