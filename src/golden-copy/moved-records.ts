// The records a delta's Level 2 gives other parents while no delta of the chain holds them: the
// overlay must carry them too, since parents are indexed columns (directParent=, hasParent=).
// Their Level 1 values are the full load's, which its slices keep as stored documents and its
// change feed's side lines keep the other names of, so they are re-encoded from those
// (record.ts writeDocument) instead of a scan of the 3.4M-row full file. A record that cannot be
// is named for that scan: its other names were kept joined by an older version and are more
// than one, or the full load does not hold its LEI.

import { join } from "node:path";
import { DocStoreReader } from "../engine/doc-store.js";
import { LeiTable, type LeiTableShare } from "../engine/lei-table.js";
import { sliceOf } from "../engine/partition.js";
import type { LegalEntity } from "../engine/schema.js";
import { JsonLinesReader } from "../os/json-lines.js";
import { sideLineOf, TRACKED_SIDE_FILE, type TrackedSide } from "../changes/tracked-records.js";

/** One of the full load's slices partitioned by LEI, as the loader thread reads it. */
export interface BaseSlice {
  docFile: string;
  leis: LeiTableShare;
}

/** A moved record as the full load holds it. */
export interface StoredRecord {
  lei: string;
  doc: LegalEntity;
  otherNames: string[];
  /** its tracked row (76 bytes) and side line in the full load's change-feed files */
  tracked: Buffer;
  side: Buffer | null;
}

/**
 * The records of `moved` (LEI -> the full load's tracked row) read from the full load: its
 * slices and its Level 2 directory. LEIs that cannot be re-encoded go to `unresolved`.
 */
export function* storedRecords(
  moved: ReadonlyMap<string, Buffer>,
  base: { level2Dir: string; slices: readonly BaseSlice[] },
  unresolved: Set<string>,
): Generator<StoredRecord> {
  const tables = base.slices.map((s) => new LeiTable(s.leis));
  const docs = base.slices.map((s) => DocStoreReader.open(s.docFile));
  const lines = new JsonLinesReader(join(base.level2Dir, TRACKED_SIDE_FILE));
  try {
    for (const [lei, tracked] of moved) {
      const s = sliceOf(lei, tables.length);
      const ref = tables[s].find(lei);
      const side = sideLineOf(lines, tracked);
      const otherNames = side === null ? [] : namesOf(JSON.parse(side.toString("utf8")) as TrackedSide);
      if (ref === null || otherNames === null) {
        unresolved.add(lei);
        continue;
      }
      const doc = JSON.parse(docs[s].read(ref.at, ref.length).toString("utf8")) as LegalEntity;
      yield { lei, doc, otherNames, tracked, side };
    }
  } finally {
    for (const d of docs) d.close();
    lines.close();
  }
}

/** The other names one by one; null when an older side line joined several into one string. */
function namesOf(side: TrackedSide): string[] | null {
  const names = side.otherNames;
  if (names === undefined) return [];
  if (typeof names !== "string") return names;
  return names.includes("; ") ? null : [names];
}
