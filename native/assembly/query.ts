// Query evaluation over one slice: candidates per token (dictionary ranges), a driver chosen by
// cost (rarest tokens' postings or the most selective filter's value lists), scoring, filters and
// facets from the per-doc code columns, and the top-k collector. A one-token query scores straight
// from the postings' meta words; longer ones scan the forward index of each candidate doc.
// Whether tokens get typo candidates, and whether tokens may be dropped, is the caller's call:
// it sees every slice, so the answer stays the same however the data is sliced.
//
// A doc whose whole name is the query (equal exact-name keys, see name-key.ts) is scored first,
// before any drive, with the top score bit: pasted names rank first whatever their words.
//
// A doc is scored only when its bound (ceilingOf, from bitmaps of the tokens it holds) could
// enter the page; a query that still scores thousands refines the bounds on the way
// (refineBounds: token costs, and how close neighbouring tokens can sit).
//
// Query descriptor (u32 words at q): 0 nTokens, 1 fieldMask, 2 window, 3 facetMask,
// 4 filterMask, 5 typo mask (bit t: token t gets typo candidates), 6 flags (2 drop allowed),
// 8 + c: filter bitmap pointer of column c, 24/25 exact-name key hi/lo, 26 the query's term
// count before capping, 27 1 when there is a key, 28 the named page (see namedSeen), 29 the work
// budget (0: none; see workEstimate), 30 the docs removed from the slice (removals.ts; 0: none),
// 32 + 8t: token t = two probes of (bytes ptr, length, max typos, prefix flag | cost << 8: a
// cost every candidate of the probe adds); a probe of length 0 is absent.

import { allocate, zero } from "./memory";
import {
  nDocs, nTerms, nCols, postDocWidth, postDocMask, postDocsBase, fwdOffs, fwdTerm, fwdMeta, nameLen, colCodes, colNCodes, colValOffs, colListOffs, colListDocs,
  postingStart, postingEnd, postingDoc, postingMeta, docCode, codeAt, MAX_COLS, nameKeys, nameKeyCount, docRank, colCodeShift, LEI_META,
} from "./slice";
import { resetRanges, rangeCount, rangeLo, rangeHi, rangeCost, matchExact, matchFuzzy, addRangeCost, dropTerms, WHOLE } from "./dictionary";
import { useRemovals, removedDocs, removedTerms, removedCount, isRemoved, removedWord, removedWithCode } from "./removals";
import { resetCollector, offer, drain, excludes, excludesDoc, windowFull, MAX_WINDOW } from "./collector";
import { frequentMap, frequentPostings, orInto } from "./frequent";

export const MAX_TOKENS: i32 = 16;
// field bits of a meta word; 4 = address
const FIELD_LEGAL: u32 = 1, FIELD_OTHER: u32 = 2, FIELD_LEI: u32 = 8, FIELDS_ALL: u32 = 0xf;
const NO_MATCH: i32 = 255;

// ---- scratch, sized when the slice is configured ----
let seenBits: usize = 0;    // one bit per doc: already considered by this evaluation
let termBits: usize = 0;    // one bit per term: a candidate of some token (scoreDoc's first test)
let touched: usize = 0;     // words of seenBits set by this evaluation, to clear them cheaply
let touchedCount: u32 = 0;
let candidates: usize = 0; // u32 per doc: the docs holding every token, for driveByMarks
let docWords: usize = 0;     // u32 words of a one-bit-per-doc bitmap
const tokenDocs = new StaticArray<usize>(MAX_TOKENS); // per token: its docs, when marked
const wholeDocs = new StaticArray<usize>(MAX_TOKENS); // per split token: the docs holding it whole
const cheapDocs = new StaticArray<usize>(MAX_TOKENS); // per token split by cost: the docs holding a cheapest candidate
let pairNear: usize = 0;     // u16 per doc: 2 bits per marked pair of tokens, how close they can sit (see markPair)
let posMasks: usize = 0;     // u16 per doc: legal-name positions of a token's candidates, while a pair is marked
const facetCounts = new StaticArray<usize>(MAX_COLS);
export const OUT_HEADER: usize = 32;
export const outBuf: usize = allocate(OUT_HEADER + <usize>MAX_WINDOW * 12);
export const queryBuf: usize = allocate(4096);

const tokStart = new StaticArray<i32>(MAX_TOKENS);
const tokEnd = new StaticArray<i32>(MAX_TOKENS);
const tokPostings = new StaticArray<u32>(MAX_TOKENS);
const tokMinCost = new StaticArray<i32>(MAX_TOKENS); // the lowest typo cost among a token's candidates
const tokNextCost = new StaticArray<i32>(MAX_TOKENS); // the next lowest, or NO_MATCH
const tokCanBeWhole = new StaticArray<i32>(MAX_TOKENS); // 1 when some candidate matches the whole token
const order = new StaticArray<i32>(MAX_TOKENS);
const bestCost = new StaticArray<i32>(MAX_TOKENS);
const bestWhole = new StaticArray<i32>(MAX_TOKENS);
const bestWeight = new StaticArray<i32>(MAX_TOKENS);
const bestPos = new StaticArray<i32>(MAX_TOKENS);

let nTokens: i32 = 0;
let queryTerms: i32 = 0; // the query's terms before capping at MAX_TOKENS: what name lengths compare to
let fieldMask: u32 = 0;
let filterMask: u32 = 0;
let facetMask: u32 = 0;
let found: u32 = 0;
let probing = false;

export let docsConsidered: u32 = 0;
export let docsScored: u32 = 0;

/** Allocates the scratch: fresh linear memory reads zero (memory.ts never reuses any), and a page stays out of RSS until a query touches it. */
export function prepareScratch(): void {
  const words = (<usize>nDocs + 32) >> 5;
  docWords = words;
  for (let t = 0; t < MAX_TOKENS; t++) unchecked(tokenDocs[t] = allocate(words * 4));
  for (let t = 0; t < MAX_TOKENS; t++) unchecked(wholeDocs[t] = allocate(words * 4));
  for (let t = 0; t < MAX_TOKENS; t++) unchecked(cheapDocs[t] = allocate(words * 4));
  pairNear = allocate(<usize>nDocs * 2 + 4);
  posMasks = allocate(<usize>nDocs * 2 + 4);
  seenBits = allocate(words * 4);
  touched = allocate(words * 4);
  candidates = allocate(<usize>nDocs * 4 + 4);
  touchedCount = 0;
  const termWords = (<usize>nTerms + 32) >> 5;
  termBits = allocate(termWords * 4);
  for (let c = 0; c < nCols; c++) unchecked(facetCounts[c] = allocate(<usize>colNCodes[c] * 4 + 4));
}

export function facetCountsPtr(c: i32): usize { return unchecked(facetCounts[c]); }

/** Sets (or clears) the term bits of [lo, hi): whole words at once in the middle. */
function fillTermBits(lo: u32, hi: u32, on: bool): void {
  let t = lo;
  while (t < hi && (t & 31) != 0) { flipTermBit(t, on); t++; }
  const words = (hi - t) >> 5;
  if (words > 0) { memory.fill(termBits + (<usize>(t >> 5) << 2), on ? 0xff : 0, <usize>words << 2); t += words << 5; }
  while (t < hi) { flipTermBit(t, on); t++; }
}

@inline function flipTermBit(t: u32, on: bool): void {
  const at = termBits + (<usize>(t >> 5) << 2);
  const bit: u32 = 1 << (t & 31);
  store<u32>(at, on ? load<u32>(at) | bit : load<u32>(at) & ~bit);
}

/** Marks every candidate term of the current ranges (on), or unmarks them (off). */
function markCandidates(on: bool): void {
  for (let r = 0; r < rangeCount; r++) fillTermBits(rangeLo(r), rangeHi(r), on);
}

@inline function isCandidate(t: u32): bool {
  return (load<u32>(termBits + (<usize>(t >> 5) << 2)) & (1 << (t & 31))) != 0;
}

/** Marks doc seen; false when it already was. */
@inline function firstSight(doc: u32): bool {
  if (removedDocs != 0 && isRemoved(doc)) return false; // never seen, as if the slice lacked it
  const at = seenBits + (<usize>(doc >> 5) << 2);
  const word = load<u32>(at);
  const bit: u32 = 1 << (doc & 31);
  if ((word & bit) != 0) return false;
  if (word == 0) { store<u32>(touched + (<usize>touchedCount << 2), doc >> 5); touchedCount++; }
  store<u32>(at, word | bit);
  return true;
}

function clearSeen(): void {
  if (bulkMarked || <usize>touchedCount > bitmapLines()) {
    zero(seenBits, docWords << 2);
    bulkMarked = false;
  } else {
    for (let i: u32 = 0; i < touchedCount; i++) store<u32>(seenBits + (<usize>load<u32>(touched + (<usize>i << 2)) << 2), 0);
  }
  touchedCount = 0;
}

// ---- counting in bulk: once a one-token query's page is settled, the rest of a long range
// only adds to `found`. Each of its postings just sets its doc's seen bit, with no test and no
// bookkeeping; the evaluation then counts the set bits once, in doc order (filters and facets
// read their columns sequentially there), and clears the whole bitmap. That fixed cost pays
// from about a posting per 64 docs on.
let bulkMarked = false;

function markInBulk(from: u32, end: u32, fields: u32): void {
  const mask = fieldMask & fields & 0xf;
  docsConsidered += end - from;
  bulkMarked = true;
  if (mask == FIELDS_ALL) { writeDocWords(from, end, seenBits, true); return; } // every posting is in some field
  for (let p = from; p < end; p++) {
    if ((postingMeta(p) & mask) == 0) continue;
    const doc = postingDoc(p);
    const at = seenBits + (<usize>(doc >> 5) << 2);
    store<u32>(at, load<u32>(at) | (<u32>1 << (doc & 31)));
  }
}

