// A full load's comparison walks the live and the new Level 2 tables side by side, a chunk of
// rows at a time, key by key (src/changes/detect.ts). Here two LEI → ISIN tables large enough for
// several chunks, with keys whose rows straddle a chunk's end and one key longer than a chunk:
// every LEI both hold whose ISIN count differs is reported once, with both counts, and nothing
// else. Real tables written by the Level 2 writer, compared by the change feed's own code.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import type { FieldChange } from "../src/changes/model.js";
import { dist } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";

const { detectChanges, CHUNK_ROWS: CHUNK } = (await import(dist("changes/detect.js"))) as typeof import("../src/changes/detect.js");
const { SortedTableWriter } = (await import(dist("level2/sorted-table.js"))) as typeof import("../src/level2/sorted-table.js");
const { LEI_TO_ISIN, LEI_BYTES } = (await import(dist("level2/layout.js"))) as typeof import("../src/level2/layout.js");

const lei = (i: number): string => `529900${String(i).padStart(12, "0")}AB`;

/** A Level 2 directory holding only an LEI → ISIN table with `counts` rows per LEI number, in LEI order. */
function tableDir(name: string, counts: Map<number, number>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const writer = new SortedTableWriter(join(dir, LEI_TO_ISIN.file), LEI_TO_ISIN.rowWidth, LEI_TO_ISIN.keyWidth);
  for (const i of [...counts.keys()].sort((a, b) => a - b)) {
    for (let k = 0; k < counts.get(i)!; k++) {
      const { buffer, at } = writer.next();
      buffer.write(lei(i), at, LEI_BYTES, "latin1");
      buffer.write(`XS${String(k).padStart(10, "0")}`, at + LEI_BYTES, LEI_TO_ISIN.rowWidth - LEI_BYTES, "latin1");
    }
  }
  writer.finish();
  return dir;
}

/** The LEI number whose rows, in table order, include row `row` (0-based). */
function leiAtRow(counts: Map<number, number>, row: number): number {
  let seen = 0;
  for (const i of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(i)!;
    if (seen > row) return i;
  }
  throw new Error(`no row ${row}`);
}

const root = tempDir(t, "leidex-detect-tables-");
const old = new Map<number, number>();
for (let i = 0; i < 9000; i++) old.set(i, 1 + (i % 5));
old.set(4500, 3 * CHUNK + 17); // one LEI's rows over more than three chunks
const next = new Map(old);
// LEIs whose rows straddle a chunk's end in the live table (rows on both sides of it) grow
const straddling = [1, 2, 5, 6]
  .map((k) => leiAtRow(old, k * CHUNK - 1))
  .filter((i, n) => i !== 4500 && leiAtRow(old, [1, 2, 5, 6][n] * CHUNK) === i);
t.ok(straddling.length >= 2, `${straddling.length} LEIs straddle chunk ends`);
for (const i of straddling) next.set(i, next.get(i)! + 2);
next.set(4500, 3 * CHUNK + 16);
for (let i = 100; i < 9000; i += 997) next.set(i, next.get(i)! + 1);
next.delete(7); // only in the live table: not a field change
next.set(9500, 4); // only in the new one: not a field change either
next.set(8999, old.get(8999)! + 3); // the last key of both

const expected = [...old.keys()]
  .filter((i) => next.has(i) && next.get(i) !== old.get(i))
  .map((i) => `${lei(i)} ${old.get(i)} → ${next.get(i)}`)
  .sort();

t.test("every LEI both hold whose ISIN count differs, once, with both counts", async (t) => {
  const held = (counts: Map<number, number>) => {
    const leis = new Set([...counts.keys()].map(lei));
    return (l: string): Buffer | null => (leis.has(l) ? Buffer.from("{}") : null);
  };
  const changes: FieldChange[] = [];
  const detection = await detectChanges(
    { dir: tableDir("old", old), document: held(old) },
    { dir: tableDir("new", next), document: held(next) },
    { publication: "2026-12-02T08:00:00Z", detectedAt: "2026-12-02T08:01:00Z" },
    async (batch) => void changes.push(...batch),
  );
  const found = changes.map((c) => `${c.lei} ${c.valueOld} → ${c.valueNew}`).sort();
  t.same(found, expected, "the changes are the ISIN counts that differ");
  t.ok(
    [...straddling, 4500, 8999].every((i) => found.some((f) => f.startsWith(lei(i)))),
    "among them the LEIs straddling chunk ends, the one longer than a chunk and the last",
  );
  t.ok(
    changes.every((c) => c.field === "isinCount"),
    "each is an ISIN count change",
  );
  t.equal(detection.changes, expected.length, "the detection counts them");
});
