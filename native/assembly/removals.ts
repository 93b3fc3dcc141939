// Docs removed from a slice: a generation may serve a slice less some of its docs (those a GLEIF
// delta replaced, served by a slice of their own), with no rebuild. removeDocs() derives, once,
// what every query then needs, in the slice's memory where every thread's instance reads it; a
// query names the set it runs against (word 30 of the query descriptor, 0: none).
//
// The answer must be the one a slice built without those docs would give. So a removed doc is
// never seen, counted or ranked (query.ts), the value counts of an unfiltered query lose them,
// and a term that only removed docs hold is no candidate: a word that exists only in a replaced
// version of a name must plan the typo round as a word that does not exist.
//
// Descriptor, u32 words: 0 removed docs, 1 their bitmap (a bit per doc), 2 the bitmap of the terms
// only they hold (a bit per term), 3 + c: column c's removed docs per code (u32 per code).

import { allocate } from "./memory";
import { nDocs, nTerms, nCols, colNCodes, docCode, fwdOffs, fwdTerm, postingStart, postingEnd, postingDoc, MAX_COLS } from "./slice";

export let removedDocs: usize = 0;
export let removedTerms: usize = 0;
export let removedCount: u32 = 0;
const removedCodes = new StaticArray<usize>(MAX_COLS);

@inline function bitOf(bm: usize, i: u32): bool { return (load<u32>(bm + (<usize>(i >> 5) << 2)) & (<u32>1 << (i & 31))) != 0; }
@inline function setBit(bm: usize, i: u32): void {
  const at = bm + (<usize>(i >> 5) << 2);
  store<u32>(at, load<u32>(at) | (<u32>1 << (i & 31)));
}

@inline export function isRemoved(doc: u32): bool { return bitOf(removedDocs, doc); }
/** Word w of the removed docs' bitmap. */
@inline export function removedWord(w: usize): u32 { return load<u32>(removedDocs + (w << 2)); }
@inline export function isRemovedTerm(term: u32): bool { return bitOf(removedTerms, term); }
/** Removed docs holding code `code` in column c. */
@inline export function removedWithCode(c: i32, code: u32): u32 {
  return load<u32>(unchecked(removedCodes[c]) + (<usize>code << 2));
}

/** The set the query runs against: a descriptor of removeDocs(), or 0 for none. */
export function useRemovals(desc: usize): void {
  if (desc == 0) {
    removedDocs = 0;
    removedTerms = 0;
    removedCount = 0;
    return;
  }
  removedCount = load<u32>(desc);
  removedDocs = <usize>load<u32>(desc + 4);
  removedTerms = <usize>load<u32>(desc + 8);
  for (let c = 0; c < nCols; c++) unchecked(removedCodes[c] = <usize>load<u32>(desc + 12 + (<usize>c << 2)));
}

/** The descriptor of the docs listed at `list` (n u32 doc ids; repeats and ids past the slice ignored). */
export function removeDocs(list: usize, n: u32): usize {
  const desc = allocate(12 + (<usize>MAX_COLS << 2)); // fresh memory reads zero (memory.ts)
  const docs = allocate(((<usize>nDocs + 32) >> 5) << 2);
  const terms = allocate(((<usize>nTerms + 32) >> 5) << 2);
  let count: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    const doc = load<u32>(list + (<usize>i << 2));
    if (doc >= nDocs || bitOf(docs, doc)) continue;
    setBit(docs, doc);
    store<u32>(list + (<usize>count << 2), doc); // the list, deduplicated in place
    count++;
  }
  for (let c = 0; c < nCols; c++) {
    const counts = allocate((<usize>unchecked(colNCodes[c]) + 1) << 2);
    for (let i: u32 = 0; i < count; i++) {
      const at = counts + (<usize>docCode(c, load<u32>(list + (<usize>i << 2))) << 2);
      store<u32>(at, load<u32>(at) + 1);
    }
    store<u32>(desc + 12 + (<usize>c << 2), <u32>counts);
  }
  for (let i: u32 = 0; i < count; i++) {
    const doc = load<u32>(list + (<usize>i << 2));
    setBit(terms, doc); // term d is doc d's LEI, which only it holds (slice.ts)
    const end = load<u32>(fwdOffs + (<usize>(doc + 1) << 2));
    for (let e = load<u32>(fwdOffs + (<usize>doc << 2)); e < end; e++) {
      const term = fwdTerm(e);
      if (!bitOf(terms, term) && onlyRemovedHold(docs, term)) setBit(terms, term);
    }
  }
  store<u32>(desc, count);
  store<u32>(desc + 4, <u32>docs);
  store<u32>(desc + 8, <u32>terms);
  return desc;
}

/** Whether every doc of the term's postings is removed: most terms answer at their first posting. */
function onlyRemovedHold(docs: usize, term: u32): bool {
  const end = postingEnd(term);
  for (let p = postingStart(term); p < end; p++) if (!bitOf(docs, postingDoc(p))) return false;
  return true;
}