/** Docs marked seen by this evaluation: with bulk counting, its `found`. */
function countSeen(): u32 {
  if (removedDocs != 0) {
    let live: u32 = 0;
    for (let w: usize = 0; w < <usize>docWords; w++) live += popcnt<u32>(load<u32>(seenBits + (w << 2)) & ~removedWord(w));
    return live;
  }
  let n: u64 = 0;
  const words = docWords >> 1;
  for (let w: usize = 0; w < words; w++) n += popcnt<u64>(load<u64>(seenBits + (w << 3)));
  if ((docWords & 1) != 0) n += <u64>popcnt<u32>(load<u32>(seenBits + ((docWords - 1) << 2)));
  return <u32>n;
}

/**
 * `found` and the facet counts once a drive counted in bulk: every doc seen matched, so they
 * are counted again from the seen bits, those passing the filters only.
 */
function settleBulk(): void {
  if (filterMask == 0 && facetMask == 0) { found = countSeen(); return; }
  // the matching docs gathered in doc order, then each facet's column read in one tight pass:
  // tens of thousands of docs cost a sequential sweep per column, not a loop over columns per doc
  let n: u32 = 0;
  for (let w: u32 = 0; w < <u32>docWords; w++) {
    let bits = load<u32>(seenBits + (<usize>w << 2));
    if (removedDocs != 0) bits &= ~removedWord(<usize>w);
    while (bits != 0) {
      const doc = (w << 5) | ctz(bits);
      bits &= bits - 1;
      if (passesFilters(doc)) { store<u32>(candidates + (<usize>n << 2), doc); n++; }
    }
  }
  found = n;
  for (let c = 0; c < nCols; c++) {
    if ((facetMask & (1 << c)) == 0) continue;
    const counts = unchecked(facetCounts[c]), codes = unchecked(colCodes[c]);
    zero(counts, <usize>unchecked(colNCodes[c]) * 4);
    const shift = unchecked(colCodeShift[c]);
    if (shift == 0) countColumn<u8>(counts, codes, n);
    else if (shift == 1) countColumn<u16>(counts, codes, n);
    else countColumn<u32>(counts, codes, n);
  }
}

/** Adds the first n gathered docs' codes of one column to its counts. */
@inline function countColumn<T>(counts: usize, codes: usize, n: u32): void {
  for (let i: u32 = 0; i < n; i++) {
    const doc = load<u32>(candidates + (<usize>i << 2));
    const at = counts + (<usize>load<T>(codes + (<usize>doc << alignof<T>())) << 2);
    store<u32>(at, load<u32>(at) + 1);
  }
}

@inline function filterBitmap(c: i32): usize { return load<u32>(queryBuf + 32 + (<usize>c << 2)); }
@inline function bitSet(bm: usize, code: u32): bool { return (load<u32>(bm + (<usize>(code >> 5) << 2)) & (1 << (code & 31))) != 0; }
@inline function valueCount(c: i32, code: u32): u32 {
  const offs = unchecked(colValOffs[c]);
  return load<u32>(offs + (<usize>(code + 1) << 2)) - load<u32>(offs + (<usize>code << 2));
}

@inline function passesFilters(doc: u32): bool {
  if (filterMask == 0) return true;
  for (let c = 0; c < nCols; c++) {
    if ((filterMask & (1 << c)) == 0) continue;
    if (!bitSet(filterBitmap(c), docCode(c, doc))) return false;
  }
  return true;
}

/** A match that is counted, not ranked: it adds to found and to its facet values. */
@inline function tally(doc: u32): void {
  found++;
  if (facetMask != 0) countFacets(doc);
}

/** tally() for a doc not yet seen that passes the filters. */
@inline function tallyNew(doc: u32): void {
  docsConsidered++;
  if (firstSight(doc) && passesFilters(doc)) tally(doc);
}

function countFacets(doc: u32): void {
  for (let c = 0; c < nCols; c++) {
    if ((facetMask & (1 << c)) == 0) continue;
    const p = unchecked(facetCounts[c]) + (<usize>docCode(c, doc) << 2);
    store<u32>(p, load<u32>(p) + 1);
  }
}

function probeBase(t: i32, p: i32): usize { return queryBuf + 128 + <usize>t * 32 + <usize>p * 16; }

/** Candidates of token t; with typos, fuzzy ones too. */
function buildToken(t: i32, typos: bool): void {
  unchecked(tokStart[t] = rangeCount);
  for (let p = 0; p < 2; p++) {
    const base = probeBase(t, p);
    const len = load<u32>(base + 4);
    if (len == 0) continue;
    const bytes = <usize>load<u32>(base);
    const flags = load<u32>(base + 12);
    const from = rangeCount;
    if (typos) matchFuzzy(bytes, len, <i32>load<u32>(base + 8), (flags & 1) != 0);
    else matchExact(bytes, len, (flags & 1) != 0);
    if ((flags >> 8) != 0) addRangeCost(from, flags >> 8);
  }
  if (removedTerms != 0) dropTerms(unchecked(tokStart[t]), removedTerms);
  unchecked(tokEnd[t] = rangeCount);
  let postings: u32 = 0, minCost: i32 = NO_MATCH, nextCost: i32 = NO_MATCH, canBeWhole = 0;
  for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
    postings += postingStart(rangeHi(r)) - postingStart(rangeLo(r));
    const cost = <i32>(rangeCost(r) & 0xff);
    if (cost < minCost) { nextCost = minCost; minCost = cost; }
    else if (cost > minCost && cost < nextCost) nextCost = cost;
    if ((rangeCost(r) & WHOLE) != 0) canBeWhole = 1;
  }
  unchecked(tokPostings[t] = postings);
  unchecked(tokMinCost[t] = minCost);
  unchecked(tokNextCost[t] = nextCost);
  unchecked(tokCanBeWhole[t] = canBeWhole);
}

// costFlags of the range of token t holding term, or -1.
function lookup(t: i32, term: u32): i32 {
  let lo = unchecked(tokStart[t]), hi = unchecked(tokEnd[t]);
  if (lo >= hi || term < rangeLo(lo) || term >= rangeHi(hi - 1)) return -1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rangeHi(mid) <= term) lo = mid + 1; else hi = mid;
  }
  if (lo < unchecked(tokEnd[t]) && rangeLo(lo) <= term) return <i32>rangeCost(lo);
  return -1;
}

@inline function fieldWeight(bits: u32): i32 {
  if ((bits & (FIELD_LEGAL | FIELD_LEI)) != 0) return 3;
  if ((bits & FIELD_OTHER) != 0) return 2;
  return 1;
}

// Score from the per-token best matches in best*. Criteria, most significant first: the whole
// name is the query (EXACT_NAME, set by considerExactNames), tokens matched, tokens matched in a name,
// typo cost, whole-token (not prefix) matches, field weight, proximity in the legal name, name
// length closest to the query's (a prefix's shortest completion), the doc's standing (docRank).
// All within 53 bits, so the host holds a score in a double.
export const EXACT_NAME: u64 = <u64>1 << 52;
export const WHOLE_SHIFT: u32 = 32;
const MAX_RANK: i32 = 3;
function assemble(nl: i32, minMatch: i32, rank: i32): u64 {
  let matched = 0, named = 0, cost = 0, whole = 0, weight = 0, prox = 0;
  for (let t = 0; t < nTokens; t++) {
    const bc = unchecked(bestCost[t]);
    if (bc == NO_MATCH) { prox += 8; continue; }
    matched++;
    if (unchecked(bestWeight[t]) >= 2) named++;
    cost += bc;
    whole += unchecked(bestWhole[t]);
    weight += unchecked(bestWeight[t]);
    if (t > 0) {
      const a = unchecked(bestPos[t - 1]), b = unchecked(bestPos[t]);
      if (a == 255 || b == 255) prox += 8;
      else { let gap = b - a - 1; if (gap < 0) gap = -gap + 1; prox += gap > 8 ? 8 : gap; }
    }
  }
  if (matched < minMatch || matched == 0) return 0;
  return pack(matched, named, cost, whole, weight, prox, nl, rank);
}

/** How far a name of nl words is from the query's length. */
@inline function distanceOf(nl: i32): i32 { return nl > queryTerms ? nl - queryTerms : queryTerms - nl; }

function pack(matched: i32, named: i32, cost: i32, whole: i32, weight: i32, prox: i32, nl: i32, rank: i32): u64 {
  if (cost > 31) cost = 31;
  if (weight > 63) weight = 63;
  if (prox > 255) prox = 255;
  const distance = min(distanceOf(nl), 255);
  // 5 bits each for counts (up to 16 tokens)
  return (<u64>matched << 47) | (<u64>named << 42) | (<u64>(31 - cost) << 37) | (<u64>whole << WHOLE_SHIFT) |
    (<u64>weight << 26) | (<u64>(255 - prox) << 18) | (<u64>(255 - distance) << 10) | (<u64>rank << 8);
}

@inline function rankOf(doc: u32): i32 { return <i32>load<u8>(docRank + <usize>doc); }

@inline function resetBest(): void {
  for (let t = 0; t < nTokens; t++) {
    unchecked(bestCost[t] = NO_MATCH); unchecked(bestWhole[t] = 0); unchecked(bestWeight[t] = 0); unchecked(bestPos[t] = 255);
  }
}

// A token's best match in a doc: in a name field first, then fewest typos, whole over prefix,
// heavier field.
@inline function improve(t: i32, cf: i32, meta: u32, bits: u32): void {
  const cost = cf & 0xff;
  const whole = (cf & <i32>WHOLE) != 0 ? 1 : 0;
  const weight = fieldWeight(bits);
  const bc = unchecked(bestCost[t]);
  const named = weight >= 2, wasNamed = unchecked(bestWeight[t]) >= 2;
  if (bc == NO_MATCH || (named && !wasNamed) || (named == wasNamed && (cost < bc || (cost == bc && (whole > unchecked(bestWhole[t]) || (whole == unchecked(bestWhole[t]) && weight > unchecked(bestWeight[t]))))))) {
    unchecked(bestCost[t] = cost); unchecked(bestWhole[t] = whole); unchecked(bestWeight[t] = weight);
    unchecked(bestPos[t] = (bits & FIELD_LEGAL) != 0 ? <i32>((meta >> 8) & 0xff) : 255);
  }
}

