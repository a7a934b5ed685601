import type { JudgeResponseSchema } from '../host-adapter.js';

/*
 * JSON schemas of exactly what each host's parser reads, in the strict subset OpenAI-compatible
 * structured output accepts: every object closed (additionalProperties false) with every
 * property required.
 */

type Schema = Readonly<Record<string, unknown>>;

export function closedObject(properties: Readonly<Record<string, Schema>>): Schema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

export const BOOLEAN: Schema = { type: 'boolean' };
export const STRING: Schema = { type: 'string' };

export function numberIn(minimum: number, maximum: number): Schema {
  return { type: 'number', minimum, maximum };
}

export function integerIn(minimum: number, maximum: number): Schema {
  return { type: 'integer', minimum, maximum };
}

/** {"1": item(0), ..., "n": item(n-1)}: a batch judge's answer for n criteria. */
export function keyedObject(count: number, item: (k: number) => Schema): Schema {
  const properties: Record<string, Schema> = {};
  for (let k = 0; k < count; k++) properties[String(k + 1)] = item(k);
  return closedObject(properties);
}

export function responseSchema(name: string, schema: Schema): JudgeResponseSchema {
  return { name, schema };
}
