import type { z } from 'zod';
import type { ServiceContext } from '../service-context.js';

/** One JSON-RPC method: its `noun.verb` name, its params schema and its handler. */
export interface Method<S extends z.ZodType = z.ZodType, R = unknown> {
  readonly name: string;
  readonly params: S;
  handle(params: z.output<S>, context: ServiceContext): R;
}

export function defineMethod<S extends z.ZodType, R>(method: Method<S, R>): Method<S, R> {
  return method;
}
