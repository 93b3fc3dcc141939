// GLEIF mode end to end against an imitation of GLEIF's golden copy API (test/helpers/gleif-imitation.ts):
// the first load, SIGHUP with the same publication, a swap to a new publication under concurrent
// query load (the old collection's memory given back once it is done), every kind of failed load
// leaving the live collection untouched, retries, restarts from the persisted segments (imitation
// up and down), corrupt and foreign segments rebuilt from the kept download, --reload-now, and
// the offline fallback to the bundled sample.
//
// The subtests up to "--reload-now" share one data dir and one server, restarted in between, as
// a deployment would: each subtest starts from the state the previous one left and checks it.

import t, { type Test } from "tap";
import { existsSync, openSync, readdirSync, readFileSync, writeSync, closeSync, statSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  ENTITY_KEYS,
  mapRow,
  readSample,
  sampleParents,
  seededRandom,
  shuffle,
  withCheckDigits,
  zipSingle,
  type Entity,
} from "./helpers/fixture.js";
import { csvText, goldenCopy, GleifImitation, sampleGoldenCopy, withAlteredBytes, type GoldenCopy } from "./helpers/gleif-imitation.js";
import {
  fetchGot,
  pMap,
  qs,
  runLeidex,
  startServer,
  tempDir,
  waitFor,
  type RunningServer,
  type StartOptions,
  freePort,
} from "./helpers/server.js";
import { SEGMENT_FORMAT } from "../src/engine/segment.js";
import { untilUnmapped, wasmMemories } from "./helpers/wasm-memories.js";

// ---------------------------------------------------------------- data

const { header, rows: sampleRows } = readSample();
const SAMPLE_RECORDS = 6147;

/** A made-up but well-formed golden-copy row: its LEI and name are not in the sample. */
function extraRow(n: number, name = `Reloadia Nummer ${n} Handelsgesellschaft mbH`): string[] {
  const v: Record<string, string> = {
    LEI: withCheckDigits(`LEIDEXRLD0${String(n).padStart(8, "0")}`),
    "Entity.LegalName": name,
    "Entity.EntityStatus": "ACTIVE",
    "Entity.EntityCategory": "GENERAL",
    "Registration.RegistrationStatus": "ISSUED",
    "Entity.LegalForm.EntityLegalFormCode": "8888",
    "Entity.LegalJurisdiction": "AT",
    "Entity.LegalAddress.Country": "AT",
    "Entity.LegalAddress.City": "Wien",
    "Entity.LegalAddress.PostalCode": "1010",
    "Entity.LegalAddress.FirstAddressLine": `Reloadgasse ${n}`,
    "Registration.ManagingLOU": withCheckDigits("LEIDEXRLDL0U000000"),
    "Registration.InitialRegistrationDate": "2020-01-01T00:00:00Z",
    "Registration.LastUpdateDate": "2026-09-29T00:00:00Z",
  };
  for (const k of Object.keys(v)) if (!header.includes(k)) throw new Error(`unknown column ${k}`);
  return header.map((h) => v[h] ?? "");
}

const extras = Array.from({ length: 300 }, (_, i) => extraRow(i + 1));
/** Publication A: the real sample. */
const A = sampleGoldenCopy("2026-09-30 08:00:00");
/** Publication B: the sample plus 300 synthetic rows. */
const B = sampleGoldenCopy("2026-09-30 16:00:00", extras);
/** Publication C: B with its first synthetic entity renamed and one more entity. */
const RENAMED = "Quorvantis Renamed Beteiligungs AG";
const cExtras = [extraRow(1, RENAMED), ...extras.slice(1), extraRow(301, "Zyphorra Latecomer Holding SE")];
const C = sampleGoldenCopy("2026-10-01 00:00:00", cExtras);

// the imitation serves the bundled sample's Level 2 rows beside every publication
const entityOf = (row: string[]): Entity => mapRow(header, row, sampleParents()).entity;
const sampleEntities = sampleRows.map(entityOf);
const extraEntities = extras.map(entityOf);
const cExtraEntities = cExtras.map(entityOf);
/** LEIs in every publication, to look up while the collection changes. */
const sharedPicks = shuffle(sampleEntities, seededRandom(20260930)).slice(0, 60);

t.equal(A.rows, SAMPLE_RECORDS, "publication A holds the sample's rows");
t.equal(B.rows, SAMPLE_RECORDS + 300);
t.equal(C.rows, SAMPLE_RECORDS + 301);

// ---------------------------------------------------------------- helpers

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until stdout after offset `from` matches `re`; fails with the log tail. */
async function waitLog(srv: RunningServer, from: number, re: RegExp, timeoutMs = 45_000): Promise<RegExpExecArray> {
  try {
    return await waitFor(`log ${re}`, () => re.exec(srv.stdout().slice(from)), timeoutMs, 50);
  } catch (err) {
    throw new Error(
      `${(err as Error).message}\n--- stdout since mark:\n${srv.stdout().slice(from).slice(-4000)}\n--- stderr:\n${srv.stderr().slice(-2000)}`,
    );
  }
}

