// Memory the process no longer uses, given back to the system: the C heap's (glibc malloc) under
// the engine's typed arrays, and the pages of a slice's WebAssembly memory once no thread serves it.
//
// A build allocates and frees gigabytes of ArrayBuffers from several threads. glibc keeps what
// is freed: by default its mmap threshold rises to the largest block freed so far (up to 32 MB),
// so after the first big free every later block under that size comes from a thread's 64 MB
// arena, and an arena only shrinks from its top. After a full load, hundreds of MB the process
// no longer uses stayed resident until a restart. Pinning the threshold keeps large blocks
// mapped one by one (freed at once), and a trim after each build hands back what the arenas hold.
//
// A slice's memory is unmapped only once every thread's collector has let go of every buffer
// ever made of it. A thread that rarely runs (a serving worker with little traffic) may hold a
// dead buffer of it for minutes: at 3.43M that kept the ~950 MiB index of a replaced collection
// resident beside the new one. Its pages are given back as soon as no thread serves the slice.
//
// All are glibc calls made through koffi. Elsewhere (musl, macOS) they are skipped: memory
// use is then higher after a load, never wrong.

import { createRequire } from "node:module";

interface Libc {
  mallopt(param: number, value: number): number;
  malloc_trim(pad: number): number;
  madvise(addr: Uint8Array, length: number, advice: number): number;
}

const M_MMAP_THRESHOLD = -3;
/** glibc's own starting threshold: blocks from 128 KiB up are mapped on their own */
const MMAP_THRESHOLD_BYTES = 128 * 1024;
/** the pages are dropped: a private anonymous mapping reads as zeros after, and holds no memory until written */
const MADV_DONTNEED = 4;

let libc: Libc | null | undefined;

function glibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux") return libc;
  try {
    const koffi = createRequire(import.meta.url)("koffi") as typeof import("koffi");
    const lib = koffi.load("libc.so.6");
    libc = {
      mallopt: lib.func("int mallopt(int param, int value)") as Libc["mallopt"],
      malloc_trim: lib.func("int malloc_trim(size_t pad)") as Libc["malloc_trim"],
      // koffi passes a typed array as the address of its first byte
      madvise: lib.func("int madvise(void *addr, size_t length, int advice)") as Libc["madvise"],
    };
  } catch {
    libc = null; // not glibc, or no koffi build for this platform
  }
  return libc;
}

/** Once, at start-up, before the first load: large blocks are mapped, and unmapped when freed. */
export function pinMmapThreshold(): boolean {
  return glibc()?.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) === 1;
}

/** Hands the free memory of every thread's arena back to the system (after a build or a drop). */
export function returnFreedMemory(): void {
  glibc()?.malloc_trim(0);
}

/**
 * Gives back the pages of a WebAssembly memory no thread will read or write again: it reads as
 * zeros after. The mapping itself goes when V8 frees the memory. Whether the pages were given.
 */
export function discardPages(memory: WebAssembly.Memory): boolean {
  const pages = new Uint8Array(memory.buffer);
  return pages.byteLength > 0 && glibc()?.madvise(pages, pages.byteLength, MADV_DONTNEED) === 0;
}
