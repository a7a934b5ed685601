export { GearError, isGearError, formatPath, describeValue, type GearErrorCode, type ErrorPath } from './errors.js';
export { parseWith } from './model/parse.js';
export { CriterionSchema, RoleSchema, FiniteNumberSchema, type Criterion, type Role } from './model/criterion.js';
export { EdgeSchema, RelationSchema, RetentionSchema, type Edge, type Relation } from './model/edge.js';
export { RubricSchema, type Rubric, type RubricInput } from './model/rubric.js';
export { JudgeScoresSchema, ProbabilitySchema, type JudgeScores } from './model/judge-scores.js';
export {
  AggregationOptionsSchema,
  MultiParentRuleSchema,
  NormalizationSchema,
  EmptyDenominatorSchema,
  RetentionByRelationSchema,
  type AggregationOptions,
  type AggregationOptionsInput,
  type MultiParentRule,
  type Normalization,
  type EmptyDenominator,
  type RetentionByRelation,
} from './model/options.js';
export { compileRubric, compileParsedRubric, effectiveRetention } from './compile/compile-rubric.js';
export { RELATION_BY_CODE, RELATION_CODE, type CompiledRubric } from './compile/compiled-rubric.js';
export type { CompileReport, DroppedEdge, DropReason, RoleWarning } from './compile/compile-report.js';
export { isAllowedByRoles, effectiveRole } from './compile/role-rules.js';
export {
  aggregate,
  effectiveScores,
  checkScores,
  resolveMethod,
  AggregatorNameSchema,
  type AggregatorName,
  type AggregationMethod,
  type Aggregation,
  type ScoreVector,
} from './aggregators/aggregator.js';
export { aggregateFlat } from './aggregators/flat.js';
export { aggregateHard } from './aggregators/hard-gating.js';
export { aggregateGear } from './aggregators/gear-mean-field.js';
export { aggregateGearExact, isExactFeasible, needsElimination } from './aggregators/gear-exact.js';
export { isMultitree, MULTITREE_MAX_CRITERIA } from './inference/multitree.js';
export { chooseAutoMethod } from './aggregators/auto.js';
export { combineFactors } from './aggregators/multi-parent-rule.js';
export { enumerateMarginals } from './inference/enumerate.js';
export type { EliminationPlan } from './inference/elimination-plan.js';
export { computeReward } from './reward/reward.js';
export { exactSum } from './reward/exact-sum.js';
export { v8Pow } from './numeric/v8-pow.js';
export {
  explainAggregation,
  type AggregationExplanation,
  type CriterionExplanation,
  type EdgeExplanation,
} from './diagnostics/explain-criterion.js';
export {
  explainRecord,
  type ExplainRecord,
  type ExplainedCriterion,
  type ExplainedEdge,
  type RecordAggregator,
} from './diagnostics/explain-record.js';
export { computeFcp, createFcpAccumulator, type FcpAccumulator, type FcpCase, type FcpOptions, type FcpReport, type FcpScore } from './diagnostics/fcp.js';
export { computeExactAgreement, type ExactAgreement } from './diagnostics/exact-agreement.js';
export { rewireGraph } from './ablations/rewire-graph.js';
export { createPrng, shuffled, type Prng } from './random/prng.js';
export { simulateJudgment, type SimulatedJudgment } from './simulation/simulate-judge.js';
export {
  readOfficialRewardModel,
  compileOfficialRewardModel,
  compileOfficialReading,
  toOfficialRewardModel,
  OfficialRewardModelSchema,
  ROLE_TO_NODE_TYPE,
  RELATION_TO_EDGE_TYPE,
  type OfficialRewardModel,
  type OfficialReading,
} from './formats/official-gear.js';
export { rubricShapedEdges, type RubricShape } from './simulation/rubric-shaped-graph.js';
export { detectRubricFormat, compileRubricRecord, scoresOfRecord, type RubricFormat } from './formats/rubric-input.js';
export { compareAggregators, type Comparison } from './aggregators/compare-aggregators.js';