/**
 * Score of doc by its forward index, or 0 when it matches fewer than minMatch tokens. The legal
 * name's length comes from the posting that led here when there is one: a cache miss fewer.
 */
function scoreDoc(doc: u32, minMatch: i32, nl: i32): u64 {
  docsScored++;
  resetBest();
  // the doc's own LEI, which the forward index leaves out (slice.ts)
  const leiBits = LEI_META & fieldMask & 0xf;
  if (leiBits != 0 && isCandidate(doc)) {
    for (let t = 0; t < nTokens; t++) {
      const cf = lookup(t, doc);
      if (cf >= 0) improve(t, cf, LEI_META, leiBits);
    }
  }
  const end = load<u32>(fwdOffs + (<usize>(doc + 1) << 2));
  for (let e = load<u32>(fwdOffs + (<usize>doc << 2)); e < end; e++) {
    const meta = <u32>load<u16>(fwdMeta + (<usize>e << 1));
    const bits = meta & 0xf & fieldMask;
    if (bits == 0) continue;
    const term = fwdTerm(e);
    if (!isCandidate(term)) continue;
    for (let t = 0; t < nTokens; t++) {
      const cf = lookup(t, term);
      if (cf >= 0) improve(t, cf, meta, bits);
    }
  }
  return assemble(nl, minMatch, rankOf(doc));
}

let bestScore: u64 = 0;
// Named matches: docs matching every token in a name field at no typo cost (a score of at least
// namedFloor), counted as they are accepted. Once the host's named page of them exists, a typo
// round could only add docs ranked below them, so the host's planner skips it; a probe stops
// there too. With a window at least the named page, the count reaches the page exactly when the
// page is full of them: a doc bounded out of the window has a window of better ones above it.
let namedFloor: u64 = 0;
let namedPage: u32 = 0;
let namedSeen: u32 = 0;
// Probing: counting matches without filters, to decide on typos and dropped tokens the same way
// whatever the filters. A probe stops as soon as its question is answered.
let stopped = false;
let stopWhenWhole = false;
@inline function accept(doc: u32, score: u64): void {
  found++;
  if (score > bestScore) bestScore = score;
  if (score >= namedFloor) namedSeen++;
  if (probing) {
    if (!stopWhenWhole || <i32>((score >> WHOLE_SHIFT) & 0x1f) >= nTokens || (namedPage > 0 && namedSeen >= namedPage)) stopped = true;
    return;
  }
  if (facetMask != 0) countFacets(doc);
  offer(doc, score);
}

// ---- token pre-filter: scoring a doc from the forward index costs a few cache misses, setting a
// bit per posting a few nanoseconds. So the docs of every token with few enough postings are
// marked first (postings in the query's fields only, so a mark means the doc holds the token),
// and a doc that cannot reach minMatch tokens is dropped before it is scored. When every token
// is marked, the marks tell which tokens a doc holds: with its name length and standing, that
// bounds its score, and a doc the full window already outranks is only counted. Marks depend on
// the query's candidates only, so they stay for the query's every evaluation (probe, fewer
// tokens required) and are cleared once, when it ends.
const MARK_FACTOR: u64 = 32;
let markedMask: u32 = 0;
let unmarkedTokens: i32 = 0;
// A prefix token whose whole-word candidates are a small part of its postings ("tru" beside
// trust, truck...) is split: the docs holding it whole are marked apart too, so that a doc's
// bound counts a whole-word match only where it holds one. Without that, every doc of "the tru"
// is bounded as if it held "tru" itself, no real hit ever reaches that bound, and all are scored.
const SPLIT_FACTOR: u64 = 4;
let splitMask: u32 = 0;
// ---- refined bounds: once a query has scored REFINE_AFTER_SCORED docs (or a full window
// still admits a whole distance pass, or a long drive starts whose every pair of neighbouring
// tokens shares a candidate), more marks may bound the docs still to come (refineBounds). Most
// queries never get there, and pay nothing.
//
// A token whose cheapest candidates are a small part of its postings ("truste" beside "trust",
// one typo away) is split by cost: a doc's bound counts the cheapest cost only where the doc
// holds such a candidate, and the next cost elsewhere.
let cheapMask: u32 = 0;
// Proximity of neighbouring tokens. Most docs that hold both words of "holding holdin" or
// "fund fun" hold them as one word, at one position; most that hold "limited pri" hold "Private
// Limited", the other way round. A bound that puts every such pair side by side is reached by
// none of them, and then every doc is scored. So each pair's proximity in each doc is bounded
// from its postings' legal-name positions (markPair), at most MAX_PAIR_PROX, what assemble()
// counts for a shared word or the reverse order at least. A pair is marked only when its
// postings are few beside the docs still to come: three passes over them cost about what
// scoring one doc in PAIR_COST_RATIO does.
let pairMask: u32 = 0; // bit t: the pair of tokens t-1 and t is marked in pairNear
// pairNear holds the first PAIRS_NEAR - 1 pairs (16 bits a doc): a query's later pairs go
// unmarked, so their bounds stay those of side-by-side tokens
const PAIRS_NEAR: i32 = 8;
// posMasks tells a legal name's first TOLD_POSITIONS positions apart (16 bits a doc)
const TOLD_POSITIONS: u32 = 15;
const MAX_PAIR_PROX: u32 = 3;
const SHARED_WORD_PROX: u32 = 2;
const pairCap = new StaticArray<u32>(MAX_TOKENS); // per marked pair: its bound where no closer position was found
// pairNear's fields hold MAX_PAIR_PROX less the bound, so that a doc not visited reads the highest
const REST_PAIR_PROX: u32 = 2;
const REST_NEAR: u32 = 0x55555555; // every pair's bound REST_PAIR_PROX
const CLOSE_NEAR: u32 = 0xaaaaaaaa; // a pair's bound under REST_PAIR_PROX
const REFINE_AFTER_SCORED: u32 = 4096;
const PAIR_COST_RATIO: u64 = 8;
let refinePending = false;   // the query has not refined its bounds yet
let scoredAtStart: u32 = 0;  // docsScored when the query began
let driveDocs: u32 = 0;      // the docs the current drive will consider, about
let consideredAtDrive: u32 = 0;


@inline function isWhole(r: i32): bool { return (rangeCost(r) & WHOLE) != 0; }

// Which of a token's ranges a mark takes: all, the whole-word ones, or the cheapest.
const ALL_RANGES = 0, WHOLE_RANGES = 1, CHEAPEST_RANGES = 2;

@inline function takes(t: i32, r: i32, kind: i32): bool {
  if (kind == WHOLE_RANGES) return isWhole(r);
  if (kind == CHEAPEST_RANGES) return <i32>(rangeCost(r) & 0xff) == unchecked(tokMinCost[t]);
  return true;
}

/**
 * Sets the bits of the docs of token t's ranges of a kind in bm, in the query's fields. Over all
 * fields, a frequent term's docs come from its bitmap (frequent.ts).
 */
function markRanges(t: i32, bm: usize, kind: i32): void {
  const mask = fieldMask & 0xf;
  const allFields = mask == FIELDS_ALL;
  for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
    if (!takes(t, r, kind)) continue;
    const lo = rangeLo(r), hi = rangeHi(r);
    if (!allFields || postingStart(hi) - postingStart(lo) < frequentPostings) { markPostings(postingStart(lo), postingStart(hi), bm, mask); continue; }
    for (let term = lo; term < hi; term++) {
      const map = postingEnd(term) - postingStart(term) >= frequentPostings ? frequentMap(term) : 0;
      if (map != 0) orInto(bm, map);
      else markPostings(postingStart(term), postingEnd(term), bm, mask);
    }
  }
}

/** Sets the bits of the docs of postings [from, end) in bm, in the fields of mask. */
function markPostings(from: u32, end: u32, bm: usize, mask: u32): void {
  if (mask == FIELDS_ALL) {
    // every posting is in some field: its meta word need not be read
    writeDocWords(from, end, bm, true);
    return;
  }
  for (let p = from; p < end; p++) {
    if ((postingMeta(p) & mask) == 0) continue;
    const doc = postingDoc(p);
    const at = bm + (<usize>(doc >> 5) << 2);
    store<u32>(at, load<u32>(at) | (1 << (doc & 31)));
  }
}

/**
 * Sets the bit of each doc of postings [from, end) in bm (set), or zeroes the word holding it.
 * A text term's stored doc ids are read straight, four at a time, so that the bitmap words they
 * lead to load side by side.
 */
function writeDocWords(from: u32, end: u32, bm: usize, set: bool): void {
  if (from < nDocs) {
    for (let p = from; p < end; p++) writeDocWord(bm, postingDoc(p), set);
    return;
  }
  const width = postDocWidth, docMask = postDocMask;
  let at = postDocsBase + <usize>from * width;
  let p = from;
  for (; p + 4 <= end; p += 4) {
    const d0 = load<u32>(at) & docMask, d1 = load<u32>(at + width) & docMask;
    const d2 = load<u32>(at + 2 * width) & docMask, d3 = load<u32>(at + 3 * width) & docMask;
    at += 4 * width;
    writeDocWord(bm, d0, set); writeDocWord(bm, d1, set); writeDocWord(bm, d2, set); writeDocWord(bm, d3, set);
  }
  for (; p < end; p++, at += width) writeDocWord(bm, load<u32>(at) & docMask, set);
}

@inline function writeDocWord(bm: usize, doc: u32, set: bool): void {
  const at = bm + (<usize>(doc >> 5) << 2);
  store<u32>(at, set ? load<u32>(at) | (<u32>1 << (doc & 31)) : 0);
}

/**
 * The cache lines of a one-bit-per-doc bitmap. Zeroing more scattered words than that touches
 * no fewer lines than zeroing the whole bitmap, which runs sequentially at memset speed.
 */
@inline function bitmapLines(): usize { return docWords >> 4; }

