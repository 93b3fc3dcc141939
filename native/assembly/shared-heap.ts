// The engine's runtime: a bump allocator over a memory that several engine instances share, one
// instance per shard thread. The first instance on a memory loads the immutable index into it;
// every instance, that one included, allocates its own query scratch from the same memory. The
// top of the heap is one word at TOP_AT, below the static data (asconfig.json's memoryBase), and
// is advanced atomically, so instances on different threads never hand out the same bytes.
// Nothing is ever freed: a memory goes away whole with its generation.

import { AL_MASK, OBJECT, OBJECT_OVERHEAD, BLOCK_OVERHEAD, BLOCK, OBJECT_MAXSIZE } from "~lib/rt/common";

/** The heap's top; zero in a fresh memory, where the first allocation sets it. */
const TOP_AT: usize = 8;
const FIRST: usize = ((__heap_base + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
/** The most a 32-bit memory can address, less its last page. */
const LIMIT: u64 = 0xffff0000;

/** `size` bytes (a multiple of 16) at an address whose next 4 bytes on are 16-aligned. */
function bump(size: usize): usize {
  if (atomic.load<u32>(TOP_AT) == 0) atomic.cmpxchg<u32>(TOP_AT, 0, <u32>FIRST);
  const at = <usize>atomic.add<u32>(TOP_AT, <u32>size);
  const end = <u64>at + <u64>size;
  if (end > LIMIT || end < <u64>at) unreachable();
  // another thread may grow it meanwhile: grow until it holds `end`, whoever did
  for (let have = <u64>memory.size() << 16; have < end; have = <u64>memory.size() << 16) {
    const pages = <i32>((end - have + 0xffff) >> 16);
    if (memory.grow(pages) < 0 && <u64>memory.size() << 16 < end) unreachable();
  }
  return at;
}

// @ts-ignore: decorator
@inline function computeSize(size: usize): usize {
  return ((size + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
}

/** Raw memory for the engine's arrays, 16-aligned; any size the memory can hold. */
export function allocateRaw(size: usize): usize {
  const payload = computeSize(size);
  const block = changetype<BLOCK>(bump(BLOCK_OVERHEAD + payload));
  block.mmInfo = payload;
  return changetype<usize>(block) + BLOCK_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
export function __alloc(size: usize): usize {
  return allocateRaw(size);
}

// @ts-ignore: decorator
@unsafe @global
export function __realloc(ptr: usize, size: usize): usize {
  const actual = changetype<BLOCK>(ptr - BLOCK_OVERHEAD).mmInfo;
  if (size <= actual) return ptr;
  const moved = allocateRaw(size);
  memory.copy(moved, ptr, actual);
  return moved;
}

// @ts-ignore: decorator
@unsafe @global
export function __free(ptr: usize): void {}

// @ts-ignore: decorator
@unsafe @global
export function __reset(): void {}

// @ts-ignore: decorator
@unsafe @global
export function __new(size: usize, id: u32): usize {
  if (size > OBJECT_MAXSIZE) unreachable();
  const ptr = __alloc(OBJECT_OVERHEAD + size);
  const object = changetype<OBJECT>(ptr - BLOCK_OVERHEAD);
  object.gcInfo = 0;
  object.gcInfo2 = 0;
  object.rtId = id;
  object.rtSize = <u32>size;
  return ptr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
export function __renew(oldPtr: usize, size: usize): usize {
  const newPtr = __realloc(oldPtr - OBJECT_OVERHEAD, OBJECT_OVERHEAD + size);
  changetype<OBJECT>(newPtr - BLOCK_OVERHEAD).rtSize = <u32>size;
  return newPtr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@global @unsafe
export function __link(parentPtr: usize, childPtr: usize, expectMultiple: bool): void {}

// @ts-ignore: decorator
@global @unsafe
export function __pin(ptr: usize): usize {
  return ptr;
}

// @ts-ignore: decorator
@global @unsafe
export function __unpin(ptr: usize): void {}

// @ts-ignore: decorator
@global @unsafe
function __visit(ptr: usize, cookie: u32): void {}

// @ts-ignore: decorator
@global @unsafe
export function __collect(): void {}
