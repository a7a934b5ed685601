import { z } from 'zod';

/** What the cache keeps of one judge answer: enough to re-parse and re-score it offline. */
export const CachedAnswerSchema = z.object({
  content: z.string(),
  finishReason: z.string().nullable(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  /** Absent in answers cached before it was recorded. */
  cachedPromptTokens: z.number().int().nonnegative().optional(),
  logprobs: z
    .array(
      z.object({
        token: z.string(),
        logprob: z.number(),
        top: z.array(z.object({ token: z.string(), logprob: z.number() })),
      }),
    )
    .optional(),
});
export type CachedAnswer = z.infer<typeof CachedAnswerSchema>;
