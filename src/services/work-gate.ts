/**
 * A bound on one kind of costly work in this process: at most `concurrency` tasks run at once,
 * at most `queueLimit` more wait their turn (first come, first served), and a task past both is
 * refused at once with WorkGateFull instead of waiting. What it protects is everything else
 * the process does: the work cannot take more than its share however many ask for it.
 */
export class WorkGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** The most tasks seen running at once, and how many were refused (for tests and metrics). */
  peakRunning = 0;
  refused = 0;

  constructor(
    /** Tasks running at once (≥ 1). */
    readonly concurrency: number,
    /** Tasks waiting at most (≥ 0). */
    readonly queueLimit: number,
    /** What a refusal says (a person reads it). */
    private readonly what: string,
  ) {}

  /** Tasks running now and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `task` when a place is free; rejects with WorkGateFull at once when the queue is full too. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueLimit) {
        this.refused++;
        throw new WorkGateFull(this.what);
      }
      // The finishing task hands its place over (running stays counted), so none can cut in.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    this.peakRunning = Math.max(this.peakRunning, this.running);
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    }
  }
}

/** The gate was full: try again in a moment (a 429 with Retry-After to whoever asked). */
export class WorkGateFull extends Error {
  /** Seconds to wait before trying again: the queue drains in well under one. */
  readonly retryAfterSeconds = 1;

  constructor(what: string) {
    super(`too many ${what} at once: try again in a moment`);
    this.name = 'WorkGateFull';
  }
}
