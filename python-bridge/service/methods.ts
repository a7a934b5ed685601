import type { Method } from './methods/method.js';
import { serverHealth, serverInfo } from './methods/server-info.js';
import { rubricRegister, rubricRegisterBatch } from './methods/rubric-register.js';
import { rubricScore, rubricScoreBatch } from './methods/rubric-score.js';
import { rubricScoreColumns } from './methods/rubric-score-columns.js';
import { hostRequests, hostScore, hostScoreBatch } from './methods/host-score.js';
import { diagnosticsFcp } from './methods/diagnostics-fcp.js';
import { judgeInfo, judgeScore, judgeScoreBatch } from './methods/judge-score.js';

/** The method table: every `noun.verb` the service answers, each with its params schema. */
export const METHODS: readonly Method[] = [
  serverInfo,
  serverHealth,
  rubricRegister,
  rubricRegisterBatch,
  rubricScore,
  rubricScoreBatch,
  rubricScoreColumns,
  hostRequests,
  hostScore,
  hostScoreBatch,
  diagnosticsFcp,
  judgeScore,
  judgeScoreBatch,
  judgeInfo,
] as readonly Method[];

export const METHOD_NAMES: readonly string[] = METHODS.map((m) => m.name);
