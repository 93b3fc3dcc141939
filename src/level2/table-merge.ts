// A sorted table rewritten with a delta's rows, its other rows copied as they are. A GLEIF delta
// touches some thousands of the millions of keys in a Level 2 table: the rows of the keys it
// names are replaced, and every run of rows between two such keys is copied in one piece,
// found by a binary search of the chunk read, never decoded or compared row by row.

import { closeSync, fstatSync, openSync } from "node:fs";
import { readFully } from "../os/fd-io.js";
import type { TableLayout } from "./layout.js";
import { SortedTableWriter } from "./sorted-table.js";

/** Rows read from the old table at once. */
const CHUNK_BYTES = 4 << 20;

/**
 * Writes the table `to`: the rows of the table at `from` (the same layout), less those whose
 * first `keyBytes` bytes are one of `keys`, and `rows` in their place. `keys` holds distinct keys
 * of `keyBytes` bytes back to back in ascending byte order; `rows` whole rows in that order,
 * each row's key among `keys` (a key without rows is a deletion). Returns the rows written.
 */
export function mergeTable(
  from: string,
  to: string,
  layout: TableLayout,
  keyBytes: number,
  keys: Buffer,
  rows: Buffer,
  chunkBytes = CHUNK_BYTES,
): number {
  const w = layout.rowWidth;
  if (keys.length % keyBytes !== 0 || rows.length % w !== 0) throw new Error(`mergeTable: keys or rows of another width`);
  const fd = openSync(from, "r");
  try {
    const total = fstatSync(fd).size / w;
    if (!Number.isInteger(total)) throw new Error(`table ${from} is damaged: not whole rows`);
    const out = new SortedTableWriter(to, w, layout.keyWidth);
    const buf = Buffer.allocUnsafe(Math.max(1, Math.floor(chunkBytes / w)) * w);
    /** the chunk holds old rows [first, end); `cursor`: the next old row not yet written or dropped */
    let first = 0,
      end = 0,
      cursor = 0,
      r = 0;
    const load = (): void => {
      first = cursor;
      end = Math.min(total, first + buf.length / w);
      readFully(fd, buf, 0, (end - first) * w, first * w, "Level 2 table");
    };
    /** old row i's key against key k, as Buffer.compare orders them */
    const compare = (i: number, k: number): number =>
      buf.compare(keys, k * keyBytes, (k + 1) * keyBytes, (i - first) * w, (i - first) * w + keyBytes);
    for (let k = 0; k * keyBytes < keys.length; k++) {
      if (k > 0 && keys.compare(keys, (k - 1) * keyBytes, k * keyBytes, k * keyBytes, (k + 1) * keyBytes) <= 0)
        throw new Error("mergeTable: keys not distinct and ascending");
      // the old rows before key k, copied: a run of the chunk at a time
      while (cursor < total) {
        if (cursor >= end) load();
        let lo = cursor,
          hi = end;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (compare(mid, k) < 0) lo = mid + 1;
          else hi = mid;
        }
        out.append(buf, (cursor - first) * w, (lo - first) * w);
        cursor = lo;
        if (lo < end) break;
      }
      // the old rows of key k, dropped
      while (cursor < total) {
        if (cursor >= end) load();
        if (compare(cursor, k) !== 0) break;
        cursor++;
      }
      // the delta's rows of key k
      const start = r;
      while (r * w < rows.length && rows.compare(keys, k * keyBytes, (k + 1) * keyBytes, r * w, r * w + keyBytes) === 0) r++;
      out.append(rows, start * w, r * w);
    }
    if (r * w !== rows.length) throw new Error("mergeTable: rows out of key order or of a key not given");
    while (cursor < total) {
      if (cursor >= end) load();
      out.append(buf, (cursor - first) * w, (end - first) * w);
      cursor = end;
    }
    return out.finish();
  } finally {
    closeSync(fd);
  }
}
