// A slice less the docs a delta replaced, beside a slice of their new versions, must answer as
// one slice built from the same records: found, every hit in order with its document, facet
// counts, facet listings and the export. That is how a GLEIF delta is to be applied without
// rebuilding the collection (native/assembly/removals.ts). The built engine and front code run
// in this process; a shard worker's answers are encoded and decoded as they travel.

import t from "tap";
import type { SearchOutcome, ShardRequests } from "../src/engine/collection-view.js";
import type { ShardRequest } from "../src/engine/protocol.js";
import type { SearchRequest } from "../src/engine/planner.js";
import type { FacetParam } from "../src/engine/schema.js";
import type { WasmSlice as Slice } from "../src/engine/wasm-slice.js";
import { readSample, seededRandom, shuffle } from "./helpers/fixture.js";
import { builtSlice, dist, searchOf } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";

const { CollectionView } = (await import(dist("engine/collection-view.js"))) as typeof import("../src/engine/collection-view.js");
const { answerRequest } = (await import(dist("engine/slice-answer.js"))) as typeof import("../src/engine/slice-answer.js");
const { encodeResponses, decodeResponses } = (await import(dist("engine/shard-codec.js"))) as typeof import("../src/engine/shard-codec.js");

const { header, rows } = readSample();
const col = (name: string): number => header.indexOf(name);
const LEI = col("LEI");
const NAME = col("Entity.LegalName");
const STATUS = col("Entity.EntityStatus");
const REGISTRATION = col("Registration.RegistrationStatus");
const COUNTRY = col("Entity.LegalAddress.Country");
const CITY = col("Entity.LegalAddress.City");

const dir = tempDir(t, "leidex-removals-");

const built = (name: string, from: string[][]): Promise<Slice> => builtSlice(dir, name, header, from);

// The delta: a tenth of the sample in new versions. Names get words of their own (the old
// version's own words then exist only in removed docs), statuses lapse, countries and cities
// move, and some records come again unchanged, as deltas repeat records.
const rnd = seededRandom(20261130);
const changed = shuffle([...rows], rnd).slice(0, Math.floor(rows.length / 10));
const NEW_WORDS = ["QUORVEL", "BRANTISK", "MELOVARD", "SKYTHERN", "ZANDORIC", "PELLIGRAM"];
const newVersions = changed.map((row, i) => {
  const next = [...row];
  switch (i % 5) {
    case 0:
      next[NAME] = `${NEW_WORDS[i % NEW_WORDS.length]} ${row[NAME].split(" ").slice(1).join(" ")}`.trim();
      break;
    case 1:
      next[STATUS] = "INACTIVE";
      next[REGISTRATION] = "LAPSED";
      break;
    case 2:
      next[COUNTRY] = row[COUNTRY] === "DE" ? "FR" : "DE";
      next[CITY] = `${NEW_WORDS[(i + 1) % NEW_WORDS.length]}STADT`;
      break;
    case 3:
      next[NAME] = `${row[NAME]} ${NEW_WORDS[(i + 2) % NEW_WORDS.length]} HOLDING`;
      break;
    default:
      break; // the same record again
  }
  return next;
});
const changedLeis = new Set(changed.map((r) => r[LEI]));
const rebuiltRows = [...rows.filter((r) => !changedLeis.has(r[LEI])), ...newVersions];

const base = await built("base", rows);
const delta = await built("delta", newVersions);
const full = await built("full", rebuiltRows);
const removals = base.removalsOf(changedLeis);
const lessChanged = base.view(removals);

t.equal(removals.count, changed.length, "every changed LEI's doc is removed");
t.equal(lessChanged.docs + delta.docs, full.docs, "the two slices hold as many docs as the rebuild");
t.equal(base.docs, rows.length, "the base slice itself still serves every doc");

/** A view of one generation over `slices`, their requests answered here as a worker would. */
function viewOf(slices: Slice[]): InstanceType<typeof CollectionView> {
  const shards: ShardRequests = {
    request: (slice: number, _gen: number, request: ShardRequest) =>
      Promise.resolve(decodeResponses(encodeResponses([answerRequest(slices[slice], request)], slice))[0]),
  };
  const view = new CollectionView(shards);
  view.openReaders(
    1,
    slices.map((s) => ({ docFile: s.share.docFile, leis: s.leiTable })),
  );
  const meta = { name: "t", source: "t", published: null, downloadSeconds: null, ingestSeconds: null, loadedAt: "", fallback: false };
  view.swap(
    1,
    slices.map((s) => s.docs),
    meta,
  );
  return view;
}
const applied = viewOf([lessChanged, delta]);
const rebuilt = viewOf([full]);

type Answer = { found: number; outOf: number; hits: [number, string, string][]; facets: SearchOutcome["facets"] };
const answerOf = (view: InstanceType<typeof CollectionView>, request: SearchRequest): Promise<Answer> =>
  view.searchWith(request, 0, (o) => ({
    found: o.found,
    outOf: o.outOf,
    hits: o.hits.map(([score, lei, doc]): [number, string, string] => [score, lei, Buffer.from(doc).toString()]),
    facets: o.facets,
  }));