const currentAlias = (dataDir: string): string | null => {
  try {
    return JSON.parse(readFileSync(join(dataDir, "collections", "current.json"), "utf8")).collection;
  } catch {
    return null;
  }
};
const collectionDirs = (dataDir: string): string[] => {
  const root = join(dataDir, "collections");
  return existsSync(root)
    ? readdirSync(root)
        .filter((f) => f !== "current.json")
        .sort()
    : [];
};
/** Level 2 downloads are kept as level2-<part>-<name> (the mapping API links both files as …/<uuid>/download) */
const LEVEL2_DOWNLOAD = /^level2-(rr|repex|isin|bic)-/;
const allDownloadsIn = (dataDir: string): string[] => {
  const dir = join(dataDir, "downloads");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};
/** The Level 1 golden copies kept under <data-dir>/downloads/ */
const downloadsIn = (dataDir: string): string[] => allDownloadsIn(dataDir).filter((name) => !LEVEL2_DOWNLOAD.test(name));
/** The Level 2 files kept beside them (the imitation serves the sample's, rr, repex, ISIN and BIC) */
const level2DownloadsIn = (dataDir: string): string[] => allDownloadsIn(dataDir).filter((name) => LEVEL2_DOWNLOAD.test(name));
const manifestOf = (dataDir: string, name: string): any =>
  JSON.parse(readFileSync(join(dataDir, "collections", name, "manifest.json"), "utf8"));

/** Overwrites bytes of a file in place (its size stays). */
function overwrite(path: string, at: number, bytes: Buffer): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

/** Every picked LEI answers 200 with exactly its row's fields; returns the mismatches. */
async function wrongLookups(srv: RunningServer, entities: Entity[]): Promise<string[]> {
  const wrong: string[] = [];
  await pMap(entities, 4, async (e) => {
    const r = await srv.get(`/v1/entities/${e.lei}`);
    if (r.status !== 200) {
      wrong.push(`${e.lei} -> ${r.status}`);
      return;
    }
    for (const k of ENTITY_KEYS)
      if (r.body[k] !== e[k]) wrong.push(`${e.lei}.${k} = ${JSON.stringify(r.body[k])}, want ${JSON.stringify(e[k])}`);
  });
  return wrong;
}

/** The file's top-level test: servers shared across subtests are torn down with it. */
const root = t;

const gleif = await GleifImitation.start();
t.teardown(() => gleif.close());

const mainDir = tempDir(t, "leidex-gleif-");
/** --gleif-api `api` (default the imitation's); the mapping API is the one of the same origin */
const gleifArgs = (api = gleif.api, extra: string[] = []): string[] => [
  "--gleif-api",
  api,
  "--gleif-mapping-api",
  api.replace(/\/api\/v2$/, "/mapping/api/v2"),
  "--retry-seconds",
  "1",
  ...extra,
];
const startGleif = (
  owner: Test | typeof t,
  opts: Partial<StartOptions> & { api?: string; extra?: string[] } = {},
): Promise<RunningServer> =>
  startServer(owner, { source: null, shards: 2, dataDir: mainDir, timeoutMs: 90_000, ...opts, args: gleifArgs(opts.api, opts.extra) });

/** The one server of the shared sequence (restarted by some subtests). */
let srv: RunningServer;

// ---------------------------------------------------------------- first load

t.test("first start in GLEIF mode: downloads the latest publication (through a 302) and serves it", async (t) => {
  gleif.publish(A, { fileMode: "redirect" });
  srv = await startGleif(root);
  const stats = await srv.json("/v1/stats");
  t.equal(stats.records, A.rows, "every row of the publication");
  t.equal(stats.published, A.published, "published from the API's publish_date, as ISO UTC");
  t.match(stats.source, /GLEIF/, "source says GLEIF");
  t.match(stats.source, /2026-09-30 08:00/, "source names the publication");
  t.equal(stats.license, "CC0 1.0");
  t.type(stats.downloadSeconds, "number", "downloadSeconds measured");
  t.type(stats.ingestSeconds, "number", "ingestSeconds measured");
  t.ok(gleif.apiRequests >= 1, "asked the API");
  t.equal(gleif.fileRequestsFor(A), 2, "followed the 302 to the file: one redirect, one download");
  t.match(srv.stdout(), /GLEIF publication 2026-09-30 08:00:00/, "the log names the publication");

  t.equal(currentAlias(mainDir), A.collection, "current.json points at lei_20260930-0800");
  t.same(collectionDirs(mainDir), [A.collection], "one collection on disk");
  const files = readdirSync(join(mainDir, "collections", A.collection)).sort();
  t.same(
    files,
    ["level2", "manifest.json", "slice-0.docs", "slice-0.seg", "slice-1.docs", "slice-1.seg"],
    "a manifest, and per slice a segment and its document file",
  );
  const manifest = manifestOf(mainDir, A.collection);
  t.equal(manifest.name, A.collection);
  t.equal(manifest.records, A.rows);
  t.equal(manifest.published, A.published);
  t.same(downloadsIn(mainDir), [A.name], "the zip is kept under <data-dir>/downloads/<basename of the URL>");
  t.equal(level2DownloadsIn(mainDir).length, 4, "and the four Level 2 files beside it");
  t.equal(statSync(join(mainDir, "downloads", A.name)).size, A.zip.length, "whole");

  t.same(await wrongLookups(srv, sharedPicks.slice(0, 30)), [], "lookups equal the CSV rows");
  t.equal((await srv.get(`/v1/entities/${extraEntities[0].lei}`)).status, 404, "an LEI not in the publication is 404");
});

