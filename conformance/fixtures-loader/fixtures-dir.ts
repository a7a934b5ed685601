import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** conformance/fixtures of this package, found from this module (works from sources and from dist/). */
export function fixturesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'conformance', 'fixtures');
    if (existsSync(join(candidate, 'healthbench', 'graphs.jsonl'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('gear: bundled fixtures (conformance/fixtures) not found next to the package');
    dir = parent;
  }
}

/**
 * A folder of the development machine's unshipped rubric data (shared/rubric-data/<name>) in the
 * package's directory or any parent, or undefined (e.g. PLawBench, whose data has no license).
 */
export function localRubricDataDir(name: string): string | undefined {
  let dir = dirname(fixturesDir());
  for (;;) {
    const candidate = join(dir, 'shared', 'rubric-data', name);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
