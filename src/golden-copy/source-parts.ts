// The state of a GLEIF load's separately fetched parts: the relationship records (rr), the
// reporting exceptions (repex), and the ISIN and BIC mapping files. Each comes from its own API
// call and download; one that cannot be fetched, or fails its checks, no longer stops the load:
// the live collection's copy of that part is carried into the new one (stale), or, with none,
// the part is empty (missing). The states are recorded in the collection's manifest, so they
// survive a restart, and read by /v1/stats, /health/ready, the page and /metrics.

import { basename, normalize, resolve } from "node:path";
import type { Level2Files, PartStatus, SourcePart, SourceParts } from "../level2/layout.js";

export type { PartState, PartStatus, SourcePart, SourceParts } from "../level2/layout.js";

export const SOURCE_PARTS: readonly SourcePart[] = ["rr", "repex", "isin", "bic"];

/** What a load fetched of each part, and what its loader reported. */
export interface PartsOutcome {
  /** the parts this load tried to fetch, and what each is (publication or file name) */
  fetched: Partial<Record<SourcePart, string>>;
  /** the parts that failed, whether at their metadata call, download, reading or checks, and why */
  failures: Partial<Record<SourcePart, string>>;
  /** the files the new collection's parts were built from: a carried part's is the live copy's; null: empty */
  files: Level2Files;
  /** the new collection's load time */
  loadedAt: string;
}

/**
 * The new collection's part states. A part fetched and built is fresh. One that failed is stale
 * when the live copy was carried (keeping where that copy came from and when), else missing
 * (since its first failure). A part this load did not fetch keeps its live state.
 */
export function partStates(live: SourceParts | null, outcome: PartsOutcome, clean: (reason: string) => string): SourceParts {
  const states = {} as SourceParts;
  for (const part of SOURCE_PARTS) {
    const before = live?.[part] ?? null;
    const failure = outcome.failures[part];
    const fetched = outcome.fetched[part];
    if (failure !== undefined) {
      const reason = clean(failure);
      if (outcome.files[part] !== null && before !== null && before.status !== "missing") {
        states[part] = { status: "stale", from: before.from, loadedAt: before.loadedAt, since: before.loadedAt, reason };
      } else if (outcome.files[part] !== null) {
        // a copy carried from a collection that recorded no states (built before them)
        states[part] = { status: "stale", from: basename(outcome.files[part]), loadedAt: null, since: outcome.loadedAt, reason };
      } else {
        const since = before?.status === "missing" && before.since !== null ? before.since : outcome.loadedAt;
        states[part] = { status: "missing", from: null, loadedAt: null, since, reason };
      }
    } else if (fetched !== undefined) {
      states[part] = { status: "fresh", from: fetched, loadedAt: outcome.loadedAt, since: null, reason: null };
    } else {
      states[part] = before ?? { status: "missing", from: null, loadedAt: null, since: outcome.loadedAt, reason: "never fetched" };
    }
  }
  return states;
}

/** The parts that are not fresh, for the readiness answer and the log. */
export function staleParts(
  parts: SourceParts | null | undefined,
): { part: SourcePart; status: PartStatus; since: string | null; reason: string | null }[] {
  if (!parts) return [];
  return SOURCE_PARTS.filter((p) => parts[p] && parts[p].status !== "fresh").map((part) => ({
    part,
    status: parts[part].status,
    since: parts[part].since,
    reason: parts[part].reason,
  }));
}

/** A failure as one line a client may read: paths under the data dir named by their file name only. */
export function oneLineReason(message: string, dataDir: string): string {
  let text = message;
  // longest first: the absolute form holds the relative one
  const roots = [...new Set([resolve(dataDir), normalize(dataDir), dataDir])].filter((r) => r !== "" && r !== ".");
  for (const root of roots) {
    const escaped = root.replace(/\/+$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    text = text.replace(new RegExp(`(?<![\\w.-])${escaped}/[^\\s'":,)]*`, "g"), (path) => basename(path));
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
