// A search's rounds after the exact one, as planner.ts decides them over every slice: the
// one-typo round first when planned, then the full typo round (tokens dropped when nothing
// matched), each slice's own guess taken where it is the round planned. The front runs them
// (collection-view.ts), and bench:engine runs the same code, so that it measures every round a
// search costs, not only the first.

import { keepBestRequired, oneTypoFirst, planFallback, sameRound, type SearchRequest, type TypoRound } from "./planner.js";
import type { GuessedAnswer, SearchAnswer, Settled } from "./protocol.js";
import type { EngineQuery } from "./wasm-slice.js";

/** A slice's answer to the exact round, with the typo round it guessed from its own facts; or a lone slice's settled answer. */
export type ExactAnswer<Hits> = SearchAnswer<Hits> & { guess?: GuessedAnswer<Hits>; settled?: Settled };

/** Asks slice `slice` for one round. */
export type AskRound<Hits> = (slice: number, query: EngineQuery) => SearchAnswer<Hits> | Promise<SearchAnswer<Hits>>;

/**
 * One round's engine query, written out field by field. Not `{ ...request, typoMask, … }`: in
 * Node 20's V8 an object literal that starts with a spread keeps whole runs of such short-lived
 * objects alive through young-generation collections, so under load the front's old generation
 * filled every two or three seconds and its full collections stalled every thread for tens of ms.
 */
export function roundQuery(request: SearchRequest, typoMask: number, dropTokens: boolean, maxTypos: number | undefined): EngineQuery {
  return {
    q: request.q,
    fields: request.fields,
    filters: request.filters,
    facets: request.facets,
    window: request.window,
    typoMask,
    dropTokens,
    maxTypos,
    prefix: request.prefix,
    exclude: request.exclude,
  };
}

/** The exact round's answers, or those of the typo round that follows: one typo a token first, when so planned. */
export async function typoRounds<Hits>(
  request: SearchRequest,
  exact: ExactAnswer<Hits>[],
  ask: AskRound<Hits>,
): Promise<SearchAnswer<Hits>[]> {
  // a lone slice ran the rounds itself (slice-answer.ts settle)
  const settled = exact.length === 1 ? exact[0].settled : undefined;
  if (settled === "exact") return exact;
  if (settled === "typo") return keepBestRequired(exact);
  const full = planFallback(exact);
  if (!full) return exact;
  const first = oneTypoFirst(exact, full);
  if (first) {
    const oneTypo = await typoRound(request, first, exact, ask);
    if (oneTypo.some((p) => p.plan.matched)) return keepBestRequired(oneTypo);
  }
  return keepBestRequired(await typoRound(request, full, exact, ask));
}

/**
 * A right guess (the same round) is the slice's answer when it matched every token, or when
 * fewer may not be required, or when another slice matched every token: answers that required
 * fewer would be dropped by keepBestRequired anyway.
 */
function typoRound<Hits>(
  request: SearchRequest,
  plan: TypoRound,
  exact: ExactAnswer<Hits>[],
  ask: AskRound<Hits>,
): Promise<SearchAnswer<Hits>[]> {
  const guesses = exact.map((p) => (p.guess && sameRound(p.guess, plan) ? p.guess : null));
  const allMatchedSomewhere = guesses.some((g) => g?.plan.matched === true);
  const dropTokens = plan.dropTokens && !allMatchedSomewhere;
  const query = roundQuery(request, plan.typoMask, dropTokens, plan.maxTypos ?? request.maxTypos);
  return Promise.all(guesses.map((g, s) => (g && (g.plan.matched || !dropTokens) ? g : ask(s, query))));
}
