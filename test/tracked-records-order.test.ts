// The change feed's tracked records of a load whose rows do not come in LEI order (a delta's, in
// its file's order, or a full file's with a repeated LEI): written as a table in LEI order, one
// row an LEI, the last added of a repeated one kept, whether the unsorted rows are few enough to
// be sorted from memory or are read back one by one.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { ParentIndex } from "../src/level2/parent-index.js";
import { HASHES_AT, TRACKED_FILE, TRACKED_ROW, TrackedRecordsWriter } from "../src/changes/tracked-records.js";
import { tempDir } from "./helpers/server.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
let seed = 11;
const random = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const lei = (): string => Array.from({ length: 20 }, () => ALPHABET[random(36)]).join("");

/** A tracked row of `id`: its LEI, and every hash `n`. */
function row(id: string, n: number): Buffer {
  const out = Buffer.alloc(TRACKED_ROW);
  out.write(id, 0, "latin1");
  for (let at = HASHES_AT; at + 4 <= TRACKED_ROW - 8; at += 4) out.writeUInt32LE(n, at);
  return out;
}

const leis = Array.from({ length: 600 }, lei);
const repeated = leis[17];
/** the rows in the order added: shuffled, then the repeated LEI again with other hashes */
const added = leis.map((id, n) => ({ id, n })).sort(() => random(3) - 1);
added.push({ id: repeated, n: 999_999 });

function written(inMemoryBytes?: number): Buffer {
  const dir = tempDir(t, "leidex-tracked-order-");
  const writer = new TrackedRecordsWriter(dir, inMemoryBytes);
  for (const { id, n } of added) writer.addTracked(row(id, n), 0, Buffer.from(`{"n":${n}}`), ParentIndex.EMPTY);
  t.equal(writer.finish(), leis.length, "one row an LEI");
  return readFileSync(join(dir, TRACKED_FILE));
}

t.test("rows sorted from memory", async (t) => {
  const table = written();
  const ids = Array.from({ length: table.length / TRACKED_ROW }, (_, r) => table.toString("latin1", r * TRACKED_ROW, r * TRACKED_ROW + 20));
  t.same(ids, [...leis].sort(), "in LEI order");
  const at = ids.indexOf(repeated) * TRACKED_ROW;
  t.equal(table.readUInt32LE(at + HASHES_AT), 999_999, "the repeated LEI's last row kept");
  const other = ids.indexOf(leis[3]) * TRACKED_ROW;
  t.equal(table.readUInt32LE(other + HASHES_AT), 3, "each other LEI with its own row");
});

t.test("rows read back one by one: the same table", async (t) => {
  t.ok(written(0).equals(written()), "byte for byte");
});
