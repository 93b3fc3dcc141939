// Top-k collector: a bounded min-heap whose root is the worst hit kept so far. Order is score
// descending, then doc id ascending (doc ids follow LEI order), so results are deterministic.

import { allocate } from "./memory";

export const MAX_WINDOW: i32 = 10000;
const heapDocs: usize = allocate(<usize>MAX_WINDOW * 4);
const heapScores: usize = allocate(<usize>MAX_WINDOW * 8);
let size: i32 = 0;
let capacity: i32 = 0;

@inline function docAt(i: i32): u32 { return load<u32>(heapDocs + (<usize>i << 2)); }
@inline function scoreAt(i: i32): u64 { return load<u64>(heapScores + (<usize>i << 3)); }
@inline function put(i: i32, doc: u32, score: u64): void {
  store<u32>(heapDocs + (<usize>i << 2), doc);
  store<u64>(heapScores + (<usize>i << 3), score);
}
@inline function better(sa: u64, da: u32, sb: u64, db: u32): bool { return sa > sb || (sa == sb && da < db); }

export function resetCollector(k: i32): void {
  size = 0;
  capacity = k < 0 ? 0 : (k > MAX_WINDOW ? MAX_WINDOW : k);
}

/** Whether the window holds as many hits as it keeps. */
export function windowFull(): bool { return capacity > 0 && size == capacity; }

/** Whether no doc scoring at most `ceiling` can still enter: the window is full of better hits. */
export function excludes(ceiling: u64): bool {
  return windowFull() && ceiling < scoreAt(0);
}

/** Whether doc, scoring at most `ceiling`, can no longer enter: ties go to the lower doc id. */
export function excludesDoc(ceiling: u64, doc: u32): bool {
  if (!windowFull()) return false;
  const worst = scoreAt(0);
  return ceiling < worst || (ceiling == worst && doc > docAt(0));
}

export function offer(doc: u32, score: u64): void {
  if (capacity == 0) return;
  if (size < capacity) {
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!better(scoreAt(parent), docAt(parent), score, doc)) break;
      put(i, docAt(parent), scoreAt(parent));
      i = parent;
    }
    put(i, doc, score);
    return;
  }
  if (!better(score, doc, scoreAt(0), docAt(0))) return;
  siftDown(0, doc, score, size);
}

function siftDown(start: i32, doc: u32, score: u64, n: i32): void {
  let i = start;
  while (true) {
    let child = 2 * i + 1;
    if (child >= n) break;
    // pick the worse child: it must rise toward the root
    if (child + 1 < n && better(scoreAt(child), docAt(child), scoreAt(child + 1), docAt(child + 1))) child++;
    if (!better(score, doc, scoreAt(child), docAt(child))) break;
    put(i, docAt(child), scoreAt(child));
    i = child;
  }
  put(i, doc, score);
}

// Drain the best `keep` best-first into out: triples (doc, score high word, score low word).
// The rest were ranked only to place them. Returns the count written.
export function drain(out: usize, keep: i32): i32 {
  const n = size;
  for (let last = n - 1; last >= 0; last--) {
    if (last < keep) {
      const score = scoreAt(0);
      const p = out + <usize>last * 12;
      store<u32>(p, docAt(0));
      store<u32>(p + 4, <u32>(score >> 32));
      store<u32>(p + 8, <u32>score);
    }
    if (last > 0) siftDown(0, docAt(last), scoreAt(last), last);
  }
  size = 0;
  return min(n, keep);
}
