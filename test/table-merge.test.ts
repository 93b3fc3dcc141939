// A sorted table rewritten with a delta's rows (src/level2/table-merge.ts): the old rows of every
// key given are replaced by the given rows of that key (none: deleted), every other old row is
// kept in order, and the sparse index is that of a table written whole. Random tables against a
// plain model, with chunks of a few rows so that runs, keys and dropped rows straddle chunk ends.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import type { TableLayout } from "../src/level2/layout.js";
import { SortedTable, SortedTableWriter } from "../src/level2/sorted-table.js";
import { mergeTable } from "../src/level2/table-merge.js";
import { tempDir } from "./helpers/server.js";

const work = tempDir(t, "leidex-table-merge-");
/** rows of a 3-byte key (two bytes a lookup goes by, then one more) and 2 bytes of payload */
const LAYOUT: TableLayout = { file: "t.tbl", rowWidth: 5, keyWidth: 2 };
const KEY = 3;

let seed = 7;
const random = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
/** a key from a small alphabet, so that keys repeat and runs of equal keys are long */
const keyOf = (): Buffer => Buffer.from([65 + random(4), 65 + random(5), 65 + random(3)]);
const byKey = (a: Buffer, b: Buffer): number => a.compare(b, 0, KEY, 0, KEY);

function writeTable(path: string, rows: Buffer[]): void {
  const out = new SortedTableWriter(path, LAYOUT.rowWidth, LAYOUT.keyWidth);
  for (const row of rows) {
    const { buffer, at } = out.next();
    row.copy(buffer, at);
  }
  out.finish();
}

t.test("the merge is the old rows less the keys given, with the given rows in their place", async (t) => {
  for (let round = 0; round < 40; round++) {
    const old: Buffer[] = [];
    const oldCount = random(300);
    for (let i = 0; i < oldCount; i++) old.push(Buffer.concat([keyOf(), Buffer.from([i >> 8, i & 255])]));
    old.sort(byKey); // stable: equal keys keep their order
    const from = join(work, `old-${round}.tbl`);
    writeTable(from, old);

    // keys given: some of the old ones, some new, some before and after every old one
    const given = new Map<string, Buffer>();
    for (let k = 0; k < random(40); k++) {
      const key = random(3) === 0 && old.length > 0 ? old[random(old.length)].subarray(0, KEY) : keyOf();
      given.set(key.toString("latin1"), Buffer.from(key));
    }
    if (random(2) === 0) given.set("@@@", Buffer.from("@@@"));
    if (random(2) === 0) given.set("ZZZ", Buffer.from("ZZZ"));
    const keys = [...given.values()].sort(byKey);
    const rows: Buffer[] = [];
    for (const key of keys) for (let r = random(3); r > 0; r--) rows.push(Buffer.concat([key, Buffer.from([0xee, rows.length])]));

    const expected = [...old.filter((row) => !given.has(row.toString("latin1", 0, KEY))), ...rows].sort(byKey);
    const to = join(work, `new-${round}.tbl`);
    const chunk = (1 + random(7)) * LAYOUT.rowWidth;
    const n = mergeTable(from, to, LAYOUT, KEY, Buffer.concat(keys), Buffer.concat(rows), chunk);
    t.equal(n, expected.length, `round ${round}: the rows written`);
    const got = readFileSync(to);
    if (!got.equals(Buffer.concat(expected))) {
      t.fail(`round ${round}: ${old.length} old rows, ${keys.length} keys, ${rows.length} rows, chunks of ${chunk} bytes`);
      continue;
    }
    // the index: the key of every 64th row, as a table written whole has it
    const whole = join(work, `whole-${round}.tbl`);
    writeTable(whole, expected);
    t.ok(readFileSync(`${to}.idx`).equals(readFileSync(`${whole}.idx`)), `round ${round}: its index is a whole write's`);
  }
});

t.test("a merged table reads like any other", async (t) => {
  const from = join(work, "read-old.tbl");
  const old = Array.from({ length: 500 }, (_, i) => Buffer.from([65 + (i >> 7), 65 + ((i >> 3) & 15), 65, 1, i & 255]));
  writeTable(from, old);
  const to = join(work, "read-new.tbl");
  // the rows of key (B, C, A) replaced by one, those of (A, A, A) deleted
  mergeTable(from, to, LAYOUT, KEY, Buffer.from("AAABCA"), Buffer.from([66, 67, 65, 9, 9]), 2 * LAYOUT.rowWidth);
  const table = SortedTable.open(to, LAYOUT.rowWidth, LAYOUT.keyWidth);
  t.teardown(() => table.close());
  t.equal(table.rows, 500 - 8 - 8 + 1);
  t.same([...(table.find(Buffer.from("BC")) ?? [])], [66, 67, 65, 9, 9], "the new row, found by its lookup key");
  t.equal(table.find(Buffer.from("AA")), null, "the deleted key's rows are gone");
  t.same([...(table.find(Buffer.from("AB")) ?? [])], [65, 66, 65, 1, 8], "the rows after them are found");
});

t.test("rows of a key not given, or keys out of order, are refused", async (t) => {
  const from = join(work, "refuse.tbl");
  writeTable(from, [Buffer.from("AAA00"), Buffer.from("BBB00")]);
  const to = join(work, "refused.tbl");
  t.throws(
    () => mergeTable(from, to, LAYOUT, KEY, Buffer.from("AAA"), Buffer.from("CCC11")),
    /rows out of key order or of a key not given/,
  );
  t.throws(() => mergeTable(from, to, LAYOUT, KEY, Buffer.from("BBBAAA"), Buffer.alloc(0)), /keys not distinct and ascending/);
  writeFileSync(join(work, "odd.tbl"), Buffer.alloc(7));
  t.throws(() => mergeTable(join(work, "odd.tbl"), to, LAYOUT, KEY, Buffer.alloc(0), Buffer.alloc(0)), /not whole rows/);
});
