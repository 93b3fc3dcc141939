// The change feed's tracked records of a collection derived from a full load (a delta laid over
// it, engine/collection.ts finishOnto): the loader writes tracked rows only for the overlay's
// records, and this module makes them whole again, the base's rows with the overlay's in their
// place, so that the feed and the watchlists read one table as after any load. It also finds
// which of the base's records a new Level 2 gives other parents: the overlay must carry those
// too, since a record's parents are among its indexed columns.

import { closeSync, fsyncSync, openSync, readFileSync, readSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFully } from "../os/fd-io.js";
import { WritePacer } from "../os/write-pacing.js";
import { readPlace, writePlace } from "../level2/layout.js";
import type { ParentIndex } from "../level2/parent-index.js";
import { SortedTable } from "../level2/sorted-table.js";
import { mergeTable } from "../level2/table-merge.js";
import { HASHES_AT, hashParent, SIDE_AT, TRACKED_FIELDS, TRACKED_FILE, TRACKED_ROW, TRACKED_SIDE_FILE } from "./tracked-records.js";

const LEI_BYTES = 20;
const CHUNK_ROWS = 8192;
const COPY_CHUNK = 1 << 20;
const DIRECT_AT = HASHES_AT + 4 * (TRACKED_FIELDS.length - 2);
const ULTIMATE_AT = HASHES_AT + 4 * (TRACKED_FIELDS.length - 1);

/**
 * The base's records whose parents in `parents` differ from those their tracked rows hashed,
 * but for those in `except` (the overlay carries them anyway): LEI -> its tracked row. `only`:
 * the only LEIs whose parents can differ (level2/build.ts parentLeis), looked up instead of
 * reading every row. A hash collision can only name a record whose parents did not change, which
 * the overlay then carries unchanged.
 */
export function parentsChangedSince(
  baseDir: string,
  parents: ParentIndex,
  except: ReadonlySet<string>,
  only: readonly string[] | null,
): Map<string, Buffer> {
  const table = SortedTable.open(join(baseDir, TRACKED_FILE), TRACKED_ROW, LEI_BYTES);
  const found = new Map<string, Buffer>();
  const check = (rows: Buffer): void => {
    for (let at = 0; at < rows.length; at += TRACKED_ROW) {
      const slot = parents.find(rows, at);
      if (
        rows.readUInt32LE(at + DIRECT_AT) === hashParent(parents.direct, slot) &&
        rows.readUInt32LE(at + ULTIMATE_AT) === hashParent(parents.ultimate, slot)
      )
        continue;
      const lei = rows.toString("latin1", at, at + LEI_BYTES);
      if (!except.has(lei)) found.set(lei, Buffer.from(rows.subarray(at, at + TRACKED_ROW)));
    }
  };
  try {
    if (only !== null) {
      const reader = table.ordered();
      for (const lei of [...only].sort()) {
        const rows = reader.rowsOf(Buffer.from(lei, "latin1"));
        if (rows !== null) check(rows);
      }
    } else for (let first = 0; first < table.rows; first += CHUNK_ROWS) check(table.read(first, CHUNK_ROWS));
  } finally {
    table.close();
  }
  return found;
}

/**
 * Makes `dir`'s tracked rows (the overlay's) whole: the base's rows in `baseDir`, each replaced
 * by the overlay's row of its LEI, and the overlay's new LEIs, in LEI order; the side file is
 * the base's with the overlay's lines after it. The base's other rows are copied in runs
 * (level2/table-merge.ts), the overlay's held in memory: a delta's records, some 76 bytes each.
 * Returns the rows.
 */
export function mergeOntoBase(dir: string, baseDir: string): number {
  const path = join(dir, TRACKED_FILE);
  const overlayPath = `${path}.overlay`;
  renameSync(path, overlayPath);
  renameSync(`${path}.idx`, `${overlayPath}.idx`);
  const sidePath = join(dir, TRACKED_SIDE_FILE);
  const overlaySide = `${sidePath}.overlay`;
  renameSync(sidePath, overlaySide);
  try {
    const baseSideBytes = copyPaced([join(baseDir, TRACKED_SIDE_FILE), overlaySide], sidePath);
    // the overlay's rows (one an LEI, in LEI order), their side lines now after the base's
    const rows = readFileSync(overlayPath);
    const keys = Buffer.allocUnsafe((rows.length / TRACKED_ROW) * LEI_BYTES);
    for (let r = 0; r * TRACKED_ROW < rows.length; r++) {
      const at = r * TRACKED_ROW;
      rows.copy(keys, r * LEI_BYTES, at, at + LEI_BYTES);
      const place = readPlace(rows, at + SIDE_AT);
      if (place.length > 0) writePlace(rows, at + SIDE_AT, place.offset + baseSideBytes, place.length);
    }
    const layout = { file: TRACKED_FILE, rowWidth: TRACKED_ROW, keyWidth: LEI_BYTES };
    return mergeTable(join(baseDir, TRACKED_FILE), path, layout, LEI_BYTES, keys, rows);
  } finally {
    rmSync(overlayPath, { force: true });
    rmSync(`${overlayPath}.idx`, { force: true });
    rmSync(overlaySide, { force: true });
  }
}

/** Writes the files one after another into `to`, synced as it goes; the first file's bytes. */
function copyPaced(files: string[], to: string): number {
  const out = openSync(to, "w");
  const pacer = new WritePacer(out);
  const chunk = Buffer.allocUnsafe(COPY_CHUNK);
  let firstBytes = 0;
  try {
    files.forEach((file, i) => {
      const fd = openSync(file, "r");
      try {
        for (let at = 0; ;) {
          const n = readSync(fd, chunk, 0, COPY_CHUNK, at);
          if (n === 0) break;
          writeFully(out, chunk, 0, n);
          pacer.wrote(n);
          at += n;
          if (i === 0) firstBytes = at;
        }
      } finally {
        closeSync(fd);
      }
    });
    fsyncSync(out);
  } finally {
    closeSync(out);
  }
  return firstBytes;
}
