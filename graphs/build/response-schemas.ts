/*
 * The JSON schemas the official GEAR graph builder sends as response_format (LvCan926/GEAR at
 * 8976106, rubric_prepare/rubric_graph.py: _node_response_schema, _edge_response_schema; Copyright
 * the GEAR authors, Apache License 2.0), with the same names and shapes, plus one bound the official
 * schemas lack: the list holds exactly as many items as criteria (pairs) were asked about. Under
 * grammar-constrained decoding a small model otherwise repeats items until max_tokens cuts it off.
 */
import { EDGE_LABELS, NODE_TYPES } from '../model/vocabulary.js';
import type { CandidatePair } from './candidate-pairs.js';

export function nodeResponseSchema(ids: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      nodes: {
        type: 'array',
        minItems: ids.length,
        maxItems: ids.length,
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            id: { type: 'string', enum: [...ids] },
            node_type: { type: 'string', enum: [...NODE_TYPES].sort() },
          },
          required: ['id', 'node_type'],
        },
      },
    },
    required: ['nodes'],
  };
}

/** Parents and children are separate enums (as officially): off-batch combinations stay possible and are dropped, counted. */
export function edgeResponseSchema(pairs: readonly CandidatePair[]): Record<string, unknown> {
  const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      edges: {
        type: 'array',
        minItems: pairs.length,
        maxItems: pairs.length,
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            parent: { type: 'string', enum: sorted(pairs.map((p) => p.parent)) },
            child: { type: 'string', enum: sorted(pairs.map((p) => p.child)) },
            type: { type: 'string', enum: [...EDGE_LABELS].sort() },
          },
          required: ['parent', 'child', 'type'],
        },
      },
    },
    required: ['edges'],
  };
}