t.test("SIGHUP while the live publication is still the latest: logged, nothing reloaded", async (t) => {
  gleif.publish(A); // same publication, now without the redirect
  const files = gleif.fileRequestTotal;
  const api = gleif.apiRequests;
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  await waitLog(srv, mark, /GLEIF publication 2026-09-30 08:00:00 is already loaded/);
  await sleep(500);
  t.ok(gleif.apiRequests > api, "the API was asked");
  t.equal(gleif.fileRequestTotal, files, "the file was not downloaded again");
  t.notMatch(srv.stdout().slice(mark), /loading http|loaded \d+ records/, "no load ran");
  t.equal(currentAlias(mainDir), A.collection, "same collection");
  t.same(collectionDirs(mainDir), [A.collection]);
  t.equal((await srv.json("/v1/stats")).published, A.published);
});

// ---------------------------------------------------------------- swap under load

t.test("a new publication swaps in under concurrent queries: no failed request, every answer from one generation", async (t) => {
  const queries = ["reloadia", "bank", "holding", "capital", "gmbh", "trust", "fund", "handelsgesellschaft"];
  const newOnly = extraEntities.slice(0, 40);
  type Page = { found: number; outOf: number; leis: string[] };
  const baseline = async (): Promise<Map<string, Page>> => {
    const m = new Map<string, Page>();
    for (const q of queries) {
      const b = await srv.json(`/v1/entities${qs({ q, limit: 10 })}`);
      m.set(q, { found: b.found, outOf: b.outOf, leis: b.results.map((r: Entity) => r.lei) });
    }
    return m;
  };
  const before = await baseline();
  for (const p of before.values()) t.equal(p.outOf, A.rows, "baseline: outOf is A's record count");

  let stop = false;
  const problems: string[] = [];
  const searches: { q: string; limit: number; found: number; outOf: number; leis: string[] }[] = [];
  let requests = 0;
  let lookups = 0;
  let newOnlyFound = 0;
  const client = async (id: number): Promise<void> => {
    const rnd = seededRandom(1000 + id);
    let sawNew = false;
    const saw = (isNew: boolean, what: string): void => {
      if (isNew) sawNew = true;
      else if (sawNew) problems.push(`client ${id}: ${what} came from the old collection after the new one answered`);
    };
    while (!stop) {
      const kind = rnd();
      requests++;
      try {
        if (kind < 0.5) {
          const q = queries[Math.floor(rnd() * queries.length)];
          const limit = 1 + Math.floor(rnd() * 10);
          const r = await fetchGot(`${srv.base}/v1/entities${qs({ q, limit })}`);
          if (r.status !== 200) {
            problems.push(`search ${q} -> ${r.status} ${r.text.slice(0, 200)}`);
            continue;
          }
          const leis = r.body.results.map((x: Entity) => x.lei);
          searches.push({ q, limit, found: r.body.found, outOf: r.body.outOf, leis });
          if (r.body.outOf !== A.rows && r.body.outOf !== B.rows) problems.push(`search ${q}: outOf ${r.body.outOf}`);
          else saw(r.body.outOf === B.rows, `search ${q}`);
        } else if (kind < 0.85) {
          const e = sharedPicks[Math.floor(rnd() * sharedPicks.length)];
          const r = await fetchGot(`${srv.base}/v1/entities/${e.lei}`);
          lookups++;
          if (r.status !== 200) problems.push(`lookup ${e.lei} -> ${r.status} ${r.text.slice(0, 200)}`);
          else if (r.body.lei !== e.lei || r.body.legalName !== e.legalName)
            problems.push(`lookup ${e.lei} answered ${r.body.lei} ${r.body.legalName}`);
        } else {
          const e = newOnly[Math.floor(rnd() * newOnly.length)];
          const r = await fetchGot(`${srv.base}/v1/entities/${e.lei}`);
          lookups++;
          if (r.status === 200) {
            newOnlyFound++;
            if (r.body.lei !== e.lei || r.body.legalName !== e.legalName)
              problems.push(`lookup ${e.lei} answered ${r.body.lei} ${r.body.legalName}`);
            saw(true, "");
          } else if (r.status === 404) saw(false, `lookup ${e.lei} (404)`);
          else problems.push(`lookup ${e.lei} -> ${r.status} ${r.text.slice(0, 200)}`);
        }
      } catch (err) {
        problems.push(`request failed: ${(err as Error).message}`);
      }
    }
  };
  const clients = Array.from({ length: 8 }, (_, i) => client(i));
  await sleep(1500);
  const preSwap = requests;
  const replaced = [...wasmMemories(srv.child.pid!).keys()];
  t.equal(replaced.length, 2, "the live collection's memories are among the server's mappings, one a slice");
  gleif.publish(B);
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  try {
    await waitFor("the new publication to go live", async () => (await srv.json("/v1/stats")).published === B.published, 90_000, 200);
    await sleep(1500);
  } finally {
    stop = true;
    await Promise.all(clients);
  }
  t.comment(`${requests} requests (${preSwap} before the SIGHUP), ${searches.length} searches, ${lookups} lookups`);
  t.match(srv.stdout().slice(mark), /loaded 6447 records as lei_20260930-1600/, "the log shows the load");

  const after = await baseline();
  for (const p of after.values()) t.equal(p.outOf, B.rows, "afterwards: outOf is B's record count");
  t.ok(after.get("reloadia")!.found >= 300, "the new entities are searchable");
  const stats = await srv.json("/v1/stats");
  t.equal(stats.records, B.rows);
  t.equal(stats.published, B.published);
  t.match(stats.source, /2026-09-30 16:00/);

  let oldSeen = 0;
  let newSeen = 0;
  for (const s of searches) {
    const base = s.outOf === A.rows ? before.get(s.q)! : after.get(s.q)!;
    if (s.outOf === A.rows) oldSeen++;
    else newSeen++;
    if (s.found !== base.found) problems.push(`search ${s.q}: found ${s.found} with outOf ${s.outOf}; that collection finds ${base.found}`);
    else if (JSON.stringify(s.leis) !== JSON.stringify(base.leis.slice(0, s.limit)))
      problems.push(`search ${s.q} limit ${s.limit}: results ${s.leis.join(" ")} differ from that collection's ${base.leis.join(" ")}`);
  }
  t.same(problems.slice(0, 20), [], `no failed or inconsistent answer out of ${requests}`);
  t.ok(oldSeen > 0 && newSeen > 0, `searches answered by both collections (${oldSeen} old, ${newSeen} new)`);
  t.ok(newOnlyFound > 0, "LEIs only in the new publication were found once it was live");
  t.ok(requests > 200, "the clients kept the server busy");

  t.equal(currentAlias(mainDir), B.collection, "current.json points at the new collection");
  t.same(collectionDirs(mainDir), [B.collection], "the old collection was removed");
  const unmapped = await untilUnmapped(srv.child.pid!, replaced);
  t.ok(unmapped.gone, `the old collection's memory was given back (still mapped: ${unmapped.left || "none"})`);
  t.same(downloadsIn(mainDir), [B.name], "the old download was removed, the new one kept");
  t.equal(level2DownloadsIn(mainDir).length, 4, "the live collection's Level 2 files kept");
});

