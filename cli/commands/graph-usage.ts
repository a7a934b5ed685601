// The usage text alone, so `gear --help` shows it without loading the graph builder; the defaults
// come from the settings themselves so the text cannot drift from them.
import { DEFAULT_ANNOTATION_SETTINGS as D, DEFAULT_ROWS_IN_FLIGHT } from '../../graphs/build/annotation-context.js';

/** Each subcommand's usage (`gear graph SUB --help`); together they are `gear graph --help`. */
export const GRAPH_HELP: Readonly<Record<string, string>> = {
  build: `  gear graph build --profile healthbench|writingbench|plawbench|generic --judge-url URL[,URL...]
                   --input rows.(jsonl|parquet) --output out.(jsonl|parquet) [--model M] [--api-key K]
                   [--strategy pairwise|official] [--cache FILE] [--concurrency N] [--limit N]
                   [--pair-candidates N] [--edge-threshold T] [--max-parents N]
                   [--edge-batch-size N] [--role-reasks N] [--edge-reasks N] [--no-schema]
                   [--max-concurrent-requests N] [--timeout SECONDS] [--deadline SECONDS] [--seed S]
                   [--temperature T] [--rpm N] [--tpm N] [--routing prefix|least-outstanding]
      Builds each rubric's dependency graph with the LLM at the OpenAI-compatible endpoints and
      writes the rows with reward_model.graph {nodes, edges} and each criterion's tags.node_type
      (official vocabulary), plus gear_annotation_stats per row and
      <output stem>.annotation_summary.json.
      --strategy pairwise (default): negative points make a penalty; for each criterion, the
      --pair-candidates (${D.pairCandidates}) positive criteria sharing the most topic terms with it are asked
      about, one yes/no question each ("does X build on Y?"); a pair scores logit(P(yes)), from
      the answer's logprobs, plus ${D.similarityWeight} x the topic overlap (0-1), and pairs scoring
      >= --edge-threshold (${D.edgeThreshold}) become weak prerequisites, at most --max-parents (${D.maxParents})
      per criterion; a parent is a foundation, a criterion with a parent, no child and no more
      points than its parent a bonus. Small models can follow it (one-token answers, no JSON);
      the server should keep a prompt cache.
      --strategy official: the official GEAR builder's requests (one role list per rubric, edge
      batches of --edge-batch-size, ${D.edgeBatchSize}), as the paper's graphs were built; labels the sign
      contradicts are kept and counted.
      --concurrency N rows are annotated at a time (${DEFAULT_ROWS_IN_FLIGHT}; their requests share the endpoints'
      --max-concurrent-requests); --limit N takes the first N rows only.
      Input rows: VERL / official GEAR rows (reward_model.rubrics), raw HealthBench rows (prompt,
      rubrics), raw WritingBench rows (query, checklist) or raw PLawBench cases (context,
      question, rubrics). Resumable: finished rows go to <output>.progress.jsonl at once; a re-run
      skips them and, with --cache FILE, replays every LLM answer it already has. A row that fails
      is reported and skipped (exit 1); a re-run retries it. Progress on stderr.
`,
  stats: `  gear graph stats FILE [--profile P] [--format table|json]
      The annotation summary of any file with graphs (official ones too): criteria, candidate and
      retained edges per rubric, update size, non-empty rate, node and edge types, and gear's
      counters (fallbacks, drops by reason, requests, tokens); beside the paper's figures for P.
`,
  check: `  gear graph check FILE [--format table|jsonl]
      Validation report: edges the runtime would drop (and why), edges outside the role rules,
      graph nodes that do not match the criteria, tags.node_type that disagrees with graph.nodes, and
      an extra_info.reward_model that differs from reward_model. Exit 1 when a row has a problem.
`,
  compare: `  gear graph compare FILE --reference GRAPHS [--format table|json]
      Edge precision and recall of FILE's graphs against reference graphs (rows with graphs, or
      conformance/fixtures/*/graphs.jsonl lines), relation-type accuracy on matched edges and
      node-type accuracy. Rows match by source id (prompt_id, WritingBench index), else by position.
`,
};

export const GRAPH_USAGE = Object.values(GRAPH_HELP).join('');
