// One slice's answer to a request, wherever the slice is served: a shard worker, or a front
// thread answering a cheap query on its own (collection-view.ts). The exact round, and
// with `guess` the typo round the slice's own facts call for, run back to back in one call.

import type { ShardReply, ShardRequest } from "./protocol.js";
import { oneTypoFirst, planFallback, worthGuessing } from "./planner.js";
import type { EngineQuery, WasmSlice } from "./wasm-slice.js";

/**
 * The slice's answer; with a work budget (postings, native/assembly/query.ts workEstimate), null
 * when the exact round promises more work than that, and no guess when the typo round does.
 */
export function answerSearch(slice: WasmSlice, query: EngineQuery, guess: boolean, budget = 0): ShardReply | null {
  const exact = slice.searchWithin(query, budget);
  if (exact === null) return null;
  // Guessing the typo round from this slice's own facts saves a round trip whenever the
  // front's plan, made over every slice, comes out the same; it checks that.
  const full = guess && worthGuessing(exact) ? planFallback([exact]) : null;
  if (!full || full.typoMask === 0) return { kind: "search", ...exact };
  const round = oneTypoFirst([exact], full) ?? full;
  const guessed = slice.retryWithTyposWithin(round.typoMask, round.maxTypos, budget);
  if (guessed === null) return { kind: "search", ...exact };
  // written out, not spread: see roundQuery() in search-rounds.ts
  return {
    kind: "search",
    ...exact,
    guess: {
      found: guessed.found,
      hits: guessed.hits,
      facets: guessed.facets,
      plan: guessed.plan,
      typoMask: round.typoMask,
      maxTypos: round.maxTypos,
    },
  };
}

/** An export's page: about this many bytes of JSON lines. */
const EXPORT_PAGE_BYTES = 256 * 1024;

/** The slice's answer to any request; an engine failure is answered as an error. */
export function answerRequest(slice: WasmSlice, request: ShardRequest): ShardReply {
  try {
    switch (request.kind) {
      case "search":
        return answerSearch(slice, request.query, request.guess === true)!;
      case "facet":
        return { kind: "facet", values: slice.facetValues(request.field) };
      case "export":
        return { kind: "export", ...slice.exportLines(request.filters, request.exclude, request.from, EXPORT_PAGE_BYTES) };
    }
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
}
