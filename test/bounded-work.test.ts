// Broad and long queries take shortcuts in the engine: a doc the full page already outranks is
// only counted, the rest of a long one-word range is counted from a bitmap (filters and facets
// too), and a query that must drop words goes straight to the most words any entity holds. None
// of this may change an answer: a short page is the head of a longer one, found and facets do
// not depend on the page size, a facet count is the found of the query filtered on that value,
// and the words an entity holds are counted in the searched fields only. A family of 450
// near-twins among the real sample makes the ranges long and the ties many.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { COLUMN_OF, csvLine, readSample, withCheckDigits } from "./helpers/fixture.js";
import { qs, startServer, tempDir, type RunningServer } from "./helpers/server.js";

const { header, rows, text } = readSample();
const col = (name: string): number => header.indexOf(name);
const LEI = col(COLUMN_OF.lei),
  NAME = col(COLUMN_OF.legalName),
  CITY = col(COLUMN_OF.city);
const COUNTRY = col(COLUMN_OF.country),
  REG = col(COLUMN_OF.registrationStatus);

let serial = 0;
function row(name: string, fields: { city?: string; country?: string; registration?: string } = {}, from: string[][] = rows): string {
  const r = [...from[(serial * 37) % from.length]];
  r[LEI] = withCheckDigits(`LEIDEXWORK${String(serial++).padStart(8, "0")}`);
  r[NAME] = name;
  if (fields.city !== undefined) r[CITY] = fields.city;
  if (fields.country !== undefined) r[COUNTRY] = fields.country;
  if (fields.registration !== undefined) r[REG] = fields.registration;
  return csvLine(r);
}

// The family: names of 2 to 6 words sharing VELDMARK and CAPITAL (some CAPITALS, some in the
// other order), over four countries and two registration states.
const TAILS = ["", "FUND", "GLOBAL FUND", "PARTNERS GROUP LIMITED", "EUROPE", "INCOME FUND II"];
const COUNTRIES = ["DE", "LU", "FR", "US"];
const family = Array.from({ length: 450 }, (_, i) => {
  const head = i % 7 === 0 ? "CAPITAL VELDMARK" : i % 5 === 0 ? "VELDMARK CAPITALS" : "VELDMARK CAPITAL";
  return row(`${head} ${TAILS[i % TAILS.length]}`.trim(), { country: COUNTRIES[i % 4], registration: i % 3 === 0 ? "LAPSED" : "ISSUED" });
});
// Words held in part: A holds three of the query's words in its name; B two in its name and two
// more in its city, so B holds four in all fields but only two in the name.
const A = "QUORVIN BLASKET TREMMEL TRADING";
const B = "QUORVIN BLASKET SHIPPING";
const C = "SPRAVIK GLENTHOR TRADING";
const partial = [row(A), row(B, { city: "TREMMEL ODWAYNE" }), row(C)];
// The whole word of a prefix among its many completions: "veldmark cap" matches CAP itself in
// one name and CAPITAL(S) in hundreds; the one holding CAP whole outranks them all, though it
// comes last (its LEI is the highest), its name is longer than the query, and its registration
// has lapsed (it stands lower).
const WHOLE_CAP = "VELDMARK CAP HOLDINGS";
// A query that repeats a word, or adds its prefix ("veldmark veldm"), is matched by one word of
// most names, at one position; this name has two such words side by side, so its bound is not
// lowered with theirs.
const TWIN_WORDS = "VELDMARK VELDMARKS NORDIC";

// A query whose neighbouring words share a term ("orvandel orvand") drives thousands of docs that
// hold the pair as one word, so one slice of more than 4,096 refines its bounds at once, before
// scoring; 3 slices of fewer never do. Among them, a few hold the pair side by side or one word
// apart, and must still rank first.
// (copied from sample rows that hold no word of the queries above, whose counts stay put)
const rowsWithoutCapital = rows.filter((r) => !/CAPITA|VELDM/i.test(r.join(" ")));
const PAIR_TAILS = ["NORD", "HOLDINGS", "INVEST AS", "SHIPPING GROUP", "PARTNERS", "GLOBAL"];
const pairFamily = Array.from({ length: 5000 }, (_, i) => {
  const head = i % 997 === 0 ? "ORVANDEL ORVANDELS" : i % 1499 === 0 ? "ORVANDEL MARIT ORVANDELS" : i % 11 === 0 ? "ORVANDELS" : "ORVANDEL";
  return row(
    `${head} ${PAIR_TAILS[i % PAIR_TAILS.length]}`.trim(),
    { country: COUNTRIES[i % 4], registration: i % 3 === 0 ? "LAPSED" : "ISSUED" },
    rowsWithoutCapital,
  );
});

