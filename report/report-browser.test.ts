import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { loadBundledRubrics } from '../conformance/fixtures-loader/bundled-rubrics.js';

/**
 * The report in a real browser: Debian's headless Chromium (scripts/chromium installs it) opens
 * the page `gear report` wrote from a file:// URL. GEAR_SKIP_BROWSER=1 skips this file.
 */
const BROWSER = '/usr/bin/chromium';
const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skip = process.env['GEAR_SKIP_BROWSER'] === '1';

function gear(args: string[]): string {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`gear ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return run.stdout;
}

/** The value at a dotted path of the JSON model (segments are keys or array indices). */
function at(model: unknown, path: string): unknown {
  // Keys may contain dots only in the last segments of rewards.differences ("gear - flat" has none) and graphs.summary.
  const summary = path.match(/^graphs\.summary\.(.+)$/);
  if (summary !== null) return (model as { graphs: { summary: Record<string, number> } }).graphs.summary[summary[1] as string];
  return path.split('.').reduce<unknown>((node, key) => (node === null || node === undefined ? undefined : (node as Record<string, unknown>)[key]), model);
}

describe.skipIf(skip)('gear report in headless Chromium', () => {
  let dir: string;
  let context: BrowserContext;
  let page: Page;
  let model: Record<string, unknown>;
  const consoleErrors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    if (!existsSync(BROWSER)) throw new Error(`${BROWSER} is missing: run scripts/chromium (or set GEAR_SKIP_BROWSER=1)`);
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'gear-report-browser-'));
    // What a newcomer runs: the demo with explanations, graph rows with a build summary line, the report.
    writeFileSync(join(dir, 'demo.jsonl'), gear(['aggregate', '--demo', '--format', 'jsonl', '--explain']));
    const rows = loadBundledRubrics(['healthbench']).map((b) => JSON.stringify({ data_source: 'healthbench', reward_model: b.rewardModel }));
    writeFileSync(join(dir, 'graphs.jsonl'), `${rows.join('\n')}\n${JSON.stringify({ num_rows: rows.length, graph_nonempty_ratio: 0.5, edge_type_counts: { trigger: 1 } })}\n`);
    const common = ['--input', join(dir, 'demo.jsonl'), '--graphs', join(dir, 'graphs.jsonl'), '--views', '6'];
    gear(['report', ...common, '--output', join(dir, 'report.html')]);
    model = JSON.parse(gear(['report', ...common, '--format', 'json'])) as Record<string, unknown>;

    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: BROWSER, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(pathToFileURL(join(dir, 'report.html')).href, { waitUntil: 'load' });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('renders without console errors and asks the network for nothing', async () => {
    expect(await page.locator('h1').textContent()).toMatch(/gear report/);
    expect(consoleErrors).toEqual([]);
    expect(requests).toEqual([]);
    // Charts: rewards, differences, FCP, graph counts, and one drawing per response.
    expect(await page.locator('figure svg').count()).toBeGreaterThanOrEqual(5 + 6);
  });

  it('shows every figure as the JSON has it: the exact value in data-value, the rounded one as text', async () => {
    const figures = await page.locator('[data-figure]').evaluateAll((nodes) =>
      nodes.map((n) => ({ path: n.getAttribute('data-figure') ?? '', value: n.getAttribute('data-value') ?? '', text: n.textContent ?? '' })),
    );
    expect(figures.length).toBeGreaterThan(1000);
    for (const f of figures) {
      const expected = at(model, f.path);
      if (expected === null || expected === undefined) {
        expect(f.value, f.path).toBe('null');
        expect(f.text, f.path).toBe('–');
        continue;
      }
      expect(typeof expected, f.path).toBe('number');
      expect(Number(f.value), f.path).toBe(expected);
      const shown = Number(f.text.replace(/\u2009/g, ''));
      expect(Math.abs(shown - (expected as number)), `${f.path}: "${f.text}" vs ${String(expected)}`).toBeLessThanOrEqual(5e-5 * Math.max(1, Math.abs(expected as number)));
    }
    // The headline figures are among them.
    const paths = new Set(figures.map((f) => f.path));
    for (const p of ['fcp.overall.by_aggregator.gear.leakage', 'fcp.overall.by_aggregator.flat.preservation', 'fcp.by_relation.strong.leakage_cases', 'rewards.by_aggregator.gear_exact.mean', 'rewards.differences.gear - flat.median', 'graphs.edges_kept_per_rubric', 'graphs.summary.graph_nonempty_ratio', 'responses.0.criteria.0.p']) {
      expect(paths.has(p), p).toBe(true);
    }
  });

  it('shows the response chosen in the list, one at a time', async () => {
    const views = page.locator('section.response-view');
    expect(await views.count()).toBe(6);
    expect(await views.nth(0).isVisible()).toBe(true);
    expect(await views.nth(3).isVisible()).toBe(false);
    await page.selectOption('#response-select', '3');
    expect(await views.nth(3).isVisible()).toBe(true);
    expect(await views.nth(0).isVisible()).toBe(false);
    const line = (model['responses'] as { line: number }[])[3]?.line;
    expect(await views.nth(3).locator('h3').textContent()).toMatch(new RegExp(`^Line ${String(line)}\\b`));
    // The drawing of the chosen response: a node per criterion, labelled with its id.
    const criteria = (model['responses'] as { criteria: { id: string }[] }[])[3]?.criteria ?? [];
    const labels = await views.nth(3).locator('figure.graph svg text').allTextContents();
    for (const c of criteria) expect(labels).toContain(c.id);
    expect(consoleErrors).toEqual([]);
  });

  it('is one self-contained file: no external script, stylesheet, image or font', () => {
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(html).not.toMatch(/url\(\s*['"]?https?:/i);
  });
});
