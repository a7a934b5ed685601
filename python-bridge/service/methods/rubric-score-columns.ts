import { aggregate, checkScores, computeReward, createFcpAccumulator, GearError, type AggregatorName, type CompiledRubric } from '../../../core/index.js';
import { Slices } from './cooperative.js';
import { methodWithinCost } from './exact-cost.js';
import { decodeFloat64Base64, encodeFloat64Base64 } from '../float64-base64.js';
import { ScoreColumnsParamsSchema } from '../params.js';
import { resolveOptions } from '../rubric-cache.js';
import { itemError, type ItemError } from './item-error.js';
import { defineMethod } from './method.js';
import { checkRubricIdsKnown } from './resolve-rubric.js';
import { alsoReward } from './also-reward.js';
import { columnRubrics } from './column-rubrics.js';

/**
 * A GRPO step in columns: one registered rubric id per response (or the step's distinct rubrics in
 * `rubrics`, new ones inline, and `rubricIndex` into them) and every response's scores in
 * one float64-base64 string, concatenated in response order (each response has as many as its
 * rubric has criteria), decisions `d` (optional, for hard gating) likewise as one boolean array. Rewards come back as arrays, effective scores as one string again;
 * `alsoAggregators` adds `also: {name: rewards}` from the same scores (a trainer's side metrics). The
 * same arithmetic as rubric.scoreBatch, without per-item objects on either side of the socket.
 */
export const rubricScoreColumns = defineMethod({
  name: 'rubric.scoreColumns',
  params: ScoreColumnsParamsSchema,
  handle: async (params, context) => {
    const options = resolveOptions(params.options);
    const columns = await columnRubrics(params, context, options);
    const { rubricIds, field } = columns;
    checkRubricIdsKnown(context, rubricIds);
    const aggregator: AggregatorName = params.aggregator ?? 'gear';
    // A rubric that does not compile under these options (onInvalidEdge: reject) fails its own
    // responses only, at path rubricIds[i] (or rubricIndex[i]) + the rubric's field; its size still
    // places the others.
    const compileErrors = new Map<string, GearError>();
    const compiled: (CompiledRubric | undefined)[] = rubricIds.map((id) => {
      if (compileErrors.has(id)) return undefined;
      try {
        return context.cache.compiledById(id, options);
      } catch (error) {
        if (!(error instanceof GearError)) throw error;
        compileErrors.set(id, error);
        return undefined;
      }
    });
    const sizes = rubricIds.map((id, i) => compiled[i]?.size ?? (context.cache.sizeOf(id) as number));
    const total = sizes.reduce((a, b) => a + b, 0);
    const p = decodeFloat64Base64(params.p, ['p']);
    if (p.length !== total) {
      throw new GearError('invalid_input', ['p'], `has ${p.length} scores but the rubrics of rubricIds have ${total} criteria in all`);
    }
    const { d } = params;
    if (d !== undefined && d.length !== total) {
      throw new GearError('invalid_input', ['d'], `has ${d.length} decisions but the rubrics of rubricIds have ${total} criteria in all`);
    }
    const q = new Float64Array(total);
    const rewards: (number | null)[] = new Array<number | null>(rubricIds.length);
    const flat: (number | null)[] = new Array<number | null>(rubricIds.length);
    const methods: (string | null)[] = new Array<string | null>(rubricIds.length);
    const alsoNames = params.alsoAggregators ?? [];
    const also = alsoNames.map(() => new Array<number | null>(rubricIds.length).fill(null));
    const scratch = new Float64Array(Math.max(0, ...sizes));
    // A step's FCP figure from the same scores, in the same request (diagnostics.fcp would need the
    // step's scores sent again): the responses scored without error, as diagnostics.fcp counts them.
    const fcpSettings = params.fcp;
    const fcp = fcpSettings === undefined ? undefined : createFcpAccumulator({
      ...(fcpSettings.aggregators === undefined ? {} : { aggregators: fcpSettings.aggregators }),
      ...(fcpSettings.threshold === undefined ? {} : { threshold: fcpSettings.threshold }),
      ...(fcpSettings.relations === undefined ? {} : { relations: fcpSettings.relations }),
    });
    const fcpExact = fcpSettings?.aggregators?.includes('gear-exact') ?? false;
    let fcpSkipped = 0;
    const errors: ItemError[] = [];
    let offset = 0;
    const slices = new Slices(context);
    for (let index = 0; index < compiled.length; index++) {
      if (slices.due()) await slices.next();
      const rubric: CompiledRubric | undefined = compiled[index];
      const size = sizes[index] as number;
      const pi = p.subarray(offset, offset + size);
      try {
        if (rubric === undefined) throw (compileErrors.get(rubricIds[index] as string) as GearError).under([field, index]);
        let scores;
        try {
          scores = checkScores(rubric, { p: pi, d: d?.slice(offset, offset + rubric.size) });
        } catch (error) {
          throw error instanceof GearError && error.path[1] !== undefined ? new GearError(error.code, ['p', offset + (error.path[1] as number)], error.detail) : error;
        }
        const result = aggregate(rubric, methodWithinCost(context, rubric, aggregator), scores, q.subarray(offset, offset + rubric.size));
        rewards[index] = result.reward;
        methods[index] = result.method;
        flat[index] = result.method === 'flat' ? result.reward : computeReward(rubric, pi);
        if (fcp !== undefined) {
          // Over maxExactCost, gear-exact has no figure for this rubric: skipped, as diagnostics.fcp does.
          const exactOk = !fcpExact || alsoReward(() => aggregate(rubric, methodWithinCost(context, rubric, 'gear-exact'), scores, scratch.subarray(0, rubric.size)).reward) !== null;
          if (exactOk) fcp.add({ compiled: rubric, scores });
          else fcpSkipped += 1;
        }
        for (let k = 0; k < alsoNames.length; k++) {
          const name = alsoNames[k] as AggregatorName;
          // A side metric that cannot be had (gear-exact over maxExactCost) is null, not the item's error.
          (also[k] as (number | null)[])[index] = alsoReward(() => aggregate(rubric, methodWithinCost(context, rubric, name), scores, scratch.subarray(0, rubric.size)).reward);
        }
      } catch (error) {
        errors.push(itemError(index, error, [field, index]));
        rewards[index] = null;
        flat[index] = null;
        methods[index] = null;
        q.fill(0, offset, offset + size);
      }
      offset += size;
    }
    return {
      rewards,
      flat,
      methods,
      sizes,
      effective: encodeFloat64Base64(q),
      errors,
      ...(columns.registered === undefined ? {} : { rubricIds: columns.registered }),
      ...(alsoNames.length === 0 ? {} : { also: Object.fromEntries(alsoNames.map((name, k) => [name, also[k]])) }),
      ...(fcp === undefined ? {} : { fcp: { ...fcp.report(), skipped: fcpSkipped } }),
    };
  },
});
