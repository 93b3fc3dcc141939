// A full garbage collection, on demand. A shard worker that drops a generation or finishes a
// build leaves hundreds of MB of WASM memory and arrays unreachable, but an idle thread
// allocates nothing, so V8 would not collect them until the next query load: the process would
// hold old and new collections for hours after a daily reload. Exposing gc at run time (the
// flag is process-wide and cheap) lets the worker give that memory back right away.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | null = null;

export function releaseMemory(): void {
  if (gc === null) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
}
