// The query planner's one decision: after the exact round, is a typo round needed, for which
// tokens, and may it drop tokens? Made over the facts of every slice, never per slice.

import type { EngineQuery, QueryPlanFacts } from "./wasm-slice.js";

export type SearchRequest = Omit<EngineQuery, "typoMask" | "dropTokens">;

export interface PartFacts { plan: QueryPlanFacts }

/** The second round's settings, or null when the exact round is the answer. */
export function planFallback(parts: PartFacts[]): Pick<EngineQuery, "typoMask" | "dropTokens"> | null {
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
  // the company): let the last token take typos, so a name one typo away can win.
  const bestWhole = Math.max(...matched.map((p) => p.plan.bestWhole));
  const last = 1 << (tokens - 1);
  if (bestWhole < tokens && (typoable & last) !== 0) return { typoMask: last, dropTokens: false };
  return null;
}

/**
 * With dropped tokens, each slice stops at the first count of required tokens that matches
 * something (filters aside); only slices that stopped at the highest count answer.
 */
export function keepBestRequired<T extends PartFacts>(parts: T[]): T[] {
  const best = Math.max(0, ...parts.filter((p) => p.plan.matched).map((p) => p.plan.required));
  return parts.filter((p) => p.plan.matched && p.plan.required === best);
}
