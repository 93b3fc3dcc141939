// Term dictionary: sorted unique terms (UTF-8 bytes), so a prefix is one contiguous id range,
// plus a byte trie over the text terms (nodes breadth first, each with its term id range and its
// children side by side). Typo candidates come from a depth-first walk of the trie with one Damerau-Levenshtein
// row per depth, pruned as soon as a row's minimum exceeds the typo budget: no scan of all terms.
//
// Matches are emitted as ranges [lo, hi) of term ids with a cost, sorted and non-overlapping.

import { allocate } from "./memory";
import { nTerms, termByte, termLength, trieNodes, trieBase } from "./slice";

export const WHOLE: u32 = 0x100; // flag: the term matched the whole query token, not a prefix of it

export const MAX_RANGES: i32 = 1 << 16;
export const rangeBuf: usize = allocate(<usize>MAX_RANGES * 12);
export let rangeCount: i32 = 0;

@inline export function rangeLo(i: i32): u32 { return load<u32>(rangeBuf + <usize>i * 12); }
@inline export function rangeHi(i: i32): u32 { return load<u32>(rangeBuf + <usize>i * 12 + 4); }
@inline export function rangeCost(i: i32): u32 { return load<u32>(rangeBuf + <usize>i * 12 + 8); }

export function resetRanges(): void { rangeCount = 0; }

/** Adds `cost` to the typo cost of the ranges from `from` on. */
export function addRangeCost(from: i32, cost: u32): void {
  for (let r = from; r < rangeCount; r++) {
    const p = rangeBuf + <usize>r * 12 + 8;
    store<u32>(p, load<u32>(p) + cost);
  }
}

function emit(lo: u32, hi: u32, costFlags: u32): void {
  if (lo >= hi || rangeCount >= MAX_RANGES) return;
  const p = rangeBuf + <usize>rangeCount * 12;
  store<u32>(p, lo);
  store<u32>(p + 4, hi);
  store<u32>(p + 8, costFlags);
  rangeCount++;
}

/**
 * Drops the terms set in `gone` (a bitmap by term id: removals.ts) from the ranges from `from` on,
 * splitting a range around them; the ranges stay sorted and non-overlapping. Such terms are rare,
 * so a range is mostly skipped 32 terms at a time.
 */
export function dropTerms(from: i32, gone: usize): void {
  const n = rangeCount - from;
  if (n <= 0) return;
  if (spareBuf == 0) spareBuf = allocate(<usize>MAX_RANGES * 12); // only instances serving removals pay
  memory.copy(spareBuf, rangeBuf + <usize>from * 12, <usize>n * 12);
  rangeCount = from;
  for (let i = 0; i < n; i++) {
    const p = spareBuf + <usize>i * 12;
    const hi = load<u32>(p + 4), cost = load<u32>(p + 8);
    let t = load<u32>(p);
    while (t < hi) {
      while (t < hi && isGone(gone, t)) t++;
      const start = t;
      while (t < hi) {
        if ((t & 31) == 0 && t + 32 <= hi && load<u32>(gone + (<usize>(t >> 5) << 2)) == 0) { t += 32; continue; }
        if (isGone(gone, t)) break;
        t++;
      }
      emit(start, t, cost);
    }
  }
}
let spareBuf: usize = 0;
@inline function isGone(gone: usize, t: u32): bool { return (load<u32>(gone + (<usize>(t >> 5) << 2)) & (<u32>1 << (t & 31))) != 0; }

// Compare term t with the query bytes [q, q+len): <0, 0, >0 like memcmp, shorter first.
function compareTerm(t: u32, q: usize, len: u32): i32 {
  const tl = termLength(t);
  const n = tl < len ? tl : len;
  for (let i: u32 = 0; i < n; i++) {
    const a = <i32>termByte(t, i);
    const b = <i32>load<u8>(q + i);
    if (a != b) return a - b;
  }
  return <i32>tl - <i32>len;
}

// First term id >= query (by bytes).
function lowerBound(q: usize, len: u32): u32 {
  let lo: u32 = 0, hi: u32 = nTerms;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareTerm(mid, q, len) < 0) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// First term id in [from, nTerms) that does not start with the query bytes.
function prefixEnd(from: u32, q: usize, len: u32): u32 {
  let lo = from, hi: u32 = nTerms;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (startsWith(mid, q, len)) lo = mid + 1; else hi = mid;
  }
  return lo;
}

function startsWith(t: u32, q: usize, len: u32): bool {
  if (termLength(t) < len) return false;
  for (let i: u32 = 0; i < len; i++) if (termByte(t, i) != <u32>load<u8>(q + i)) return false;
  return true;
}

