import type { JudgeRuntimeInfo } from '../../judge/judge-runtime.js';

/**
 * Progress of a judge run on stderr: rows done, error lines, LLM calls, cache hits, failed
 * criteria, tokens and rate. Redrawn in place on a terminal; elsewhere (CI logs, nohup) one plain
 * line every 10 s, since a judge run takes minutes to hours and silence looks like a hang.
 */
export class JudgeProgress {
  private rows = 0;
  private errors = 0;
  private last = 0;
  private readonly started = performance.now();
  /** A slow judge may finish no row for minutes: a timer keeps the line coming meanwhile. */
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream,
    private readonly info: () => JudgeRuntimeInfo,
  ) {
    this.timer = setInterval(() => this.draw(), this.stream.isTTY === true ? 1000 : 10_000);
    this.timer.unref();
  }

  rowDone(errors: number): void {
    this.rows++;
    this.errors = errors;
    if (performance.now() - this.last >= (this.stream.isTTY === true ? 250 : 10_000)) this.draw();
  }

  private draw(): void {
    this.last = performance.now();
    const tty = this.stream.isTTY === true;
    this.stream.write(`${tty ? '\r' : ''}${this.line(this.errors)}${tty ? '\u001b[K' : '\n'}`);
  }

  finish(lines: number, errors: number): void {
    clearInterval(this.timer);
    if (this.stream.isTTY === true) this.stream.write('\r\u001b[K');
    this.stream.write(`${this.line(errors)} (${lines} lines read)\n`);
  }

  private line(errors: number): string {
    const info = this.info();
    const seconds = (performance.now() - this.started) / 1000;
    const t = info.totals;
    const rate = seconds > 0 ? (this.rows / seconds).toFixed(2) : '0';
    return (
      `${this.label}: ${this.rows} rows (${rate}/s), ${errors} errors, ${info.inFlight} rows judging, ${t.requests - t.cacheHits} LLM calls, ` +
      `${t.cacheHits} cache hits, ${t.reasks} re-asks, ${t.failedCriteria} failed criteria, ` +
      `${t.promptTokens + t.completionTokens} tokens, ${seconds.toFixed(1)} s`
    );
  }
}