// ---------------------------------------------------------------- failures

t.test("failed loads leave the live collection serving, and each is logged with a retry", async (t) => {
  const small = sampleRows.slice(0, 50);
  let minute = 0;
  /** a fresh publication date per case, newer than the live one */
  const next = (content: { csv: string; rows: number } | { zip: Buffer; rows: number }): GoldenCopy =>
    goldenCopy(`2026-10-02 00:${String(minute++).padStart(2, "0")}:00`, content);
  const smallCsv = { csv: csvText(header, small), rows: small.length };
  const fullZip = A.zip; // the whole sample, zipped (the server names a download by its URL, not its entry)
  const rnd = seededRandom(77);
  const garbage = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));
  /** the full sample zip with 64 bytes in the middle of its deflate stream overwritten */
  const flipped = Buffer.from(fullZip);
  garbage(64).copy(flipped, Math.floor(flipped.length / 2));

  /** `file`: the failure is in the file, so the server must have fetched it */
  const cases: { label: string; arrange: () => Promise<void> | void; message: RegExp; file?: true; restore?: () => Promise<void> }[] = [
    {
      label: "API answers 500",
      arrange: () => {
        gleif.apiMode = "error-500";
      },
      message: /HTTP 500/,
    },
    {
      label: "API answers 503",
      arrange: () => {
        gleif.apiMode = "unavailable-503";
      },
      message: /HTTP 503/,
    },
    {
      label: "API sends invalid JSON",
      arrange: () => {
        gleif.apiMode = "invalid-json";
      },
      message: /invalid JSON/i,
    },
    {
      label: "API answer without the file URL",
      arrange: () => {
        gleif.publish(next(smallCsv));
        gleif.apiMode = "no-url";
      },
      message: /url is missing/,
    },
    { label: "API unreachable", arrange: () => gleif.down(), message: /unreachable|ECONNREFUSED/, restore: () => gleif.up() },
    { label: "file URL 404", arrange: () => gleif.publish(next(smallCsv), { fileMode: "not-found" }), file: true, message: /HTTP 404/ },
    {
      label: "connection cut mid-body",
      arrange: () => gleif.publish(next({ zip: fullZip, rows: A.rows }), { fileMode: "cut" }),
      file: true,
      message: /download|terminated|closed|socket|truncated/i,
    },
    {
      label: "truncated zip",
      arrange: () => gleif.publish(next({ zip: fullZip.subarray(0, Math.floor(fullZip.length * 0.6)), rows: A.rows })),
      file: true,
      message: /zip/i,
    },
    {
      label: "corrupt zip (garbage after the signature)",
      arrange: () => gleif.publish(next({ zip: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), garbage(30_000)]), rows: A.rows })),
      file: true,
      message: /zip/i,
    },
    {
      label: "garbage bytes, not a zip at all",
      arrange: () => gleif.publish(next({ zip: garbage(30_000), rows: A.rows })),
      file: true,
      message: /column|quote|field/i,
    },
    {
      label: "zip with a damaged deflate stream",
      arrange: () => gleif.publish(next({ zip: flipped, rows: A.rows })),
      file: true,
      message: /./,
    },
    {
      label: "zip without a CSV entry",
      arrange: () => gleif.publish(next({ zip: zipSingle("readme.txt", Buffer.from("no data here")), rows: 0 })),
      file: true,
      message: /csv/i,
    },
    {
      label: "CSV without the LEI column",
      arrange: () => {
        const keep = header.map((_, i) => i).filter((i) => header[i] !== "LEI");
        gleif.publish(
          next({
            csv: csvText(
              keep.map((i) => header[i]),
              small.map((r) => keep.map((i) => r[i])),
            ),
            rows: small.length,
          }),
        );
      },
      file: true,
      message: /column.*LEI|LEI.*column/,
    },
    {
      label: "header only (zero records)",
      arrange: () => gleif.publish(next({ csv: csvText(header, []), rows: 0 })),
      file: true,
      message: /no records/,
    },
    {
      label: "record_count one more than the rows",
      arrange: () => gleif.publish(next(smallCsv), { recordCount: small.length + 1 }),
      file: true,
      message: /50 rows.*announces 51/,
    },
    {
      label: "record_count one less than the rows",
      arrange: () => gleif.publish(next(smallCsv), { recordCount: small.length - 1 }),
      file: true,
      message: /50 rows.*announces 49/,
    },
    {
      label: "far fewer records than the last load (50 of 6447)",
      arrange: () => gleif.publish(next(smallCsv)),
      file: true,
      message: /far below/,
    },
  ];

  const live = await srv.json("/v1/stats");
  t.equal(live.published, B.published, "B is live before the failures");
  const newLei = extraEntities[299];
  for (const c of cases) {
    await t.test(c.label, async (t) => {
      const files = gleif.fileRequestTotal;
      await c.arrange();
      const mark = srv.stdout().length;
      srv.child.kill("SIGHUP");
      const m = await waitLog(srv, mark, /load failed: ([^\n]*)/);
      t.match(m[1], c.message, `says why: ${m[1].slice(0, 160)}`);
      t.match(m[1], /retrying in \d+ s/, "a retry is scheduled");
      if (c.file) t.ok(gleif.fileRequestTotal > files, "the file was fetched");
      else t.equal(gleif.fileRequestTotal, files, "no file was fetched");

      const stats = await srv.json("/v1/stats");
      t.same(
        { records: stats.records, published: stats.published, source: stats.source },
        { records: live.records, published: live.published, source: live.source },
        "stats unchanged",
      );
      const search = await srv.get(`/v1/entities${qs({ q: "reloadia", limit: 3 })}`);
      t.equal(search.status, 200, "searches answer");
      t.equal(search.body?.outOf, B.rows, "from the live collection");
      const one = await srv.get(`/v1/entities/${newLei.lei}`);
      t.equal(one.status, 200, "lookups answer");
      t.equal(one.body?.legalName, newLei.legalName);
      t.equal(currentAlias(mainDir), B.collection, "current.json unchanged");
      t.same(collectionDirs(mainDir), [B.collection], "no other collection left on disk");
      t.ok(downloadsIn(mainDir).includes(B.name), "the live collection's download is kept");

      // back to the live publication: the check succeeds and resets the backoff
      if (c.restore) await c.restore();
      gleif.publish(B);
      const mark2 = srv.stdout().length;
      srv.child.kill("SIGHUP");
      await waitLog(srv, mark2, /is already loaded/);
    });
  }
  t.equal((await srv.json("/v1/stats")).records, B.rows, "still B at the end");
});

