// One slice's answer to a request, wherever the slice is served: a shard worker, or a front
// thread answering a cheap query on its own (collection-view.ts). The exact round, and
// with `guess` the typo round the slice's own facts call for, run back to back in one call.

import type { ShardReply, ShardRequest } from "./protocol.js";
import { oneTypoFirst, planFallback, worthGuessing } from "./planner.js";
import type { EngineQuery, SliceSearchResult, WasmSlice } from "./wasm-slice.js";

/**
 * The slice's answer; with a work budget (postings, native/assembly/query.ts workEstimate), null
 * when the exact round promises more work than that, and no guess when the typo round does.
 * `alone`: the generation's only slice, answering without a budget: see settle.
 */
export function answerSearch(slice: WasmSlice, query: EngineQuery, guess: boolean, budget = 0, alone = false): ShardReply | null {
  const exact = slice.searchWithin(query, budget);
  if (exact === null) return null;
  if (alone && budget === 0) return settle(slice, exact);
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

/**
 * A lone slice's facts are the plan's (planner.ts plans over every slice), so it runs the rounds
 * the front would, here, back to back: one typo a token first when planned, then the full round,
 * which drops tokens in the same evaluation that finds every token together matches nothing
 * (the front, asking again, would repeat that evaluation first). Not within a work budget: a
 * round that drops tokens is estimated at about twice all its tokens' postings, so a front
 * thread would refuse it up front, where the guess without dropping settles most typo'd names.
 */
function settle(slice: WasmSlice, exact: SliceSearchResult): ShardReply {
  const full = planFallback([exact]);
  if (!full) return { kind: "search", ...exact, settled: "exact" };
  const first = oneTypoFirst([exact], full);
  if (first) {
    const oneTypo = slice.retryWithTypos(first.typoMask, first.maxTypos);
    if (oneTypo.plan.matched) return { kind: "search", ...oneTypo, settled: "typo" };
  }
  return { kind: "search", ...slice.retryWithTyposWithin(full.typoMask, full.maxTypos, 0, full.dropTokens)!, settled: "typo" };
}

/** An export's page: about this many bytes of JSON lines. */
const EXPORT_PAGE_BYTES = 256 * 1024;

/** The slice's answer to any request; an engine failure is answered as an error. */
export function answerRequest(slice: WasmSlice, request: ShardRequest): ShardReply {
  try {
    switch (request.kind) {
      case "search":
        return answerSearch(slice, request.query, request.guess === true, 0, request.alone === true)!;
      case "facet":
        return { kind: "facet", values: slice.facetValues(request.field) };
      case "export":
        return { kind: "export", ...slice.exportLines(request.filters, request.exclude, request.from, EXPORT_PAGE_BYTES) };
    }
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
}
