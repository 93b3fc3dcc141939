// Background threads (shard workers, the loader) yield the CPU to the front thread. Every request
// passes through the front, and a background thread woken while both cores are busy would
// otherwise take the front's core from it: the front sat preempted right after waking a shard
// (120-250 us per task measured then, 44-130 us with this), every request behind it waiting.
// Background threads still get every cycle the front does not use.

import { getPriority, setPriority } from "node:os";

const BACKGROUND_NICE = 5;

/** Lowers the calling thread's priority (on Linux, setpriority with pid 0 is the calling thread). */
export function yieldToFront(): void {
  try {
    setPriority(Math.min(19, getPriority() + BACKGROUND_NICE));
  } catch {
    // not permitted or not supported here: the thread runs at the process's priority
  }
}
