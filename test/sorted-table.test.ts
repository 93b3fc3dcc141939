// A sorted table read in key order (OrderedRows, as a delta's change feed reads it) gives every
// key the rows a lookup of that key alone gives: keys with no rows, keys before the first and
// after the last row, a key whose rows run over several windows, and keys far apart.

import { join } from "node:path";
import t from "tap";
import { SortedTable, SortedTableWriter } from "../src/level2/sorted-table.js";
import { tempDir } from "./helpers/server.js";

const work = tempDir(t, "leidex-sorted-table-");
const KEY = 6;
const ROW = KEY + 4;

// keys k000010, k000020, …; each key has 1–3 rows, and key k050000 has 9,000 (past a 128 KB window)
const rows: Buffer[] = [];
const keyOf = (n: number): string => `k${String(n).padStart(5, "0")}`;
for (let n = 10; n < 100_000; n += 10) {
  const count = n === 50_000 ? 9_000 : 1 + (n % 3);
  for (let i = 0; i < count; i++) {
    const row = Buffer.alloc(ROW);
    row.write(keyOf(n), 0, "latin1");
    row.writeUInt32BE(rows.length, KEY);
    rows.push(row);
  }
}
const path = join(work, "table");
const writer = new SortedTableWriter(path, ROW, KEY);
for (const row of rows) {
  const { buffer, at } = writer.next();
  row.copy(buffer, at);
}
writer.finish();
const table = SortedTable.open(path, ROW, KEY);
t.teardown(() => table.close());

const alone = (key: Buffer): Buffer | null => {
  const from = table.bound(key),
    to = table.bound(key, true);
  return to > from ? table.read(from, to - from) : null;
};

t.test("every key in order, held or not", async (t) => {
  const reader = table.ordered();
  let held = 0,
    differ = 0;
  const kept: [Buffer, Buffer | null][] = [];
  for (let n = 0; n <= 100_010; n += 5) {
    const key = Buffer.from(keyOf(n), "latin1");
    const got = reader.rowsOf(key);
    const want = alone(key);
    if (want !== null) held++;
    if ((got === null) !== (want === null) || (got !== null && want !== null && !got.equals(want))) differ++;
    kept.push([key, got]);
  }
  t.equal(differ, 0, "the same rows as a lookup of the key alone");
  t.equal(held, 9_999, "every key the table holds was asked");
  const back = Buffer.from(keyOf(50_000), "latin1");
  t.same(reader.rowsOf(back), alone(back), "a key asked after later ones: slower, the same rows");
  // rows handed out earlier are not overwritten by later windows
  t.same(
    kept.map(([k]) => alone(k)),
    kept.map(([, rows]) => rows),
  );
  t.equal(kept.find(([k]) => k.toString("latin1") === keyOf(50_000))![1]!.length, 9_000 * ROW, "a key's rows over several windows");
});

t.test("keys far apart, and a key's prefix", async (t) => {
  const reader = table.ordered();
  for (const n of [10, 20_000, 20_010, 99_990]) {
    const key = Buffer.from(keyOf(n), "latin1");
    t.same(reader.rowsOf(key), alone(key), keyOf(n));
  }
  // a shorter key takes every row it leads: k999x0 (10 keys)
  const prefix = Buffer.from("k999", "latin1");
  const want = Array.from({ length: 10 }, (_, i) => 99_900 + 10 * i).reduce((a, n) => a + 1 + (n % 3), 0);
  t.equal(table.ordered().rowsOf(prefix)!.length / ROW, want);
});