// Exact term, and with `prefix` every longer term starting with the query: cost 0.
export function matchExact(q: usize, len: u32, prefix: bool): void {
  const lo = lowerBound(q, len);
  if (lo >= nTerms || !startsWith(lo, q, len)) return;
  const whole = termLength(lo) == len;
  if (whole) emit(lo, lo + 1, WHOLE);
  if (prefix) emit(whole ? lo + 1 : lo, prefixEnd(lo, q, len), 0);
}

// ---- typo walk ----

const MAX_Q: i32 = 60;
const ROW: i32 = MAX_Q + 1;
const MAX_DEPTH: i32 = MAX_Q + 4;
const rows: usize = allocate(<usize>(MAX_DEPTH + 1) * <usize>ROW);
const pathBytes: usize = allocate(<usize>(MAX_DEPTH + 1));
// Per depth, the bytes a child of the node walked there may have (256 bits), once that node's row
// has spent its budget: the strict child filter below is one bit test per child, not a row.
const allowedSets: usize = allocate(<usize>(MAX_DEPTH + 1) * 32);

let wq: usize = 0;
let wm: i32 = 0;
let wk: i32 = 0;
let wPrefix: bool = false;



// Every term within `maxTypos` Damerau-Levenshtein edits of the query (or, with `prefix`, having
// a prefix within that distance), each range carrying its edit cost.
export function matchFuzzy(q: usize, len: u32, maxTypos: i32, prefix: bool): void {
  const m = <i32>len > MAX_Q ? MAX_Q : <i32>len;
  if (maxTypos <= 0 || trieNodes == 0) { matchExact(q, len, prefix); return; }
  wq = q; wm = m; wk = maxTypos; wPrefix = prefix;
  for (let j = 0; j <= m; j++) store<u8>(rows + <usize>j, <u8>(j <= maxTypos ? j : maxTypos + 1));
  walk(0, 0, 255);
}

export let nodesVisited: u32 = 0;

// A trie node is four u32 words: term range lo, hi, first child (top bit: the node's own path
// is a term), and the byte leading to it | child count << 8. Children sit side by side.
@inline function nodeWord(n: u32, w: u32): u32 { return load<u32>(trieBase + ((<usize>n << 4) | (<usize>w << 2))); }
const TERMINAL: u32 = 0x80000000;

// Each node's leading byte again, one byte per node: siblings' bytes then sit in one cache line,
// so rejecting a child costs no load of its 16-byte node. The walk is bound by memory, not
// arithmetic, and most children it looks at are rejected.
let nodeBytes: usize = 0;

/**
 * The node bytes live with the index, in the word at `slot`: the first instance on a memory
 * builds them there, and the instances of other threads find them.
 */
export function prepareTrie(slot: usize): void {
  nodeBytes = <usize>load<u32>(slot);
  if (nodeBytes != 0) return;
  nodeBytes = allocate(<usize>trieNodes + 1);
  for (let n: u32 = 0; n < trieNodes; n++) store<u8>(nodeBytes + <usize>n, <u8>(nodeWord(n, 3) & 0xff));
  store<u32>(slot, <u32>nodeBytes);
}
@inline function nodeByte(n: u32): i32 { return <i32>load<u8>(nodeBytes + <usize>n); }

/**
 * The bytes a child of the node at depth d (byte c) may have to keep a cell within `budget`, when
 * every cell of the node's row is at or above it: the child's cell J gets there only along a
 * matching diagonal (this row's cell J-1 at the budget, the child's byte the query's byte J-1) or
 * by a transposition (c the query's byte J-1, the child's byte its byte J-2, and the parent row's
 * cell J-2 under the budget). Up or left moves add an edit. J runs over the child's band.
 */
function allowChildren(set: usize, d: i32, c: i32, budget: i32): void {
  memory.fill(set, 0, 32);
  const dc = d + 1;
  const lo = dc - wk > 1 ? dc - wk : 1, hi = dc + wk < wm ? dc + wk : wm;
  const cur = rows + <usize>(d * ROW), parent = cur - <usize>ROW;
  for (let j = lo; j <= hi; j++) {
    if (<i32>load<u8>(cur + <usize>(j - 1)) == budget) allow(set, <u32>load<u8>(wq + <usize>(j - 1)));
    if (j >= 2 && c == <i32>load<u8>(wq + <usize>(j - 1)) && <i32>load<u8>(parent + <usize>(j - 2)) < budget) {
      allow(set, <u32>load<u8>(wq + <usize>(j - 2)));
    }
  }
}

@inline function allow(set: usize, b: u32): void {
  const at = set + <usize>((b >> 5) << 2);
  store<u32>(at, load<u32>(at) | (<u32>1 << (b & 31)));
}