/** Clears what markRanges set: the postings' words, or the whole bitmap when they outnumber its cache lines. */
function unmarkRanges(t: i32, bm: usize, kind: i32): void {
  if (<usize>postingsOf(t, kind) > bitmapLines()) { zero(bm, docWords << 2); return; }
  for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
    if (!takes(t, r, kind)) continue;
    writeDocWords(postingStart(rangeLo(r)), postingStart(rangeHi(r)), bm, false);
  }
}

function postingsOf(t: i32, kind: i32): u32 {
  let n: u32 = 0;
  for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) if (takes(t, r, kind)) n += postingStart(rangeHi(r)) - postingStart(rangeLo(r));
  return n;
}

/**
 * Sets in posMasks the legal-name positions of token t's candidates, per doc: a bit per
 * position, positions from TOLD_POSITIONS on sharing the top bit.
 */
function gatherPositions(t: i32): void {
  const legal = fieldMask & FIELD_LEGAL;
  for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
    const end = postingStart(rangeHi(r));
    for (let p = postingStart(rangeLo(r)); p < end; p++) {
      const meta = postingMeta(p);
      if ((meta & legal) == 0) continue;
      const at = posMasks + (<usize>postingDoc(p) << 1);
      const pos = (meta >> 8) & 0xff;
      store<u16>(at, load<u16>(at) | <u16>(pos < TOLD_POSITIONS ? <u32>1 << pos : <u32>1 << TOLD_POSITIONS));
    }
  }
}

/**
 * Zeroes a u16-per-doc array where the postings of the tokens in `tokens` wrote: entry by entry,
 * or all of it at once when those postings are more than a quarter of the docs.
 */
function zeroAtDocs(entries: usize, tokens: u32): void {
  let postings: u64 = 0;
  for (let t = 0; t < nTokens; t++) if ((tokens & (1 << t)) != 0) postings += <u64>unchecked(tokPostings[t]);
  if (postings * 4 > <u64>nDocs) { zero(entries, <usize>nDocs * 2); return; }
  for (let t = 0; t < nTokens; t++) {
    if ((tokens & (1 << t)) == 0) continue;
    for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
      const end = postingStart(rangeHi(r));
      for (let p = postingStart(rangeLo(r)); p < end; p++) store<u16>(entries + (<usize>postingDoc(p) << 1), 0);
    }
  }
}

/** Whether tokens a and b have the same candidates at the same costs. */
function sameCandidates(a: i32, b: i32): bool {
  const n = unchecked(tokEnd[a]) - unchecked(tokStart[a]);
  if (n != unchecked(tokEnd[b]) - unchecked(tokStart[b])) return false;
  for (let i = 0; i < n; i++) {
    const ra = unchecked(tokStart[a]) + i, rb = unchecked(tokStart[b]) + i;
    if (rangeLo(ra) != rangeLo(rb) || rangeHi(ra) != rangeHi(rb) || rangeCost(ra) != rangeCost(rb)) return false;
  }
  return true;
}

/** Token t's one candidate term, or -1 when it has none or several. */
function singleTerm(t: i32): i64 {
  const r = unchecked(tokStart[t]);
  return unchecked(tokEnd[t]) == r + 1 && rangeHi(r) == rangeLo(r) + 1 ? <i64>rangeLo(r) : -1;
}

/**
 * Bounds the proximity of tokens t-1 and t in each doc holding both in its legal name: the
 * least assemble() could count over the positions of their candidates, capped at MAX_PAIR_PROX,
 * into the doc's 2-bit field of pairNear. A doc holding either elsewhere only counts 8 (so
 * without the legal name in the searched fields, nothing is visited). Where the tokens share a
 * word, that word matches both at one position, SHARED_WORD_PROX apart, which is then the
 * pair's cap:
 * - the same candidates twice ("fund fund"): each token takes the same best match in every
 *   doc, so nothing is visited;
 * - t-1's one term is a candidate of t ("fund fun"): that term need not be visited.
 */
function markPair(t: i32): void {
  const legal = fieldMask & FIELD_LEGAL;
  if (sameCandidates(t - 1, t)) {
    unchecked(pairCap[t] = SHARED_WORD_PROX);
    return;
  }
  const shift = <u32>(2 * t);
  const only = singleTerm(t - 1);
  const shared = only >= 0 && lookup(t, <u32>only) >= 0;
  unchecked(pairCap[t] = shared ? SHARED_WORD_PROX : MAX_PAIR_PROX);
  if (legal == 0 || (shared && singleTerm(t) == only)) return;
  gatherPositions(t - 1);
  for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
    const hi = rangeHi(r);
    for (let term = rangeLo(r); term < hi; term++) {
      if (shared && <i64>term == only) continue;
      const end = postingEnd(term);
      for (let p = postingStart(term); p < end; p++) {
        const meta = postingMeta(p);
        if ((meta & legal) == 0) continue;
        const doc = postingDoc(p);
        const before = <u32>load<u16>(posMasks + (<usize>doc << 1));
        if (before == 0) continue;
        const at = pairNear + (<usize>doc << 1);
        const near = <u32>load<u16>(at);
        const prox = pairProx(before, (meta >> 8) & 0xff);
        if (MAX_PAIR_PROX - prox > ((near >> shift) & 3)) store<u16>(at, <u16>((near & ~(<u32>3 << shift)) | ((MAX_PAIR_PROX - prox) << shift)));
      }
    }
  }
  zeroAtDocs(posMasks, 1 << (t - 1));
}

/**
 * The least proximity assemble() counts between a candidate of the first token at one of the
 * positions in mask and one of the second at pos, at most MAX_PAIR_PROX: the gap after a word
 * before it, or 2 and more for one at or after it. Positions from TOLD_POSITIONS on are not told
 * apart, and could be side by side.
 */
@inline function pairProx(mask: u32, pos: u32): u32 {
  if ((mask >> TOLD_POSITIONS) != 0 || pos >= TOLD_POSITIONS) return 0;
  let prox = MAX_PAIR_PROX;
  const before = mask & ((<u32>1 << pos) - 1);
  if (before != 0) prox = min(prox, pos - (31 - clz(before)) - 1);
  const after = mask >> pos;
  if (after != 0) prox = min(prox, ctz(after) + 2);
  return prox;
}

/**
 * Drives call this when they start: about how many docs they will consider. A long drive whose
 * every pair of neighbouring tokens shares a candidate ("fund fun", "invest inve") refines at
 * once: most of its docs hold the pair as one word, which no bound without pair marks tells
 * apart. Unless the window is already out of every doc's reach (a page of exact names).
 */
function startDrive(docs: u32): void {
  driveDocs = docs;
  consideredAtDrive = docsConsidered;
  if (markedMask == (<u32>1 << nTokens) - 1 && refinesAtStart(docs)) refineBounds();
}

/** Whether a drive of about `docs` docs refines its bounds as it starts, once every token is marked (startDrive). */
function refinesAtStart(docs: u32): bool {
  return refinePending && docs > REFINE_AFTER_SCORED && !excludes(highestCeiling()) && neighboursShareTerms();
}

/** The highest bound any doc can have, marks aside. */
function highestCeiling(): u64 {
  const all: u32 = (<u32>1 << nTokens) - 1;
  return ceilingOf(all, queryTerms, MAX_RANK, all, all, 0xffffffff);
}

const SHARED_TERMS_CHECKED: u32 = 256;
/** Whether there are neighbouring tokens, and each pair has a candidate term in common (among the first terms checked). */
function neighboursShareTerms(): bool {
  if (nTokens < 2) return false;
  for (let t = 1; t < nTokens; t++) if (!shareTerm(t - 1, t)) return false;
  return true;
}

/** Whether token a has a candidate, among the first SHARED_TERMS_CHECKED, that token b shares. */
function shareTerm(a: i32, b: i32): bool {
  let checked: u32 = 0;
  for (let r = unchecked(tokStart[a]); r < unchecked(tokEnd[a]) && checked < SHARED_TERMS_CHECKED; r++) {
    const hi = rangeHi(r);
    for (let term = rangeLo(r); term < hi && checked < SHARED_TERMS_CHECKED; term++, checked++) if (lookup(b, term) >= 0) return true;
  }
  return false;
}

/**
 * Splits the marked tokens by cost where that pays, and marks the pairs of marked neighbouring
 * tokens whose postings are few beside the docs still to come.
 */
function refineBounds(): void {
  refinePending = false;
  for (let t = 0; t < nTokens; t++) {
    if ((markedMask & (1 << t)) == 0 || unchecked(tokNextCost[t]) == NO_MATCH) continue;
    if (<u64>postingsOf(t, CHEAPEST_RANGES) * SPLIT_FACTOR >= <u64>unchecked(tokPostings[t])) continue;
    cheapMask |= 1 << t;
    markRanges(t, unchecked(cheapDocs[t]), CHEAPEST_RANGES);
  }
  const done = docsConsidered - consideredAtDrive;
  const ahead: u64 = driveDocs > done ? <u64>(driveDocs - done) : 0;
  for (let t = 1; t < min(nTokens, PAIRS_NEAR); t++) {
    const both: u32 = 3 << (t - 1);
    if ((markedMask & both) != both) continue;
    if (<u64>unchecked(tokPostings[t - 1]) + <u64>unchecked(tokPostings[t]) > ahead * PAIR_COST_RATIO) continue;
    pairMask |= 1 << t;
    markPair(t);
  }
  updateFloorAll();
}

