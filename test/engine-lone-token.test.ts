// A query with one word that matches (or the others matching nothing) ranks its page from the
// word's postings and stops ranking once the page is settled; its docs are then counted apart
// (native/assembly/query.ts driveSingleToken). Checked by hand over coined words placed in names
// and addresses: `found` and the facet counts are every doc holding the word in the fields
// searched, with and without filters, for one term, a prefix of many (some frequent, read from
// their bitmaps) and an address-only word; and a page of 10 is the head of a page of every hit.

import t from "tap";
import type { SearchRequest } from "../src/engine/planner.js";
import type { HitSource } from "../src/engine/protocol.js";
import { mostCommon, otherNameColumns, readSample, seededRandom, withCheckDigits } from "./helpers/fixture.js";
import { builtSlice } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";

const { header, rows } = readSample();
const col = (name: string): number => header.indexOf(name);
const LEI = col("LEI");
const NAME = col("Entity.LegalName");
const ADDRESS = col("Entity.LegalAddress.FirstAddressLine");
const COUNTRY = col("Entity.LegalAddress.Country");
const OTHER_NAMES = otherNameColumns(header);

// Coined words sharing the prefix "qzv", none in the sample: QZVHOLD in about 40 % of names (far
// above the slice's frequent-term size), QZVHOLDA in a few (so the prefix "qzvhold" spans two
// terms), the rest from common to rare; QZVSTRASSE in addresses only.
const RARE = ["QZVAMO", "QZVBRE", "QZVCIN", "QZVDOL", "QZVEKA", "QZVFUR", "QZVGAL", "QZVIRO"];
const DOCS = 4_000;
const RANKED = 300;
const rnd = seededRandom(20261202);
const names: string[][] = [];
const addresses: boolean[] = [];
const countries: string[] = [];
const lines = rows.slice(0, DOCS).map((row, i) => {
  const words = new Set<string>();
  if (rnd() < 0.4) words.add("QZVHOLD");
  if (rnd() < 0.02) words.add("QZVHOLDA");
  const n = 1 + Math.floor(rnd() * 4);
  while (words.size < n) words.add(RARE[Math.floor(RARE.length * rnd() * rnd())]);
  // QZVRANK: two-word names alone, one distance from the query, so a page is settled by standing
  const name = i < RANKED ? ["QZVRANK", RARE[i % RARE.length]] : [...words].sort(() => rnd() - 0.5);
  const inAddress = rnd() < 0.15;
  names.push(name);
  addresses.push(inAddress);
  countries.push(row[COUNTRY]);
  const next = [...row];
  next[LEI] = withCheckDigits(`LEIDEXLONE${String(i).padStart(8, "0")}`);
  next[NAME] = name.join(" ");
  next[ADDRESS] = inAddress ? `${1 + (i % 90)} QZVSTRASSE` : `${1 + (i % 90)} Main Road`;
  for (const o of OTHER_NAMES) next[o] = "";
  return next;
});
t.ok(rows.length >= DOCS, "enough sample rows");

const dir = tempDir(t, "leidex-lone-");
const slice = await builtSlice(dir, "lone", header, lines);
t.teardown(() => slice.close());

const request = (q: string, over: Partial<SearchRequest> = {}): SearchRequest => ({
  q,
  fields: "all",
  filters: {},
  facets: ["country"],
  window: 10,
  ...over,
});

/** Docs whose name (or, searching every field, address) holds a word the token matches. */
function expected(matches: (word: string) => boolean, fields: "all" | "name", country: string | null): number[] {
  const docs: number[] = [];
  for (let d = 0; d < DOCS; d++) {
    if (country !== null && countries[d] !== country) continue;
    if (names[d].some((w) => matches(w.toLowerCase())) || (fields === "all" && addresses[d] && matches("qzvstrasse"))) docs.push(d);
  }
  return docs;
}

/** A slice's hits as (doc, score) pairs, read before the next search overwrites them. */
const hitsOf = (hits: HitSource): [number, number][] => Array.from({ length: hits.count }, (_, i) => [hits.docAt(i), hits.score(i)]);

const commonest = mostCommon(countries);

const cases: { what: string; q: string; prefix: boolean; fields: "all" | "name"; matches: (w: string) => boolean }[] = [
  { what: "one frequent term", q: "qzvhold", prefix: false, fields: "all", matches: (w) => w === "qzvhold" },
  { what: "a prefix of two terms", q: "qzvhold", prefix: true, fields: "all", matches: (w) => w.startsWith("qzvhold") },
  { what: "a prefix of every coined word", q: "qzv", prefix: true, fields: "all", matches: (w) => w.startsWith("qzv") },
  { what: "a prefix of every coined word, names only", q: "qzv", prefix: true, fields: "name", matches: (w) => w.startsWith("qzv") },
  { what: "a word in addresses only", q: "qzvstrasse", prefix: false, fields: "all", matches: (w) => w === "qzvstrasse" },
  { what: "a rare word", q: "qzviro", prefix: false, fields: "all", matches: (w) => w === "qzviro" },
  { what: "a word in names of one length", q: "qzvrank", prefix: true, fields: "all", matches: (w) => w === "qzvrank" },
  { what: "a word in names of one length, names only", q: "qzvrank", prefix: false, fields: "name", matches: (w) => w === "qzvrank" },
];

for (const c of cases) {
  t.test(`${c.what} ("${c.q}"): found, facets and the page`, async (t) => {
    for (const country of [null, commonest]) {
      const filters = country === null ? {} : { country: [country] };
      const where = country === null ? "" : `, in ${country}`;
      const want = expected(c.matches, c.fields, country);
      t.ok(want.length > 0, `${want.length} docs to find${where}`);
      const over = { prefix: c.prefix, fields: c.fields, filters };
      // without facets a lone term's count may be read off its postings; with them, counted
      t.equal(slice.search(request(c.q, { ...over, facets: [] })).found, want.length, `found, no facets${where}`);
      const page = slice.search(request(c.q, over));
      const head = hitsOf(page.hits);
      t.equal(page.found, want.length, `found${where}`);
      const byCountry = new Map<string, number>();
      for (const d of want) byCountry.set(countries[d], (byCountry.get(countries[d]) ?? 0) + 1);
      t.same(new Map(page.facets.country), byCountry, "country facet counts");
      // every hit ranked: nothing is left to count apart, so the page of 10 must be its head
      const all = slice.search(request(c.q, { ...over, window: DOCS }));
      t.equal(all.found, want.length, "found with every hit ranked");
      t.equal(head.length, Math.min(10, want.length), "a full page");
      t.same(head, hitsOf(all.hits).slice(0, 10), "the page of 10 is the head of every hit ranked");
      // and a page of 20, the window the engine keeps for any page up to that
      const twenty = hitsOf(slice.search(request(c.q, { ...over, window: 20 })).hits);
      t.same(twenty, hitsOf(all.hits).slice(0, 20), "the page of 20 is the head of every hit ranked");
    }
  });
}

t.test("a query whose other word matches nothing counts the one that does", async (t) => {
  const want = expected((w) => w.startsWith("qzvhold"), "all", null);
  const answer = slice.search(request("zzqqxxj qzvhold", { typoMask: 0, dropTokens: true }));
  t.equal(answer.plan.required, 1, "one word required");
  t.equal(answer.found, want.length, "found");
});
