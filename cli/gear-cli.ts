import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { GearError } from '../core/errors.js';
import type { SupportedHost } from '../adapters/container.js';
import type { OnJudgeFailure } from '../adapters/judge-output/failure-policy.js';
import { SERVE_FLAGS_USAGE, SERVE_FLAG_OPTIONS } from '../python-bridge/service/serve-flags.js';
import { GRAPH_USAGE } from './commands/graph-usage.js';

// Commands load their modules when they run: `gear aggregate` starts without the judge, the
// service and the adapters (start-up is a large part of scoring a file).
const HEADER = 'gear: dependency-aware aggregation of rubric rewards (GEAR)\n';

/** Each command's usage, shown by `gear CMD --help` and, all together, by `gear --help`. */
const COMMAND_HELP: Readonly<Record<string, string>> = {
  'serve': `  gear serve ${SERVE_FLAGS_USAGE}
             [judge flags of gear judge: --judge-url URL[,URL...] --model M ...]
      The JSON-RPC 2.0 WebSocket service the Python package gear_bridge talks to (methods,
      limits and their defaults in python-bridge/service/README.md). Prints
      {"event":"listening","url":...} on stdout, JSON logs on stderr; --port 0 picks a free port.
      Binding a non-loopback address requires a token (--token or GEAR_TOKEN; clients send
      "Authorization: Bearer T"). Also reads GEAR_BIND, GEAR_PORT, GEAR_LOG_LEVEL.
      SIGTERM/SIGINT drain and exit 0. With --judge-url (or GEAR_JUDGE_URL) it also answers
      judge.score, judge.scoreBatch and judge.info.
`,
  'aggregate': `  gear aggregate [--input FILE] [--output FILE] [--format jsonl|table] [--explain] [--threads N]
                 [--retention weak=0.6,strong=0.2,activation=0] [--gamma G]
                 [--normalize positive-sum|abs-sum] [--clip] [--multi-parent product|geometric-mean|arithmetic-mean|max]
                 [--shared-retention L]
      Reads JSONL (stdin by default). Each line: {"reward_model": <official GEAR reward_model>,
      "p_list": [...], "criteria_met_list": [...]} or {"rubric": {"criteria": [...], "edges": [...]},
      "scores": {"p": [...], "d": [...]}}; an optional "id" is copied to the output. Writes one JSON
      line per input line with the rewards flat, hard, gear and gear_exact and per-criterion scores.
      --explain adds "explain": the rubric graph (criteria with text, role, weight; each one's
      parent edges), every aggregator's scores, and which parent cut how much under GEAR.
      --threads N: N worker threads score beside the main thread (default 0: on 2 shared cores
      they paid off only on files of hundreds of MB); the output is the same.
  gear aggregate --demo [--format jsonl|table] [--explain]
      The same on the bundled real HealthBench rubrics with simulated judge scores (table by default);
      gear aggregate --demo --format jsonl --explain > demo.jsonl writes what gear report reads.
`,
  'sample-input': `  gear sample-input [--responses N] [--seed S] [--benchmark healthbench|writingbench]
      Prints the demo's input lines, to pipe into gear aggregate or to copy the format from.
`,
  'score': `  gear score --host ruscarl|merf|rar-explicit|gear|writingbench|plawbench --aggregator flat|hard|gear|gear-exact|auto
             [--input FILE] [--with-requests] [--on-judge-failure pessimistic|official|error] [--explain]
             [same scalarizer options as aggregate]
      Each JSONL line: {"row": <host row, e.g. VERL extra_info>, "response": "...",
      "judge_outputs": ["<raw judge text>", ...]}. Writes the reward, the host's native reward, the
      number of criteria the judge output did not answer readably, and per criterion p, decision,
      read status and effective score. An unread criterion counts against the response
      (pessimistic: not met, or for a negative criterion the penalty applied); official drops
      unread penalties as the official GEAR code does; error turns the line into an error line.
      --explain adds the same "explain" block as gear aggregate (all four aggregators, the graph).
`,
  'judge': `  gear judge --host ruscarl|merf|rar-explicit|gear|writingbench|plawbench --judge-url URL[,URL...]
             [--model M] [--api-key K] [--input rows.jsonl] [--output out.jsonl] [--cache FILE]
             [--concurrency N] [--max-concurrent-requests N] [--timeout SECONDS] [--deadline SECONDS]
             [--aggregator flat|hard|gear|gear-exact|auto] [--on-judge-failure pessimistic|official|error]
             [--structured-output] [--p-from verbalized|logprobs] [--seed S] [--temperature T]
             [--max-tokens N] [--max-reasks N] [--rpm N] [--tpm N] [--routing prefix|least-outstanding]
             [--explain] [same scalarizer options as aggregate]
      Judges each JSONL line {"row": <host row>, "response": "..."} with the LLM at the
      OpenAI-compatible endpoints (vLLM, SGLang, llama.cpp server, hosted APIs) and scores it. Writes
      what gear score writes plus failed_criteria, the judge's stats and raw outputs (judge_outputs
      re-scores offline with gear score), in input order (a slow row never stops the next ones from
      starting: finished rows wait for it). --concurrency N rows in flight, by default the endpoints'
      capacity (the sum of --max-concurrent-requests over them). Progress on stderr. --cache FILE keeps every
      judge answer in SQLite: a re-run (another aggregator, or after an interruption) makes no LLM
      call for answers it has. Defaults: the official GEAR judge's decoding (temperature 0, top_p 0.8,
      top_k 20, max_tokens 1024, Qwen3 thinking off), seed 0, 2 re-asks of unread criteria, and an
      unread criterion counts against the response (pessimistic). Also reads GEAR_JUDGE_URL,
      GEAR_JUDGE_MODEL, GEAR_JUDGE_API_KEY, GEAR_JUDGE_MAX_CONCURRENT, GEAR_JUDGE_TIMEOUT, GEAR_JUDGE_DEADLINE,
      GEAR_JUDGE_CACHE. Transport faults (429, 408, 5xx, connection errors, timeouts, garbage bodies)
      are retried until --deadline SECONDS per request (default 300, from its first send); only a
      request still unanswered then fails its criteria (failures: the reason per criterion).
      --routing (or GEAR_JUDGE_ROUTING): prefix (default) sends requests that share a leading text
      (a response's criteria, a prompt's rollouts) to the endpoint that got it last, so its prompt
      cache is reused, unless that endpoint's load is out of balance; least-outstanding ignores prefixes.
`,
  'sample-rows': `  gear sample-rows [--host gear|ruscarl] [--limit N] [--responses N]
      Prints gear judge input lines from the bundled HealthBench rows (MIT): each row in the host's
      format (gear: official GEAR rows with the hand-annotated graph) with real responses from the
      data set (the physicians' ideal completion, then the reference completions). Defaults: gear,
      all rows, 2 responses each.
`,
  'graph': GRAPH_USAGE,
  'report': `  gear report [--input FILE] [--graphs rows.(jsonl|parquet)] [--output report.html] [--format html|json]
              [--views N] [--response ID]... [--title T]
      Turns the output of gear aggregate, gear score or gear judge (JSONL; stdin by default) into
      one self-contained HTML page: reward distributions per aggregator and per-response
      differences, FCP leakage and preservation (overall, per relation, per rubric), the N
      responses where GEAR and flat differ most drawn as rubric graphs with what each edge cut
      (default 24; --response ID adds one), judge health (score/judge lines) and, with --graphs,
      the statistics of graph-annotated rows (gear graph build output, and its summary). The FCP figures and the
      drawings need lines written with --explain. --format json writes the same figures as JSON
      (to stdout unless --output). Try:
        gear aggregate --demo --format jsonl --explain > demo.jsonl
        gear report --input demo.jsonl --output report.html
`,
  'agreement': `  gear agreement [--responses N] [--seed S]
      The paper's exact-inference agreement table on the bundled rubrics.
`,
  'conformance': `  gear conformance [--adapter HOST]...
      Runs the adapter conformance checks on the bundled real rubrics; a report per adapter.
`,
};

