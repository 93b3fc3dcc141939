// Linear-memory allocation (shared-heap.ts): the index arrays, allocated once by the instance
// that loads a slice, and each instance's own scratch, are never freed; the memory is dropped
// whole when its generation is retired.

import { allocateRaw } from "./shared-heap";

export function allocate(size: usize): usize {
  return allocateRaw(size);
}

export function zero(ptr: usize, size: usize): void {
  memory.fill(ptr, 0, size);
}