function walk(node: u32, d: i32, inherited: i32): void {
  nodesVisited++;
  const m = wm, k = wk, cap = wk + 1;
  let rowMin: i32 = 0;
  let here: i32 = m <= k ? m : cap;
  const c = nodeByte(node); // the root's is unused
  if (d > 0) {
    // Only cells within k of the diagonal can stay within budget: compute that band, and pin
    // its two neighbours to the cap so the next depth reads no stale cells of a sibling path.
    store<u8>(pathBytes + <usize>(d - 1), <u8>c);
    const prevC = d > 1 ? <i32>load<u8>(pathBytes + <usize>(d - 2)) : -1;
    const jLo = d - k > 1 ? d - k : 1;
    const jHi = d + k < m ? d + k : m;
    const cur = rows + <usize>(d * ROW), prev = cur - <usize>ROW, prev2 = prev - <usize>ROW;
    rowMin = d < cap ? d : cap;
    store<u8>(cur, <u8>rowMin);
    let left = cap;
    if (jLo > 1) store<u8>(cur + <usize>(jLo - 1), <u8>cap); else left = rowMin;
    let diag = <i32>load<u8>(prev + <usize>(jLo - 1));
    let lastQ = jLo > 1 ? <i32>load<u8>(wq + <usize>(jLo - 2)) : -1;
    for (let j = jLo; j <= jHi; j++) {
      const qc = <i32>load<u8>(wq + <usize>(j - 1));
      const up = <i32>load<u8>(prev + <usize>j);
      let v = diag + (qc == c ? 0 : 1);
      if (up + 1 < v) v = up + 1;
      if (left + 1 < v) v = left + 1;
      if (c == lastQ && prevC == qc) {
        const tr = <i32>load<u8>(prev2 + <usize>(j - 2)) + 1;
        if (tr < v) v = tr;
      }
      if (v > cap) v = cap;
      store<u8>(cur + <usize>j, <u8>v);
      if (v < rowMin) rowMin = v;
      diag = up;
      left = v;
      lastQ = qc;
    }
    if (jHi + 1 <= m) store<u8>(cur + <usize>(jHi + 1), <u8>cap);
    here = (d - m <= k && m - d <= k) ? <i32>load<u8>(cur + <usize>m) : cap;
  }
  let eff = inherited;
  if (wPrefix && here <= k && here < eff) eff = here;
  // Two typos may not both fall in the first three letters: that part of the trie is dense, and
  // a word mangled that early is rarely what someone meant.
  const budget = k > 1 && d <= 3 ? 1 : k;
  if (rowMin > budget && eff > k) return;

  const lo = nodeWord(node, 0), hi = nodeWord(node, 1);
  let start = lo;
  if ((nodeWord(node, 2) & TERMINAL) != 0) {
    // the node's own term: a whole-token match at cost `here`, or a prefix match at `eff`
    if (here <= k && here <= eff) emit(lo, lo + 1, <u32>here | WHOLE);
    else if (eff <= k) emit(lo, lo + 1, <u32>eff);
    start = lo + 1;
  }
  if (start >= hi) return;
  if (eff <= k && rowMin >= eff) { emit(start, hi, <u32>eff); return; }
  if (d >= MAX_DEPTH) return;

  const first = <u32>load<u8>(wq), second = m >= 2 ? <u32>load<u8>(wq + 1) : 256;
  const from = nodeWord(node, 2) & ~TERMINAL, to = from + (nodeWord(node, 3) >> 8);
  // With this row's budget spent (and no prefix match to inherit), a child stays within budget
  // only by matching a query byte on a live diagonal, or by a transposition: allowChildren()
  // finds those bytes. Most children fail that, and skipping them here saves computing a row
  // for each. (With budget below k, a prefix whole-match could still count, so only when the
  // query is too long for one at the child's depth.)
  const dc = d + 1;
  const childBudget = k > 1 && dc <= 3 ? 1 : k;
  const strict = d > 0 && eff > k && rowMin >= childBudget && (childBudget == k || m > dc + k);
  const allowed = allowedSets + <usize>d * 32;
  if (strict) allowChildren(allowed, d, c, childBudget);
  for (let child = from; child < to; child++) {
    const b = nodeByte(child);
    // The first letter is taken as typed (or swapped with the second): typos there are rare,
    // and allowing them multiplies the walk by the alphabet.
    if (d == 0) {
      if (<u32>b != first && <u32>b != second) continue;
    } else if (strict && (load<u32>(allowed + <usize>((b >> 5) << 2)) & (<u32>1 << (<u32>b & 31))) == 0) {
      continue;
    }
    walk(child, dc, eff);
    if (rangeCount >= MAX_RANGES) return;
  }
}
