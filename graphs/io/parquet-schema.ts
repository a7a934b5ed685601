import type { SchemaElement } from 'hyparquet';

/**
 * The shape of a column's values, inferred from the rows (as pyarrow infers it from Python
 * objects): objects are structs with the union of their keys, arrays are lists, integers that fit
 * float64 exactly are INT64, other numbers DOUBLE. Values of conflicting kinds in one place, and
 * objects without keys (parquet has no empty group), are written as JSON text.
 */
export type Shape =
  | { kind: 'null' }
  | { kind: 'bool' }
  | { kind: 'int' }
  | { kind: 'double' }
  | { kind: 'string' }
  | { kind: 'json' }
  | { kind: 'list'; element: Shape }
  | { kind: 'struct'; fields: Map<string, Shape> };

const NULL: Shape = { kind: 'null' };

export function shapeOf(value: unknown): Shape {
  if (value === null || value === undefined) return NULL;
  if (typeof value === 'boolean') return { kind: 'bool' };
  if (typeof value === 'bigint') return { kind: 'int' };
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { kind: 'int' } : { kind: 'double' };
  if (typeof value === 'string') return { kind: 'string' };
  if (Array.isArray(value)) return { kind: 'list', element: value.reduce<Shape>((s, v) => mergeShapes(s, shapeOf(v)), NULL) };
  if (typeof value === 'object') {
    const fields = new Map<string, Shape>();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) fields.set(k, shapeOf(v));
    return { kind: 'struct', fields };
  }
  return { kind: 'json' };
}

export function mergeShapes(a: Shape, b: Shape): Shape {
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'json' || b.kind === 'json') return { kind: 'json' };
  if ((a.kind === 'int' && b.kind === 'double') || (a.kind === 'double' && b.kind === 'int')) return { kind: 'double' };
  if (a.kind === 'list' && b.kind === 'list') return { kind: 'list', element: mergeShapes(a.element, b.element) };
  if (a.kind === 'struct' && b.kind === 'struct') {
    const fields = new Map(a.fields);
    for (const [k, s] of b.fields) fields.set(k, mergeShapes(fields.get(k) ?? NULL, s));
    return { kind: 'struct', fields };
  }
  return a.kind === b.kind ? a : { kind: 'json' };
}

/** Empty structs (anywhere) become JSON text: parquet has no group without children. */
export function finalShape(shape: Shape): Shape {
  if (shape.kind === 'struct') {
    if (shape.fields.size === 0) return { kind: 'json' };
    return { kind: 'struct', fields: new Map([...shape.fields].map(([k, s]) => [k, finalShape(s)])) };
  }
  if (shape.kind === 'list') return { kind: 'list', element: finalShape(shape.element) };
  return shape;
}

/** Schema elements (depth-first, as parquet lists them) for one column of this shape; every level OPTIONAL. */
export function schemaElements(name: string, shape: Shape): SchemaElement[] {
  switch (shape.kind) {
    case 'null':
    case 'string':
      return [{ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' }];
    case 'json':
      return [{ name, type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type: 'OPTIONAL' }];
    case 'bool':
      return [{ name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' }];
    case 'int':
      return [{ name, type: 'INT64', repetition_type: 'OPTIONAL' }];
    case 'double':
      return [{ name, type: 'DOUBLE', repetition_type: 'OPTIONAL' }];
    case 'list':
      return [
        { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        ...schemaElements('element', shape.element),
      ];
    case 'struct':
      return [{ name, repetition_type: 'OPTIONAL', num_children: shape.fields.size }, ...[...shape.fields].flatMap(([k, s]) => schemaElements(k, s))];
  }
}

/** A value laid out for its shape: INT64 as bigint, JSON columns as text, lists and structs recursively. */
export function toColumnValue(value: unknown, shape: Shape): unknown {
  if (value === null || value === undefined) return null;
  switch (shape.kind) {
    case 'json':
      return JSON.stringify(value);
    case 'int':
      return typeof value === 'bigint' ? value : BigInt(value as number);
    case 'double':
      return typeof value === 'bigint' ? Number(value) : value;
    case 'list':
      return (value as unknown[]).map((v) => toColumnValue(v, shape.element));
    case 'struct': {
      const out: Record<string, unknown> = {};
      for (const [k, s] of shape.fields) out[k] = toColumnValue((value as Record<string, unknown>)[k], s);
      return out;
    }
    default:
      return value;
  }
}
