// A generation derived from the live one (Collection.finishOnto): the live slices less the docs a
// delta replaced, and an overlay slice of their new versions, built on the builder worker. Real
// shard workers in this process. Searches, lookups and the export answer as on a generation built
// whole from the same records, also once the generation it was derived from is dropped, and
// once opened again from the segments (openOnto, a restart). A dropped generation's memories are
// given back at its drop, but the base slice's while a derived generation serves it.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import type { SearchRequest } from "../src/engine/planner.js";
import type { FacetParam } from "../src/engine/schema.js";
import { readSample, seededRandom, shuffle, withCheckDigits } from "./helpers/fixture.js";
import { batchOf as batchOfRows, dist, searchOf } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";

const { ShardPool } = (await import(dist("engine/pool.js"))) as typeof import("../src/engine/pool.js");
const { Collection } = (await import(dist("engine/collection.js"))) as typeof import("../src/engine/collection.js");

const { header, rows } = readSample();
const LEI = header.indexOf("LEI");
const NAME = header.indexOf("Entity.LegalName");
const REGISTRATION = header.indexOf("Registration.RegistrationStatus");
const COUNTRY = header.indexOf("Entity.LegalAddress.Country");

const dir = tempDir(t, "leidex-derived-");

const batchOf = (from: string[][]): Uint8Array => batchOfRows(header, from);

const rnd = seededRandom(20261201);
const changed = shuffle([...rows], rnd).slice(0, 300);
const newVersions = changed.map((row, i) => {
  const next = [...row];
  if (i % 3 === 0) next[NAME] = `VELTRAXON ${row[NAME]}`;
  if (i % 3 === 1) next[REGISTRATION] = "LAPSED";
  if (i % 3 === 2) next[COUNTRY] = row[COUNTRY] === "FR" ? "IT" : "FR";
  return next;
});
const added = rows.slice(0, 5).map((row, i) => {
  const next = [...row];
  next[LEI] = withCheckDigits(`5299000DERIVED${String(i).padStart(4, "0")}`);
  next[NAME] = `QUILLMORE DERIVED ${i} LIMITED`;
  return next;
});
const changedLeis = new Set(changed.map((r) => r[LEI]));
const rebuiltRows = [...rows.filter((r) => !changedLeis.has(r[LEI])), ...newVersions, ...added];

const pool = new ShardPool(2);
t.teardown(() => pool.close());
await pool.ready();
const collection = new Collection(pool, { fixed: 1 });
const meta = { name: "t", source: "t", published: null, downloadSeconds: null, ingestSeconds: null, loadedAt: "", fallback: false };
const segments = (name: string) => (s: number) => {
  mkdirSync(join(dir, name), { recursive: true });
  return join(dir, name, `slice-${s}.seg`);
};

/** A generation built whole from `from`, one slice, made live. */
async function loadWhole(name: string, from: string[][]): Promise<number> {
  const gen = await collection.begin(join(dir, `${name}.scratch`));
  await collection.add(gen, 0, batchOf(from));
  collection.swap(gen, await collection.finish(gen, 1, segments(name)), meta);
  return gen;
}

/** The WebAssembly memories of gen's slices. */
const memoriesOf = (gen: number): WebAssembly.Memory[] =>
  (collection.servedFiles().find(([g]) => g === gen)?.[1] ?? []).flatMap((s) => (s.share ? [s.share.memory] : []));
/** Whether a memory still holds its index: one given back to the system reads as zeros. */
const holdsIndex = (memory: WebAssembly.Memory): boolean => new Uint32Array(memory.buffer).some((v) => v !== 0);

const FACETS: FacetParam[] = ["country", "status", "registrationStatus"];
const search = (q: string | null, over: Partial<SearchRequest> = {}): SearchRequest => searchOf(q, FACETS, over);
const requests: SearchRequest[] = [
  ...changed
    .slice(0, 60)
    .flatMap((row, i) => [
      search(row[NAME]),
      search(newVersions[i][NAME]),
      search(row[NAME].split(/\s+/)[0]),
      search(null, { filters: { country: [newVersions[i][COUNTRY]] } }),
    ]),
  search("veltraxon", { window: 200 }),
  search("quillmore derived"),
  search("limited", { window: 100 }),
  search(null, { filters: { registrationStatus: ["LAPSED"] }, window: 100 }),
];
const someLeis = [...changed.slice(0, 50).map((r) => r[LEI]), ...added.map((r) => r[LEI]), ...rows.slice(100, 150).map((r) => r[LEI])];

/** What the live generation answers: every search, the lookups, the export. */
async function answers(): Promise<string> {
  const searches = [];
  for (const request of requests) {
    searches.push(
      await collection.searchWith(request, 0, (o) => ({
        found: o.found,
        outOf: o.outOf,
        hits: o.hits.map(([score, lei, doc]) => [score, lei, Buffer.from(doc).toString()]),
        facets: o.facets,
      })),
    );
  }
  const lookups = someLeis.map((lei) => collection.lookupWith(lei, (doc) => (doc === null ? null : Buffer.from(doc).toString())));
  const chunks: Buffer[] = [];
  await collection.exportLines({}, {}, (chunk) => {
    chunks.push(Buffer.from(chunk));
    return Promise.resolve(true);
  });
  const facetLists = await Promise.all(FACETS.map((f) => collection.facetValues(f)));
  return JSON.stringify({ searches, lookups, facetLists, exported: Buffer.concat(chunks).toString() });
}

