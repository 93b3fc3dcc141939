// Doc bitmaps of the slice's most frequent terms. A word held by a 64th of the docs or more
// ("fund", "limited", "holding", "pvt") has at least half as many postings as its bitmap has
// words: ORing the bitmap into a token's marks is a sequential pass over a few hundred
// kilobytes, eight bytes at a time, where setting a bit per posting costs a random store each.
// Bitmaps hold every field's postings, so they serve queries over all fields. The first instance
// on a slice's memory builds them, for the MAX_FREQUENT terms with the most postings, next to
// the index; every instance, on any thread, reads that one copy, so no thread pays for them
// again and memory does not grow with threads.

import { allocate } from "./memory";
import { nDocs, nTerms, postingStart, postingEnd, postingDoc } from "./slice";

const MAX_FREQUENT: i32 = 96;
const frequentTerms = new StaticArray<u32>(MAX_FREQUENT);
const frequentMaps = new StaticArray<usize>(MAX_FREQUENT);
let frequentCount: i32 = 0;
let words: usize = 0;
/** A term with this many postings or more is frequent. */
export let frequentPostings: u32 = 0xffffffff;

/**
 * Finds the slice's frequent maps through the word at `slot` (a table: count, then the terms,
 * then the maps' addresses), building them there when this is the memory's first instance.
 */
export function prepareFrequent(slot: usize): void {
  words = (<usize>nDocs + 32) >> 5;
  frequentPostings = <u32>min<usize>(words >> 1, 0xffffffff);
  let table = <usize>load<u32>(slot);
  if (table == 0) {
    table = buildTable();
    store<u32>(slot, <u32>table);
  }
  frequentCount = <i32>load<u32>(table);
  for (let i = 0; i < frequentCount; i++) {
    unchecked(frequentTerms[i] = load<u32>(table + 4 + (<usize>i << 2)));
    unchecked(frequentMaps[i] = <usize>load<u32>(table + 4 + (<usize>(MAX_FREQUENT + i) << 2)));
  }
}

/** The table of the terms with the most postings, at least frequentPostings each, and their bitmaps. */
function buildTable(): usize {
  let count = 0;
  // the terms kept so far; once full, a larger term replaces the smallest
  for (let t = nDocs; t < nTerms; t++) {
    const n = postingEnd(t) - postingStart(t);
    if (n < frequentPostings) continue;
    if (count < MAX_FREQUENT) { unchecked(frequentTerms[count++] = t); continue; }
    let smallest = 0;
    for (let i = 1; i < count; i++) if (sizeOf(unchecked(frequentTerms[i])) < sizeOf(unchecked(frequentTerms[smallest]))) smallest = i;
    if (n > sizeOf(unchecked(frequentTerms[smallest]))) unchecked(frequentTerms[smallest] = t);
  }
  const table = allocate(4 + (<usize>MAX_FREQUENT << 3));
  store<u32>(table, <u32>count);
  for (let i = 0; i < count; i++) {
    const term = unchecked(frequentTerms[i]);
    const bm = allocate(words << 2); // fresh memory reads zero
    const end = postingEnd(term);
    for (let p = postingStart(term); p < end; p++) {
      const doc = postingDoc(p);
      const at = bm + (<usize>(doc >> 5) << 2);
      store<u32>(at, load<u32>(at) | (<u32>1 << (doc & 31)));
    }
    store<u32>(table + 4 + (<usize>i << 2), term);
    store<u32>(table + 4 + (<usize>(MAX_FREQUENT + i) << 2), <u32>bm);
  }
  return table;
}

@inline function sizeOf(term: u32): u32 { return postingEnd(term) - postingStart(term); }

/** The doc bitmap of a frequent term; 0 when it is not among the slice's MAX_FREQUENT largest. */
export function frequentMap(term: u32): usize {
  for (let i = 0; i < frequentCount; i++) if (unchecked(frequentTerms[i]) == term) return unchecked(frequentMaps[i]);
  return 0;
}

/** ORs a frequent term's bitmap into bm, eight bytes at a time. */
export function orInto(bm: usize, map: usize): void {
  const n = words >> 1;
  for (let w: usize = 0; w < n; w++) {
    const at = bm + (w << 3);
    store<u64>(at, load<u64>(at) | load<u64>(map + (w << 3)));
  }
  if ((words & 1) != 0) {
    const at = bm + ((words - 1) << 2);
    store<u32>(at, load<u32>(at) | load<u32>(map + ((words - 1) << 2)));
  }
}
