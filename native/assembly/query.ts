// Query evaluation over one slice: candidates per token (dictionary ranges), a driver chosen by
// cost (rarest tokens' postings or the most selective filter's value lists), a forward-index
// scan that scores each candidate doc, filters and facets from the per-doc code columns, and the
// top-k collector. Exact terms first; typo candidates only when exact ones find too little;
// tokens dropped (fewer required matches) only when nothing matches them all.
//
// Query descriptor (u32 words at q): 0 nTokens, 1 fieldMask, 2 window, 3 facetMask,
// 4 filterMask, 5 typoThreshold, 6 flags (1 typos allowed, 2 drop allowed),
// 8 + c: filter bitmap pointer of column c, 32 + 8t: token t = two probes of
// (bytes ptr, length, max typos, prefix flag); a probe of length 0 is absent.

import { allocate, zero } from "./memory";
import {
  nDocs, nCols, fwdOffs, fwdTerms, fwdMeta, nameLen, colCodes, colNCodes, colValOffs, colValDocs,
  postingStart, postingEnd, postingDoc, docCode, MAX_COLS,
} from "./slice";
import { resetRanges, rangeCount, rangeLo, rangeHi, rangeCost, matchExact, matchFuzzy, WHOLE } from "./dictionary";
import { resetCollector, offer, drain, MAX_WINDOW } from "./collector";

export const MAX_TOKENS: i32 = 16;
// field bits of a forward entry's meta word; 4 = address
const FIELD_LEGAL: u32 = 1, FIELD_OTHER: u32 = 2, FIELD_LEI: u32 = 8;

// ---- scratch, sized when the slice is configured ----
let stamps: usize = 0;
let stamp: u32 = 0;
const facetCounts = new StaticArray<usize>(MAX_COLS);
export const outBuf: usize = allocate(16 + <usize>MAX_WINDOW * 12);
export const queryBuf: usize = allocate(4096);

const tokStart = new StaticArray<i32>(MAX_TOKENS);
const tokEnd = new StaticArray<i32>(MAX_TOKENS);
const tokPostings = new StaticArray<u32>(MAX_TOKENS);
const order = new StaticArray<i32>(MAX_TOKENS);
const bestCost = new StaticArray<i32>(MAX_TOKENS);
const bestWhole = new StaticArray<i32>(MAX_TOKENS);
const bestWeight = new StaticArray<i32>(MAX_TOKENS);
const bestPos = new StaticArray<i32>(MAX_TOKENS);

let nTokens: i32 = 0;
let fieldMask: u32 = 0;
let filterMask: u32 = 0;
let facetMask: u32 = 0;
let found: u32 = 0;

export function prepareScratch(): void {
  stamps = allocate(<usize>nDocs * 4 + 4);
  stamp = 0;
  for (let c = 0; c < nCols; c++) facetCounts[c] = allocate(<usize>colNCodes[c] * 4 + 4);
}

export function facetCountsPtr(c: i32): usize { return facetCounts[c]; }

@inline function filterBitmap(c: i32): usize { return load<u32>(queryBuf + 32 + (<usize>c << 2)); }

@inline function passesFilters(doc: u32): bool {
  if (filterMask == 0) return true;
  for (let c = 0; c < nCols; c++) {
    if ((filterMask & (1 << c)) == 0) continue;
    const code = docCode(c, doc);
    if ((load<u32>(filterBitmap(c) + (<usize>(code >> 5) << 2)) & (1 << (code & 31))) == 0) return false;
  }
  return true;
}

function countFacets(doc: u32): void {
  for (let c = 0; c < nCols; c++) {
    if ((facetMask & (1 << c)) == 0) continue;
    const p = facetCounts[c] + (<usize>docCode(c, doc) << 2);
    store<u32>(p, load<u32>(p) + 1);
  }
}

function buildCandidates(typos: bool): void {
  resetRanges();
  for (let t = 0; t < nTokens; t++) {
    tokStart[t] = rangeCount;
    for (let p = 0; p < 2; p++) {
      const base = queryBuf + 128 + <usize>t * 32 + <usize>p * 16;
      const len = load<u32>(base + 4);
      if (len == 0) continue;
      const bytes = <usize>load<u32>(base);
      const prefix = load<u32>(base + 12) != 0;
      if (typos) matchFuzzy(bytes, len, <i32>load<u32>(base + 8), prefix);
      else matchExact(bytes, len, prefix);
    }
    tokEnd[t] = rangeCount;
    let postings: u32 = 0;
    for (let r = tokStart[t]; r < tokEnd[t]; r++) postings += postingStart(rangeHi(r)) - postingStart(rangeLo(r));
    tokPostings[t] = postings;
  }
}

