// A column's values live in the slice's shared memory (engine/column-values.ts), so that the
// share another thread serves the slice by carries numbers, not the values: a parent or city
// column of hundreds of thousands of values was cloned into every message that shared a slice.

import t from "tap";
import { ColumnValues, placeColumnValues } from "../src/engine/column-values.js";
import { readSample } from "./helpers/fixture.js";
import { builtSlice, dist } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";
import { bump } from "./helpers/placed-values.js";

const { WasmSlice } = (await import(dist("engine/wasm-slice.js"))) as typeof import("../src/engine/wasm-slice.js");
const { COLUMNS } = (await import(dist("engine/schema.js"))) as typeof import("../src/engine/schema.js");

t.test("values read back as placed, in any script, and again", async (t) => {
  const values = [null, "Zürich", "", "Москва", "東京", "BERLIN", "a".repeat(3000), "Zürich"];
  const memory = new SharedArrayBuffer(1 << 16);
  const place = placeColumnValues(values, bump(), () => memory);
  t.same(Object.values(place).every(Number.isInteger), true, "its place is numbers");
  const read = new ColumnValues(memory, place);
  t.equal(read.length, values.length);
  for (let round = 0; round < 2; round++)
    for (let code = 0; code < values.length; code++) t.equal(read.at(code), values[code], `code ${code}, read ${round + 1}`);
  t.same(
    read.codesWhere((v) => v?.startsWith("Z") === true),
    [1, 7],
  );
});

t.test("a column whose code 0 is a value, or with a null past it, is refused", async (t) => {
  const memory = new SharedArrayBuffer(1 << 12);
  t.throws(() => placeColumnValues(["DE"], bump(), () => memory), /code 0/);
  t.throws(() => placeColumnValues([null, "DE", null], bump(), () => memory), /value 2/);
});

t.test("a slice's share carries its columns' places, and a thread adopting it reads the same values", async (t) => {
  const { header, rows } = readSample();
  const city = header.indexOf("Entity.LegalAddress.City");
  // every record its own city: a column as large as the slice
  const many = rows.map((r, i) => r.map((v, c) => (c === city ? `Town ${i} Ærø` : v)));
  const opened = await builtSlice(tempDir(t, "leidex-values-"), "s", header, many);
  const c = COLUMNS.findIndex((col) => col.param === "city");
  const place = opened.share.columns[c].values;
  t.ok(place.count > rows.length / 2, `${place.count} cities`);
  t.same(Object.values(place).every(Number.isInteger), true, "the share holds numbers for them, not the values");
  const other = WasmSlice.adopt(opened.share);
  const query = {
    q: "",
    fields: "all" as const,
    filters: { city: [`Town 17 Ærø`] },
    facets: [],
    window: 10,
    typoMask: 0,
    dropTokens: false,
  };
  t.equal(other.search(query).found, 1, "a filter on one of them finds its record on the adopting instance");
  t.equal(opened.search(query).found, 1, "and on the opening one");
});
