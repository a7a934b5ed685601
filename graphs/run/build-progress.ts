/**
 * Progress of a graph build on stderr: rows done of total (resumed rows included), edges kept,
 * failed rows, LLM requests and tokens, and the time left at this run's pace. Redrawn in place on
 * a terminal; elsewhere one line every 10 s (a build runs for hours; silence looks like a hang).
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

  constructor(
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly total: number,
    resumed: number,
  ) {
    this.rows = resumed;
  }

  rowDone(edges: number, requests: number, tokens: number): void {
    this.rows++;
    this.rowsThisRun++;
    this.edges += edges;
    this.requests += requests;
    this.tokens += tokens;
    this.draw();
  }

  rowFailed(requests: number): void {
    this.failed++;
    this.requests += requests;
    this.draw();
  }

  finish(): void {
    if (this.stream.isTTY === true) this.stream.write('\r\u001b[K');
    this.stream.write(`${this.line()}\n`);
  }

  private draw(): void {
    const now = performance.now();
    const tty = this.stream.isTTY === true;
    if (now - this.last < (tty ? 250 : 10_000)) return;
    this.last = now;
    this.stream.write(`${tty ? '\r' : ''}${this.line()}${tty ? '\u001b[K' : '\n'}`);
  }

  private line(): string {
    const seconds = (performance.now() - this.started) / 1000;
    const left = this.total - this.rows - this.failed;
    const eta = this.rowsThisRun > 0 && left > 0 ? `, ETA ${formatSeconds((seconds / this.rowsThisRun) * left)}` : '';
    return (
      `gear graph build: ${this.rows}/${this.total} rows, ${this.edges} edges, ${this.failed} failed rows, ` +
      `${this.requests} LLM requests, ${this.tokens} tokens, ${seconds.toFixed(1)} s${eta}`
    );
  }
}

function formatSeconds(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
