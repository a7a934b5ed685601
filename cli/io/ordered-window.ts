/**
 * Runs tasks with at most `maxRunning` at once and hands their results to `write` in the order
 * the tasks were started, without head-of-line blocking: a slow task holds back only the writing
 * of the results after it, not the starting of new tasks. Finished results wait in a buffer;
 * `maxUnwritten` bounds the tasks started but not yet written (so a task that hangs for its whole
 * deadline cannot make the buffer grow with the input), and only then does the slow task stop
 * new ones from starting.
 *
 * Why not p-limit or p-queue: they bound what runs, not what is started but unwritten, and keep
 * no order; the ordering buffer is the whole of this class.
 */
export class OrderedWindow<T> {
  private running = 0;
  private started = 0;
  private written = 0;
  private readonly finished = new Map<number, T>();
  private writing: Promise<void> = Promise.resolve();
  private waiter: (() => void) | undefined;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly maxRunning: number,
    private readonly maxUnwritten: number,
    private readonly write: (value: T) => Promise<void>,
  ) {
    if (!(maxRunning >= 1) || !(maxUnwritten >= maxRunning)) throw new RangeError(`need 1 <= maxRunning (${maxRunning}) <= maxUnwritten (${maxUnwritten})`);
  }

  /** Resolves when one more task may start. @throws what `write` threw. */
  async room(): Promise<void> {
    while (this.failure === undefined && (this.running >= this.maxRunning || this.started - this.written >= this.maxUnwritten)) await this.wait();
    if (this.failure !== undefined) throw this.failure.error;
  }

  /** Starts a task (after `room()`); it must not reject: turn its errors into results. */
  start(task: () => Promise<T>): void {
    const seq = this.started++;
    this.running++;
    task().then(
      (value) => {
        this.running--;
        this.finished.set(seq, value);
        this.flush();
        this.wake();
      },
      (error: unknown) => {
        this.running--;
        this.failure ??= { error };
        this.wake();
      },
    );
  }

  /** Resolves when every started task's result is written. @throws what a task or `write` threw. */
  async drain(): Promise<void> {
    while (this.failure === undefined && this.written < this.started) await this.wait();
    await this.writing;
    if (this.failure !== undefined) throw this.failure.error;
  }

  /** Results started, running, buffered (finished, not yet written), written. */
  counts(): { started: number; running: number; buffered: number; written: number } {
    return { started: this.started, running: this.running, buffered: this.finished.size, written: this.written };
  }

  private flush(): void {
    this.writing = this.writing.then(async () => {
      while (this.failure === undefined && this.finished.has(this.written)) {
        const value = this.finished.get(this.written) as T;
        this.finished.delete(this.written);
        try {
          await this.write(value);
        } catch (error) {
          this.failure ??= { error };
        }
        this.written++;
        this.wake();
      }
    });
  }

  private wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiter = resolve;
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
