import {
  aggregate,
  compileRubric,
  type AggregationMethod,
  type AggregationOptionsInput,
  type AggregatorName,
  type CompiledRubric,
  type Rubric,
  type ScoreVector,
} from '../core/index.js';

export interface Scalarization {
  readonly method: AggregationMethod;
  readonly reward: number;
  /** Effective score per criterion, in rubric order. */
  readonly q: readonly number[];
}

/** The one step gear swaps: per-criterion scores -> one reward. Injected into every adapter. */
export interface Scalarizer {
  readonly aggregator: AggregatorName;
  /** `hostOptions` carry the host's normalization; the scalarizer adds its own (retention, gamma...). */
  scalarize(rubric: Rubric, scores: ScoreVector, hostOptions: AggregationOptionsInput): Scalarization;
}

/**
 * How a scalarizer gets a compiled rubric. The default compiles on every call; a long-lived
 * process (the service) passes a cached one, since the 8 responses of a prompt share a rubric.
 */
export type RubricCompiler = (rubric: Rubric, options: AggregationOptionsInput) => CompiledRubric;

/** gear's aggregators (flat, hard, gear, gear-exact, auto) as a Scalarizer. */
export class CoreScalarizer implements Scalarizer {
  constructor(
    readonly aggregator: AggregatorName,
    private readonly options: AggregationOptionsInput = {},
    private readonly compile: RubricCompiler = compileRubric,
  ) {}

  /** The merged options per host options object: one stable object, so a compiler may memoise by identity. */
  private readonly merged = new WeakMap<AggregationOptionsInput, AggregationOptionsInput>();

  scalarize(rubric: Rubric, scores: ScoreVector, hostOptions: AggregationOptionsInput): Scalarization {
    let options = this.merged.get(hostOptions);
    if (options === undefined) {
      options = { ...this.options, ...hostOptions };
      this.merged.set(hostOptions, options);
    }
    const compiled = this.compile(rubric, options);
    const { method, reward, q } = aggregate(compiled, this.aggregator, scores);
    return { method, reward, q: Array.from(q) };
  }
}