// costFlags of the range of token t holding term, or -1.
function lookup(t: i32, term: u32): i32 {
  let lo = tokStart[t], hi = tokEnd[t];
  if (lo >= hi || term < rangeLo(lo) || term >= rangeHi(hi - 1)) return -1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rangeHi(mid) <= term) lo = mid + 1; else hi = mid;
  }
  if (lo < tokEnd[t] && rangeLo(lo) <= term) return <i32>rangeCost(lo);
  return -1;
}

@inline function fieldWeight(bits: u32): i32 {
  if ((bits & (FIELD_LEGAL | FIELD_LEI)) != 0) return 3;
  if ((bits & FIELD_OTHER) != 0) return 2;
  return 1;
}

// Score of doc against the tokens, or 0 when it matches fewer than minMatch of them.
// Criteria, most significant first: tokens matched, typo cost, whole-token (not prefix) matches,
// whole legal name equal to the query, field weight, proximity in the legal name, shorter name.
function scoreDoc(doc: u32, minMatch: i32): u64 {
  for (let t = 0; t < nTokens; t++) { bestCost[t] = 255; bestWhole[t] = 0; bestWeight[t] = 0; bestPos[t] = 255; }
  const end = load<u32>(fwdOffs + (<usize>(doc + 1) << 2));
  for (let e = load<u32>(fwdOffs + (<usize>doc << 2)); e < end; e++) {
    const meta = <u32>load<u16>(fwdMeta + (<usize>e << 1));
    const bits = meta & 0xf & fieldMask;
    if (bits == 0) continue;
    const term = load<u32>(fwdTerms + (<usize>e << 2));
    for (let t = 0; t < nTokens; t++) {
      const cf = lookup(t, term);
      if (cf < 0) continue;
      const cost = cf & 0xff;
      const whole = (cf & <i32>WHOLE) != 0 ? 1 : 0;
      const weight = fieldWeight(bits);
      if (cost < bestCost[t] || (cost == bestCost[t] && (whole > bestWhole[t] || (whole == bestWhole[t] && weight > bestWeight[t])))) {
        bestCost[t] = cost; bestWhole[t] = whole; bestWeight[t] = weight;
        bestPos[t] = (bits & FIELD_LEGAL) != 0 ? <i32>(meta >> 8) : 255;
      }
    }
  }
  let matched = 0, cost = 0, whole = 0, weight = 0, prox = 0;
  let exact = true;
  for (let t = 0; t < nTokens; t++) {
    if (bestCost[t] == 255) { exact = false; prox += 8; continue; }
    matched++;
    cost += bestCost[t];
    whole += bestWhole[t];
    weight += bestWeight[t];
    if (bestCost[t] != 0 || bestWhole[t] == 0 || bestPos[t] != t) exact = false;
    if (t > 0) {
      const a = bestPos[t - 1], b = bestPos[t];
      if (a == 255 || b == 255) prox += 8;
      else { let gap = b - a - 1; if (gap < 0) gap = -gap + 1; prox += gap > 8 ? 8 : gap; }
    }
  }
  if (matched < minMatch || matched == 0) return 0;
  const nl = <i32>load<u8>(nameLen + <usize>doc);
  if (nl != nTokens) exact = false;
  if (cost > 31) cost = 31;
  if (weight > 63) weight = 63;
  if (prox > 255) prox = 255;
  return (<u64>matched << 32) | (<u64>(31 - cost) << 27) | (<u64>(whole > 15 ? 15 : whole) << 23) |
    (<u64>(exact ? 1 : 0) << 22) | (<u64>weight << 16) | (<u64>(255 - prox) << 8) | <u64>(255 - (nl > 255 ? 255 : nl));
}

function consider(doc: u32, minMatch: i32): void {
  const sp = stamps + (<usize>doc << 2);
  if (load<u32>(sp) == stamp) return;
  store<u32>(sp, stamp);
  if (!passesFilters(doc)) return;
  let score: u64 = 1;
  if (nTokens > 0) {
    score = scoreDoc(doc, minMatch);
    if (score == 0) return;
  }
  found++;
  countFacets(doc);
  offer(doc, score);
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
    const n = colNCodes[c];
    for (let code: u32 = 0; code < n; code++) {
      if ((load<u32>(bm + (<usize>(code >> 5) << 2)) & (1 << (code & 31))) == 0) continue;
      total += load<u32>(colValOffs[c] + (<usize>(code + 1) << 2)) - load<u32>(colValOffs[c] + (<usize>code << 2));
    }
    if (total < best) { best = total; bestFilterCol = c; }
  }
  return best;
}

