// A full garbage collection, on demand. A shard worker that drops a generation or finishes a
// build leaves hundreds of MB of WASM memory and arrays unreachable, but an idle thread
// allocates nothing, so V8 would not collect them until the next query load: the process would
// hold old and new collections for hours after a daily reload. Exposing gc at run time (the
// flag is process-wide and cheap) lets the worker give that memory back right away.

import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | null = null;

export function releaseMemory(): void {
  if (gc === null) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
}

const GROWTH = 1.25;
const SLACK_BYTES = 64 << 20;
let heapAfterCollection = 0;

/**
 * During a build: a full collection whenever the heap has grown by a quarter since the last one.
 * V8 lets a busy heap grow to about twice what is live before it collects, and a build's
 * garbage (a record's strings and tokens) is most of what it allocates: a reload's peak is
 * what sizes the box. The cost stays proportional: a larger heap is collected less often.
 */
export function releaseMemoryWhenGrown(): void {
  if (getHeapStatistics().used_heap_size < heapAfterCollection * GROWTH + SLACK_BYTES) return;
  releaseMemory();
  heapAfterCollection = getHeapStatistics().used_heap_size;
}
