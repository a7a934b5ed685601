/**
 * Progress of a graph build on stderr: rows done of total (resumed rows included), edges kept,
 * failed rows, the LLM requests endpoints answered this run and their tokens (counted as each
 * answer arrives, so a row that takes many minutes still shows its progress), and the time left at
 * this run's pace. Redrawn in place on a terminal; elsewhere one line every 10 s, whether or not a
 * row finished (a build runs for hours; silence looks like a hang).
 */
export class BuildProgress {
  private rows = 0;
  private rowsThisRun = 0;
  private edges = 0;
  private failed = 0;
  private requests = 0;
  private tokens = 0;
  private last = 0;
  private readonly started = performance.now();
  private readonly intervalMs: number;
  private readonly ticker: NodeJS.Timeout;

  constructor(
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly total: number,
    resumed: number,
    /** How often a line is written when stderr is not a terminal. */
    lineEveryMs = 10_000,
  ) {
    this.rows = resumed;
    this.intervalMs = stream.isTTY === true ? 250 : lineEveryMs;
    this.ticker = setInterval(() => this.draw(), this.intervalMs);
    this.ticker.unref();
  }

  /** One answer from an endpoint (answers replayed from the cache cost nothing and are not counted). */
  requestAnswered(tokens: number): void {
    this.requests++;
    this.tokens += tokens;
    this.draw();
  }

  rowDone(edges: number): void {
    this.rows++;
    this.rowsThisRun++;
    this.edges += edges;
    this.draw();
  }

  rowFailed(): void {
    this.failed++;
    this.draw();
  }

  finish(): void {
    clearInterval(this.ticker);
    if (this.stream.isTTY === true) this.stream.write('\r\u001b[K');
    this.stream.write(`${this.line()}\n`);
  }

  private draw(): void {
    const now = performance.now();
    // A tick can fire a little before a full interval has passed since the last line.
    if (now - this.last < this.intervalMs * 0.9) return;
    this.last = now;
    const tty = this.stream.isTTY === true;
    this.stream.write(`${tty ? '\r' : ''}${this.line()}${tty ? '\u001b[K' : '\n'}`);
  }

  private line(): string {
    const seconds = (performance.now() - this.started) / 1000;
    const left = this.total - this.rows - this.failed;
    const eta = this.rowsThisRun > 0 && left > 0 ? `, ETA ${formatSeconds((seconds / this.rowsThisRun) * left)}` : '';
    return (
      `gear graph build: ${this.rows}/${this.total} rows, ${this.edges} edges, ${this.failed} failed rows, ` +
      `${this.requests} LLM requests answered, ${this.tokens} tokens, ${seconds.toFixed(1)} s${eta}`
    );
  }
}

function formatSeconds(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
