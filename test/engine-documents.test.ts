// Documents on the keyed engine API, against a real server over HTTP: one document by LEI and
// the read-only 405s (with GET and DELETE of the collection and aliases), documents/export (JSON
// lines, against the public API, filters, actions, aborted and slow clients) and
// documents/import (a golden copy uploaded as the body, CSV or zip, refused files leaving the live
// collection and no files, uploads that wait for another import, restart).
//
// Requests meant to fail with 401 go out from 127.0.0.3, so 127.0.0.1 never meets the guessing
// guard.

import t from "tap";
import { randomBytes } from "node:crypto";
import { BAD_IP, KNOWN_LEI, keyedApi, keyedRequest, leisOf, searchPath, type KeyedInit, type KeyedResponse } from "./helpers/keys.js";
import { qs, startServer, tempDir, type Params, type RunningServer } from "./helpers/server.js";
import { mapRow, sampleModel, zipSingle, type Entity } from "./helpers/fixture.js";
import {
  abortMidway,
  chunkedPost,
  closedWithin,
  goldenCopyCsv,
  importSynthetics,
  keepAliveClient,
  SEYMOUR,
  uploadFiles,
} from "./helpers/keyed-extras.js";

const KEY = `kx-boot-${randomBytes(12).toString("hex")}`;
const TOTAL = 6147;

const srv = await startServer(t, { args: ["--api-key", KEY] });
const { call, boot, bad, mkKeyFor: mkKey } = keyedApi(() => srv.port, KEY);

const LIVE: string = (await boot("/collections/lei")).body?.name;

t.test("documents, collections, aliases: one document by LEI, read-only 405s, the live collection is not deleted", async (t) => {
  const doc = await boot(`/collections/lei/documents/${KNOWN_LEI}`);
  const pub = await call(`/v1/entities/${KNOWN_LEI}`);
  t.equal(doc.status, 200);
  t.same(doc.body, pub.body, "the document is the public API's entity");
  t.same((await boot(`/collections/${LIVE}/documents/${KNOWN_LEI}`)).body, pub.body, "by the live name too");
  const missing = await boot(`/collections/lei/documents/${KNOWN_LEI.slice(0, 18)}00`);
  t.equal(missing.status, 404);
  t.match(missing.body, { message: /Could not find a document/ });

  const g = await boot("/collections/lei");
  t.match(g.body, { name: LIVE, num_documents: TOTAL, fields: Array }, "GET /collections/lei describes the live collection");
  const del = await boot("/collections/lei", { method: "DELETE" });
  t.equal(del.status, 409, "DELETE of the live collection -> 409");
  t.match(del.body, { message: String });
  t.equal((await boot(`/collections/${LIVE}`, { method: "DELETE" })).status, 409, "by its own name too");
  t.equal((await boot(searchPath("lei", { q: "*" }))).body.found, TOTAL, "and it is still served");
  t.equal((await boot("/aliases/nope")).status, 404, "unknown alias -> 404");

  const writes: [string, string][] = [
    ["POST", "/collections/lei/documents"],
    ["PATCH", "/collections/lei/documents"],
    ["DELETE", "/collections/lei/documents"],
    ["PATCH", `/collections/lei/documents/${KNOWN_LEI}`],
    ["DELETE", `/collections/lei/documents/${KNOWN_LEI}`],
    ["PUT", `/collections/lei/documents/${KNOWN_LEI}`],
  ];
  for (const [method, path] of writes) {
    const w = await boot(path, { method, body: { lei: KNOWN_LEI, legalName: "changed" } });
    t.equal(w.status, 405, `${method} ${path} -> 405`);
    t.match(w.body, { message: String });
  }
  t.same((await boot(`/collections/lei/documents/${KNOWN_LEI}`)).body, pub.body, "the document is unchanged");
});

// ------------------------------------------------------------------------------ export

/** The LEIs the public API gives for a filter, page by page (100 a page). */
async function publicLeis(params: Params): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const r = await call(`/v1/entities${qs({ ...params, limit: 100, page })}`);
    if (r.status !== 200) throw new Error(`public search ${qs(params)} -> ${r.status} ${r.text}`);
    out.push(...(r.body.results as { lei: string }[]).map((e) => e.lei));
    if (out.length >= r.body.found || r.body.results.length === 0) return out;
  }
}