// A typed prefix matched as the start of longer words: the last word also takes typos, unless a
// page of 20 names already holds it with no typo. QUELVAR starts 30 names (on 3 slices, no slice
// holds 20: only the slices together fill the page), and QUELVOR, one typo away, 5 more;
// TORVALD starts 12 names and TORVELD 5.
const prefixFamilies = [
  ...Array.from({ length: 30 }, (_, i) =>
    row(`QUELVARIS ${PAIR_TAILS[i % PAIR_TAILS.length]}`, { country: COUNTRIES[i % 4] }, rowsWithoutCapital),
  ),
  ...Array.from({ length: 5 }, (_, i) => row(`QUELVORIS ${PAIR_TAILS[i]}`, { country: COUNTRIES[i % 4] }, rowsWithoutCapital)),
  ...Array.from({ length: 12 }, (_, i) =>
    row(`TORVALDIX ${PAIR_TAILS[i % PAIR_TAILS.length]}`, { country: COUNTRIES[i % 4] }, rowsWithoutCapital),
  ),
  ...Array.from({ length: 5 }, (_, i) => row(`TORVELDIX ${PAIR_TAILS[i]}`, { country: COUNTRIES[i % 4] }, rowsWithoutCapital)),
];

const source = join(tempDir(t), "work.csv");
writeFileSync(
  source,
  `${text.trimEnd()}\r\n${[...family, ...pairFamily, ...prefixFamilies, ...partial, row(WHOLE_CAP, { registration: "LAPSED" }), row(TWIN_WORDS, { registration: "LAPSED" })].join("\r\n")}\r\n`,
);
const servers: [string, RunningServer][] = [
  ["1 shard", await startServer(t, { rateLimit: 0, shards: 1, source })],
  ["3 shards", await startServer(t, { rateLimit: 0, shards: 3, source })],
];

interface Page {
  found: number;
  results: { lei: string; legalName: string }[];
  facets?: { field: string; values: { value: string; count: number }[] }[];
}
const leis = (p: Page): string[] => p.results.map((e) => e.lei);

t.test("a short page is the head of the whole ranking, with the same found and facets", async (t) => {
  for (const [label, server] of servers) {
    for (const q of [
      "veldmark capital",
      "veldmark cap",
      "capital veldmark fund",
      "veldmark",
      "veldmark veldm",
      "capital capital",
      "capital capita fund",
      "veldmark xqzvw capital",
      "xqzvw veldmark cap",
    ]) {
      const facets = "country,registrationStatus";
      // 500 deep: the page holds every match, so nothing can be skipped
      const whole: string[] = [];
      let reference: Page | undefined;
      for (let page = 1; page <= 5; page++) {
        const p: Page = await server.json(`/v1/entities${qs({ q, page, limit: 100, facets })}`);
        whole.push(...leis(p));
        reference ??= p;
      }
      t.ok(reference!.found >= 100 && whole.length === reference!.found, `${label} ${q}: ${reference!.found} found, all paged`);
      for (const limit of [1, 3, 10, 40]) {
        const p: Page = await server.json(`/v1/entities${qs({ q, limit, facets })}`);
        t.same(leis(p), whole.slice(0, limit), `${label} ${q}: the top ${limit}`);
        t.equal(p.found, reference!.found, `${label} ${q}: found at limit ${limit}`);
        t.same(p.facets, reference!.facets, `${label} ${q}: facets at limit ${limit}`);
      }
    }
  }
});

t.test("a long drive refined before scoring ranks as one that is not", async (t) => {
  const [[, one], [, three]] = servers;
  const top300 = async (server: RunningServer, q: string): Promise<string[]> => {
    const out: string[] = [];
    for (let page = 1; page <= 3; page++) out.push(...leis(await server.json<Page>(`/v1/entities${qs({ q, page, limit: 100 })}`)));
    return out;
  };
  // the first three share a word between every pair of neighbours; the third repeats one whole
  const long = ["orvandel orvand", "orvandel orvandel", "orvandel orvandel orv"];
  for (const q of [...long, "orvandels orvandel", "orvandel orvandels nor"]) {
    const deep = await top300(one, q);
    t.same(deep, await top300(three, q), `${q}: the top 300 on 1 slice (refined at once) and on 3 (not)`);
    const reference: Page = await three.json(`/v1/entities${qs({ q, limit: 1 })}`);
    if (long.includes(q)) t.ok(reference.found > 4096, `${q}: ${reference.found} found, more than one slice scores before it refines`);
    for (const limit of [1, 10, 40]) {
      const p: Page = await one.json(`/v1/entities${qs({ q, limit })}`);
      t.same(leis(p), deep.slice(0, limit), `${q}: the top ${limit}`);
      t.equal(p.found, reference.found, `${q}: found at limit ${limit}`);
    }
  }
});