t.test("a delta laid over the live generation answers as the whole build", async (t) => {
  const base = await loadWhole("base", rows);
  const derived = await collection.begin(join(dir, "derived.scratch"));
  await collection.add(derived, 1, batchOf([...newVersions, ...added]));
  const sliceDocs = await collection.finishOnto(derived, base, 1, segments("derived"));
  t.same(sliceDocs, [rows.length - changed.length, changed.length + added.length], "the base slice less the changed docs, and the overlay");
  collection.swap(derived, sliceDocs, meta);
  t.equal(collection.current?.docs, rebuiltRows.length, "as many docs as the records");

  // the base generation goes once no query holds it; the derived one keeps serving its slice
  for (let i = 0; i < 100 && collection.servedFiles().some(([gen]) => gen === base); i++) await new Promise((r) => setTimeout(r, 20));
  t.notOk(
    collection.servedFiles().some(([gen]) => gen === base),
    "the generation it was derived from is dropped",
  );
  // held here as a thread slow to collect would hold them: what the drops gave back shows as zeros
  const derivedMemories = memoriesOf(derived);
  await collection.abandon(base); // a second time: its drops queue behind the first one's on every worker
  t.ok(
    derivedMemories.length === 2 && derivedMemories.every(holdsIndex),
    "the base slice's memory, which the derived generation serves, is kept whole",
  );

  const onDerived = await answers();
  const parsed = JSON.parse(onDerived) as { lookups: (string | null)[] };
  t.ok(
    parsed.lookups.slice(0, 50).every((doc, i) => doc !== null && doc.includes(JSON.stringify(newVersions[i][NAME]).slice(1, -1))),
    "a changed LEI is looked up in its new version",
  );
  t.ok(
    parsed.lookups.slice(50, 55).every((doc) => doc !== null),
    "a new LEI is found",
  );
  t.ok(collection.hasLei(added[0][LEI]) && collection.hasLei(rows[0][LEI]), "hasLei sees the overlay and the base");

  await loadWhole("whole", rebuiltRows);
  t.equal(onDerived, await answers(), "searches, lookups, facet listings and the export answer as on the whole build");
  for (let i = 0; i < 500 && derivedMemories.some(holdsIndex); i++) await new Promise((r) => setTimeout(r, 20));
  t.notOk(
    derivedMemories.some(holdsIndex),
    "once the whole build replaced it, the derived generation's memories are given back though a thread still holds them",
  );
});

t.test("a second delta derived from the first: the chain's overlay replaces the first one's", async (t) => {
  // A second delta on the first: derived from the derived generation, whose overlay the chain's
  // overlay replaces. Some LEIs change again; the builder keeps the last record of an LEI.
  const again = [...changed.slice(0, 40), ...rows.slice(2000, 2100)].map((row) => {
    const next = [...row];
    next[NAME] = `ORBELLINE ${row[NAME]}`;
    return next;
  });
  const chain = [...newVersions, ...added, ...again];
  const chainLeis = new Set(chain.map((r) => r[LEI]));
  const rebuiltAgain = [...rows.filter((r) => !chainLeis.has(r[LEI])), ...newVersions.slice(40), ...added, ...again];

  const onWhole = await loadWhole("base-again", rows);
  const first = await collection.begin(join(dir, "first.scratch"));
  await collection.add(first, 1, batchOf([...newVersions, ...added]));
  collection.swap(first, await collection.finishOnto(first, onWhole, 1, segments("first")), meta);
  const second = await collection.begin(join(dir, "second.scratch"));
  await collection.add(second, 1, batchOf(chain));
  const secondDocs = await collection.finishOnto(second, first, 1, segments("second"));
  t.same(secondDocs, [rows.length - (chainLeis.size - added.length), chainLeis.size], "the first overlay replaced by the chain's");
  collection.swap(second, secondDocs, meta);
  requests.push(search("orbelline", { window: 200 }));
  const onSecond = await answers();
  await loadWhole("whole-again", rebuiltAgain);
  t.equal(onSecond, await answers(), "a chain of two deltas answers as the whole build");
});

t.test("a derived generation opened again from its segments (a restart) answers as it did", async (t) => {
  // as after a restart: the full load's segments opened, not live, and the overlay's beside them
  const chain = [...newVersions, ...added];
  const onWhole = await loadWhole("base-restart", rows);
  const derived = await collection.begin(join(dir, "restart.scratch"));
  await collection.add(derived, 1, batchOf(chain));
  const derivedDocs = await collection.finishOnto(derived, onWhole, 1, segments("restart"));
  collection.swap(derived, derivedDocs, meta);
  const before = await answers();

  const under = await collection.open(1, segments("base-restart"));
  const reopened = await collection.openOnto(under.gen, 1, segments("restart"));
  t.same(reopened.sliceDocs, derivedDocs, "the base slice less the overlay's LEIs, and the overlay");
  t.notOk(
    collection.servedFiles().some(([gen]) => gen === under.gen),
    "the generation of the full load's segments alone is dropped",
  );
  collection.swap(reopened.gen, reopened.sliceDocs, meta);
  t.equal(await answers(), before, "searches, lookups, facet listings and the export answer as before");
});