function exportLines(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

t.test("GET /collections/lei/documents/export: every record once, equal to /v1/entities/{lei}", async (t) => {
  const r = await boot("/collections/lei/documents/export");
  t.equal(r.status, 200);
  t.match(String(r.headers["content-type"]), /^application\/x-ndjson/);
  t.ok(r.text.endsWith("\n"), "the last line ends with a newline");
  const lines = exportLines(r.text);
  t.equal(lines.length, TOTAL, "one line per record");
  t.equal(lines.filter((l) => l.trim() === "").length, 0, "no blank lines");
  const docs: Entity[] = [];
  let unparsable = 0;
  for (const l of lines) {
    try {
      docs.push(JSON.parse(l) as Entity);
    } catch {
      unparsable++;
    }
  }
  t.equal(unparsable, 0, "every line is JSON");
  t.equal(new Set(docs.map((d) => d.lei)).size, TOTAL, "each LEI once");

  // independent of the server: the sample's CSV mapped by the test model
  const model = new Map(sampleModel().map((m) => [m.entity.lei, m.entity]));
  const offModel = docs.filter((d) => JSON.stringify(d) !== JSON.stringify(model.get(d.lei)));
  t.same(offModel.slice(0, 3), [], "every line is the sample's record (model of the CSV)");

  // and the public API, one record at a time over kept-alive connections
  const client = keepAliveClient(srv.port, 8);
  t.teardown(() => client.close());
  let i = 0;
  const mismatches: string[] = [];
  const worker = async (): Promise<void> => {
    while (i < lines.length) {
      const line = lines[i++];
      const lei = (JSON.parse(line) as Entity).lei;
      const pub = await client.get(`/v1/entities/${lei}`);
      if (pub.status !== 200 || JSON.stringify(pub.body) !== JSON.stringify(JSON.parse(line)))
        mismatches.push(`${lei}: ${pub.status} ${pub.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  t.same(mismatches.slice(0, 3), [], `all ${TOTAL} lines equal /v1/entities/{lei}`);

  const byName = await boot(`/collections/${LIVE}/documents/export`);
  t.equal(exportLines(byName.text).length, TOTAL, "by the live collection's name too");
  const viaQuery = await call(`/collections/lei/documents/export?x-typesense-api-key=${encodeURIComponent(KEY)}&filter_by=country:GR`);
  t.equal(viaQuery.status, 200, "the key as a query parameter is not an unknown export parameter");
  const blank = await boot(`/collections/lei/documents/export${qs({ filter_by: "  " })}`);
  t.equal(exportLines(blank.text).length, TOTAL, "a blank filter_by exports everything");
});

t.test("export filter_by: the same LEIs as the public API; contradictions, unknown parameters, bad filters", async (t) => {
  const cases: [string, Params][] = [
    ["country:GR", { country: "GR" }],
    ["country:US", { country: "US" }], // 767 records: 8 public pages
    ["country:[GR,US] && entityStatus:ACTIVE", { country: "GR,US", status: "ACTIVE" }],
    ["(country:=US) && city:`New York`", { country: "US", city: "New York" }],
    ["country:GR || country:US", { country: "GR,US" }],
    ["country:[GR,US] && country:!=US", { country: "GR" }],
    ["(country:GR || country:US) && country:!=[US]", { country: "GR" }],
  ];
  for (const [filter, pub] of cases) {
    const r = await boot(`/collections/lei/documents/export${qs({ filter_by: filter })}`);
    t.equal(r.status, 200, `filter_by=${filter} -> 200`);
    const got = exportLines(r.text)
      .map((l) => (JSON.parse(l) as Entity).lei)
      .sort();
    const want = (await publicLeis(pub)).sort();
    t.ok(want.length > 0, `the public API finds records for ${qs(pub)}`);
    t.same(got, want, `filter_by=${filter}: exactly the LEIs of /v1/entities${qs(pub)} (${want.length})`);
  }

  for (const filter of ["country:GR && country:DE", "(country:[GR,US]) && (country:DE)", "country:ZZ"]) {
    const r = await boot(`/collections/lei/documents/export${qs({ filter_by: filter })}`);
    t.equal(r.status, 200, `filter_by=${filter} -> 200`);
    t.equal(r.text, "", `filter_by=${filter}: an empty body`);
    t.match(String(r.headers["content-type"]), /^application\/x-ndjson/);
  }

  const refusals: [Params, RegExp][] = [
    [{ q: "*" }, /'q'/],
    [{ filter_by: "country:GR", per_page: 10 }, /per_page/],
    [{ FILTER_BY: "country:GR" }, /FILTER_BY/],
    [{ "": "x" }, /unknown export parameter/],
    [{ filter_by: "country:US || city:London" }, /\|\|/],
    [{ filter_by: "country:!=US || country:GB" }, /!=/],
    [{ filter_by: "country:GR &&" }, /./],
    [{ filter_by: "city:`New York" }, /backtick/],
    [{ filter_by: "legalName:Bank" }, /legalName/],
    [{ filter_by: "(country:US" }, /parenthes/],
    [{ filter_by: "country:" }, /./],
    [{ filter_by: "country:[]" }, /no value/],
  ];
  for (const [params, message] of refusals) {
    const r = await boot(`/collections/lei/documents/export${qs(params)}`);
    t.equal(r.status, 400, `export${qs(params)} -> 400`);
    t.match(r.body, { message }, `export${qs(params)}: {message}`);
  }
  t.equal((await boot("/collections/no_such_collection/documents/export")).status, 404, "unknown collection -> 404");
});

t.test("export needs documents:export on the collection", async (t) => {
  const searchOnly = await mkKey(["documents:search", "documents:get"], ["lei"]);
  const exportOther = await mkKey(["documents:export"], ["some_other_collection"]);
  const exportLei = await mkKey(["documents:export"], ["lei"]);
  const documentsAll = await mkKey(["documents:*"], []);
  const path = `/collections/lei/documents/export${qs({ filter_by: "country:GR" })}`;
  const r1 = await call(path, { key: searchOnly.value });
  t.equal(r1.status, 403, "a search-only key -> 403");
  t.match(r1.body, { message: /documents:export/ }, "the 403 names the action");
  t.equal((await call(path, { key: exportOther.value })).status, 403, "documents:export on another collection -> 403");
  const ok = await call(path, { key: exportLei.value });
  t.equal(ok.status, 200, "documents:export on lei -> 200");
  t.equal(exportLines(ok.text).length, (await publicLeis({ country: "GR" })).length);
  t.equal((await call(path, { key: documentsAll.value })).status, 200, "documents:* -> 200");
  const none = await bad(path);
  t.equal(none.status, 401, "no key -> 401");
  t.equal((await bad(path, { key: "not-a-key-at-all" })).status, 401, "unknown key -> 401");
});

t.test("a client that goes away mid-export does not hurt the server", async (t) => {
  const head = `GET /collections/lei/documents/export HTTP/1.1\r\nHost: 127.0.0.1\r\nx-typesense-api-key: ${KEY}\r\n\r\n`;
  const first = await abortMidway(srv.port, head, { readBytes: 64 * 1024 });
  t.match(first.toString("latin1"), /^HTTP\/1\.1 200/, "the export had started");
  t.ok(first.length >= 64 * 1024 && first.length < 2_000_000, `read a little (${first.length} bytes), then went away`);
  // more ways of going away: right after asking, and never reading (the server meets backpressure)
  await Promise.all([
    abortMidway(srv.port, head, { readBytes: 1 }),
    abortMidway(srv.port, head, { waitMs: 0 }),
    abortMidway(srv.port, head, { paused: true, waitMs: 300 }),
    abortMidway(srv.port, head, { paused: true, waitMs: 600 }),
    abortMidway(srv.port, head, { readBytes: 500 * 1024 }),
  ]);
  t.equal(srv.child.exitCode, null, "the server is still running");
  t.equal((await call("/health")).status, 200, "/health answers");
  const s = await boot(searchPath("lei", { q: "seymour", query_by: "legalName" }));
  t.equal(s.status, 200, "a search answers");
  t.ok(leisOf(s.body).includes(SEYMOUR.lei));
  const full = await boot("/collections/lei/documents/export");
  t.equal(exportLines(full.text).length, TOTAL, "a full export afterwards is complete");
  t.notMatch(srv.stderr(), /documents-export|internal error/, "nothing logged as an error");
});

// ------------------------------------------------------------------------------ import

t.test("POST /collections/lei/documents/import: a golden copy uploaded becomes the live collection", async (t) => {
  const server = await startServer(t, { args: ["--api-key", KEY], dataDir: tempDir(t, "leidex-import-") });
  let b: RunningServer = server;
  const req = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => keyedRequest(b.port, path, { key: KEY, ...init });
  const anon = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> =>
    keyedRequest(b.port, path, { localAddress: BAD_IP, ...init });
  const upload = (body: Buffer | string, init: KeyedInit = {}, path = "/collections/lei/documents/import"): Promise<KeyedResponse> =>
    req(path, { method: "POST", rawBody: body, headers: { "content-type": "text/csv" }, ...init });
  const records = async (): Promise<number> => (await req("/v1/stats")).body?.records;

  const synthetic = importSynthetics();
  const csv = goldenCopyCsv(200, synthetic);
  const small = goldenCopyCsv(100, synthetic, { eol: "\r\n", bom: true });
  const model = new Map(
    csv.rows.map((r) => {
      const m = mapRow(csv.header, r);
      return [m.entity.lei, m.entity];
    }),
  );
  t.equal(await records(), TOTAL, "the sample is live at first");

  await t.test("a zip upload (BOM, CRLF) works", async (t) => {
    const zip = zipSingle("golden-copy.csv", Buffer.from(small.text, "utf8"));
    // 105 records in place of 6,147: a shrink, asked for
    const r = await upload(zip, { headers: { "content-type": "application/zip" } }, "/collections/lei/documents/import?allow_shrink=true");
    t.equal(r.status, 200, r.text);
    t.match(r.body, { success: true, collection: /^lei_/, num_imported: 105 });
    t.equal(await records(), 105);
    t.equal((await req("/collections/lei")).body?.name, r.body.collection, "the alias points at the imported collection");
  });

  let imported = "";
  await t.test("a CSV upload: 200 {success, collection, num_imported: 205}; the records are served", async (t) => {
    const r = await upload(csv.text);
    t.equal(r.status, 200, r.text);
    t.same(Object.keys(r.body ?? {}).sort(), ["collection", "num_imported", "success"]);
    t.match(r.body, { success: true, collection: /^lei_/, num_imported: 205 });
    imported = r.body.collection;
    t.equal(await records(), 205, "/v1/stats records = 205");
    t.equal((await req("/collections/lei")).body?.num_documents, 205);
    for (const s of synthetic) {
      const e = await req(`/v1/entities/${s.lei}`);
      t.equal(e.status, 200, `synthetic ${s.lei} is found`);
      t.same(e.body, model.get(s.lei), `${s.name.replace(/\n/g, " ")}: as written`);
    }
    const sampleLast = csv.rows[199][0];
    t.equal((await req(`/v1/entities/${sampleLast}`)).status, 200, "the sample's 200th row is there");
    t.equal((await req("/v1/entities/213800ZIVJGTZ39AGY31")).status, 404, "a sample record past row 200 is not");
    const s = await req(searchPath("lei", { q: "Zorblatt Quantensysteme", query_by: "legalName" }));
    t.same(leisOf(s.body), [synthetic[0].lei], "the keyed search finds a synthetic record");
    t.same(uploadFiles(b.dataDir).length, 1, "one upload file kept (the live collection's download); the zip's is gone");
  });

  await t.test("refused files: 400, the live collection unchanged, no file left", async (t) => {
    const kept = uploadFiles(b.dataDir);
    const noLei = goldenCopyCsv(20, synthetic, { drop: ["LEI"] }).text;
    const headerOnly = goldenCopyCsv(0, []).text;
    const badLeis = goldenCopyCsv(
      0,
      synthetic.map((s) => ({ ...s, lei: s.lei.toLowerCase() })),
    ).text;
    const goodZip = zipSingle("golden-copy.csv", Buffer.from(csv.text, "utf8"));
    const badCrc = Buffer.from(goodZip);
    const central = badCrc.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    for (const at of [14, central + 16]) badCrc.writeUInt32LE((badCrc.readUInt32LE(at) ^ 0xffff) >>> 0, at); // both CRC-32 fields
    const cases: [string, Buffer | string][] = [
      ["a file without the LEI column", noLei],
      ["an empty body", ""],
      ["a header-only CSV", headerOnly],
      ["only malformed LEIs", badLeis],
      ["binary garbage", randomBytes(4096)],
      ["a truncated zip", goodZip.subarray(0, Math.floor(goodZip.length / 2))],
      ["a zip with a wrong CRC-32", badCrc],
      ["JSON instead of CSV", JSON.stringify({ documents: [{ lei: synthetic[0].lei }] })],
    ];
    for (const [label, body] of cases) {
      const r = await upload(body);
      t.equal(r.status, 400, `${label} -> 400`);
      t.match(r.body, { message: /import refused|upload failed/ }, `${label}: {message}`);
      t.equal(await records(), 205, `${label}: records still 205`);
      t.same(uploadFiles(b.dataDir), kept, `${label}: no upload file left behind`);
    }
    t.equal((await req("/collections/lei")).body?.name, imported, "the imported collection is still live");
    t.equal((await req(`/v1/entities/${synthetic[3].lei}`)).status, 200);
  });

  await t.test("unauthenticated, unauthorised and unknown-collection uploads write nothing", async (t) => {
    const kept = uploadFiles(b.dataDir);
    const none = await anon("/collections/lei/documents/import", { method: "POST", rawBody: csv.text });
    t.equal(none.status, 401, "no key -> 401");
    t.same(uploadFiles(b.dataDir), kept, "no key: nothing written");
    const unknown = await anon("/collections/lei/documents/import", { method: "POST", rawBody: csv.text, key: "not-a-key" });
    t.equal(unknown.status, 401, "unknown key -> 401");
    const searchKey = (await req("/keys", { method: "POST", body: { actions: ["documents:search", "documents:export"], collections: [] } }))
      .body.value as string;
    const forbidden = await upload(csv.text, { key: searchKey });
    t.equal(forbidden.status, 403, "without documents:import -> 403");
    t.match(forbidden.body, { message: /documents:import/ });
    const otherColl = (
      await req("/keys", { method: "POST", body: { actions: ["documents:import"], collections: ["some_other_collection"] } })
    ).body.value as string;
    t.equal((await upload(csv.text, { key: otherColl })).status, 403, "documents:import on another collection -> 403");
    t.equal((await upload(csv.text, {}, "/collections/no_such_collection/documents/import")).status, 404, "unknown collection -> 404");
    t.same(uploadFiles(b.dataDir), kept, "none of these wrote a file");
    t.equal(await records(), 205);

    const importer = (await req("/keys", { method: "POST", body: { actions: ["documents:import"], collections: ["lei"] } })).body
      .value as string;
    const allowed = await upload(csv.text, { key: importer });
    t.equal(allowed.status, 200, "documents:import on lei -> 200");
    t.equal(allowed.body?.num_imported, 205);
    imported = allowed.body?.collection;
  });

  await t.test("uploads that go away or are too large leave nothing; chunked bodies work", async (t) => {
    const kept = uploadFiles(b.dataDir);
    const head = (length: number): string =>
      `POST /collections/lei/documents/import HTTP/1.1\r\nHost: 127.0.0.1\r\nx-typesense-api-key: ${KEY}\r\nContent-Type: text/csv\r\nContent-Length: ${length}\r\n\r\n`;
    const body = Buffer.from(csv.text, "utf8");
    await abortMidway(b.port, head(body.length), { body: body.subarray(0, Math.floor(body.length / 3)), waitMs: 300 });
    let left = uploadFiles(b.dataDir);
    for (let i = 0; i < 20 && left.length !== kept.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = uploadFiles(b.dataDir);
    }
    t.same(left, kept, "a client gone mid-upload leaves no partial file");
    t.equal(await records(), 205, "and the live collection is unchanged");

    // a large declared body: the server waits for it (and drops the partial file when the client goes)
    const big = await closedWithin(b.port, head(999_999_999), 400);
    t.notOk(big.closed, "a declared body of 999,999,999 bytes: the connection stays open for it");
    const gig = await closedWithin(b.port, head(5_000_000_000), 400);
    t.notOk(gig.closed, "so does a declared body of 5,000,000,000 bytes (the size of the real golden copy)");
    const over = await closedWithin(b.port, head(17 * 2 ** 30), 400);
    t.ok(over.closed, "a declared body over the 16 GiB cap is refused at once");
    t.match(over.received, /^HTTP\/1\.1 413 /, `and answered 413: ${over.received.slice(0, 40)}`);
    left = uploadFiles(b.dataDir);
    for (let i = 0; i < 20 && left.length !== kept.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = uploadFiles(b.dataDir);
    }
    t.same(left, kept, "and nothing left written");
    t.equal(await records(), 205);

    const chunks = [0, 1, 2, 3].map((i) => body.subarray(Math.floor((i * body.length) / 4), Math.floor(((i + 1) * body.length) / 4)));
    const chunked = await chunkedPost(
      b.port,
      "/collections/lei/documents/import",
      { "x-typesense-api-key": KEY, "content-type": "text/csv" },
      chunks,
      20,
    );
    t.equal(chunked.status, 200, `a chunked upload (no Content-Length) works: ${chunked.text}`);
    t.equal(chunked.body?.num_imported, 205);
    imported = chunked.body?.collection ?? imported;
    t.equal(uploadFiles(b.dataDir).length, 1, "one upload file kept");
  });

  await t.test("an upload still arriving when another import finishes is not lost", async (t) => {
    // upload A arrives slowly (chunked over ~1.2 s); upload B, sent meanwhile, is loaded first
    const slowBody = Buffer.from(goldenCopyCsv(150, synthetic).text, "utf8");
    const chunks = Array.from({ length: 6 }, (_, i) =>
      slowBody.subarray(Math.floor((i * slowBody.length) / 6), Math.floor(((i + 1) * slowBody.length) / 6)),
    );
    const slow = chunkedPost(
      b.port,
      "/collections/lei/documents/import?allow_shrink=true",
      { "x-typesense-api-key": KEY, "content-type": "text/csv" },
      chunks,
      200,
    );
    await new Promise((r) => setTimeout(r, 250));
    const fast = await upload(csv.text);
    t.equal(fast.status, 200, "the fast upload is imported");
    const slowDone = await slow;
    t.equal(slowDone.status, 200, `the slow upload is imported after it (${slowDone.text})`);
    const live = slowDone.status === 200 ? 155 : 205;
    t.equal(await records(), live, `the last import that succeeded is live (${live})`);
    const again = await upload(csv.text);
    t.equal(again.status, 200, "and another import afterwards works");
    imported = again.body?.collection;
    t.equal(await records(), 205);
    t.equal(uploadFiles(b.dataDir).length, 1, "one upload file kept");
  });

  await t.test("an upload that arrives while another import loads waits its turn and is not lost", async (t) => {
    // the first import is loading when the second upload is whole: the first one's clean-up of
    // older downloads must leave the waiting file alone
    const loadingLines = (): number => (b.stdout().match(/loading \S*upload-/g) ?? []).length;
    const before = loadingLines();
    const big = upload(goldenCopyCsv(6147, synthetic).text);
    while (loadingLines() === before) await new Promise((r) => setTimeout(r, 5));
    const small = await upload(csv.text, {}, "/collections/lei/documents/import?allow_shrink=true");
    const bigDone = await big;
    t.equal(bigDone.status, 200, "the import that was loading succeeds");
    t.equal(small.status, 200, `the upload that waited is imported after it (${small.text})`);
    t.equal(await records(), 205, "the last import is live");
    imported = small.body?.collection ?? imported;
    t.equal(uploadFiles(b.dataDir).length, 1, "one upload file kept");
  });

  await t.test("the imported collection survives a restart, served from its segments", async (t) => {
    const dataDir = b.dataDir;
    t.equal(await b.stop(), 0);
    b = await startServer(t, { args: ["--api-key", KEY], dataDir });
    t.equal(await records(), 205, "205 records after the restart");
    t.equal((await req("/collections/lei")).body?.name, imported, "the same collection name");
    t.match(b.stdout(), new RegExp(`serving ${imported} \\(205 records\\) from its segments`), "served from segments, not reloaded");
    t.notMatch(b.stdout(), /loading .*real-sample\.csv/, "the sample is not loaded again");
    t.same((await req(`/v1/entities/${synthetic[1].lei}`)).body, model.get(synthetic[1].lei), "a synthetic record as written");
    const exp = await req("/collections/lei/documents/export");
    t.equal(exportLines(exp.text).length, 205, "the export has 205 lines");
    await b.stop();
  });
});