function markTokens(driverCost: u32, only: u32 = 0xffffffff): void {
  unmarkedTokens = 0;
  let deferred: u64 = 0;
  for (let t = 0; t < nTokens; t++) {
    if ((markedMask & (1 << t)) != 0) continue; // marked by an earlier evaluation of this query
    const n = unchecked(tokPostings[t]);
    if (<u64>n > <u64>driverCost * MARK_FACTOR) { unmarkedTokens++; continue; }
    if ((only & (1 << t)) == 0) { unmarkedTokens++; deferred += <u64>n; continue; }
    markedMask |= 1 << t;
    markRanges(t, unchecked(tokenDocs[t]), ALL_RANGES);
    if (unchecked(tokCanBeWhole[t]) != 0 && <u64>postingsOf(t, WHOLE_RANGES) * SPLIT_FACTOR < <u64>n) {
      splitMask |= 1 << t;
      markRanges(t, unchecked(wholeDocs[t]), WHOLE_RANGES);
    }
  }
  deferredBudget = deferred == 0 ? 0 : max<u64>(deferred / DEFERRED_RATIO, MIN_DEFERRED_BUDGET);
  sievePassed = 0;
  updateFloorAll();
}

// ---- marks on demand: a drive by the rarest token's postings with every token required turns
// most of its docs away on the second rarest token's marks alone (searching every field, each of
// the driver's postings is a doc holding it). The other tokens' marks bound the docs that pass
// (a doc the window already outranks is counted, not scored), and when few pass, writing a bit
// for every posting of those tokens costs more than scoring them all. So such a drive marks the
// second rarest token only (markTokens' `only`), and the others once the docs passing it,
// projected from those met so far over the whole drive, would cost more to score than marking
// them, about one doc per DEFERRED_RATIO postings (driveSieved); or once the window is full,
// from when their bounds can turn docs away (consider()). Even when the docs that pass come
// last, the drive scores at most what the marks cost before it marks them. A drive that refines
// its bounds as it starts needs every token's marks and marks them first.
const DEFERRED_RATIO: u64 = 128;
const MIN_DEFERRED_BUDGET: u64 = 16;
const MIN_PASSES_SEEN: u32 = 8; // a projection from fewer is noise
let deferredBudget: u64 = 0; // docs whose scoring costs as much as marking the put-off tokens; 0: none put off
let sievePassed: u32 = 0;    // the driver's docs that passed the sieve since the tokens were put off

/**
 * Clears the marks: every set word belongs to a posting of the token, so zeroing those words is
 * exact; a token with more postings than the bitmap has words is cleared whole, sequentially.
 */
function unmarkTokens(): void {
  for (let t = 0; t < nTokens; t++) {
    if ((markedMask & (1 << t)) == 0) continue;
    unmarkRanges(t, unchecked(tokenDocs[t]), ALL_RANGES);
    if ((splitMask & (1 << t)) != 0) unmarkRanges(t, unchecked(wholeDocs[t]), WHOLE_RANGES);
    if ((cheapMask & (1 << t)) != 0) unmarkRanges(t, unchecked(cheapDocs[t]), CHEAPEST_RANGES);
  }
  if (pairMask != 0) zeroAtDocs(pairNear, pairMask); // markPair writes at the docs of a pair's second token
  markedMask = 0;
  deferredBudget = 0;
  splitMask = 0;
  cheapMask = 0;
  pairMask = 0;
}

/**
 * The most tokens any doc holds (in the query's fields, filters aside): the count of required
 * tokens where dropping tokens one at a time would first match something, found without
 * evaluating each count on the way down. With every token marked, the docs of the rarest tokens
 * are checked first: a doc holding c tokens holds one of the n - c + 1 rarest, so once the
 * most seen reaches what the unvisited tokens' docs could hold, it is the answer. That holds
 * within a token's postings too: a doc first met at the j-th rarest token holds none of the
 * rarer ones, so at most n - j tokens; the last token's first doc in the fields settles it,
 * where scanning its postings (often the commonest word's) cost more than the query's ranking.
 */
function mostTokensHeld(): i32 {
  markTokens(0xffffffff);
  sortByPostings();
  let most = 0;
  for (let j = 0; j < nTokens; j++) {
    const reachable = nTokens - j;
    if (most >= reachable) break;
    const t = unchecked(order[j]);
    const bm = unchecked(tokenDocs[t]);
    for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]) && most < reachable; r++) {
      const end = postingStart(rangeHi(r));
      for (let p = postingStart(rangeLo(r)); p < end; p++) {
        const doc = postingDoc(p);
        if ((load<u32>(bm + (<usize>(doc >> 5) << 2)) & (1 << (doc & 31))) == 0) continue; // not in the fields
        if (removedDocs != 0 && isRemoved(doc)) continue;
        const held = <i32>popcnt(heldIn(doc, markedMask, tokenDocs));
        if (held > most) {
          most = held;
          if (most >= reachable) break;
        }
      }
    }
  }
  return most;
}

/** The tokens of `tokens` whose bitmap in `maps` has doc, as a mask. */
@inline function heldIn(doc: u32, tokens: u32, maps: StaticArray<usize>): u32 {
  if (tokens == 0) return 0;
  let held: u32 = 0;
  const word = <usize>(doc >> 5) << 2, bit: u32 = 1 << (doc & 31);
  for (let t = 0; t < nTokens; t++) {
    if ((tokens & (1 << t)) != 0 && (load<u32>(unchecked(maps[t]) + word) & bit) != 0) held |= 1 << t;
  }
  return held;
}

/** doc's field of pairNear: for each marked pair, how close its tokens can sit (0 when none is marked). */
@inline function pairsNear(doc: u32): u32 {
  return pairMask == 0 ? 0 : <u32>load<u16>(pairNear + (<usize>doc << 1));
}

/**
 * The best score a doc holding exactly the tokens `held` can reach: each field at its best for
 * those tokens (their cheapest candidates, whole where a candidate is, and for a split token
 * where the doc holds it whole (`heldWhole`), at their cheapest cost, for a token split by cost
 * where the doc holds a cheapest candidate (`heldCheap`), in the legal name, side by side or as
 * close as a marked pair can sit (`near`, see pairNear)), with the doc's own name length and
 * standing.
 */
function ceilingOf(held: u32, nl: i32, rank: i32, heldWhole: u32, heldCheap: u32, near: u32): u64 {
  let matched = 0, cost = 0, whole = 0;
  for (let t = 0; t < nTokens; t++) {
    if ((held & (1 << t)) == 0) continue;
    matched++;
    cost += (cheapMask & ~heldCheap & (1 << t)) != 0 ? unchecked(tokNextCost[t]) : unchecked(tokMinCost[t]);
    whole += (splitMask & (1 << t)) != 0 ? <i32>((heldWhole >> t) & 1) : unchecked(tokCanBeWhole[t]);
  }
  // as assemble() counts: 8 for a token not held, and 8 for a held token after one not held
  let prox = 8 * (nTokens - matched) + 8 * <i32>popcnt(held & ~(held << 1) & ~1);
  let pairs = pairMask & held & (held << 1);
  while (pairs != 0) {
    const t = ctz(pairs);
    pairs &= pairs - 1;
    prox += <i32>min(unchecked(pairCap[t]), MAX_PAIR_PROX - ((near >> (2 * t)) & 3));
  }
  return pack(matched, matched, cost, whole, 3 * matched, prox, nl, rank);
}

/** ceilingOf() for doc, which holds the tokens `held`, by its marks. */
function docCeiling(doc: u32, held: u32, nl: i32): u64 {
  return ceilingOf(held, nl, rankOf(doc), heldIn(doc, splitMask, wholeDocs), heldIn(doc, cheapMask, cheapDocs), pairsNear(doc));
}

// The lowest ceiling of a doc holding every token (farthest length, no standing, none of the
// marks that raise a bound): while the window's worst hit is not above it, no such doc can be
// outranked, and none is bounded. Marks lower it, so it follows them.
let floorAll: u64 = 0;
function updateFloorAll(): void { floorAll = ceilingOf((<u32>1 << nTokens) - 1, queryTerms + 255, 0, 0, 0, 0); }

const LACKING: u32 = 0xffffffff;

/**
 * The marked tokens doc holds, or LACKING once it lacks more than `slack` of them: read rarest
 * first, most docs a drive brings are turned away after a load or two, not one for every token.
 * An unmarked token counts as held.
 */
@inline function heldEnough(doc: u32, slack: i32): u32 {
  const word = <usize>(doc >> 5) << 2, bit: u32 = 1 << (doc & 31);
  let held: u32 = 0, missing = 0;
  for (let i = 0; i < nTokens; i++) {
    const t = unchecked(order[i]);
    if ((markedMask & (1 << t)) == 0) continue;
    if ((load<u32>(unchecked(tokenDocs[t]) + word) & bit) != 0) held |= 1 << t;
    else if (++missing > slack) return LACKING;
  }
  return held;
}

function consider(doc: u32, minMatch: i32, nl: i32): void {
  docsConsidered++;
  // the marks first: most docs a drive brings lack a token, and the marks answer the same each
  // time the doc comes again, so such a doc need not be remembered as seen
  const held = markedMask != 0 ? heldEnough(doc, nTokens - minMatch) : 0;
  if (held == LACKING) return;
  if (!firstSight(doc) || !passesFilters(doc)) return;
  if (markedMask != 0) {
    if (unmarkedTokens == 0 && (minMatch < nTokens || excludes(floorAll)) && excludesDoc(docCeiling(doc, held, nl), doc)) {
      tally(doc);
      return;
    }
  }
  if (deferredBudget != 0 && windowFull()) markTokens(driveDocs);
  if (nTokens == 0) { accept(doc, 1); return; }
  if (refinePending && docsScored - scoredAtStart >= REFINE_AFTER_SCORED) refineBounds();
  if (probing) { scoreAndAccept(doc, minMatch, nl); return; } // a probe stops at its first answer
  unchecked(batchDocs[batched] = doc);
  unchecked(batchNl[batched] = nl);
  if (++batched == SCORE_BATCH) scoreBatch();
}

function scoreAndAccept(doc: u32, minMatch: i32, nl: i32): void {
  const score = scoreDoc(doc, minMatch, nl);
  if (score != 0) accept(doc, score);
}

