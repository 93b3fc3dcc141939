// What every thread's query router (query-router.ts) shares of each serving shard worker, in
// shared memory: the batches in flight to it from all threads, and whether it rests. A worker
// rests while it drops a replaced generation (Collection.abandon): the drop's garbage collection
// holds its thread for up to a second at registry size, so the routers send the batches it would
// have had to the other workers meanwhile. A resting worker still takes batches when no other
// serving worker is left, so nothing waits on a rest for want of a worker.

/** How long a rest waits for the batches already sent to the worker before its work starts anyway. */
const DRAIN_WAIT_MS = 2_000;
const DRAIN_POLL_MS = 5;

export class WorkerLoads {
  /** cells 0 … threads-1: 1 while worker w rests; threads … 2·threads-1: its batches in flight */
  private readonly cells: Int32Array;

  constructor(
    readonly threads: number,
    /** the memory of another thread's WorkerLoads (FrontThreadData); new memory when absent */
    readonly buffer = new SharedArrayBuffer(8 * threads),
  ) {
    this.cells = new Int32Array(buffer);
  }

  resting(w: number): boolean {
    return Atomics.load(this.cells, w) !== 0;
  }

  /** A batch left for worker w. */
  sent(w: number): void {
    Atomics.add(this.cells, this.threads + w, 1);
  }

  /** A batch sent to worker w was answered, or failed. */
  settled(w: number): void {
    Atomics.sub(this.cells, this.threads + w, 1);
  }

  /**
   * Runs `work` on worker w resting: no router sends it new batches, and the work starts once
   * those already sent are answered (or after DRAIN_WAIT_MS). Not the builder, which takes no
   * batches, and not with a single serving worker, which has no one to hand its batches to.
   */
  async restWhile<T>(w: number, work: () => Promise<T>): Promise<T> {
    if (w >= this.threads || this.threads < 2) return work();
    Atomics.store(this.cells, w, 1);
    try {
      const deadline = Date.now() + DRAIN_WAIT_MS;
      while (Atomics.load(this.cells, this.threads + w) > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
      return await work();
    } finally {
      Atomics.store(this.cells, w, 0);
    }
  }
}