t.test("a prefix's whole word ranks first among its completions, at any page size", async (t) => {
  for (const [label, server] of servers) {
    for (const limit of [1, 10, 100]) {
      const p: Page = await server.json(`/v1/entities${qs({ q: "veldmark cap", limit })}`);
      t.equal(p.results[0]?.legalName, WHOLE_CAP, `${label}, limit ${limit}: ${p.results[0]?.legalName}`);
    }
  }
});

t.test("a facet count is the found of the query filtered on its value", async (t) => {
  for (const [label, server] of servers) {
    for (const q of ["veldmark", "veld", "veldmark capital"]) {
      const p: Page = await server.json(`/v1/entities${qs({ q, limit: 1, registrationStatus: "ISSUED", facets: "country" })}`);
      const countries = p.facets![0].values;
      t.ok(countries.length >= 4, `${label} ${q}: ${countries.length} countries counted`);
      for (const { value, count } of countries) {
        const filtered: Page = await server.json(`/v1/entities${qs({ q, limit: 1, registrationStatus: "ISSUED", country: value })}`);
        t.equal(filtered.found, count, `${label} ${q} in ${value}`);
      }
      t.equal(
        p.found,
        countries.reduce((n, v) => n + v.count, 0),
        `${label} ${q}: found is the sum of the counts`,
      );
    }
  }
});

t.test("dropped words keep the entities holding the most of them, in the searched fields", async (t) => {
  const q = "quorvin blasket tremmel odwayne spravik glenthor";
  for (const [label, server] of servers) {
    const all: Page = await server.json(`/v1/entities${qs({ q })}`);
    t.same(
      all.results.map((e) => e.legalName),
      [B],
      `${label}: B holds four words counting its city`,
    );
    t.equal(all.found, 1);
    const names: Page = await server.json(`/v1/entities${qs({ q, fields: "name" })}`);
    t.same(
      names.results.map((e) => e.legalName),
      [A],
      `${label}: in names only, A holds the most (three)`,
    );
    t.equal(names.found, 1);
    const apart: Page = await server.json(`/v1/entities${qs({ q: "quorvin spravik" })}`);
    t.same(apart.results.map((e) => e.legalName).sort(), [A, B, C].sort(), `${label}: no entity holds two, so each holding one counts`);
    const filtered: Page = await server.json(`/v1/entities${qs({ q, fields: "name", country: "ZZ" })}`);
    t.equal(filtered.found, 0, `${label}: a filter narrows the same plan to nothing`);
  }
});

t.test("a page of names holding a typed prefix with no typo leaves its one-typo neighbours out", async (t) => {
  const facets = "country";
  for (const [label, server] of servers) {
    const full: Page = await server.json(`/v1/entities${qs({ q: "quelvar", limit: 40, facets })}`);
    t.equal(full.found, 30, `${label} quelvar: the 30 QUELVARIS names, no QUELVORIS`);
    t.ok(
      full.results.every((e) => e.legalName.startsWith("QUELVARIS")),
      `${label} quelvar: every hit holds the prefix as typed`,
    );
    for (const limit of [1, 10]) {
      const p: Page = await server.json(`/v1/entities${qs({ q: "quelvar", limit, facets })}`);
      t.equal(p.found, 30, `${label} quelvar: found at limit ${limit}`);
    }
    for (const { value, count } of full.facets![0].values) {
      const p: Page = await server.json(`/v1/entities${qs({ q: "quelvar", country: value })}`);
      t.equal(p.found, count, `${label} quelvar in ${value}: the facet count`);
    }
    const short: Page = await server.json(`/v1/entities${qs({ q: "torvald", limit: 40 })}`);
    t.equal(short.found, 17, `${label} torvald: 12 names hold it, too few for a page, so the 5 one typo away count too`);
    t.ok(
      short.results.slice(0, 12).every((e) => e.legalName.startsWith("TORVALDIX")),
      `${label} torvald: the names with no typo first`,
    );
  }
});
