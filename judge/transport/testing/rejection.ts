/**
 * The error `promise` rejects with, for a test to look into. A rejection with anything other than
 * a `type`, or no rejection at all, fails the test.
 */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a rejection with ${type.name}`);
}
