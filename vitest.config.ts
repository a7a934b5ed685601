import { defineConfig } from 'vitest/config';

export default defineConfig({
  // tsyringe's @inject(TOKEN) is a (legacy) parameter decorator; no decorator metadata is emitted.
  oxc: { decorator: { legacy: true, emitDecoratorMetadata: false } },
  test: {
    include: ['core/**/*.test.ts', 'adapters/**/*.test.ts', 'judge/**/*.test.ts', 'graphs/**/*.test.ts', 'cli/**/*.test.ts', 'report/**/*.test.ts', 'bench/**/*.test.ts', 'conformance/**/*.test.ts', 'python-bridge/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 60_000,
    // Two cores: keep CI predictable.
    maxWorkers: 2,
  },
});