function driveByFilter(minMatch: i32): void {
  const c = bestFilterCol;
  const bm = filterBitmap(c);
  const offs = colValOffs[c], docs = colValDocs[c];
  const n = colNCodes[c];
  for (let code: u32 = 0; code < n; code++) {
    if ((load<u32>(bm + (<usize>(code >> 5) << 2)) & (1 << (code & 31))) == 0) continue;
    const end = load<u32>(offs + (<usize>(code + 1) << 2));
    for (let i = load<u32>(offs + (<usize>code << 2)); i < end; i++) consider(load<u32>(docs + (<usize>i << 2)), minMatch);
  }
}

function evaluate(minMatch: i32, window: i32): void {
  found = 0;
  resetCollector(window);
  for (let c = 0; c < nCols; c++) if ((facetMask & (1 << c)) != 0) zero(facetCounts[c], <usize>colNCodes[c] * 4);
  stamp++;
  if (stamp == 0) { zero(stamps, <usize>nDocs * 4); stamp = 1; }

  if (nTokens == 0) {
    if (filterMask == 0) {
      // everything matches: counts are the value-list lengths, the page is the first docs
      found = nDocs;
      for (let c = 0; c < nCols; c++) {
        if ((facetMask & (1 << c)) == 0) continue;
        for (let code: u32 = 0; code < colNCodes[c]; code++) {
          store<u32>(facetCounts[c] + (<usize>code << 2),
            load<u32>(colValOffs[c] + (<usize>(code + 1) << 2)) - load<u32>(colValOffs[c] + (<usize>code << 2)));
        }
      }
      const k = <u32>window < nDocs ? <u32>window : nDocs;
      for (let d: u32 = 0; d < k; d++) offer(d, 1);
      return;
    }
    cheapestFilter();
    driveByFilter(0);
    return;
  }

  // the (n - minMatch + 1) rarest tokens: every qualifying doc holds at least one of them
  for (let t = 0; t < nTokens; t++) order[t] = t;
  for (let i = 1; i < nTokens; i++) {
    const v = order[i];
    let j = i - 1;
    while (j >= 0 && tokPostings[order[j]] > tokPostings[v]) { order[j + 1] = order[j]; j--; }
    order[j + 1] = v;
  }
  const drivers = nTokens - minMatch + 1;
  let tokenCost: u32 = 0;
  for (let i = 0; i < drivers; i++) tokenCost += tokPostings[order[i]];
  if (tokenCost == 0) return;
  if (filterMask != 0 && cheapestFilter() < tokenCost) { driveByFilter(minMatch); return; }
  for (let i = 0; i < drivers; i++) {
    const t = order[i];
    for (let r = tokStart[t]; r < tokEnd[t]; r++) {
      const end = postingStart(rangeHi(r));
      for (let p = postingStart(rangeLo(r)); p < end; p++) consider(postingDoc(p), minMatch);
    }
  }
}

// Runs the query in queryBuf; results in outBuf: 0 found, 1 hit count, 2 tokens required,
// 3 typo pass used, then hits as (doc, score hi, score lo).
export function runQuery(): void {
  nTokens = <i32>load<u32>(queryBuf);
  if (nTokens > MAX_TOKENS) nTokens = MAX_TOKENS;
  fieldMask = load<u32>(queryBuf + 4);
  const window = <i32>load<u32>(queryBuf + 8);
  facetMask = load<u32>(queryBuf + 12);
  filterMask = load<u32>(queryBuf + 16);
  const threshold = load<u32>(queryBuf + 20);
  const flags = load<u32>(queryBuf + 24);

  let required = nTokens;
  let typoPass: u32 = 0;
  buildCandidates(false);
  evaluate(required, window);
  if ((flags & 1) != 0 && nTokens > 0 && found < threshold) {
    buildCandidates(true);
    typoPass = 1;
    evaluate(required, window);
  }
  while ((flags & 2) != 0 && found == 0 && required > 1) {
    required--;
    evaluate(required, window);
  }
  const hits = drain(outBuf + 16);
  store<u32>(outBuf, found);
  store<u32>(outBuf + 4, <u32>hits);
  store<u32>(outBuf + 8, <u32>required);
  store<u32>(outBuf + 12, typoPass);
}
