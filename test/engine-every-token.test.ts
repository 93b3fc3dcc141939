// A query whose every word is required is driven by its rarest word's postings, and a doc that
// lacks the second rarest word is turned away on that word's marks; the other words are marked
// only once the docs passing would cost more to score than marking them, or once the page is full
// (native/assembly/query.ts, marks on demand). Neither may change an answer. Checked by hand over
// coined words placed in names: `found` and the facet counts are every doc holding all the
// words, and a page of 10 is the head of a page of every hit: when few docs hold the two rarest
// words (the other words are never marked), when many do from the start (marked part way
// through the drive), and when they come late (marked once a page of them is scored, and from
// then on bounding the docs against it). The docs a drive meets first stand lowest, so a bound
// that turned a better doc away would show on the page. Bounds only turn docs away once the
// window's worst hit is above any doc holding every word at the farthest length, so one query
// has the words in its names' order: its hits' proximity is the best, and its docs are bounded
// (a bound taken while words are put off, which counts them as missing, would drop its 20th hit).

import t from "tap";
import type { SearchRequest } from "../src/engine/planner.js";
import type { HitSource } from "../src/engine/protocol.js";
import { mostCommon, otherNameColumns, readSample, withCheckDigits } from "./helpers/fixture.js";
import { builtSlice, searchOf } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";

const { header, rows } = readSample();
const col = (name: string): number => header.indexOf(name);
const LEI = col("LEI");
const NAME = col("Entity.LegalName");
const ADDRESS = col("Entity.LegalAddress.FirstAddressLine");
const COUNTRY = col("Entity.LegalAddress.Country");
const REGISTRATION = col("Registration.RegistrationStatus");
const OTHER_NAMES = otherNameColumns(header);

// Coined words, none in the sample, placed by hand among 6,000 docs. QXVRAR is in 60 (few enough
// postings that the drive goes by them rather than by the marks of every word), 50 of them with
// QXVSEC (in about 1,500), QXVCOM and QXVCUM, and 46 of those with QXVCAM; QXVCOM, QXVCAM and
// QXVCUM are in about 1,800 docs each, few enough to be marked. Scoring about one doc for each
// 128 postings of the words put off costs what marking them does (44 docs for five words, 16
// for three), and the drive by QXVRAR, most of whose docs hold QXVSEC, projects more than that:
// it marks the other words part way through. QXVLAT is in 60 docs too, the last 40 with every
// other word (4 of them without QXVCAM): the docs that pass come late, so the drive scores a
// page of them before it marks the other words. QXVONE is in 60 docs, 5 with every other word:
// the words after QXVSEC are never marked. (Each path was checked by making it trap.)
const DOCS = 6_000;
const ORDER = ["QXVCOM", "QXVRAR", "QXVLAT", "QXVONE", "QXVCAM", "QXVCUM", "QXVSEC", "NORDIC", "TRADING", "HOLDING", "GROUP"];
const names: string[][] = [];
const countries: string[] = [];
const wordsOf = (i: number): string[] => {
  const words: string[] = [["NORDIC", "TRADING", "HOLDING", "GROUP"][i % 4]];
  const k = Math.floor(i / 100);
  if (i % 100 === 7) {
    words.push("QXVRAR");
    if (k % 6 !== 5) words.push("QXVSEC", "QXVCOM", "QXVCUM");
    if (k % 6 !== 5 && k % 10 !== 3) words.push("QXVCAM");
  } else if (i % 100 === 37) {
    words.push("QXVLAT");
    if (k >= 20) words.push("QXVSEC", "QXVCOM", "QXVCUM");
    if (k >= 20 && k % 10 !== 3) words.push("QXVCAM");
  } else if (i % 100 === 57) {
    words.push("QXVONE");
    if (k < 5) words.push("QXVSEC", "QXVCOM", "QXVCUM", "QXVCAM");
  } else {
    if (i % 4 === 1) words.push("QXVSEC");
    if (i % 10 === 2 || i % 10 === 5 || i % 10 === 8) words.push("QXVCOM");
    if (i % 10 === 0 || i % 10 === 3 || i % 10 === 6) words.push("QXVCAM");
    if (i % 10 === 1 || i % 10 === 4 || i % 10 === 9) words.push("QXVCUM");
  }
  // in the five words' query order, the filler last: the page's hits sit side by side, as their
  // bound has them, so a bound below them turns the rest away
  return words.sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
};
const lines = rows.slice(0, DOCS).map((row, i) => {
  const words = wordsOf(i);
  names.push(words);
  countries.push(row[COUNTRY]);
  const next = [...row];
  next[LEI] = withCheckDigits(`LEIDEXEVRY${String(i).padStart(8, "0")}`);
  next[NAME] = words.join(" ");
  next[ADDRESS] = `${1 + (i % 90)} Main Road`;
  // the docs a drive meets first (the lowest LEIs) stand lower: the best hits come late
  next[REGISTRATION] = i < DOCS / 2 ? "LAPSED" : "ISSUED";
  for (const o of OTHER_NAMES) next[o] = "";
  return next;
});
const postings = (word: string): number => names.filter((n) => n.includes(word)).length;
t.ok(rows.length >= DOCS, "enough sample rows");

