// A background job that never overlaps itself: it runs on a timer and whenever asked, and a
// request while it runs makes it run once more right after, so a request is never lost.

export class SingleFlight {
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  stopped = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly settled: (err: Error | null) => void,
  ) {}

  /** Runs now and then every `everyMs`; the timer keeps no process alive. */
  start(everyMs: number): void {
    this.timer = setInterval(() => this.run(), everyMs);
    this.timer.unref();
    this.run();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  run(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.work()
      .then(
        () => this.settled(null),
        (err: Error) => this.settled(err),
      )
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          setImmediate(() => this.run());
        }
      });
  }
}