// the public facets (a city is no facet: its shown spelling is whichever its slice saw first)
const FACETS: FacetParam[] = ["country", "status", "registrationStatus", "legalForm", "category"];
const search = (q: string | null, over: Partial<SearchRequest> = {}): SearchRequest => searchOf(q, FACETS, over);
const misspelt = (word: string): string => (word.length < 5 ? word : word.slice(0, 2) + word[3] + word[2] + word.slice(4));

const requests: [string, SearchRequest][] = [];
for (const [i, row] of changed.slice(0, 120).entries()) {
  const old = row[NAME];
  const next = newVersions[i][NAME];
  const words = old.split(/\s+/);
  requests.push([`old name ${old}`, search(old)]);
  requests.push([`new name ${next}`, search(next)]);
  requests.push([`old first word ${words[0]}`, search(words[0])]);
  requests.push([`typo'd old name`, search(words.map(misspelt).join(" "))]);
  requests.push([`typo'd new first word`, search(misspelt(next.split(" ")[0]))]);
  requests.push([`prefix ${next.slice(0, 5)}`, search(next.slice(0, 5))]);
  requests.push([`LEI ${row[LEI]}`, search(row[LEI].toLowerCase(), { fields: "lei" })]);
  requests.push([`old name in ${row[COUNTRY]}`, search(old, { filters: { country: [row[COUNTRY]] } })]);
  requests.push([`in ${row[CITY]}`, search(null, { filters: { city: [row[CITY]] } })]);
  requests.push([`in ${newVersions[i][CITY]}`, search(null, { filters: { city: [newVersions[i][CITY]] } })]);
}
for (const row of shuffle([...rows], rnd).slice(0, 60)) {
  requests.push([`unchanged ${row[NAME]}`, search(row[NAME])]);
  requests.push([`unchanged, typo'd`, search(row[NAME].split(/\s+/).map(misspelt).join(" "))]);
}
for (const word of NEW_WORDS) {
  requests.push([`new word ${word}`, search(word, { window: 100 })]);
  requests.push([`new word typo'd ${misspelt(word)}`, search(misspelt(word))]);
}
requests.push(["everything", search(null, { window: 50 })]);
requests.push(["everything lapsed", search(null, { filters: { registrationStatus: ["LAPSED"] }, window: 50 })]);
requests.push(["everything in DE", search(null, { filters: { country: ["DE"] } })]);
requests.push(["a common word", search("limited", { window: 200 })]);
requests.push(["a common word, inactive", search("gmbh", { filters: { status: ["INACTIVE"] } })]);
requests.push(["two common words, fewer required", search("holding zzzzqqq limited")]);

t.test("every search answers as on the rebuilt slice", async (t) => {
  let differ = 0;
  for (const [label, request] of requests) {
    const [got, want] = await Promise.all([answerOf(applied, request), answerOf(rebuilt, request)]);
    if (JSON.stringify(got) === JSON.stringify(want)) continue;
    differ++;
    if (differ <= 5) t.same(got, want, label);
  }
  t.equal(differ, 0, `${requests.length} searches, none differs`);
  const lapsed = await answerOf(applied, search(null, { filters: { registrationStatus: ["LAPSED"] } }));
  const before = await answerOf(viewOf([base]), search(null, { filters: { registrationStatus: ["LAPSED"] } }));
  t.ok(lapsed.found > before.found, "the delta's lapses are counted (the comparison is not vacuous)");
});

t.test("facet listings and the export answer as on the rebuilt slice", async (t) => {
  for (const field of FACETS) t.same(await applied.facetValues(field), await rebuilt.facetValues(field), `${field} values`);
  const lines = async (view: InstanceType<typeof CollectionView>, filters: SearchRequest["filters"]): Promise<string> => {
    const chunks: Buffer[] = [];
    await view.exportLines(filters, {}, (chunk) => {
      chunks.push(Buffer.from(chunk));
      return Promise.resolve(true);
    });
    return Buffer.concat(chunks).toString();
  };
  const all = await lines(applied, {});
  t.equal(all, await lines(rebuilt, {}), "every document, in LEI order");
  t.equal(all.trimEnd().split("\n").length, full.docs, "each once");
  t.equal(await lines(applied, { country: ["DE"] }), await lines(rebuilt, { country: ["DE"] }), "filtered");
});

t.test("a removed doc's old words are no candidates: a word only its old version held plans as missing", async (t) => {
  // the first changed name whose first word is the old version's alone
  const own = changed.find(
    (row, i) => i % 5 === 0 && rows.filter((r) => r[NAME].split(/\s+/).includes(row[NAME].split(/\s+/)[0])).length === 1,
  );
  t.ok(own, "the sample has such a name");
  const word = own![NAME].split(/\s+/)[0];
  const [got, want, still] = await Promise.all([
    answerOf(applied, search(word)),
    answerOf(rebuilt, search(word)),
    answerOf(viewOf([base]), search(word)),
  ]);
  t.same(got, want, `"${word}" as on the rebuild`);
  t.ok(
    still.hits.some((h) => h[1] === own![LEI]),
    "the base slice alone still finds the old version",
  );
  t.notSame(got, still, "the removals change the answer");
});