const slice = await builtSlice(tempDir(t, "leidex-every-"), "every", header, lines);
t.teardown(() => slice.close());

const request = (q: string, over: Partial<SearchRequest> = {}): SearchRequest =>
  searchOf(q, ["country"], { window: 10, prefix: false, ...over });

/** The docs whose name holds every word of q, in a country when one is given. */
function holdingAll(q: string, country: string | null): number[] {
  const words = q.toUpperCase().split(" ");
  const docs: number[] = [];
  for (let d = 0; d < DOCS; d++)
    if ((country === null || countries[d] === country) && words.every((w) => names[d].includes(w))) docs.push(d);
  return docs;
}

/** A slice's hits as (doc, score) pairs, read before the next search overwrites them; a doc by its line above (its LEI tells). */
function hitsOf(hits: HitSource): [number, number][] {
  const lei = Buffer.alloc(20);
  return Array.from({ length: hits.count }, (_, i) => {
    hits.copyLei(i, lei, 0);
    return [Number(lei.toString("latin1", 10, 18)), hits.score(i)];
  });
}

const commonest = mostCommon(countries);

const cases = [
  { what: "five words, many docs holding the two rarest", q: "qxvcom qxvrar qxvcam qxvcum qxvsec", pairs: 50, all: 46 },
  { what: "three words, many docs holding the two rarest", q: "qxvcom qxvrar qxvsec", pairs: 50, all: 50 },
  { what: "five words, the docs holding the two rarest last", q: "qxvlat qxvcam qxvsec qxvcum qxvcom", pairs: 40, all: 36 },
  {
    what: "five words in the names' order, the docs holding the two rarest last",
    q: "qxvcom qxvlat qxvcam qxvcum qxvsec",
    pairs: 40,
    all: 36,
  },
  { what: "five words, few docs holding the two rarest", q: "qxvone qxvsec qxvcom qxvcum qxvcam", pairs: 5, all: 5 },
];

for (const c of cases) {
  t.test(`${c.what} ("${c.q}"): found, facets and the page`, async (t) => {
    const words = c.q
      .toUpperCase()
      .split(" ")
      .sort((a, b) => postings(a) - postings(b));
    const [rarest, second] = words;
    // as native/assembly/query.ts decides: drive by postings, and every word may be marked
    t.ok(postings(rarest) * 8 <= Math.floor((DOCS + 32) / 32) * words.length, `${rarest}'s ${postings(rarest)} postings drive`);
    for (const w of words.slice(2)) t.ok(postings(w) <= postings(rarest) * 32, `${w}'s ${postings(w)} postings are few enough to mark`);
    t.equal(holdingAll(`${rarest} ${second}`, null).length, c.pairs, `docs holding ${rarest} and ${second}`);
    t.equal(holdingAll(c.q, null).length, c.all, "docs holding every word");
    for (const fields of ["all", "name"] as const) {
      for (const country of [null, commonest]) {
        const filters = country === null ? {} : { country: [country] };
        const where = `${fields === "name" ? ", names only" : ""}${country === null ? "" : `, in ${country}`}`;
        const want = holdingAll(c.q, country);
        t.ok(want.length > 0, `${want.length} docs to find${where}`);
        const page = slice.search(request(c.q, { fields, filters }));
        const head = hitsOf(page.hits);
        t.equal(page.found, want.length, `found${where}`);
        t.ok(page.plan.matched && page.plan.required === words.length, `every word required${where}`);
        const byCountry = new Map<string, number>();
        for (const d of want) if (countries[d] !== "") byCountry.set(countries[d], (byCountry.get(countries[d]) ?? 0) + 1);
        t.same(new Map(page.facets.country), byCountry, `country facet counts${where}`);
        // every hit ranked: the page of 10 must be its head, and the hits are the docs holding every word
        const all = slice.search(request(c.q, { fields, filters, window: DOCS }));
        t.equal(all.found, want.length, `found with every hit ranked${where}`);
        t.same(
          hitsOf(all.hits)
            .map(([d]) => d)
            .sort((a, b) => a - b),
          want,
          `every hit holds every word${where}`,
        );
        t.same(head, hitsOf(all.hits).slice(0, 10), `the page of 10 is the head of every hit ranked${where}`);
        // a page of 20, the window the engine keeps for any page up to that: its last hits are
        // ranked once the window is full, when the bounds start turning docs away
        const twenty = hitsOf(slice.search(request(c.q, { fields, filters, window: 20 })).hits);
        t.same(twenty, hitsOf(all.hits).slice(0, 20), `the page of 20 is the head of every hit ranked${where}`);
      }
    }
  });
}
