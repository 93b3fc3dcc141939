// A filter's values to codes (engine/column-codes.ts): the answer is the same whether the column's
// map is empty, part filled or whole, and a large column is filled over event-loop turns, not at
// once when its slice opens.

import t from "tap";
import { setImmediate as nextTurn } from "node:timers/promises";
import { ColumnCodes, columnCodes } from "../src/engine/column-codes.js";
import { columnKey } from "../src/engine/schema.js";
import { placed } from "./helpers/placed-values.js";

// cities, some of them spelt twice alike once folded: the last code of a key is the one taken
const cities: (string | null)[] = [null];
for (let i = 0; i < 20_000; i++) cities.push(i % 997 === 0 ? `São Paulo ${i % 3}` : `City ${i}`);
cities.push("SAO PAULO 1", "Zürich");

/** What a whole map says: the last code of each key. */
function expected(key: string): number | undefined {
  let code: number | undefined;
  cities.forEach((v, c) => {
    if (v !== null && columnKey("city", v) === key) code = c;
  });
  return code;
}

const keys = ["sao paulo 1", "SAO PAULO 1", "city 0", "city 19999", "zurich", "nowhere"].map((k) => columnKey("city", k));

t.test("a lookup answers alike before, while and after the map is filled", async (t) => {
  const codes = new ColumnCodes("city", placed(cities));
  let done = 0;
  for (const filled of [0, 1, 5000, 15_000, cities.length]) {
    done += codes.fill(filled - done);
    t.equal(done, filled, `${filled} values in the map`);
    for (const key of keys) t.equal(codes.code(key), expected(key), `${key} with ${filled} values in the map`);
  }
  t.ok(codes.whole);
  t.equal(codes.code(columnKey("city", "sao paulo 1")), cities.length - 2, "the last of a key's spellings");
});

t.test("a slice's small columns are mapped at once, a large one over later turns", async (t) => {
  const [country, city] = columnCodes([
    { param: "country", values: placed([null, "DE", "FR"]) },
    { param: "city", values: placed(cities) },
  ]);
  t.ok(country.whole, "the small column at once");
  t.notOk(city.whole, "the large one is not filled in the opening turn");
  t.equal(city.code(columnKey("city", "zurich")), cities.length - 1, "and answers meanwhile");
  let turns = 0;
  while (!city.whole && turns < 100) {
    await nextTurn();
    turns++;
  }
  t.ok(city.whole, `filled after ${turns} turns`);
  t.ok(turns >= 3, "over several turns");
  for (const key of keys) t.equal(city.code(key), expected(key), key);
});
