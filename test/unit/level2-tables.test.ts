// The Level 2 building blocks: a sorted table on disk (src/level2/sorted-table.ts) finds and
// bounds keys exactly as a scan of its rows would, across block edges and repeated keys; the
// radix order (src/level2/keys.ts) sorts as a comparison sort does; ISIN check digits and BIC
// forms (src/level2/identifiers.ts) are judged as ISO 6166 and ISO 9362 say.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { checkBic, checkIsin, identifierKind, isinCheckDigitValid } from "../../src/level2/identifiers.js";
import { base36, radixOrder, writeBase36 } from "../../src/level2/keys.js";
import { SortedTable, SortedTableWriter, STRIDE } from "../../src/level2/sorted-table.js";

const rng = (seed: number) => () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;

t.test("find and bound agree with a scan, for keys present, absent, repeated and at block edges", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "leidex-l2-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const next = rng(7);
  for (const count of [0, 1, STRIDE - 1, STRIDE, STRIDE + 1, 5 * STRIDE + 3, 1000]) {
    // 4-byte keys from a small alphabet, so many repeat; 8-byte rows (key + a serial number)
    const keys = Array.from({ length: count }, () =>
      Buffer.from(Array.from({ length: 4 }, () => 65 + Math.floor(next() * 3))).toString("latin1"),
    ).sort();
    const path = join(dir, `t${count}`);
    const w = new SortedTableWriter(path, 8, 4);
    keys.forEach((k, i) => {
      const { buffer, at } = w.next();
      buffer.write(k, at, "latin1");
      buffer.writeUInt32BE(i, at + 4);
    });
    t.equal(w.finish(), count);
    const table = SortedTable.open(path, 8, 4);
    t.teardown(() => table.close());
    const wrong: string[] = [];
    for (const probe of ["AAAA", "AABA", "BBBB", "CCCC", "CCCD", "A", "B", "C", "AB", "0000", "ZZZZ", ...keys.slice(0, 50)]) {
      const key = Buffer.from(probe, "latin1");
      const lo = keys.findIndex((k) => k.slice(0, probe.length) >= probe);
      const hi = keys.findIndex((k) => k.slice(0, probe.length) > probe);
      const wantLo = lo < 0 ? count : lo,
        wantHi = hi < 0 ? count : hi;
      if (table.bound(key) !== wantLo) wrong.push(`${count} bound(${probe}) ${table.bound(key)} want ${wantLo}`);
      if (table.bound(key, true) !== wantHi) wrong.push(`${count} bound(${probe}, strict) ${table.bound(key, true)} want ${wantHi}`);
      const found = table.find(key);
      const want = wantHi > wantLo ? wantLo : null;
      const got = found === null ? null : found.readUInt32BE(4);
      if (got !== want) wrong.push(`${count} find(${probe}) row ${got} want ${want}`);
    }
    t.same(wrong, [], `${count} rows`);
  }
});

t.test("a damaged table is refused when opened", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "leidex-l2-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "t");
  const w = new SortedTableWriter(path, 8, 4);
  for (let i = 0; i < 100; i++) w.next().buffer.write("ABCD", 0);
  w.finish();
  const { appendFileSync } = await import("node:fs");
  appendFileSync(path, "xyz");
  t.throws(() => SortedTable.open(path, 8, 4), /damaged/);
});

t.test("radix order sorts like a comparison sort, stably", async (t) => {
  const next = rng(11);
  const n = 5000;
  const a = Float64Array.from({ length: n }, () => Math.floor(next() * 2 ** 52));
  const b = Uint8Array.from({ length: n }, () => Math.floor(next() * 4));
  a.fill(a[0], 0, 200); // ties in the first key
  const order = [
    ...radixOrder(n, [
      { values: a, bits: 52 },
      { values: b, bits: 2 },
    ]),
  ];
  const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[x] - a[y] || b[x] - b[y] || x - y);
  t.same(order, want);
  const bytes = Buffer.from("5493001KJTIIGC8Y1R12", "latin1");
  const out = Buffer.alloc(10);
  writeBase36(base36(bytes, 0, 10), 10, out, 0);
  t.equal(out.toString("latin1"), "5493001KJT", "base 36 halves write back the same characters");
  t.equal(base36(Buffer.from("ab"), 0, 2), -1, "lower case is not a code");
});

t.test("ISIN check digits and BIC forms", async (t) => {
  for (const isin of ["US0378331005", "US5949181045", "DE0007164600", "GB0002634946", "XS2021832634", "US3158052262"]) {
    t.ok(isinCheckDigitValid(isin), `${isin} valid`);
    t.same(checkIsin(isin.toLowerCase()), { ok: true, value: isin }, `${isin} in lower case`);
    const bad = `${isin.slice(0, 11)}${(Number(isin[11]) + 1) % 10}`;
    t.match(checkIsin(bad), { ok: false, message: /check digit/ }, `${bad} refused`);
  }
  for (const malformed of ["", "US037833100", "U50378331005", "US03783310051", "US037833100X"])
    t.match(checkIsin(malformed), { ok: false, message: /malformed/ });
  t.same(checkBic("deutdeff"), { ok: true, value: "DEUTDEFFXXX" }, "8 characters: the head office");
  t.same(checkBic("DEUTDEFF500"), { ok: true, value: "DEUTDEFF500" });
  for (const bad of ["DEUTDEF", "DEUTDEFF5", "DEU1DEFF", "DEUTD3FF", "DEUTDEFF50O0"])
    t.match(checkBic(bad), { ok: false }, `${bad} refused`);
  t.equal(identifierKind("5493001KJTIIGC8Y1R12"), "LEI");
  t.equal(identifierKind("us0378331005"), "ISIN");
  t.equal(identifierKind("DEUTDEFF"), "BIC");
  t.equal(identifierKind("hello"), null);
});