const USAGE = `${HEADER}
Usage:
${Object.values(COMMAND_HELP).join('')}  gear --help | --version | gear COMMAND --help
`;

/** The scalarizer options `aggregate` and `score` share (see aggregationOptionsFromFlags). */
const SCALARIZER_FLAGS = {
  retention: { type: 'string' },
  gamma: { type: 'string' },
  normalize: { type: 'string' },
  clip: { type: 'boolean' },
  'multi-parent': { type: 'string' },
  'shared-retention': { type: 'string' },
} as const;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function intFlag(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new GearError('usage', [name], `must be an integer >= ${min}, got "${text}"`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === 'graph') {
    const { runGraph } = await import('./commands/graph.js');
    return runGraph(rest, { env: process.env, stdout: process.stdout, stderr: process.stderr });
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    const help = COMMAND_HELP[command];
    if (help === undefined) throw new GearError('usage', [command], 'unknown command (run "gear --help")');
    process.stdout.write(`Usage:\n${help}`);
    return 0;
  }
  if (command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command === 'serve') {
    const { JUDGE_FLAGS } = await import('./options/judge-flags.js');
    const { runServe } = await import('./commands/serve.js');
    const { values } = parseArgs({
      args: rest,
      options: { ...SERVE_FLAG_OPTIONS, ...JUDGE_FLAGS },
      strict: true,
    });
    return runServe(values, { env: process.env, stdout: process.stdout, stderr: process.stderr, version: version() });
  }
  if (command === 'aggregate') {
    const { runAggregate } = await import('./commands/aggregate.js');
    const { aggregationOptionsFromFlags } = await import('./options/aggregation-flags.js');
    const { values } = parseArgs({
      args: rest,
      options: {
        input: { type: 'string' },
        output: { type: 'string' },
        format: { type: 'string' },
        demo: { type: 'boolean' },
        explain: { type: 'boolean' },
        threads: { type: 'string' },
        ...SCALARIZER_FLAGS,
      },
      strict: true,
    });
    const format = values.format ?? (values.demo === true ? 'table' : 'jsonl');
    if (format !== 'jsonl' && format !== 'table') throw new GearError('usage', ['--format'], `must be jsonl or table, got "${format}"`);
    if (values.demo === true && values.input !== undefined) throw new GearError('usage', ['--demo'], 'use either --demo or --input');
    if (values.demo === true) process.stderr.write('gear aggregate: bundled HealthBench rubrics (MIT) with hand-annotated graphs; judge scores are simulated\n');
    const bad = await runAggregate({
      input: values.input,
      output: values.output,
      format,
      explain: values.explain === true,
      threads: values.threads === undefined ? undefined : intFlag('--threads', values.threads, 0, 0),
      options: aggregationOptionsFromFlags(values),
      lines: values.demo === true ? toAsync((await import('./commands/sample-input.js')).sampleInputLines({ responsesPerRubric: 8, seed: 1, benchmarks: ['healthbench'] })) : undefined,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    return bad > 0 ? 1 : 0;
  }
  if (command === 'score') {
    const { ON_JUDGE_FAILURE_VALUES, aggregationOptionsFromFlags } = await hostCommandModules();
    const { runScore } = await import('./commands/score.js');
    const { values } = parseArgs({
      args: rest,
      options: {
        host: { type: 'string' },
        aggregator: { type: 'string' },
        input: { type: 'string' },
        'with-requests': { type: 'boolean' },
        'on-judge-failure': { type: 'string' },
        explain: { type: 'boolean' },
        ...SCALARIZER_FLAGS,
      },
      strict: true,
    });
    const { host, aggregator } = await hostAndAggregator(values);
    const onJudgeFailure = values['on-judge-failure'] ?? 'pessimistic';
    if (!(ON_JUDGE_FAILURE_VALUES as readonly string[]).includes(onJudgeFailure)) {
      throw new GearError('usage', ['--on-judge-failure'], `must be ${ON_JUDGE_FAILURE_VALUES.join(', ')}, got "${onJudgeFailure}"`);
    }
    const bad = await runScore({
      host,
      onJudgeFailure: onJudgeFailure as OnJudgeFailure,
      aggregator,
      options: aggregationOptionsFromFlags(values),
      input: values.input,
      withRequests: values['with-requests'] === true,
      explain: values.explain === true,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    return bad > 0 ? 1 : 0;
  }
  if (command === 'judge') {
    const { aggregationOptionsFromFlags } = await hostCommandModules();
    const { JUDGE_FLAGS, judgeConfigFromFlags } = await import('./options/judge-flags.js');
    const { runJudge } = await import('./commands/judge.js');
    const { values } = parseArgs({
      args: rest,
      options: {
        host: { type: 'string' },
        aggregator: { type: 'string' },
        input: { type: 'string' },
        output: { type: 'string' },
        concurrency: { type: 'string' },
        explain: { type: 'boolean' },
        ...JUDGE_FLAGS,
        ...SCALARIZER_FLAGS,
      },
      strict: true,
    });
    const { host, aggregator } = await hostAndAggregator(values);
    const judge = judgeConfigFromFlags(values, process.env);
    if (judge === undefined) throw new GearError('usage', ['--judge-url'], 'missing: the judge endpoint(s), e.g. --judge-url http://127.0.0.1:8000/v1 (or GEAR_JUDGE_URL)');
    const bad = await runJudge({
      host,
      aggregator,
      options: aggregationOptionsFromFlags(values),
      judge,
      input: values.input,
      output: values.output,
      // Default: the endpoints' capacity (the sum of --max-concurrent-requests over them).
      concurrency: values.concurrency === undefined ? undefined : intFlag('--concurrency', values.concurrency, 1, 1),
      explain: values.explain === true,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    return bad > 0 ? 1 : 0;
  }
  if (command === 'report') {
    const { runReport } = await import('./commands/report.js');
    const { values } = parseArgs({
      args: rest,
      options: {
        input: { type: 'string' },
        graphs: { type: 'string' },
        output: { type: 'string' },
        format: { type: 'string' },
        views: { type: 'string' },
        response: { type: 'string', multiple: true },
        title: { type: 'string' },
      },
      strict: true,
    });
    const format = values.format ?? 'html';
    if (format !== 'html' && format !== 'json') throw new GearError('usage', ['--format'], `must be html or json, got "${format}"`);
    await runReport({
      input: values.input,
      graphs: values.graphs,
      output: values.output,
      format,
      views: intFlag('--views', values.views, 24, 0),
      responseIds: values.response ?? [],
      title: values.title,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    return 0;
  }
  if (command === 'sample-rows') {
    const { sampleRowLines } = await import('./commands/sample-rows.js');
    const { values } = parseArgs({ args: rest, options: { host: { type: 'string' }, limit: { type: 'string' }, responses: { type: 'string' } }, strict: true });
    const host = values.host ?? 'gear';
    if (host !== 'gear' && host !== 'ruscarl') throw new GearError('usage', ['--host'], `must be gear or ruscarl, got "${host}"`);
    for (const line of sampleRowLines({ host, limit: intFlag('--limit', values.limit, Number.MAX_SAFE_INTEGER, 1), responses: intFlag('--responses', values.responses, 2, 1) })) {
      if (!process.stdout.write(`${line}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
    return 0;
  }
  if (command === 'sample-input') {
    const { sampleInputLines } = await import('./commands/sample-input.js');
    const { values } = parseArgs({
      args: rest,
      options: { responses: { type: 'string' }, seed: { type: 'string' }, benchmark: { type: 'string', multiple: true } },
      strict: true,
    });
    const benchmarks = (values.benchmark ?? ['healthbench']).map((b) => {
      if (b !== 'healthbench' && b !== 'writingbench') throw new GearError('usage', ['--benchmark'], `unknown benchmark "${b}"`);
      return b;
    });
    for (const line of sampleInputLines({
      responsesPerRubric: intFlag('--responses', values.responses, 8, 1),
      seed: intFlag('--seed', values.seed, 1, 0),
      benchmarks,
    })) {
      if (!process.stdout.write(`${line}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
    return 0;
  }
  if (command === 'agreement') {
    const { agreementRows, renderAgreement } = await import('./commands/agreement.js');
    const { values } = parseArgs({ args: rest, options: { responses: { type: 'string' }, seed: { type: 'string' } }, strict: true });
    const rows = agreementRows(intFlag('--responses', values.responses, 100, 1), intFlag('--seed', values.seed, 1, 0));
    process.stdout.write(renderAgreement(rows));
    return 0;
  }
  if (command === 'conformance') {
    const { SUPPORTED_HOSTS } = await import('../adapters/container.js');
    const { conformanceReports, renderConformance } = await import('./commands/conformance.js');
    const { values } = parseArgs({ args: rest, options: { adapter: { type: 'string', multiple: true } }, strict: true });
    const hosts = (values.adapter ?? SUPPORTED_HOSTS).map((h) => {
      if (!(SUPPORTED_HOSTS as string[]).includes(h)) throw new GearError('usage', ['--adapter'], `must be one of ${SUPPORTED_HOSTS.join(', ')}, got "${h}"`);
      return h as SupportedHost;
    });
    const reports = conformanceReports(hosts);
    process.stdout.write(renderConformance(reports));
    return reports.some((r) => r.results.some((c) => c.failures.length > 0)) ? 1 : 0;
  }
  throw new GearError('usage', [command], `unknown command (run "gear --help")`);
}

/** What `score` and `judge` share: the host list, the aggregator names, the scalarizer flags. */
async function hostCommandModules() {
  const [{ SUPPORTED_HOSTS }, { AggregatorNameSchema }, { ON_JUDGE_FAILURE_VALUES }, { aggregationOptionsFromFlags }] = await Promise.all([
    import('../adapters/container.js'),
    import('../core/index.js'),
    import('../adapters/judge-output/failure-policy.js'),
    import('./options/aggregation-flags.js'),
  ]);
  return { SUPPORTED_HOSTS, AggregatorNameSchema, ON_JUDGE_FAILURE_VALUES, aggregationOptionsFromFlags };
}

/** --host and --aggregator of the commands that score in a host's format (score, judge), checked. */
async function hostAndAggregator(values: { readonly host?: string | undefined; readonly aggregator?: string | undefined }) {
  const { SUPPORTED_HOSTS, AggregatorNameSchema } = await hostCommandModules();
  if (values.host === undefined || !(SUPPORTED_HOSTS as string[]).includes(values.host)) {
    throw new GearError('usage', ['--host'], `must be one of ${SUPPORTED_HOSTS.join(', ')}, got "${values.host ?? ''}"`);
  }
  const aggregator = AggregatorNameSchema.safeParse(values.aggregator ?? 'gear');
  if (!aggregator.success) throw new GearError('usage', ['--aggregator'], `must be flat, hard, gear, gear-exact or auto, got "${values.aggregator}"`);
  return { host: values.host as SupportedHost, aggregator: aggregator.data };
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof GearError) {
      process.stderr.write(`gear: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`gear: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'EACCES')) {
      process.stderr.write(`gear: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      throw error;
    }
  },
);
