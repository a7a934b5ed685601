import { GearError } from '../../../core/index.js';
import { ServiceError } from '../service-error.js';

/**
 * One `alsoAggregators` reward, or null when that aggregator cannot score this rubric (gear-exact
 * over `maxExactCost`, an option it rejects): a side metric never fails the item it rides on.
 * Anything else is a bug and propagates.
 */
export function alsoReward(compute: () => number): number | null {
  try {
    return compute();
  } catch (error) {
    if (error instanceof GearError || error instanceof ServiceError) return null;
    throw error;
  }
}
