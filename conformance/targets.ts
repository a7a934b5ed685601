import { createGearContainer, resolveAdapter, SUPPORTED_HOSTS, type SupportedHost } from '../adapters/container.js';
import type { JudgeRequest } from '../adapters/host-adapter.js';
import type { ScoredRow } from '../adapters/scored/format.js';
import type { AdapterCase, AdapterUnderTest } from './checks.js';
import { bundledCases, judgedScore, localPlawBenchRows } from './host-cases.js';

type Output = Record<string, Record<string, unknown>>;

/** RaR's own data is not reachable here: its format runs on HealthBench rubrics in RaR form. */
function rarCategory(points: number): string {
  if (points < 0) return 'Pitfall';
  if (points >= 7) return 'Essential';
  return points >= 4 ? 'Important' : 'Optional';
}

interface OfficialRow {
  prompt: { role: string; content: string }[];
  reward_model: { rubrics: { criterion: string; points: number }[]; graph: unknown };
}

function toRuscarlRow(row: unknown): unknown {
  const r = row as OfficialRow;
  return {
    prompt: r.prompt,
    reward_model: { rubrics: r.reward_model.rubrics.map((x) => ({ criterion: x.criterion, points: x.points, tags: [] })), graph: r.reward_model.graph },
  };
}

function toRarRow(row: unknown): unknown {
  const r = row as OfficialRow;
  return {
    prompt: r.prompt,
    rubric: r.reward_model.rubrics.map((x, i) => ({ title: `item ${i + 1}`, description: `${rarCategory(x.points)} Criteria: ${x.criterion}`, weight: x.points })),
    graph: r.reward_model.graph,
  };
}

/** A host's target for the conformance checks, on the bundled real rubrics (PLawBench: ../shared when present). */
export function conformanceTarget(host: SupportedHost): AdapterUnderTest {
  const adapter = resolveAdapter(createGearContainer('flat'), host);
  const requestsOf = (row: unknown, response: string): JudgeRequest[] => adapter.format.buildJudgeRequests(adapter.format.parseRow(row), response);
  const resolve = (container: Parameters<AdapterUnderTest['resolve']>[0]): ReturnType<AdapterUnderTest['resolve']> => resolveAdapter(container, host);

  switch (host) {
    case 'gear': {
      const wellFormedOutput = (request: JudgeRequest, caseIndex: number): Output =>
        Object.fromEntries(
          request.criteria.map((criterion, k) => {
            const p = judgedScore(caseIndex, criterion);
            return [String(k + 1), { criteria_met: p >= 0.5, prob_met: p }];
          }),
        );
      const cases = bundledCases('healthbench', (q, i) => JSON.stringify(wellFormedOutput(q, i)), ({ row, response }) => requestsOf(row, response));
      return { host: 'gear (official GEAR rows, HealthBench)', resolve, cases, wellFormedOutput };
    }
    case 'ruscarl':
    case 'merf': {
      const wellFormedOutput = (request: JudgeRequest, caseIndex: number): Output => {
        const met = judgedScore(caseIndex, request.criteria[0] ?? 0) >= 0.5;
        return { '1': { explanation: met ? 'The response does this.' : 'The response does not do this.', criteria_met: met } };
      };
      const cases = bundledCases(
        'healthbench',
        (q, i) => JSON.stringify(wellFormedOutput(q, i)['1']),
        ({ row, response }) => requestsOf(toRuscarlRow(row), response),
      ).map((c) => ({ ...c, row: toRuscarlRow(c.row) }));
      return { host, resolve, cases, wellFormedOutput, layout: { kind: 'single', decision: 'criteria_met' } };
    }
    case 'rar-explicit': {
      const wellFormedOutput = (request: JudgeRequest, caseIndex: number): Output => ({
        '1': { satisfied: judgedScore(caseIndex, request.criteria[0] ?? 0) >= 0.5 },
      });
      const cases = bundledCases(
        'healthbench',
        (q, i) => '```json\n' + JSON.stringify(wellFormedOutput(q, i)['1']) + '\n```',
        ({ row, response }) => requestsOf(toRarRow(row), response),
      ).map((c) => ({ ...c, row: toRarRow(c.row) }));
      return { host: 'rar-explicit (HealthBench rubrics in RaR form)', resolve, cases, wellFormedOutput, layout: { kind: 'single', decision: 'satisfied' } };
    }
    case 'writingbench':
    case 'plawbench': {
      const rows = new Map<number, ScoredRow>();
      const wellFormedOutput = (request: JudgeRequest, caseIndex: number): Output => {
        const row = rows.get(caseIndex) as ScoredRow;
        return Object.fromEntries(
          request.criteria.map((criterion, k) => {
            const item = row.items[criterion];
            const p = judgedScore(caseIndex, criterion);
            if (host === 'plawbench') {
              // PLawBench's default judge answers a probability per "(+N分)" subitem.
              const subitems = (item?.subitems ?? []).map((_, j) => [String(j + 1), { prob_met: judgedScore(caseIndex, criterion * 31 + j) }]);
              return [String(k + 1), { subitems: Object.fromEntries(subitems) }];
            }
            if (item?.scoreType === 'scale_1_10') return [String(k + 1), { score: 1 + Math.round(p * 9) }];
            return [String(k + 1), { awarded_points: Math.round(p * (item?.maxScore ?? 0)) }];
          }),
        );
      };
      const remember = (caseIndex: number, row: unknown): void => {
        rows.set(caseIndex, adapter.format.parseRow(row) as ScoredRow);
      };
      let cases: AdapterCase[];
      if (host === 'writingbench') {
        cases = bundledCases('writingbench', (q, i) => JSON.stringify(wellFormedOutput(q, i)), ({ row, response, caseIndex }) => {
          remember(caseIndex, row);
          return requestsOf(row, response);
        });
      } else {
        cases = [];
        localPlawBenchRows().forEach((row, n) => {
          for (let r = 0; r < 2; r++) {
            const caseIndex = cases.length;
            const response = `答复 ${r + 1}`;
            remember(caseIndex, row);
            const judgeOutputs = requestsOf(row, response).map((q) => JSON.stringify(wellFormedOutput(q, caseIndex)));
            cases.push({ name: `plawbench:${n + 1}#${r + 1}`, row, response, judgeOutputs });
          }
        });
      }
      return { host, resolve, cases, wellFormedOutput };
    }
  }
}

export { SUPPORTED_HOSTS };