t.test("after a failure the server retries by itself and picks up the next good publication", async (t) => {
  gleif.apiMode = "error-500";
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  const m = await waitLog(srv, mark, /load failed: [^\n]*retrying in (\d+) s/);
  t.equal(m[1], "1", "the first retry comes after --retry-seconds");
  await sleep(2500);
  t.match(srv.stdout().slice(mark), /load failed[\s\S]*load failed[^\n]*retrying in 2 s/, "retries without a signal, the wait doubling");
  t.equal((await srv.json("/v1/stats")).published, B.published, "B still live while the API fails");
  gleif.publish(C);
  const stats = await waitFor(
    "C to go live by itself",
    async () => {
      const s = await srv.json("/v1/stats");
      return s.published === C.published ? s : null;
    },
    60_000,
    250,
  );
  t.equal(stats.records, C.rows, "every record of C");
  t.match(stats.source, /2026-10-01 00:00/);
  t.same(
    await wrongLookups(srv, [cExtraEntities[0], cExtraEntities[300], ...sharedPicks.slice(0, 20)]),
    [],
    "C's content is served (a renamed entity, a new one)",
  );
  t.equal((await srv.json(`/v1/entities/${cExtraEntities[0].lei}`)).legalName, RENAMED);
  t.equal(currentAlias(mainDir), C.collection);
  t.same(collectionDirs(mainDir), [C.collection], "only C's collection on disk");
  t.same(downloadsIn(mainDir), [C.name], "only C's download kept (failed downloads and B's removed)");
});

