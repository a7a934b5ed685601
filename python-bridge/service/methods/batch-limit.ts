import { limitExceeded } from '../service-error.js';
import type { ServiceContext } from '../service-context.js';

/** @throws ServiceError `limit_exceeded` when a batch method gets more items than allowed. */
export function checkBatchSize(items: readonly unknown[], context: ServiceContext): void {
  if (items.length > context.limits.maxBatchItems) throw limitExceeded('maxBatchItems', context.limits.maxBatchItems, items.length);
}
