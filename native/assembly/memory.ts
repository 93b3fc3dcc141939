// Linear-memory allocation. An engine instance holds one immutable slice: index arrays are
// allocated once when the slice is loaded and never freed; the whole instance is dropped when its
// generation is retired. The stub runtime's heap is exactly that bump allocator, and sharing it
// keeps our arrays clear of the runtime's own static arrays.

export function allocate(size: usize): usize {
  return heap.alloc(size);
}

export function zero(ptr: usize, size: usize): void {
  memory.fill(ptr, 0, size);
}