// ---------------------------------------------------------------- restarts

t.test("a restart serves the persisted collection from its segments, without downloading", async (t) => {
  const before = await srv.json("/v1/stats");
  t.equal(await srv.stop(), 0, "SIGTERM: exit 0");
  const files = gleif.fileRequestTotal;
  const started = Date.now();
  srv = await startGleif(root);
  t.comment(`ready after ${Date.now() - started} ms`);
  t.equal(gleif.fileRequestTotal, files, "no download before ready");
  t.match(srv.stdout(), new RegExp(`serving ${C.collection} \\(${C.rows} records\\) from its segments`), "served from its segments");
  t.notMatch(srv.stdout(), /loading /, "nothing was loaded");
  const stats = await srv.json("/v1/stats");
  t.same(
    { records: stats.records, published: stats.published, source: stats.source },
    { records: before.records, published: before.published, source: before.source },
    "same records, publication and source",
  );
  t.same(await wrongLookups(srv, [cExtraEntities[0], cExtraEntities[300], ...sharedPicks.slice(20, 40)]), [], "same content");
  // GLEIF mode checks the API after start-up; the publication is the live one
  await waitLog(srv, 0, /is already loaded/);
  await sleep(300);
  t.equal(gleif.fileRequestTotal, files, "still no download");
  t.same(collectionDirs(mainDir), [C.collection]);
  t.same(downloadsIn(mainDir), [C.name]);

  await t.test("with GLEIF unreachable", async (t) => {
    t.equal(await srv.stop(), 0);
    await gleif.down();
    try {
      srv = await startGleif(root);
      t.match(srv.stdout(), new RegExp(`serving ${C.collection} \\(${C.rows} records\\) from its segments`));
      const s = await srv.json("/v1/stats");
      t.equal(s.records, C.rows, "the persisted collection is served");
      t.equal(s.published, C.published);
      t.notMatch(s.source, /offline/i, "not the fallback");
      await waitLog(srv, 0, /load failed: [^\n]*unreachable/);
      t.equal((await srv.get(`/v1/entities/${cExtraEntities[300].lei}`)).status, 200);
      t.equal(currentAlias(mainDir), C.collection, "the persisted collection stays current");
    } finally {
      await gleif.up();
    }
    // the next retry finds GLEIF again, with C still the latest
    await waitLog(srv, 0, /is already loaded/, 30_000);
  });
});

t.test("a corrupt segment is refused and rebuilt from the kept download", async (t) => {
  t.equal(await srv.stop(), 0);
  const files = gleif.fileRequestTotal;
  const seg = join(mainDir, "collections", C.collection, "slice-1.seg");
  const size = statSync(seg).size;
  overwrite(seg, Math.floor(size / 2), Buffer.from("this is not what was written here"));
  srv = await startGleif(root);
  t.match(srv.stdout(), /fails its checksum/, "the damage is detected");
  t.match(
    srv.stdout(),
    /rebuilding lei_20261001-0000 from [^\n]*20261001-0000-gleif-goldencopy-lei2-golden-copy\.csv\.zip/,
    "rebuilt from the kept download",
  );
  t.equal(gleif.fileRequestTotal, files, "not downloaded again");
  const stats = await srv.json("/v1/stats");
  t.equal(stats.records, C.rows, "every record");
  t.equal(stats.published, C.published, "same publication");
  t.same(await wrongLookups(srv, [...cExtraEntities.slice(0, 30), ...sharedPicks]), [], "lookups on every slice answer right");
  const s = await srv.json(`/v1/entities${qs({ q: "reloadia", limit: 1 })}`);
  t.equal(s.outOf, C.rows);
  const alias = currentAlias(mainDir)!;
  t.match(alias, /^lei_20261001-0000/, "the rebuilt collection is current");
  t.same(collectionDirs(mainDir), [alias], "the broken one is gone");
  t.same(downloadsIn(mainDir), [C.name], "the download is still kept");

  await t.test("a segment of another format version is refused and rebuilt", async (t) => {
    t.equal(await srv.stop(), 0);
    const seg = join(mainDir, "collections", alias, "slice-1.seg");
    const version = Buffer.alloc(4);
    const foreign = SEGMENT_FORMAT + 1;
    version.writeUInt32LE(foreign);
    overwrite(seg, 8, version);
    srv = await startGleif(root);
    t.match(srv.stdout(), new RegExp(`format ${foreign}`), "the foreign version is named");
    t.match(srv.stdout(), /cannot be served/);
    t.match(srv.stdout(), /rebuilding /);
    const stats = await srv.json("/v1/stats");
    t.equal(stats.records, C.rows);
    t.equal(stats.published, C.published);
    t.same(await wrongLookups(srv, [...cExtraEntities.slice(280), ...sharedPicks.slice(0, 30)]), [], "right answers");
    t.equal(gleif.fileRequestTotal, files, "not downloaded again");

    // and the rebuilt segments are good: the next start serves them as they are
    t.equal(await srv.stop(), 0);
    srv = await startGleif(root);
    t.match(srv.stdout(), /from its segments/);
    t.notMatch(srv.stdout(), /rebuilding|cannot be served/);
    t.equal((await srv.json("/v1/stats")).records, C.rows);
  });

  await t.test("a damaged or missing document file is refused and rebuilt", async (t) => {
    for (const damage of ["flipped", "missing"] as const) {
      t.equal(await srv.stop(), 0);
      const alias = currentAlias(mainDir)!;
      const docs = join(mainDir, "collections", alias, "slice-0.docs");
      if (damage === "flipped") overwrite(docs, Math.floor(statSync(docs).size / 2), Buffer.from("not the documents"));
      else rmSync(docs);
      srv = await startGleif(root);
      t.match(
        srv.stdout(),
        damage === "flipped" ? /slice-0\.docs fails its checksum/ : /slice-0\.docs cannot be opened/,
        `${damage}: detected`,
      );
      t.match(srv.stdout(), /rebuilding /, `${damage}: rebuilt`);
      t.equal((await srv.json("/v1/stats")).records, C.rows);
      t.same(await wrongLookups(srv, [...cExtraEntities.slice(0, 40), ...sharedPicks.slice(0, 30)]), [], `${damage}: lookups answer right`);
      t.equal(gleif.fileRequestTotal, files, "not downloaded again");
    }
  });
});