// ---- scoring in batches: a doc's score waits on a few cache misses in its forward index, and
// docs scored one by one wait on them one after another. consider() queues the docs it must
// score; a batch first touches each queued doc's forward index, so that their misses overlap,
// then scores them in order. Queued docs are not yet in the window, so later docs are bounded
// against a window a few docs behind: some are scored where they could have been counted,
// never the reverse, and the ranking and counts come out the same. An evaluation scores what
// is queued before it ends (evaluate).
const SCORE_BATCH: i32 = 16;
const batchDocs = new StaticArray<u32>(SCORE_BATCH);
const batchNl = new StaticArray<i32>(SCORE_BATCH);
let batchMinMatch: i32 = 0; // the evaluation's: every doc it considers needs as many tokens
let batched: i32 = 0;
let forwardTouched: u32 = 0; // what the touching loads read, kept so that they are not left out

function scoreBatch(): void {
  const n = batched;
  batched = 0;
  let touched: u32 = 0;
  for (let i = 0; i < n; i++) {
    // a doc's entries span a cache line or two of each array: its first and last entry bring them
    const at = fwdOffs + (<usize>unchecked(batchDocs[i]) << 2);
    const first = load<u32>(at), end = load<u32>(at + 4);
    const last = end > first ? end - 1 : first;
    touched += fwdTerm(first) + <u32>load<u16>(fwdMeta + (<usize>first << 1));
    touched += fwdTerm(last) + <u32>load<u16>(fwdMeta + (<usize>last << 1));
  }
  forwardTouched += touched;
  for (let i = 0; i < n; i++) scoreAndAccept(unchecked(batchDocs[i]), batchMinMatch, unchecked(batchNl[i]));
}

// The filtered column whose allowed values cover the fewest docs, and that count.
let bestFilterCol: i32 = -1;
function cheapestFilter(): u32 {
  bestFilterCol = -1;
  let best: u32 = 0xffffffff;
  for (let c = 0; c < nCols; c++) {
    if ((filterMask & (1 << c)) == 0) continue;
    const bm = filterBitmap(c);
    let total: u32 = 0;
    const n = unchecked(colNCodes[c]);
    for (let code: u32 = 0; code < n; code++) if (bitSet(bm, code)) total += valueCount(c, code);
    if (total < best) { best = total; bestFilterCol = c; }
  }
  return best;
}

/** The docs of each allowed value of the cheapest filter, value by value, each value's in doc order. */
function driveByFilter(minMatch: i32): void {
  const c = bestFilterCol;
  const bm = filterBitmap(c);
  const offs = unchecked(colListOffs[c]), docs = unchecked(colListDocs[c]);
  const n = unchecked(colNCodes[c]);
  for (let code: u32 = 0; code < n && !stopped; code++) {
    if (!bitSet(bm, code)) continue;
    const from = load<u32>(offs + (<usize>code << 2)), end = load<u32>(offs + (<usize>(code + 1) << 2));
    if (end - from < valueCount(c, code)) { scanColumn(c, code, minMatch); continue; }
    for (let i = from; i < end && !stopped; i++) {
      const doc = load<u32>(docs + (<usize>i << 2));
      consider(doc, minMatch, <i32>load<u8>(nameLen + <usize>doc));
    }
  }
}

/** driveByFilter() for a frequent value, which lists no docs: the column's codes, read in doc order. */
function scanColumn(c: i32, code: u32, minMatch: i32): void {
  const codes = unchecked(colCodes[c]), shift = unchecked(colCodeShift[c]);
  for (let doc: u32 = 0; doc < nDocs && !stopped; doc++) {
    if (codeAt(codes, shift, doc) == code) consider(doc, minMatch, <i32>load<u8>(nameLen + <usize>doc));
  }
}

/**
 * One token t can match (the only one, or the others have no candidates): each posting carries
 * its field bits, name position and name length, so no forward index is read. Postings are
 * visited in the order of improve(): name fields first, then by typo cost, so a doc's first
 * sighting is its best match. Once the window is settled, a pass leaves the rest of its
 * postings; the token's docs are then counted once, after both passes (countToken), rather than
 * the rest of each pass on its own: a common word ("ltd", "ma" and its completions) reads its
 * postings once, not twice.
 */
function driveSingleToken(t: i32, alone: bool): void {
  const known = alone ? knownMatches(t) : -1;
  countingRest = probing; // a probe counts as it goes: it stops as soon as it has its answer
  restLeft = false;
  driveSinglePass(t, FIELD_LEGAL | FIELD_OTHER);
  driveSinglePass(t, ~(FIELD_LEGAL | FIELD_OTHER));
  countingRest = true;
  if (known >= 0) found = <u32>known;
  else if (restLeft && !stopped) countToken(t);
}

// whether driveSinglePass() counts the postings it leaves unranked itself; if not, it notes in
// restLeft that it left some
let countingRest = true;
let restLeft = false;

/**
 * The docs a lone token matches when its postings say it without a pass over them: one term
 * lists each of its docs once, so with every field searched, nothing filtered, faceted or removed
 * and nothing seen before, its posting count is `found`. -1: count them.
 */
function knownMatches(t: i32): i64 {
  if ((fieldMask & FIELDS_ALL) != FIELDS_ALL || filterMask != 0 || facetMask != 0 || removedDocs != 0 || probing) return -1;
  if (found != 0 || touchedCount != 0 || bulkMarked) return -1;
  const r = unchecked(tokStart[t]);
  if (unchecked(tokEnd[t]) != r + 1 || rangeHi(r) != rangeLo(r) + 1) return -1;
  return <i64>(postingEnd(rangeLo(r)) - postingStart(rangeLo(r)));
}

/**
 * Counts every doc of token t not counted yet, as countOnly() does (its many postings in bulk):
 * a frequent term's bitmap is ORed in when every field is searched.
 */
function countToken(t: i32): void {
  const bitmaps = (fieldMask & FIELDS_ALL) == FIELDS_ALL;
  for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
    const hi = rangeHi(r);
    let from = rangeLo(r);
    for (let term = from; term < hi && bitmaps; term++) {
      if (postingEnd(term) - postingStart(term) < frequentPostings) continue;
      const map = frequentMap(term);
      if (map == 0) continue;
      countOnly(postingStart(from), postingStart(term), FIELDS_ALL);
      orInto(seenBits, map);
      bulkMarked = true;
      from = term + 1;
    }
    countOnly(postingStart(from), postingStart(hi), FIELDS_ALL);
  }
}

const MAX_COST: u32 = 8; // byte costs: two-byte scripts get twice the typo budget

function driveSinglePass(t: i32, fields: u32): void {
  for (let cost: u32 = 0; cost <= MAX_COST; cost++) {
    for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
      const cf = rangeCost(r);
      if ((cf & 0xff) != cost) continue;
      // Once the window holds better hits than any of the range's docs can score, they only count.
      const ceiling = rangeCeiling(t, cf, fields);
      const hi = rangeHi(r);
      for (let term = rangeLo(r); term < hi; term++) {
        if (excludes(ceiling)) { leave(postingStart(term), postingStart(hi), fields); break; }
        const end = postingEnd(term);
        let p = postingStart(term);
        for (; p < end && !stopped; p++) {
          const meta = postingMeta(p);
          const bits = meta & 0xf & fieldMask;
          if ((bits & fields) == 0) continue;
          // A term's docs come by name length: from the query's length on, each is further from
          // it than the one before, so once one cannot enter the window, the rest cannot either.
          const nl = <i32>(meta >> 16);
          const distance = nl - queryTerms;
          if (excludes(distance >= 0 ? ceiling - (<u64>min(distance, 255) << 10) : ceiling)) break;
          const doc = postingDoc(p);
          docsConsidered++;
          // its own distance and standing bound it closer: the window may exclude it already
          const rank = rankOf(doc);
          if (excludesDoc(ceiling - (<u64>min(distanceOf(nl), 255) << 10) - (<u64>(MAX_RANK - rank) << 8), doc)) {
            if (countingRest) tallyNew(doc);
            else restLeft = true;
            continue;
          }
          if (!firstSight(doc) || !passesFilters(doc)) continue;
          resetBest();
          improve(t, <i32>cf, meta, bits);
          accept(doc, assemble(nl, 1, rank));
        }
        if (stopped) return;
        leave(p, end, fields);
      }
    }
  }
}

/** Postings [from, end) a pass does not rank: counted now, or by countToken() after the passes. */
@inline function leave(from: u32, end: u32, fields: u32): void {
  if (countingRest) countOnly(from, end, fields);
  else if (from < end) restLeft = true;
}

/**
 * Counts the matches among postings [from, end) without ranking them: one by one when few, in
 * bulk (seen bits only, counted at the end) when many or when the bulk count is paid for anyway.
 */
function countOnly(from: u32, end: u32, fields: u32): void {
  if (from >= end) return;
  if (bulkMarked || end - from > <u32>(docWords >> 1)) { markInBulk(from, end, fields); return; }
  for (let p = from; p < end; p++) {
    const bits = postingMeta(p) & 0xf & fieldMask;
    if ((bits & fields) == 0) continue;
    tallyNew(postingDoc(p));
  }
}

/**
 * The best score a doc matching token t alone through a range of cost/flags cf can reach in
 * this pass: every field bit the pass allows at once, at the head of the legal name, the name
 * as long as the query, the best standing. Never EXACT_NAME: those docs were all seen first.
 */
function rangeCeiling(t: i32, cf: u32, fields: u32): u64 {
  resetBest();
  improve(t, <i32>cf, 0, fieldMask & fields & 0xf);
  return assemble(queryTerms, 1, MAX_RANK);
}

/** Whether anything matches minMatch tokens, ignoring filters; bestScore of what was seen. */
function probe(minMatch: i32, untilWhole: bool, exclusive: bool): bool {
  const filters = filterMask, facets = facetMask;
  filterMask = 0;
  facetMask = 0;
  probing = true;
  stopWhenWhole = untilWhole;
  evaluate(minMatch, 0, exclusive);
  probing = false;
  filterMask = filters;
  facetMask = facets;
  return found > 0;
}

// ---- exact names: the docs whose name key is the query's, found by binary search over the
// slice's (hi, lo, doc) triples sorted by hi.
@inline function keyWord(i: u32, w: u32): u32 { return load<u32>(nameKeys + ((<usize>i * 3 + <usize>w) << 2)); }

