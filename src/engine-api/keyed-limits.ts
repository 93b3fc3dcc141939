// Limits on the keyed API's heavy requests, so that one key cannot hold the front or memory for
// long: the ranking work of one multi_search, the exports one key may run at once, and how long
// an export waits for a reader that stopped reading.

import type { Caller } from "../keys/auth.js";

/** Hits one multi_search may rank in all: the sum over its searches of page × per_page × synonym variants. */
export const MULTI_SEARCH_MAX_HITS = 100_000;
/** Exports one key (a scoped key counts as its parent) may stream at once. */
export const MAX_EXPORTS_PER_KEY = 4;
/** Seconds a client is told to wait when its key has MAX_EXPORTS_PER_KEY exports running. */
export const EXPORT_RETRY_AFTER_SECONDS = 10;
/** Seconds an export waits for its reader to take more before it closes the connection. */
const EXPORT_STALL_SECONDS = 30;

export class MultiSearchTooLarge extends Error {}

/** The ranking work of one multi_search, charged search by search before each is run. */
export class MultiSearchBudget {
  private used = 0;

  /** Throws MultiSearchTooLarge when this search would take the total over the limit. */
  charge(page: number, perPage: number, variants: number): void {
    this.used += page * perPage * variants;
    if (this.used > MULTI_SEARCH_MAX_HITS) {
      throw new MultiSearchTooLarge(
        `a multi_search may rank at most ${MULTI_SEARCH_MAX_HITS} hits in all (the sum over its searches of page × per_page × synonym variants); ` +
          "split it, or ask for shallower pages",
      );
    }
  }
}

/** Exports running per owner (an API key, or a client address on the public API). */
export class ExportSlots {
  private readonly running = new Map<string, number>();

  constructor(readonly max: number) {}

  /** A slot for the owner, or null when it has `max` running; release() gives it back. */
  take(owner: string): { release(): void } | null {
    const n = this.running.get(owner) ?? 0;
    if (n >= this.max) return null;
    this.running.set(owner, n + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.running.get(owner) ?? 1) - 1;
        if (left === 0) this.running.delete(owner);
        else this.running.set(owner, left);
      },
    };
  }
}

/** Whose export slots a caller uses: a scoped key counts as its parent. */
export const exportOwner = (caller: Caller): string => (caller.kind === "bootstrap" ? "bootstrap" : `key ${caller.key.id}`);

/**
 * The export stall timeout in ms: LEIDEX_EXPORT_STALL_SECONDS (test-only, read at start; a
 * positive number, fractions allowed), else EXPORT_STALL_SECONDS.
 */
export function exportStallMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.LEIDEX_EXPORT_STALL_SECONDS;
  const seconds = raw === undefined || raw === "" ? EXPORT_STALL_SECONDS : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`LEIDEX_EXPORT_STALL_SECONDS must be a positive number of seconds, not '${raw}'`);
  return Math.round(seconds * 1000);
}