t.test("--reload-now loads the source at start-up although its publication is on disk", async (t) => {
  t.equal(await srv.stop(), 0);
  const files = gleif.fileRequestsFor(C);
  srv = await startGleif(root, { extra: ["--reload-now"] });
  t.equal(gleif.fileRequestsFor(C), files + 1, "downloaded again");
  t.notMatch(srv.stdout(), /from its segments/);
  const stats = await srv.json("/v1/stats");
  t.equal(stats.records, C.rows);
  t.equal(stats.published, C.published);
  t.type(stats.downloadSeconds, "number");
  const alias = currentAlias(mainDir)!;
  t.match(alias, /^lei_20261001-0000/);
  t.same(collectionDirs(mainDir), [alias], "one collection");
  t.same(downloadsIn(mainDir), [C.name], "one download");
});

// Regression: with --reload-now a failed start-up load must fall back on the collection on disk.

t.test("--reload-now with GLEIF unreachable keeps serving the collection on disk", async (t) => {
  t.equal(await srv.stop(), 0);
  const alias = currentAlias(mainDir)!;
  await gleif.down();
  try {
    srv = await startGleif(root, { extra: ["--reload-now"] });
    await waitLog(srv, 0, /load failed: [^\n]*unreachable/);
    const stats = await srv.json("/v1/stats");
    t.equal(stats.records, C.rows, "the persisted collection's records, not the bundled sample's");
    t.equal(stats.published, C.published, "its publication");
    t.notMatch(stats.source, /offline/i, "not the offline fallback");
    t.equal(currentAlias(mainDir), alias, "current.json unchanged");
    t.ok(existsSync(join(mainDir, "collections", alias, "manifest.json")), "the persisted collection is still on disk");
    t.ok(downloadsIn(mainDir).includes(C.name), "its download is still kept");
    t.equal((await srv.get(`/v1/entities${qs({ q: "bank" })}`)).status, 200, "whatever it serves, it answers");
  } finally {
    await gleif.up();
  }
  await srv.stop();
});

// ---------------------------------------------------------------- offline

/** The server of the offline subtest, kept for the CRC subtest after it. */
let off: RunningServer | null = null;
/** What GLEIF publishes once it is back: the sample's first 1,000 rows. */
const O = sampleGoldenCopy("2026-10-04 08:00:00", [], 1000);
const oRows = sampleRows.slice(0, 1000);
/** in the bundled sample, not in O */
const notInO = entityOf(sampleRows[5000]);
let offGleif: GleifImitation | null = null;

t.test("offline first start: the bundled sample stands in, says so, and is replaced once GLEIF answers", async (t) => {
  const port = await freePort();
  const dataDir = tempDir(root, "leidex-offline-");
  off = await startServer(root, {
    source: null,
    shards: 2,
    dataDir,
    timeoutMs: 90_000,
    args: gleifArgs(`http://127.0.0.1:${port}/api/v2`),
  });
  const stats = await off.json("/v1/stats");
  t.equal(stats.records, SAMPLE_RECORDS, "the bundled sample's records");
  t.match(stats.source, /offline/i, "source says it is an offline fallback");
  t.match(stats.source, /sample/i, "and that it is the sample");
  t.equal(stats.published, null, "no publication");
  t.match(off.stdout(), /OFFLINE/, "the log says OFFLINE");
  t.match(off.stdout(), /load failed: [^\n]*unreachable/);
  t.equal((await off.get(`/v1/entities${qs({ q: "bank" })}`)).status, 200, "searches answer");
  t.equal(manifestOf(dataDir, currentAlias(dataDir)!).fallback, true, "persisted as a fallback");
  t.equal((await off.get(`/v1/entities/${notInO.lei}`)).status, 200, "a sample LEI answers");

  offGleif = await GleifImitation.start(port);
  root.teardown(() => offGleif?.close());
  offGleif.publish(O);
  const srvOff = off;
  const live = await waitFor(
    "the real publication to replace the sample",
    async () => {
      const s = await srvOff.json("/v1/stats");
      return s.published === O.published ? s : null;
    },
    60_000,
    250,
  );
  t.equal(live.records, O.rows, "the publication's records");
  t.notMatch(live.source, /offline/i, "no longer says offline");
  t.match(live.source, /GLEIF/);
  t.match(live.source, /2026-10-04 08:00/);
  t.equal((await off.get(`/v1/entities/${notInO.lei}`)).status, 404, "the sample's data is gone");
  t.same(await wrongLookups(off, oRows.slice(0, 20).map(entityOf)), [], "the publication's data is served");
  t.equal(currentAlias(dataDir), O.collection);
  t.same(collectionDirs(dataDir), [O.collection], "the sample collection was removed");
  t.same(downloadsIn(dataDir), [O.name]);
});

