// The query planner's decisions: after the exact round, is a typo round needed, for which
// tokens, may it drop tokens, and is it first tried with one typo a token? Made over the facts
// of every slice, never per slice.

import type { EngineQuery, QueryPlanFacts } from "./wasm-slice.js";

export type SearchRequest = Omit<EngineQuery, "typoMask" | "dropTokens">;

export interface PartFacts {
  plan: QueryPlanFacts;
}

/** A typo round's settings: maxTypos caps the typos of each token (absent: the query's own cap). */
export type TypoRound = Pick<EngineQuery, "typoMask" | "dropTokens" | "maxTypos">;

/**
 * A page of named matches (every token in a name, no typo) settles the exact round: a typo round
 * could only add docs ranked below them (fewer typos rank higher), so it would change `found`
 * and the facets, never the first NAMED_PAGE hits. The engine ranks at least this many hits in
 * any window, so that the same query takes the same round whatever its page and limit.
 */
export const NAMED_PAGE = 20;

/** The second round's settings, or null when the exact round is the answer. */
export function planFallback(parts: PartFacts[]): TypoRound | null {
  const tokens = parts[0]?.plan.tokens ?? 0;
  if (tokens === 0) return null;
  const all = (1 << tokens) - 1;
  // facts ignore filters: a filter narrows what the query matches, never changes it
  const matched = parts.filter((p) => p.plan.matched);
  const exact = parts.reduce((m, p) => m | p.plan.exactMask, 0);
  const typoable = parts[0].plan.typoable;
  if (matched.length === 0) {
    // words that exist nowhere get typo candidates; if all exist (just not together), all do
    const missing = all & ~exact;
    const typoMask = (missing !== 0 ? missing : all) & typoable;
    const dropTokens = tokens > 1;
    return typoMask !== 0 || dropTokens ? { typoMask, dropTokens } : null;
  }
  // Hits exist, but the best one only prefix-matched its last token (say a street named like
  // the company): let the last token take typos, so a name one typo away can win, unless a
  // page of named matches is there already.
  if (matched.reduce((n, p) => n + p.plan.named, 0) >= NAMED_PAGE) return null;
  const bestWhole = Math.max(...matched.map((p) => p.plan.bestWhole));
  const last = 1 << (tokens - 1);
  if (bestWhole < tokens && (typoable & last) !== 0) return { typoMask: last, dropTokens: false };
  return null;
}

/**
 * Whether one slice's exact round is worth guessing the typo round from, ahead of the front's
 * plan. When every word exists in the slice but no doc holds them together, the words are most
 * likely together in another slice (a pasted name lives in one slice only): the guess would be
 * work thrown away, and a wrong guess only costs the round trip the front makes anyway.
 */
export function worthGuessing(part: PartFacts): boolean {
  const all = (1 << part.plan.tokens) - 1;
  return part.plan.matched || part.plan.exactMask !== all;
}

/**
 * Typesense's order of typo costs: when nothing matched exactly and the typo round would let a
 * long token take two typos, one typo a token is tried first, without dropping tokens; the full
 * round follows only when that matches nothing. Fewer typos rank higher anyway, so what changes
 * is mostly what is not worth counting, and a long token's two-typo trie walk costs about three
 * times a one-typo walk: the engine's costliest step. Null when the full round comes straight.
 */
export function oneTypoFirst(parts: PartFacts[], full: TypoRound): TypoRound | null {
  if (parts.some((p) => p.plan.matched)) return null;
  const wide = parts[0]?.plan.wideTypos ?? 0;
  return (wide & full.typoMask) !== 0 ? { typoMask: full.typoMask, dropTokens: false, maxTypos: 1 } : null;
}

/** Whether a guessed round is the round planned. */
export function sameRound(a: Pick<TypoRound, "typoMask" | "maxTypos">, b: TypoRound): boolean {
  return a.typoMask === b.typoMask && a.maxTypos === b.maxTypos;
}

/**
 * With dropped tokens, each slice stops at the first count of required tokens that matches
 * something (filters aside); only slices that stopped at the highest count answer.
 */
export function keepBestRequired<T extends PartFacts>(parts: T[]): T[] {
  const best = Math.max(0, ...parts.filter((p) => p.plan.matched).map((p) => p.plan.required));
  return parts.filter((p) => p.plan.matched && p.plan.required === best);
}