function considerExactNames(): void {
  if (load<u32>(queryBuf + 108) == 0 || nameKeyCount == 0) return;
  const hi = load<u32>(queryBuf + 96), lo = load<u32>(queryBuf + 100);
  let a: u32 = 0, b = nameKeyCount;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (keyWord(mid, 0) < hi) a = mid + 1; else b = mid;
  }
  for (let i = a; i < nameKeyCount && keyWord(i, 0) == hi && !stopped; i++) {
    if (keyWord(i, 1) != lo) continue;
    const doc = keyWord(i, 2);
    docsConsidered++;
    if (!firstSight(doc) || !passesFilters(doc)) continue;
    accept(doc, EXACT_NAME | scoreDoc(doc, 0, <i32>load<u8>(nameLen + <usize>doc)));
  }
}

/** Fills order[] with the tokens by posting count, rarest first (insertion sort: 16 at most). */
function sortByPostings(): void {
  for (let t = 0; t < nTokens; t++) unchecked(order[t] = t);
  for (let i = 1; i < nTokens; i++) {
    const v = unchecked(order[i]);
    let j = i - 1;
    while (j >= 0 && unchecked(tokPostings[order[j]]) > unchecked(tokPostings[v])) { unchecked(order[j + 1] = order[j]); j--; }
    unchecked(order[j + 1] = v);
  }
}

// `exclusive`: no doc matches two of the tokens (a stricter round found nothing), so with
// minMatch 1 every doc is scored from the postings of the one token it holds.
function evaluate(minMatch: i32, window: i32, exclusive: bool = false): void {
  batchMinMatch = minMatch;
  drive(minMatch, window, exclusive);
  if (batched > 0) scoreBatch();
}

function drive(minMatch: i32, window: i32, exclusive: bool): void {
  deferredBudget = 0;
  found = 0;
  bestScore = 0;
  namedSeen = 0;
  stopped = false;
  resetCollector(window);
  for (let c = 0; c < nCols; c++) if ((facetMask & (1 << c)) != 0) zero(unchecked(facetCounts[c]), <usize>unchecked(colNCodes[c]) * 4);
  clearSeen();

  if (nTokens == 0) {
    if (filterMask == 0) {
      // everything matches: counts are the value-list lengths, the page is the first docs
      found = nDocs - removedCount;
      for (let c = 0; c < nCols; c++) {
        if ((facetMask & (1 << c)) == 0) continue;
        for (let code: u32 = 0; code < unchecked(colNCodes[c]); code++) {
          const n = valueCount(c, code) - (removedDocs != 0 ? removedWithCode(c, code) : 0);
          store<u32>(unchecked(facetCounts[c]) + (<usize>code << 2), n);
        }
      }
      const k = <u32>window < found ? <u32>window : found;
      for (let d: u32 = 0, taken: u32 = 0; taken < k; d++) {
        if (removedDocs != 0 && isRemoved(d)) continue;
        offer(d, 1);
        taken++;
      }
      return;
    }
    cheapestFilter();
    driveByFilter(0);
    return;
  }

  // the (n - minMatch + 1) rarest tokens: every qualifying doc holds at least one of them
  sortByPostings();
  updateFloorAll();
  considerExactNames();
  if (stopped) return;
  const drivers = nTokens - minMatch + 1;
  let tokenCost: u32 = 0;
  for (let i = 0; i < drivers; i++) tokenCost += unchecked(tokPostings[order[i]]);
  if (tokenCost == 0) return;
  let active = 0;
  for (let t = 0; t < nTokens; t++) if (unchecked(tokEnd[t]) > unchecked(tokStart[t])) active++;
  if (active < minMatch) return;
  if (filterMask != 0) {
    const filterCost = cheapestFilter();
    if (filterCost < tokenCost) {
      markTokens(filterCost);
      startDrive(filterCost);
      driveByFilter(minMatch);
      return;
    }
  }
  // one token with candidates, or tokens that no doc holds two of: each scored from its postings
  if (active == 1 || (exclusive && minMatch == 1)) {
    for (let t = 0; t < nTokens; t++) if (unchecked(tokEnd[t]) > unchecked(tokStart[t])) driveSingleToken(t, active == 1);
    if (bulkMarked) settleBulk();
    return;
  }
  const byMarks = <u64>tokenCost * SCAN_FACTOR > <u64>docWords * <u64>nTokens;
  // every token required: the second rarest token's marks turn most of the driver's docs away
  const sieveToken = drivers == 1 && nTokens > 1 ? unchecked(order[1]) : -1;
  if (!byMarks && sieveToken >= 0 && (fieldMask & 0xf) == FIELDS_ALL && !refinesAtStart(tokenCost)) markTokens(tokenCost, 1 << sieveToken);
  else markTokens(tokenCost);
  if (unmarkedTokens == 0 && byMarks) {
    driveByMarks(minMatch, tokenCost);
  } else {
    startDrive(tokenCost);
    const sieve = sieveToken >= 0 && (markedMask & (1 << sieveToken)) != 0 ? unchecked(tokenDocs[sieveToken]) : 0;
    for (let i = 0; i < drivers; i++) {
      const t = unchecked(order[i]);
      for (let r = unchecked(tokStart[t]); r < unchecked(tokEnd[t]); r++) {
        const end = postingStart(rangeHi(r));
        if (sieve != 0) { driveSieved(postingStart(rangeLo(r)), end, minMatch, sieve); continue; }
        for (let p = postingStart(rangeLo(r)); p < end && !stopped; p++) consider(postingDoc(p), minMatch, <i32>(postingMeta(p) >> 16));
      }
    }
  }
}

/**
 * consider() for the docs of postings [from, end) that hold the token marked in `sieve`; the rest
 * lack it, as consider() would find. A loop this small keeps many of those marks' loads in
 * flight at once, where each consider() call waits on its own.
 */
function driveSieved(from: u32, end: u32, minMatch: i32, sieve: usize): void {
  for (let p = from; p < end && !stopped; p++) {
    const doc = postingDoc(p);
    if ((load<u32>(sieve + (<usize>(doc >> 5) << 2)) & (<u32>1 << (doc & 31))) == 0) { docsConsidered++; continue; }
    if (deferredBudget != 0 && passesOutgrowBudget()) markTokens(driveDocs);
    consider(doc, minMatch, <i32>(postingMeta(p) >> 16));
  }
}

/** Counts a doc that passed the sieve: whether those passing, projected from the docs met so far over the whole drive, cost more to score than the put-off marks. */
@inline function passesOutgrowBudget(): bool {
  const seen = docsConsidered - consideredAtDrive + 1;
  return ++sievePassed >= MIN_PASSES_SEEN && <u64>sievePassed * <u64>driveDocs > <u64>seen * deferredBudget;
}

// Considering a driver's posting costs a few cache misses, reading a word of every token's marks
// a load per token: with every token marked and common drivers, the docs holding minMatch of the
// tokens come from the marks, 32 at a time (with every token required, ANDed rarest first; else
// counted in bit planes). They are then ranked nearest the query's length first: once the page
// is full of hits that a doc at the next distance cannot beat, the rest only count (they hold
// enough tokens, so they all match). With fewer tokens required (a query whose every word exists
// but no doc holds them all, "IDE CO LTD"), driving by postings would consider every posting of
// the common words, one by one.
const SCAN_FACTOR: u64 = 8;

const RANKED_DISTANCES = 2; // farther docs are ranked in one last pass, by consider()'s own bound
/** Up to this many tokens, the bound of docs holding minMatch of them is the best such subset's. */
const SUBSET_TOKENS = 12;

// Bit planes of how many tokens each doc of a word holds (atLeast), and whether some held more than asked.
let plane0: u32 = 0, plane1: u32 = 0, plane2: u32 = 0, plane3: u32 = 0, plane4: u32 = 0;
let heldMore = false;

/** Word w's docs holding at least k of the tokens (each holds one of the n - k + 1 rarest). */
function atLeast(w: usize, k: i32): u32 {
  let any: u32 = 0;
  for (let i = 0; i <= nTokens - k; i++) any |= load<u32>(unchecked(tokenDocs[order[i]]) + (w << 2));
  if (any == 0) return 0;
  let s0: u32 = 0, s1: u32 = 0, s2: u32 = 0, s3: u32 = 0, s4: u32 = 0;
  for (let t = 0; t < nTokens; t++) {
    const x = load<u32>(unchecked(tokenDocs[t]) + (w << 2));
    const c0 = s0 & x; s0 ^= x;
    const c1 = s1 & c0; s1 ^= c0;
    const c2 = s2 & c1; s2 ^= c1;
    s4 |= s3 & c2; s3 ^= c2;
  }
  plane0 = s0; plane1 = s1; plane2 = s2; plane3 = s3; plane4 = s4;
  const bits = countsAtLeast(<u32>k);
  if (bits != 0 && !heldMore && countsAtLeast(<u32>k + 1) != 0) heldMore = true;
  return bits;
}

/** The lanes of the bit planes whose count is at least k (k < 32). */
function countsAtLeast(k: u32): u32 {
  let gt: u32 = 0, eq: u32 = 0xffffffff;
  for (let b = 4; b >= 0; b--) {
    const p = b == 4 ? plane4 : b == 3 ? plane3 : b == 2 ? plane2 : b == 1 ? plane1 : plane0;
    if (((k >> <u32>b) & 1) != 0) eq &= p;
    else { gt |= eq & p; eq &= ~p; }
  }
  return gt | eq;
}

/**
 * ceilingOf() over what a candidate of driveByMarks may hold: when none holds more than minMatch
 * tokens, the best subset of that many (the highest bound is the one whose tokens count most);
 * else every token.
 */
