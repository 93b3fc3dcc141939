// Which GLEIF delta brings the live collection to a new publication. GLEIF publishes three times
// a day, each publication with four deltas of whole new or changed Level 1 records: the last 8
// hours, day, week and 31 days. The smallest window that reaches back to the live publication
// covers every change since; a larger one only repeats records the live collection already
// holds, which the upsert by LEI takes again unchanged. Level 1 never deletes a record, so the
// live records with the delta's on top are the new publication, and the count of distinct LEIs
// must be the one the publication announces. The relationship records and reporting exceptions
// (rr, repex) have deltas too, whose rows replace those of the same key and whose `DeletedAt`
// rows remove them (level2/build.ts).

import { existsSync } from "node:fs";
import { DELTA_WINDOWS, type DeltaWindow, type Publication, type PublishedFile } from "./gleif-api.js";
import type { DeltaInput } from "./load.js";
import type { CollectionManifest } from "../store/collection-files.js";
import type { DeltaPart } from "../level2/layout.js";
import type { Level2Input, MappingPart } from "../level2/build.js";

export interface ChosenDelta {
  window: DeltaWindow;
  file: PublishedFile;
  /** the live collection's full file and the deltas already on it, local files */
  base: string;
  chain: string[];
}

/** What the live collection holds of one GLEIF file: its publication, the full file kept, and the deltas on it. */
export interface LiveFiles {
  published: string | null;
  base: string | null;
  chain: readonly string[];
}

/** The live collection's Level 1 files; null: none to apply a delta to (none, or the offline sample). */
export function liveLevel1(live: CollectionManifest | null): LiveFiles | null {
  return live === null || live.fallback ? null : { published: live.published, base: live.download, chain: live.deltas ?? [] };
}

/** The live collection's files of a Level 2 part; null when it has no copy of it. */
export function liveLevel2(live: CollectionManifest | null, part: DeltaPart): LiveFiles | null {
  const state = live?.parts?.[part];
  if (live === null || live.fallback || state === undefined || state.status === "missing" || state.from === null) return null;
  return { published: state.from, base: live.level2.files[part], chain: live.level2.deltas?.[part] ?? [] };
}

/**
 * The mapping parts (ISIN, BIC) whose latest file (`fetched`: its name) is the one the live
 * collection's tables were built from, still kept: a delta neither downloads nor builds them
 * again but keeps the live tables, in `level2Dir` (level2/build.ts `reuse`). GLEIF publishes
 * the mapping files once a day, the golden copy three times.
 */
export function keptMappings(
  live: CollectionManifest,
  fetched: Partial<Record<MappingPart, string>>,
  level2Dir: string,
): { files: Partial<Record<MappingPart, string>>; reuse: NonNullable<Level2Input["reuse"]> } {
  const files: Partial<Record<MappingPart, string>> = {};
  const reuse: NonNullable<Level2Input["reuse"]> = {};
  for (const part of ["isin", "bic"] as const) {
    const state = live.parts?.[part];
    const file = live.level2.files[part];
    if (state?.from == null || state.from !== fetched[part] || file === null || !existsSync(file)) continue;
    files[part] = file;
    reuse[part] = { dir: level2Dir, count: part === "isin" ? live.level2.isins : live.level2.bics };
  }
  return { files, reuse };
}

/** Hours from one publication to the next, both ISO ("2026-09-30T08:00:00Z"); null when either is not a date. */
export function hoursBetween(from: string, to: string): number | null {
  const a = Date.parse(from);
  const b = Date.parse(to);
  return Number.isFinite(a) && Number.isFinite(b) ? (b - a) / 3_600_000 : null;
}

/**
 * The delta that takes `live` to `pub` (published `published`), or why there is none: the live
 * collection has no publication or no kept files, the new one is not later, the gap is over 31
 * days, or the publication announces no delta of the window needed.
 */
export function deltaFor(pub: Publication, published: string, live: LiveFiles | null): ChosenDelta | string {
  if (live === null || live.published === null) return "no live GLEIF publication to apply a delta to";
  const base = live.base;
  const chain = [...live.chain];
  if (base === null || ![base, ...chain].every((f) => existsSync(f))) return "the live collection's files are gone";
  const gap = hoursBetween(live.published, published);
  if (gap === null || gap <= 0) return `publication ${published} is not later than the live ${live.published}`;
  const window = (Object.keys(DELTA_WINDOWS) as DeltaWindow[]).find((w) => gap <= DELTA_WINDOWS[w]);
  if (window === undefined) return `the live publication is ${Math.round(gap / 24)} days old, more than a delta covers`;
  const file = pub.deltas[window];
  if (file === undefined) return `publication ${published} announces no ${window} delta`;
  return { window, file, base, chain };
}

/** The deltas a Level 1 load reads after the full file: those on the live collection, then the new one. */
export function deltaInputs(delta: ChosenDelta): DeltaInput[] {
  return [
    ...delta.chain.map((source) => ({ source, expectedRows: null, size: null })),
    { source: delta.file.url, expectedRows: delta.file.recordCount, size: delta.file.size },
  ];
}
