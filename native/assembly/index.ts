// WASM entry points of the full-text engine. The host (src/engine/wasm-slice.ts) allocates and
// fills the slice's arrays, passes a descriptor to `configure`, then writes queries into
// `queryBuffer()` and reads results from `resultBuffer()`. Instances on other threads share the
// same memory (shared-heap.ts): each configures itself from the same descriptor and gets its own
// scratch and buffers.

import { allocate } from "./memory";
import { readDescriptor, sharedSlot } from "./slice";
import { prepareScratch, runQuery, queryBuf, outBuf, facetCountsPtr, docsConsidered, docsScored, overBudget, workEstimated } from "./query";
import { nodesVisited, prepareTrie, rangeCount } from "./dictionary";
import { prepareFrequent } from "./frequent";
import { removeDocs } from "./removals";

export function alloc(size: u32): u32 { return <u32>allocate(<usize>size); }
export function configure(desc: u32): void {
  readDescriptor(<usize>desc);
  prepareTrie(sharedSlot(<usize>desc));
  prepareFrequent(sharedSlot(<usize>desc) + 4);
  prepareScratch();
}
/** The descriptor of the n docs listed at `list` removed from the slice (removals.ts), for queries to name. */
export function removals(list: u32, n: u32): u32 { return <u32>removeDocs(<usize>list, n); }
export function queryBuffer(): u32 { return <u32>queryBuf; }
export function resultBuffer(): u32 { return <u32>outBuf; }
export function facetCounts(col: i32): u32 { return <u32>facetCountsPtr(col); }
export function search(): void { runQuery(); }
/** 1 when the last search was refused for its work budget (query.ts workEstimate), else 0. */
export function refused(): u32 { return overBudget ? 1 : 0; }
// Work counters since start: 0 trie nodes walked, 1 docs considered, 2 docs scored from the
// forward index, 3 candidate ranges of the last query, 4 the last query's work estimate (capped).
// For profiling the engine (see README).
export function debugCounter(i: i32): u32 {
  return i == 0 ? nodesVisited : i == 1 ? docsConsidered : i == 2 ? docsScored : i == 3 ? <u32>rangeCount : <u32>min<u64>(workEstimated, 0xffffffff);
}
