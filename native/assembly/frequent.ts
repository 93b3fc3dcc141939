// Doc bitmaps of the slice's most frequent terms, built the first time a query marks one. A
// word held by a sixteenth of the docs or more ("fund", "limited", "holding") has more postings
// than its bitmap has words: ORing the bitmap into a token's marks costs a sequential pass over
// a few hundred kilobytes, where setting a bit per posting costs a random store each. Bitmaps
// hold every field's postings, so they serve queries over all fields; the slice keeps at most
// MAX_FREQUENT of them, never freed (the engine instance is dropped with its generation).

import { allocate } from "./memory";
import { postingStart, postingEnd, postingDoc } from "./slice";

const MAX_FREQUENT: i32 = 96;
const frequentTerms = new StaticArray<u32>(MAX_FREQUENT);
const frequentMaps = new StaticArray<usize>(MAX_FREQUENT);
let frequentCount: i32 = 0;
let words: usize = 0;
/** A term with this many postings or more is frequent. */
export let frequentPostings: u32 = 0xffffffff;

/** Sizes the bitmaps: `docWords` u32 words each. */
export function prepareFrequent(docWords: usize): void {
  words = docWords;
  frequentPostings = <u32>min<usize>(docWords * 2, 0xffffffff);
}

/** The doc bitmap of a frequent term, built on first use; 0 when the slice keeps no more. */
export function frequentMap(term: u32): usize {
  for (let i = 0; i < frequentCount; i++) if (unchecked(frequentTerms[i]) == term) return unchecked(frequentMaps[i]);
  if (frequentCount == MAX_FREQUENT) return 0;
  const bm = allocate(words << 2); // fresh memory reads zero
  const end = postingEnd(term);
  for (let p = postingStart(term); p < end; p++) {
    const doc = postingDoc(p);
    const at = bm + (<usize>(doc >> 5) << 2);
    store<u32>(at, load<u32>(at) | (<u32>1 << (doc & 31)));
  }
  unchecked(frequentTerms[frequentCount] = term);
  unchecked(frequentMaps[frequentCount] = bm);
  frequentCount++;
  return bm;
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