function candidateCeiling(minMatch: i32, nl: i32, rank: i32, near: u32): u64 {
  const all: u32 = (<u32>1 << nTokens) - 1;
  if (minMatch >= nTokens || heldMore || nTokens > SUBSET_TOKENS) return ceilingOf(all, nl, rank, 0, 0, near);
  let best: u64 = 0;
  for (let m: u32 = 1; m <= all; m++) {
    if (<i32>popcnt(m) != minMatch) continue;
    const c = ceilingOf(m, nl, rank, 0, 0, near);
    if (c > best) best = c;
  }
  return best;
}

function driveByMarks(minMatch: i32, tokenCost: u32): void {
  const rarest = unchecked(tokenDocs[order[0]]);
  const every = minMatch >= nTokens;
  // A doc that may hold a split token whole is ranked as it is found: it is rare, and its bound
  // is the highest. The rest share one bound per name length.
  const lifting = splitMask != 0;
  let n: u32 = 0;
  heldMore = false;
  startDrive(tokenCost);
  for (let w: usize = 0; w < docWords && !stopped; w++) {
    let bits: u32;
    if (every) {
      bits = load<u32>(rarest + (w << 2));
      for (let i = 1; i < nTokens && bits != 0; i++) bits &= load<u32>(unchecked(tokenDocs[order[i]]) + (w << 2));
    } else {
      bits = atLeast(w, minMatch);
    }
    if (bits == 0) continue;
    if (lifting) {
      let lifted = liftedBits(w) & bits;
      bits &= ~lifted;
      while (lifted != 0 && !stopped) {
        const doc = (<u32>w << 5) | ctz(lifted);
        lifted &= lifted - 1;
        consider(doc, minMatch, <i32>load<u8>(nameLen + <usize>doc));
      }
    }
    while (bits != 0) {
      store<u32>(candidates + (<usize>n << 2), (<u32>w << 5) | ctz(bits));
      n++;
      bits &= bits - 1;
    }
  }
  if (stopped) return;
  startDrive(n);
  let best = candidateCeiling(minMatch, queryTerms, MAX_RANK, 0); // no refined marks yet: see the lift below
  let lifted = false;
  for (let d = 0; d <= RANKED_DISTANCES; d++) {
    // a full window that the docs at this distance could still enter: refined bounds may show they cannot
    if (d > 0 && refinePending && excludes(0) && !excludes(best - (<u64>d << 10))) refineBounds();
    if (!lifted && (cheapMask | pairMask) != 0) {
      // bounds were refined on the way: the docs that reach the highest are ranked now, and the
      // rest share the bound of no cheapest candidate and pairs at least REST_PAIR_PROX apart
      n = liftRefined(n, minMatch);
      if (stopped) return;
      lifted = true;
      best = candidateCeiling(minMatch, queryTerms, MAX_RANK, REST_NEAR);
    }
    if (excludes(best - (<u64>d << 10))) { countCandidates(n, d); return; }
    // once the window is full of hits no candidate could be outranked by, order gains nothing
    const last = d == RANKED_DISTANCES || (d > 0 && excludes(0) && !excludes(floorAll));
    for (let i: u32 = 0; i < n && !stopped; i++) {
      const doc = load<u32>(candidates + (<usize>i << 2));
      const nl = <i32>load<u8>(nameLen + <usize>doc);
      const distance = distanceOf(nl);
      if (distance == d || (last && distance > d)) consider(doc, minMatch, nl);
    }
    if (stopped || last) return;
  }
}

/**
 * Considers the candidates holding a cheapest candidate of a token split by cost, or with a
 * marked pair closer than REST_PAIR_PROX; returns how many others remain, compacted.
 */
function liftRefined(n: u32, minMatch: i32): u32 {
  let rest: u32 = 0;
  for (let i: u32 = 0; i < n && !stopped; i++) {
    const doc = load<u32>(candidates + (<usize>i << 2));
    if ((pairsNear(doc) & CLOSE_NEAR) != 0 || heldIn(doc, cheapMask, cheapDocs) != 0) consider(doc, minMatch, <i32>load<u8>(nameLen + <usize>doc));
    else { store<u32>(candidates + (<usize>rest << 2), doc); rest++; }
  }
  return rest;
}

/** Word w of the docs holding a split token whole. */
@inline function liftedBits(w: usize): u32 {
  let bits: u32 = 0;
  for (let t = 0; t < nTokens; t++) if ((splitMask & (1 << t)) != 0) bits |= load<u32>(unchecked(wholeDocs[t]) + (w << 2));
  return bits;
}

/** Counts the candidates at distance `from` or more from the query's length, not ranking them. */
function countCandidates(n: u32, from: i32): void {
  for (let i: u32 = 0; i < n; i++) {
    const doc = load<u32>(candidates + (<usize>i << 2));
    if (distanceOf(<i32>load<u8>(nameLen + <usize>doc)) >= from) tallyNew(doc);
  }
}

/** Whether the last runQuery() refused its query for its work budget (word 29 of the query); its results are not written. */
export let overBudget = false;
export let workEstimated: u64 = 0;

/**
 * About how many postings the query's evaluation will touch, from its tokens' candidates, as
 * drive() goes about it: with every token required, the rarest token's docs are considered one
 * by one (a few marks' cost each) and the tokens not far more common are marked; a lone token's
 * postings are all read; dropping tokens may mark and drive every token's postings, twice; a
 * filter's probe evaluates once more. A query without words drives by its filters.
 */
function workEstimate(dropAllowed: bool): u64 {
  if (nTokens == 0) return filterMask != 0 ? <u64>nDocs : 0;
  let all: u64 = 0, least: u64 = 0xffffffff;
  for (let t = 0; t < nTokens; t++) {
    const p = <u64>unchecked(tokPostings[t]);
    all += p;
    if (p < least) least = p;
  }
  let e: u64;
  if (nTokens == 1) e = all + <u64>docWords;
  else if (dropAllowed) e = all * 2;
  else {
    e = least * 4;
    for (let t = 0; t < nTokens; t++) {
      const p = <u64>unchecked(tokPostings[t]);
      if (p <= least * MARK_FACTOR) e += p;
    }
  }
  return filterMask != 0 ? e * 2 : e;
}

// Runs the query in queryBuf; results in outBuf: 0 found, 1 hit count, 2 tokens required,
// 3 mask of tokens that have exact candidates here, 4 mask of tokens that can take typos,
// 5 whole-token matches of the best match, 6 whether anything matched the required tokens,
// 7 named matches seen (see namedSeen), all ignoring filters; then the window asked for (word 2 of
// the query, though at least the named page is ranked) as (doc, score hi, score lo).
export function runQuery(): void {
  nTokens = <i32>load<u32>(queryBuf);
  if (nTokens > MAX_TOKENS) nTokens = MAX_TOKENS;
  fieldMask = load<u32>(queryBuf + 4);
  namedPage = load<u32>(queryBuf + 112);
  const asked = <i32>load<u32>(queryBuf + 8);
  const window = max(asked, <i32>namedPage);
  facetMask = load<u32>(queryBuf + 12);
  filterMask = load<u32>(queryBuf + 16);
  const typoMask = load<u32>(queryBuf + 20);
  const flags = load<u32>(queryBuf + 24);
  queryTerms = <i32>load<u32>(queryBuf + 104);
  namedFloor = pack(nTokens, nTokens, 0, 0, 0, 255, queryTerms + 255, 0);
  useRemovals(<usize>load<u32>(queryBuf + 120));
  refinePending = nTokens >= 1;
  scoredAtStart = docsScored;

  let exactMask: u32 = 0, typoable: u32 = 0;
  resetRanges();
  for (let t = 0; t < nTokens; t++) {
    buildToken(t, false);
    if (unchecked(tokEnd[t]) > unchecked(tokStart[t])) exactMask |= 1 << t;
    if ((load<u32>(probeBase(t, 0) + 8) | load<u32>(probeBase(t, 1) + 8)) != 0) typoable |= 1 << t;
  }
  if ((typoMask & typoable) != 0) {
    // ranges stay contiguous per token, so the buffer is rebuilt token by token
    resetRanges();
    for (let t = 0; t < nTokens; t++) buildToken(t, (typoMask & (1 << t)) != 0);
  }
  // A caller that must not be held up (a front thread answering on its own) sets a work budget:
  // a query whose postings promise more work is refused before any of it, and goes elsewhere.
  const budget = load<u32>(queryBuf + 116);
  workEstimated = workEstimate((flags & 2) != 0);
  overBudget = budget != 0 && workEstimated > <u64>budget;
  if (overBudget) return;
  markCandidates(true);
  // The facts the caller plans by (anything matched? how well?) ignore filters, so that a
  // filter only ever narrows what the same query matches without it.
  let required = nTokens;
  let matchedHere = false;
  let bestWhole: u32 = 0;
  let named: u32 = 0;
  if (filterMask != 0 && nTokens > 0) {
    matchedHere = probe(required, true, false);
    named = namedSeen;
    if (!matchedHere && (flags & 2) != 0 && required > 1) {
      required = max(1, min(required - 1, mostTokensHeld()));
      matchedHere = probe(required, true, true);
    }
    bestWhole = <u32>((bestScore >> WHOLE_SHIFT) & 0x1f);
    evaluate(required, window, required < nTokens);
  } else {
    evaluate(required, window);
    if ((flags & 2) != 0 && found == 0 && required > 1) {
      required = max(1, min(required - 1, mostTokensHeld()));
      evaluate(required, window, true);
    }
    matchedHere = found > 0;
    bestWhole = <u32>((bestScore >> WHOLE_SHIFT) & 0x1f);
    named = namedSeen;
  }
  unmarkTokens();
  markCandidates(false);
  const hits = drain(outBuf + OUT_HEADER, asked);
  store<u32>(outBuf, found);
  store<u32>(outBuf + 4, <u32>hits);
  store<u32>(outBuf + 8, <u32>required);
  store<u32>(outBuf + 12, exactMask);
  store<u32>(outBuf + 16, typoable);
  store<u32>(outBuf + 20, bestWhole);
  store<u32>(outBuf + 24, matchedHere ? 1 : 0);
  store<u32>(outBuf + 28, named);
}
