/**
 * A base URL nobody listens on, for "endpoint down" tests: a port on 127.0.0.1 is bound, then
 * released, so connecting to it is refused (ECONNREFUSED) rather than timing out. Another process
 * could take the port later; on a test machine that is rare, and the caller sees it as a live
 * endpoint, not as a silent pass.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export async function deadEndpointUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
