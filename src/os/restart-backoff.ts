// When to start again a worker thread that died (the webhook dispatchers and intake writer, the
// MCP threads): at once after a death that ends a long enough life, with a growing delay while it
// keeps dying quickly, so a crash loop cannot spin the front.

/** a thread that lived less than this before dying counts as crash-looping */
const QUICK_DEATH_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

export class RestartBackoff {
  private startedAt = 0;
  private quickDeaths = 0;

  /** The thread was (re)started now. */
  started(): void {
    this.startedAt = performance.now();
  }

  /** The thread died now: ms to wait before starting it again. */
  died(): number {
    this.quickDeaths = performance.now() - this.startedAt < QUICK_DEATH_MS ? this.quickDeaths + 1 : 1;
    return this.quickDeaths <= 1 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 100 * 2 ** (this.quickDeaths - 2));
  }
}