// The zip entry's CRC-32 is checked against the inflated data (yauzl does not check it).

t.test("a zip whose data does not match its CRC-32 is refused, not served", async (t) => {
  if (!off || !offGleif) {
    t.fail("needs the server of the offline subtest");
    return;
  }
  const srvOff = off;
  const before = await srvOff.json("/v1/stats");
  t.equal(before.published, O.published, "the offline subtest's publication is live");
  // a sample row's legal name with its letters' case swapped: same length, same rows, valid CSV
  const row = oRows[10];
  const victim = entityOf(row);
  const name = victim.legalName!;
  const swapped = name.replace(/[A-Za-z]/g, (ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()));
  t.not(swapped, name);
  const damaged = withAlteredBytes("2026-10-04 16:00:00", csvText(header, oRows), oRows.length, `"${name}"`, `"${swapped}"`);
  offGleif.publish(damaged);
  const mark = srvOff.stdout().length;
  srvOff.child.kill("SIGHUP");
  const m = await waitLog(srvOff, mark, /load failed: [^\n]*|loaded \d+ records as [^\n]*/);
  t.match(m[0], /load failed/, `the load fails (log: ${m[0].slice(0, 100)})`);
  const stats = await srvOff.json("/v1/stats");
  t.equal(stats.published, O.published, "the previous publication stays live");
  const one = await srvOff.json(`/v1/entities/${victim.lei}`);
  t.equal(one.legalName, name, "the entity keeps its real name");
  t.equal(stats.records, O.rows, "the record count cannot tell the difference");
  await srvOff.stop();
});

// Regression: the offline fallback load and the retry it schedules run one after the other.

t.test("GLEIF answers 503 at first and is back while the sample is loading: the real publication ends up live", async (t) => {
  const g = await GleifImitation.start();
  t.teardown(() => g.close());
  const tiny = sampleGoldenCopy("2026-10-03 08:00:00", [], 50);
  g.publish(tiny);
  g.failNextApi = 1; // the first check fails: the sample load starts, the retry a second later succeeds
  const dataDir = tempDir(t, "leidex-race-");
  let race: RunningServer | null = null;
  let startError = "";
  try {
    race = await startServer(t, { source: null, shards: 2, dataDir, timeoutMs: 90_000, args: gleifArgs(g.api) });
  } catch (err) {
    startError = (err as Error).message;
  }
  t.equal(startError, "", "the server comes up");
  if (!race) {
    t.comment(startError.slice(0, 3000));
    return;
  }
  t.match(race.stdout(), /OFFLINE/, "the sample stood in");
  await waitLog(race, 0, /loaded 50 records as lei_20261003-0800|load failed: ENOENT/, 30_000).catch(() => undefined);
  await sleep(500);
  t.comment(
    race
      .stdout()
      .split("\n")
      .filter((l) => /OFFLINE|load failed|loaded /.test(l))
      .map((l) => l.slice(0, 150))
      .join("\n"),
  );
  const stats = await race.json("/v1/stats");
  t.equal(stats.published, tiny.published, "the real publication is live");
  t.notMatch(stats.source, /offline/i, "not the offline fallback");
  t.equal(currentAlias(dataDir), tiny.collection, "current.json points at the real publication");
  t.same(collectionDirs(dataDir), [tiny.collection], "its collection is on disk, the sample's is gone");
  t.ok(downloadsIn(dataDir).includes(tiny.name), "the real publication's download is kept");
  await race.stop();
});

// ---------------------------------------------------------------- flags

t.test("the reload flags are validated", async (t) => {
  const base = ["--host", "127.0.0.1", "--port", "0", "--data-dir", tempDir(t), "--shards", "1"];
  const cases: [string[], RegExp][] = [
    [["--reload-at", "24:00"], /--reload-at/],
    [["--retry-seconds", "0"], /--retry-seconds/],
  ];
  await pMap(cases, 2, async ([args, message]) => {
    const r = await runLeidex([...base, ...args], 30_000);
    t.equal(r.code, 2, `${args.join(" ")}: exit 2`);
    t.match(r.stderr, message, `${args.join(" ")}: names the flag`);
  });
});
