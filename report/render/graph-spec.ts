import dagre from '@dagrejs/dagre';
import type { TopLevelSpec } from 'vega-lite';
import type { ResponseView } from '../model/report-model.js';
import { RELATION_COLOR } from './chart-specs.js';

const NODE = 34;
const MARGIN = 28;
const ROLE_SHAPE: Readonly<Record<string, string>> = { foundation: 'circle', bonus: 'diamond', penalty: 'square', activation: 'triangle-up' };

const fixed = (x: number, digits = 3): string => (Math.abs(x) < 5e-4 ? '0' : x.toFixed(digits));

/**
 * A response's rubric graph as a Vega-Lite spec: dagre lays the graph out in layers (parents
 * above children); the chart library draws the laid-out nodes (fill by p, shape by role) and edge
 * polylines (colour by relation, the edges that cut most credit thick and labelled), at the
 * layout's own pixel coordinates.
 */
export function graphSpec(view: ResponseView): TopLevelSpec {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 26, ranksep: 54, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of view.criteria) g.setNode(c.id, { width: NODE, height: NODE });
  view.edges.forEach((e, k) => g.setEdge(e.parent, e.child, { k }));
  dagre.layout(g);
  const size = g.graph();
  const width = Math.max(240, Math.ceil(size.width ?? 0));
  const height = Math.max(120, Math.ceil(size.height ?? 0));

  const nodes = view.criteria.map((c) => {
    const n = g.node(c.id);
    return { id: c.id, x: n.x, y: n.y, p: c.p, role: c.role, q: c.q.gear ?? c.p };
  });
  const points: { edge: number; order: number; x: number; y: number; relation: string; width: number }[] = [];
  const heads: { x: number; y: number; angle: number; relation: string; size: number }[] = [];
  const labels: { x: number; y: number; text: string }[] = [];
  view.edges.forEach((e, k) => {
    const pts: { x: number; y: number }[] = g.edge(e.parent, e.child)?.points ?? [];
    pts.forEach((pt, order) => points.push({ edge: k, order, x: pt.x, y: pt.y, relation: e.relation, width: e.top ? 4 : 1.4 }));
    const last = pts[pts.length - 1];
    const before = pts[pts.length - 2];
    if (last !== undefined && before !== undefined) {
      heads.push({ x: last.x, y: last.y, angle: ((Math.atan2(last.x - before.x, before.y - last.y) * 180) / Math.PI + 360) % 360, relation: e.relation, size: e.top ? 110 : 45 });
    }
    const mid = pts[Math.floor(pts.length / 2)];
    if (e.top && mid !== undefined) labels.push({ x: mid.x + 6, y: mid.y, text: `${e.credit_cut > 0 ? '−' : '+'}${fixed(Math.abs(e.credit_cut))}` });
  });

  const position = {
    x: { field: 'x', type: 'quantitative', scale: null, axis: null },
    y: { field: 'y', type: 'quantitative', scale: null, axis: null },
  } as const;
  const relations = Object.keys(RELATION_COLOR);
  const relationColor = {
    field: 'relation',
    type: 'nominal',
    scale: { domain: relations, range: relations.map((r) => RELATION_COLOR[r] as string) },
    legend: { title: 'edge (relation)', orient: 'right' },
  } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width,
    height,
    view: { stroke: null },
    resolve: { scale: { color: 'independent', strokeWidth: 'independent', size: 'independent', shape: 'independent' } },
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', interpolate: 'basis' },
        encoding: {
          ...position,
          detail: { field: 'edge', type: 'nominal' },
          order: { field: 'order', type: 'quantitative' },
          color: relationColor,
          strokeWidth: { field: 'width', type: 'quantitative', scale: null },
          opacity: { value: 0.85 },
        },
      },
      {
        data: { values: heads },
        mark: { type: 'point', shape: 'triangle-up', filled: true },
        encoding: {
          ...position,
          angle: { field: 'angle', type: 'quantitative', scale: { domain: [0, 360], range: [0, 360] } },
          color: { ...relationColor, legend: null },
          size: { field: 'size', type: 'quantitative', scale: null },
        },
      },
      {
        data: { values: nodes },
        mark: { type: 'point', filled: true, stroke: '#24292f', strokeWidth: 1 },
        encoding: {
          ...position,
          shape: {
            field: 'role',
            type: 'nominal',
            scale: { domain: Object.keys(ROLE_SHAPE), range: Object.values(ROLE_SHAPE) },
            legend: { title: 'criterion (role)', orient: 'right', symbolFillColor: '#ffffff' },
          },
          size: { value: NODE * NODE * 0.9 },
          color: { field: 'p', type: 'quantitative', scale: { domain: [0, 1], range: ['#fff5eb', '#2b8cbe'] }, legend: { title: 'p (judge)', orient: 'right', gradientLength: 90 } },
        },
      },
      {
        data: { values: nodes },
        mark: { type: 'text', fontSize: 10, fontWeight: 'bold', baseline: 'middle' },
        encoding: { ...position, text: { field: 'id' } },
      },
      {
        data: { values: labels },
        mark: { type: 'text', align: 'left', fontSize: 11, fontWeight: 'bold', color: '#b31d28', baseline: 'middle' },
        encoding: { ...position, text: { field: 'text' } },
      },
    ],
  } as TopLevelSpec;
}
