import type { AggregationOptionsInput, AggregatorName } from '../core/index.js';
import { container as rootContainer, type DependencyContainer } from './di.js';
import { SCALARIZER } from './tokens.js';
import { CoreScalarizer, type RubricCompiler } from './scalarizer.js';
import type { HostName } from './host-adapter.js';
import type { RubricAdapter } from './rubric-adapter.js';
import { OfficialGearAdapter } from './official-gear/adapter.js';
import { WritingBenchAdapter, PlawBenchAdapter } from './scored/adapter.js';
import { RuscarlAdapter } from './ruscarl/adapter.js';
import { MerfAdapter } from './merf/adapter.js';
import { RarExplicitAdapter } from './rar-explicit/adapter.js';

/** The adapter class of each host. */
export const ADAPTER_CLASSES = {
  ruscarl: RuscarlAdapter,
  merf: MerfAdapter,
  'rar-explicit': RarExplicitAdapter,
  gear: OfficialGearAdapter,
  writingbench: WritingBenchAdapter,
  plawbench: PlawBenchAdapter,
} as const satisfies Partial<Record<HostName, new (...args: never[]) => RubricAdapter<unknown>>>;

export type SupportedHost = keyof typeof ADAPTER_CLASSES;
export const SUPPORTED_HOSTS = Object.keys(ADAPTER_CLASSES) as SupportedHost[];

/**
 * The composition root: a container whose SCALARIZER is gear's `aggregator` with `options`.
 * Swapping flat for GEAR is this one registration; adapters resolve unchanged.
 */
export function createGearContainer(
  aggregator: AggregatorName,
  options: AggregationOptionsInput = {},
  compile?: RubricCompiler,
): DependencyContainer {
  const child = rootContainer.createChildContainer();
  child.register(SCALARIZER, { useValue: new CoreScalarizer(aggregator, options, compile) });
  return child;
}

export function resolveAdapter(container: DependencyContainer, host: SupportedHost): RubricAdapter<unknown> {
  return container.resolve<RubricAdapter<unknown>>(ADAPTER_CLASSES[host]);
}
