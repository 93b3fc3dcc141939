// A lookup is answered on the front from each slice's LEI table, read in the slice's shared
// engine memory (src/engine/lei-table.ts): no shard worker is asked. Every LEI of the sample must
// come back as its own record, whatever the number of slices, through the table's hash index;
// LEIs not in the data (neighbours of real ones, the lowest and highest, a thousand made up)
// must answer 404.

import t from "tap";
import { COLUMN_OF, readSample, withCheckDigits } from "./helpers/fixture.js";
import { pMap, startServer, type RunningServer } from "./helpers/server.js";

const { header, rows } = readSample();
const LEI = header.indexOf(COLUMN_OF.lei);
const NAME = header.indexOf(COLUMN_OF.legalName);
const sorted = rows.map((r) => r[LEI]).sort();
const nameOf = new Map(rows.map((r) => [r[LEI], r[NAME]]));

const servers: [string, RunningServer][] = [
  ["1 shard", await startServer(t, { rateLimit: 0, shards: 1 })],
  ["3 shards", await startServer(t, { rateLimit: 0, shards: 3 })],
];

t.test("every LEI of the sample answers its own record", async (t) => {
  for (const [label, server] of servers) {
    const wrong: string[] = [];
    await pMap(sorted, 16, async (lei) => {
      const r = await server.get(`/v1/entities/${lei}`);
      if (r.status !== 200 || r.body.lei !== lei || r.body.legalName !== nameOf.get(lei))
        wrong.push(`${lei}: ${r.status} ${r.text.slice(0, 80)}`);
    });
    t.same(wrong.slice(0, 5), [], `${label}: all ${sorted.length} LEIs found, each its own record`);
  }
});

t.test("LEIs not in the data answer 404", async (t) => {
  // neighbours of real LEIs: the same 18 characters with the last one moved, check digits redone
  const bump = (lei: string, by: number): string => {
    const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const i = chars.indexOf(lei[17]) + by;
    return i < 0 || i >= chars.length ? "" : withCheckDigits(lei.slice(0, 17) + chars[i]);
  };
  const present = new Set(sorted);
  const absent = [
    withCheckDigits("000000000000000000"),
    withCheckDigits("ZZZZZZZZZZZZZZZZZZ"),
    ...[sorted[0], sorted[1], sorted[sorted.length >> 1], sorted[sorted.length - 1]].flatMap((lei) => [bump(lei, -1), bump(lei, 1)]),
  ].filter((lei) => lei !== "" && !present.has(lei));
  t.ok(absent.length >= 6, `${absent.length} absent LEIs to try`);
  for (const [label, server] of servers) {
    for (const lei of absent) {
      const r = await server.get(`/v1/entities/${lei}`);
      t.equal(r.status, 404, `${label}: ${lei} is not in the data`);
    }
  }
  // made up: each probes the index until an empty slot, past whatever shares its slot
  const madeUp = Array.from({ length: 1000 }, (_, i) => withCheckDigits(`LEIDEXABSENT${String(i).padStart(6, "0")}`)).filter(
    (lei) => !present.has(lei),
  );
  for (const [label, server] of servers) {
    const found: string[] = [];
    await pMap(madeUp, 16, async (lei) => {
      if ((await server.get(`/v1/entities/${lei}`)).status !== 404) found.push(lei);
    });
    t.same(found, [], `${label}: ${madeUp.length} made-up LEIs, none found`);
  }
});

t.test("a lower-case LEI is the same lookup", async (t) => {
  for (const [label, server] of servers) {
    for (const lei of [sorted[0], sorted[sorted.length - 1]]) {
      const r = await server.get(`/v1/entities/${lei.toLowerCase()}`);
      t.equal(r.body?.lei, lei, `${label}: ${lei.toLowerCase()}`);
    }
  }
});
