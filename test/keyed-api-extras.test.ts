// The keyed engine API's recent additions, against a real server over HTTP: POST /multi_search,
// documents/export (JSON lines), synonyms, presets and stopwords (CRUD, actions, effects on
// search, persistence across a restart), num_typos and prefix, and documents/import (a golden
// copy uploaded as the body, CSV or zip, refused files leaving the live collection and no files).
//
// Requests meant to fail with 401 go out from 127.0.0.3, so 127.0.0.1 never meets the guessing
// guard.

import t, { type Test } from "tap";
import { randomBytes } from "node:crypto";
import { keyedRequest, scopedToken, type KeyedInit, type KeyedResponse } from "./helpers/keys.js";
import { qs, startServer, tempDir, type Params, type RunningServer } from "./helpers/server.js";
import { mapRow, sampleModel, zipSingle, type Entity } from "./helpers/fixture.js";
import { abortMidway, chunkedPost, closedWithin, goldenCopyCsv, importSynthetics, keepAliveClient, uploadFiles } from "./helpers/keyed-extras.js";

const KEY = `kx-boot-${randomBytes(12).toString("hex")}`;
const BAD_IP = "127.0.0.3";
const TOTAL = 6147;

// Records of the bundled sample the effects below rely on (checked in the first test).
const SEYMOUR = { lei: "213800ZIVJGTZ39AGY31", name: "SEYMOUR DISTRIBUTION LIMITED" };
const ALFORD_LIMITED = { lei: "54930085QQRSVQ837138", name: "Alford International Holdings Limited" };
const ALFORD_SARL = { lei: "5493003E6SCT1R8HVE65", name: "Alford International Holdings S.à.r.l." };
const SATS = { lei: "529900SEP1R0K8049D51", name: "SATS LTD." };
const KODAK = { lei: "33580031Q5E1JFYZ2C82", name: "KODAK INDIA PRIVATE LIMITED" };
const DIVESTIX = [{ lei: "894500VGS6EZGT4TCE36", name: "DivestiX Capital Kommanditbolag" }, { lei: "894500VGXPYR3SGOZY03", name: "Divestix Capital Ltd" }];

let srv: RunningServer = await startServer(t, { args: ["--api-key", KEY] });

const call = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => keyedRequest(srv.port, path, init);
const boot = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => call(path, { key: KEY, ...init });
/** a request expected to be refused with 401: from another address, so 127.0.0.1 keeps its guard budget */
const bad = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => call(path, { localAddress: BAD_IP, ...init });

interface CreatedKey { id: number; value: string }
async function mkKey(actions: string[], collections: string[] = []): Promise<CreatedKey> {
  const r = await boot("/keys", { method: "POST", body: { actions, collections } });
  if (r.status !== 201) throw new Error(`POST /keys ${JSON.stringify({ actions, collections })} -> ${r.status} ${r.text}`);
  return r.body as CreatedKey;
}

const searchPath = (collection: string, params: Params): string => `/collections/${collection}/documents/search${qs(params)}`;
const leisOf = (body: { hits?: { document: { lei: string } }[] }): string[] => (body.hits ?? []).map((h) => h.document.lei);
const withoutTime = (body: Record<string, unknown>): Record<string, unknown> => { const { search_time_ms: _t, ...rest } = body; return rest; };
/** A single search's answer in multi_search's item shape: the body without search_time_ms, or {code, error}. */
async function singleAsItem(collection: string, params: Params, init: KeyedInit = {}): Promise<Record<string, unknown>> {
  const r = await boot(searchPath(collection, params), init);
  return r.status === 200 ? withoutTime(r.body) : { code: r.status, error: r.body?.message };
}
const multi = (body: unknown, query: Params = {}, init: KeyedInit = {}): Promise<KeyedResponse> =>
  boot(`/multi_search${qs(query)}`, { method: "POST", body, ...init });

const LIVE: string = (await boot("/collections/lei")).body?.name;

t.test("the sample records the effects rely on are there, and the live collection is the sample", async (t) => {
  t.equal(LIVE, "lei_sample");
  for (const r of [SEYMOUR, ALFORD_LIMITED, ALFORD_SARL, SATS, KODAK, ...DIVESTIX]) {
    t.equal((await call(`/v1/entities/${r.lei}`)).body?.legalName, r.name, `${r.lei} is ${r.name}`);
  }
});

// ------------------------------------------------------------------------------ 1. multi_search

t.test("POST /multi_search: per-search and common parameters, each item equal to the single search", async (t) => {
  const searches = [
    { collection: "lei", q: "bank" }, // query_by and per_page from the common query
    { collection: LIVE, q: "*", filter_by: "country:GB", facet_by: "entityStatus,country", per_page: 5, page: 2 }, // its own per_page wins
    { collection: "no_such_collection", q: "*" },
    { collection: "lei", q: "seymoor", num_typos: 1, query_by: "legalName,otherNames" }, // a number in the body
    { collection: "lei", q: "Divest", prefix: false }, // a boolean in the body
    { collection: "lei", q: "*", filter_by: "country:US || city:London" }, // refused (|| across fields): this item only
    { collection: "lei", q: "*", filter_by: "country:US || country:GB", facet_by: "country" }, // || within one field
    { collection: "lei", q: "*", preset: "no-such-preset" }, // unknown preset: this item only
    { collection: "lei", q: "  Ärger \"quoted\" & 100% + más  ", query_by: "legalName" }, // ugly q
    { collection: "lei", q: "bank", page: 1.5 }, // not a whole number: this item only
    { collection: "lei", q: "*", filter_by: "country:GR && country:DE" }, // contradictory: empty
  ];
  const common = { query_by: "legalName", per_page: 3 };
  const r = await multi({ searches }, common);
  t.equal(r.status, 200);
  t.equal(r.body?.results?.length, searches.length, "one result per search, in order");
  const expected = await Promise.all(searches.map(async ({ collection, ...own }) => singleAsItem(collection, { ...common, ...own } as Params)));
  for (let i = 0; i < searches.length; i++) {
    const got = r.body.results[i];
    t.same(got && "found" in got ? withoutTime(got) : got, expected[i], `search ${i} ${JSON.stringify(searches[i])} equals the single search`);
  }
  t.match(r.body.results[2], { code: 404, error: /no_such_collection/ }, "an unknown collection is an item {code:404, error}");
  t.match(r.body.results[5], { code: 400, error: /\|\|/ }, "a refused filter is an item {code:400, error}");
  t.match(r.body.results[7], { code: 404, error: /no-such-preset/ }, "an unknown preset is an item {code:404}");
  t.match(r.body.results[9], { code: 400, error: /page/ });
  t.same(r.body.results[6].facet_counts[0].counts.map((c: { value: string }) => c.value).sort(), ["GB", "US"], "|| within one field: both values");
  t.equal(r.body.results[0].hits.length, 3, "common per_page applies");
  t.equal(r.body.results[1].hits.length, 5, "the search's own per_page wins over the common one");
  t.equal(r.body.results[1].page, 2);
  t.ok(leisOf(r.body.results[3]).includes(SEYMOUR.lei), "num_typos given as a JSON number works");
  t.equal(r.body.results[4].found, 0, "prefix given as a JSON boolean false works");
  t.equal(r.body.results[10].found, 0);

  // the collection (and q) from the common query; an empty search object takes everything from there
  const common2 = { collection: "lei", q: "bank", query_by: "legalName", per_page: 2 };
  const r2 = await multi({ searches: [{}, { q: "seymour" }, { collection: LIVE, per_page: 4 }, { q: "*", filter_by: "country:GR" }] }, common2);
  t.equal(r2.status, 200);
  const exp2 = [
    await singleAsItem("lei", { q: "bank", query_by: "legalName", per_page: 2 }),
    await singleAsItem("lei", { q: "seymour", query_by: "legalName", per_page: 2 }),
    await singleAsItem(LIVE, { q: "bank", query_by: "legalName", per_page: 4 }),
    await singleAsItem("lei", { q: "*", query_by: "legalName", per_page: 2, filter_by: "country:GR" }),
  ];
  t.same(r2.body.results.map(withoutTime), exp2, "common collection, q, query_by and per_page fill each search");

  // no q anywhere: that item alone is a 400
  const r3 = await multi({ searches: [{ collection: "lei" }, { collection: "lei", q: "*" }] });
  t.equal(r3.status, 200);
  t.match(r3.body.results[0], { code: 400, error: /'q'/ });
  t.equal(r3.body.results[1].found, TOTAL);
});

t.test("POST /multi_search: keys per search, scoped keys, and who may call it at all", async (t) => {
  const searchLei = await mkKey(["documents:search"], ["lei"]);
  const searchOther = await mkKey(["documents:search"], ["some_other_collection"]);
  const body = (extra: Record<string, unknown>[]) => ({ searches: [{ collection: "lei", q: "bank", query_by: "legalName" }, ...extra] });

  const own = await call("/multi_search", { method: "POST", body: { searches: [
    { collection: "lei", q: "bank", "x-typesense-api-key": searchLei.value },
    { collection: "lei", q: "*", "x-search-api-key": searchLei.value },
  ] } });
  t.equal(own.status, 200, "no header key: each search's own key in the body is used");
  t.same(own.body.results.map((x: { found: number }) => x.found > 0), [true, true]);

  const refused = await multi(body([{ collection: "lei", q: "*", "x-typesense-api-key": searchOther.value }]));
  t.equal(refused.status, 403, "a search's own key limited to another collection refuses the whole request, though the header key is the bootstrap key");
  t.match(refused.body, { message: String });
  t.notOk(refused.body && "results" in refused.body, "no partial results");

  const ownWins = await call("/multi_search", { method: "POST", key: searchOther.value, body: { searches: [{ collection: "lei", q: "bank", "x-typesense-api-key": searchLei.value }] } });
  t.equal(ownWins.status, 200, "a search's own key wins over the header's");
  const headerOnly = await call("/multi_search", { method: "POST", key: searchOther.value, body: body([]) });
  t.equal(headerOnly.status, 403, "the header key limited to another collection is refused");

  const unknownOwn = await bad("/multi_search", { method: "POST", key: KEY, body: body([{ collection: "lei", q: "*", "x-typesense-api-key": `nope-${randomBytes(6).toString("hex")}` }]) });
  t.equal(unknownOwn.status, 401, "an unknown key in a search -> 401 for the whole request");

  const noKey = await bad("/multi_search", { method: "POST", body: body([]) });
  t.equal(noKey.status, 401, "no key anywhere -> 401");
  t.match(noKey.body, { message: /no API key/ });
  const noKeyEmpty = await bad("/multi_search", { method: "POST", body: { searches: [] } });
  t.equal(noKeyEmpty.status, 401, "no key, no searches -> 401 (only /health, /metrics, /v1 and /mcp need no key)");
  const noKeyUnknown = await bad("/multi_search", { method: "POST", body: { searches: [{ collection: "no_such_collection", q: "*" }] } });
  t.equal(noKeyUnknown.status, 401, "no key, only unknown collections -> 401");

  // scoped key: embedded filter ANDed, embedded per_page wins
  const parent = await mkKey(["documents:search"], ["lei"]);
  const scoped = scopedToken(parent.value, JSON.stringify({ filter_by: "country:GB", per_page: 4 }));
  const s = await call("/multi_search", { method: "POST", key: scoped, body: { searches: [
    { collection: "lei", q: "limited", query_by: "legalName", per_page: 50 },
    { collection: "lei", q: "*", filter_by: "country:DE" },
    { collection: "lei", q: "*", "x-typesense-api-key": scoped },
  ] } });
  t.equal(s.status, 200, "a scoped key works with multi_search");
  const viaSingle = await call(searchPath("lei", { q: "limited", query_by: "legalName", per_page: 50 }), { key: scoped });
  t.same(withoutTime(s.body.results[0]), withoutTime(viaSingle.body), "equal to the single search with the same scoped key");
  t.equal(s.body.results[0].hits.length, 4, "the embedded per_page wins over the search's");
  t.ok(s.body.results[0].hits.every((h: { document: { country: string } }) => h.document.country === "GB"), "the embedded filter applies");
  t.equal(s.body.results[1].found, 0, "the embedded filter is ANDed with the search's (GB && DE)");
  const gb = (await boot(searchPath("lei", { q: "*", filter_by: "country:GB" }))).body.found;
  t.equal(s.body.results[2].found, gb, "a scoped key carried in the body works too");
  const scopedExport = await call("/collections/lei/documents/export", { key: scoped });
  t.equal(scopedExport.status, 403, "a scoped key does not export");
});

t.test("POST /multi_search: malformed bodies and limits", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["bad JSON", "{\"searches\": [", /Bad JSON/],
    ["empty body", "", /Bad JSON/],
    ["no searches", "{}", /searches/],
    ["searches an object", "{\"searches\": {}}", /searches/],
    ["searches a string", "{\"searches\": \"x\"}", /searches/],
    ["null", "null", /searches/],
    ["an array body", "[{\"collection\": \"lei\", \"q\": \"*\"}]", /searches/],
    ["a number in searches", "{\"searches\": [1]}", /object/],
    ["null in searches", "{\"searches\": [null]}", /object/],
    ["an array in searches", "{\"searches\": [[]]}", /object/],
    ["a bad item after a good one", "{\"searches\": [{\"collection\": \"lei\", \"q\": \"*\"}, \"x\"]}", /object/],
  ];
  for (const [label, raw, message] of cases) {
    const r = await boot("/multi_search", { method: "POST", rawBody: raw });
    t.equal(r.status, 400, `${label} -> 400`);
    t.match(r.body, { message }, `${label}: {message}`);
  }
  const one = { collection: "lei", q: "*", per_page: 1 };
  const fifty = await multi({ searches: Array.from({ length: 50 }, () => one) });
  t.equal(fifty.status, 200, "50 searches are allowed");
  t.equal(fifty.body.results.length, 50);
  const fiftyOne = await multi({ searches: Array.from({ length: 51 }, () => one) });
  t.equal(fiftyOne.status, 400, "51 searches -> 400");
  t.match(fiftyOne.body, { message: /50/ });
  const huge = await boot("/multi_search", { method: "POST", rawBody: JSON.stringify({ searches: [{ collection: "lei", q: "x".repeat(70_000) }] }) });
  t.equal(huge.status, 413, "a body over 64 KiB -> 413, as PUT /presets or POST /keys answer");
  t.equal((await boot("/health")).status, 200, "the server still answers");
});

// ------------------------------------------------------------------------------ 2. export

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
  for (const l of lines) { try { docs.push(JSON.parse(l) as Entity); } catch { unparsable++; } }
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
      if (pub.status !== 200 || JSON.stringify(pub.body) !== JSON.stringify(JSON.parse(line))) mismatches.push(`${lei}: ${pub.status} ${pub.text.slice(0, 200)}`);
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
    const got = exportLines(r.text).map((l) => (JSON.parse(l) as Entity).lei).sort();
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

// ------------------------------------------------------------------------------ 4. num_typos and prefix

t.test("num_typos: a one-typo word is found by default and with 1 or 2, not with 0", async (t) => {
  const find = async (params: Params): Promise<boolean> => {
    const r = await boot(searchPath("lei", params));
    if (r.status !== 200) throw new Error(`${qs(params)} -> ${r.status} ${r.text}`);
    return leisOf(r.body).includes(SEYMOUR.lei);
  };
  t.ok(await find({ q: "seymour", query_by: "legalName", num_typos: 0 }), "the word itself with num_typos=0");
  t.ok(await find({ q: "seymoor", query_by: "legalName" }), "'seymoor' (one substitution) by default");
  t.ok(await find({ q: "seymoor", query_by: "legalName", num_typos: 1 }), "with num_typos=1");
  t.ok(await find({ q: "seymoor", query_by: "legalName", num_typos: 2 }), "with num_typos=2");
  t.notOk(await find({ q: "seymoor", query_by: "legalName", num_typos: 0 }), "not with num_typos=0");
  t.notOk(await find({ q: "seymoor", num_typos: 0 }), "not with num_typos=0 over all fields either");
  t.ok(await find({ q: "SEYMOOR", query_by: "legalName", num_typos: "1" }), "upper case, one typo");
  t.ok(await find({ q: "seymoor", query_by: "legalName,otherNames", num_typos: "0,1" }), "one value per field: the largest counts");
  t.ok(await find({ q: "seymoor", query_by: "legalName,otherNames", num_typos: " 1 , 0 " }), "spaces around the values");
  t.notOk(await find({ q: "seymoor", query_by: "legalName,otherNames", num_typos: "0,0" }), "0,0 -> no typos");
  t.ok(await find({ q: "seymoor distribution", query_by: "legalName" }), "the typo word with a second word, by default");
  t.equal((await boot(searchPath("lei", { q: "seymoor", query_by: "legalName", num_typos: 0 }))).body.found, 0, "num_typos=0: nothing at all");

  for (const bad of ["3", "-1", "x", "", "1,", "1,3", "1.0", "01", "one", "true"]) {
    const r = await boot(searchPath("lei", { q: "seymoor", num_typos: bad }));
    t.equal(r.status, 400, `num_typos=${JSON.stringify(bad)} -> 400`);
    t.match(r.body, { message: /num_typos/ });
  }
});

t.test("prefix: a truncated word prefix-matches by default, not with prefix=false", async (t) => {
  const found = async (params: Params): Promise<string[]> => {
    const r = await boot(searchPath("lei", params));
    if (r.status !== 200) throw new Error(`${qs(params)} -> ${r.status} ${r.text}`);
    return leisOf(r.body);
  };
  const divestix = DIVESTIX.map((d) => d.lei).sort();
  t.same((await found({ q: "Divest", query_by: "legalName" })).sort(), divestix, "'Divest' finds both Divestix entities by default");
  t.same((await found({ q: "Divest", query_by: "legalName", prefix: "true" })).sort(), divestix, "and with prefix=true");
  t.same(await found({ q: "Divest", query_by: "legalName", prefix: "false" }), [], "not with prefix=false");
  t.same(await found({ q: "Divest", prefix: "false" }), [], "not with prefix=false over all fields");
  t.same((await found({ q: "Divest", query_by: "legalName,otherNames", prefix: "false,true" })).sort(), divestix, "one value per field: any true allows it");
  t.same(await found({ q: "Divest", query_by: "legalName,otherNames", prefix: "false, false" }), [], "false,false");
  t.same(await found({ q: "divestix", query_by: "legalName", prefix: "false" }).then((l) => l.sort()), divestix, "the whole word still matches with prefix=false");
  // a one-letter truncation is also one typo away: prefix=false alone still finds it, with num_typos=0 not
  t.ok((await found({ q: "seymou", query_by: "legalName", prefix: "false" })).includes(SEYMOUR.lei), "'seymou' with prefix=false: one typo away");
  t.notOk((await found({ q: "seymou", query_by: "legalName", prefix: "false", num_typos: 0 })).includes(SEYMOUR.lei), "'seymou' with prefix=false and num_typos=0: not found");
  t.ok((await found({ q: "seymou", query_by: "legalName", num_typos: 0 })).includes(SEYMOUR.lei), "'seymou' by prefix with num_typos=0");

  for (const bad of ["yes", "1", "0", "", "true,maybe", "TRUE "]) {
    const r = await boot(searchPath("lei", { q: "Divest", prefix: bad }));
    t.equal(r.status, 400, `prefix=${JSON.stringify(bad)} -> 400`);
    t.match(r.body, { message: /prefix/ });
  }
});

// ------------------------------------------------------------------------------ 3. synonyms, presets, stopwords

/** PUTs each bad body to `path`: a 400 with {message} for each (a 413 for `tooLarge`), and nothing stored after. */
async function refusesBodies(t: Test, path: string, bodies: [string, string][], tooLarge?: unknown): Promise<void> {
  for (const [label, raw] of bodies) {
    const r = await boot(path, { method: "PUT", rawBody: raw });
    t.equal(r.status, 400, `${label} -> 400`);
    t.match(r.body, { message: String }, `${label}: {message}`);
  }
  if (tooLarge !== undefined) t.equal((await boot(path, { method: "PUT", rawBody: JSON.stringify(tooLarge) })).status, 413, "a body over 64 KiB -> 413");
  t.equal((await boot(path)).status, 404, "nothing was stored by the refused bodies");
}

t.test("synonyms: PUT, GET, list, DELETE in Typesense's shapes; 404s; 400s on bad ids and bodies", async (t) => {
  const base = "/collections/lei/synonyms";
  t.same((await boot(base)).body, { synonyms: [] }, "none at first: {synonyms: []}");
  const put = await boot(`${base}/coat-ish`, { method: "PUT", body: { synonyms: ["blazer", "coat", "jacket"] } });
  t.equal(put.status, 200);
  t.same(put.body, { id: "coat-ish", synonyms: ["blazer", "coat", "jacket"] }, "PUT answers the rule with its id");
  const oneWay = await boot(`${base}/one.way_1`, { method: "PUT", body: { root: "smart phone", synonyms: ["iphone", "android"], locale: "", symbols_to_index: [] } });
  t.equal(oneWay.status, 200, "Typesense's optional fields are accepted");
  t.same(oneWay.body, { id: "one.way_1", synonyms: ["iphone", "android"], root: "smart phone" });
  t.same((await boot(`${base}/coat-ish`)).body, put.body, "GET one");
  t.same((await boot(`/collections/${LIVE}/synonyms/coat-ish`)).body, put.body, "by the live name too (synonyms belong to the alias)");
  const again = await boot(`${base}/coat-ish`, { method: "PUT", body: { synonyms: ["blazer", "coat"] } });
  t.same(again.body, { id: "coat-ish", synonyms: ["blazer", "coat"] }, "PUT again replaces");
  const list = await boot(base);
  t.equal(list.status, 200);
  t.same(new Map((list.body.synonyms as { id: string }[]).map((s) => [s.id, s])), new Map([["coat-ish", again.body], ["one.way_1", oneWay.body]]), "{synonyms: [...]} holds each rule once, as last put");
  const longId = "a".repeat(128);
  t.equal((await boot(`${base}/${longId}`, { method: "PUT", body: { synonyms: ["x", "y"] } })).status, 200, "a 128-character id");

  for (const id of ["coat-ish", "one.way_1", longId]) {
    const del = await boot(`${base}/${id}`, { method: "DELETE" });
    t.equal(del.status, 200);
    t.same(del.body, { id }, "DELETE answers {id}");
  }
  t.equal((await boot(`${base}/coat-ish`)).status, 404, "GET deleted -> 404");
  t.match((await boot(`${base}/coat-ish`)).body, { message: String });
  t.equal((await boot(`${base}/coat-ish`, { method: "DELETE" })).status, 404, "DELETE again -> 404");
  t.equal((await boot(`${base}/never-there`)).status, 404, "unknown id -> 404");
  t.same((await boot(base)).body, { synonyms: [] }, "the list is empty again");
  t.equal((await boot("/collections/no_such_collection/synonyms")).status, 404, "unknown collection -> 404");
  t.equal((await boot("/collections/no_such_collection/synonyms/x", { method: "PUT", body: { synonyms: ["a", "b"] } })).status, 404);

  for (const id of ["a".repeat(129), "bad%20id", "caf%C3%A9", "semi%3Bcolon", "%2E%2E%2Fx"]) {
    const r = await boot(`${base}/${id}`, { method: "PUT", body: { synonyms: ["a", "b"] } });
    t.equal(r.status, 400, `PUT id ${id.slice(0, 20)} -> 400`);
    t.equal((await boot(`${base}/${id}`)).status, 400, `GET id ${id.slice(0, 20)} -> 400`);
  }

  const bodies: [string, string][] = [
    ["bad JSON", "{\"synonyms\": ["],
    ["empty body", ""],
    ["null", "null"],
    ["an array", "[\"ltd\", \"limited\"]"],
    ["a string", "\"ltd\""],
    ["no synonyms", "{}"],
    ["synonyms a string", "{\"synonyms\": \"ltd,limited\"}"],
    ["synonyms empty", "{\"synonyms\": []}"],
    ["a number in synonyms", "{\"synonyms\": [\"ltd\", 5]}"],
    ["an empty phrase", "{\"synonyms\": [\"ltd\", \"\"]}"],
    ["a phrase of 201 characters", JSON.stringify({ synonyms: ["ltd", "x".repeat(201)] })],
    ["51 phrases", JSON.stringify({ synonyms: Array.from({ length: 51 }, (_, i) => `w${i}`) })],
    ["an unknown field", "{\"synonyms\": [\"ltd\", \"limited\"], \"bogus\": 1}"],
    ["root empty", "{\"synonyms\": [\"ltd\"], \"root\": \"\"}"],
    ["root a number", "{\"synonyms\": [\"ltd\"], \"root\": 5}"],
    ["root an array", "{\"synonyms\": [\"ltd\"], \"root\": [\"limited\"]}"],
  ];
  await refusesBodies(t, `${base}/bad-body`, bodies, { synonyms: ["a", "b".repeat(70_000)] });
});

t.test("presets: PUT, GET, list, DELETE; 404s; 400s", async (t) => {
  t.same((await boot("/presets")).body, { presets: [] }, "none at first");
  const value = { query_by: "legalName", per_page: 3, prefix: false };
  const put = await boot("/presets/compact_v1", { method: "PUT", body: { value } });
  t.equal(put.status, 200);
  t.same(put.body, { name: "compact_v1", value }, "PUT answers {name, value}");
  const named = await boot("/presets/other", { method: "PUT", body: { value: { q: "*" }, name: "ignored-name" } });
  t.same(named.body, { name: "other", value: { q: "*" } }, "the name is the path's");
  t.same((await boot("/presets/compact_v1")).body, put.body, "GET one");
  const list = await boot("/presets");
  t.same(new Map((list.body.presets as { name: string }[]).map((p) => [p.name, p])), new Map([["compact_v1", put.body], ["other", named.body]]), "{presets: [...]}");
  const del = await boot("/presets/other", { method: "DELETE" });
  t.same([del.status, del.body], [200, { name: "other" }], "DELETE answers {name}");
  t.equal((await boot("/presets/other")).status, 404, "GET deleted -> 404");
  t.equal((await boot("/presets/other", { method: "DELETE" })).status, 404, "DELETE again -> 404");
  t.match((await boot("/presets/never")).body, { message: String });
  t.equal((await boot("/presets/bad%20name", { method: "PUT", body: { value } })).status, 400, "a bad name -> 400");
  t.equal((await boot(`/presets/${"p".repeat(129)}`)).status, 400, "a 129-character name -> 400");

  const bodies: [string, string][] = [
    ["bad JSON", "{\"value\": {"],
    ["empty body", ""],
    ["null", "null"],
    ["no value", "{}"],
    ["value a string", "{\"value\": \"q=*\"}"],
    ["value an array", "{\"value\": [\"q\", \"*\"]}"],
    ["value null", "{\"value\": null}"],
    ["a null parameter", "{\"value\": {\"per_page\": null}}"],
    ["a nested parameter", "{\"value\": {\"query_by\": {\"a\": 1}}}"],
    ["an array parameter", "{\"value\": {\"query_by\": [\"legalName\"]}}"],
    ["an unknown field", "{\"value\": {}, \"searches\": []}"],
    ["name a number", "{\"value\": {}, \"name\": 5}"],
  ];
  await refusesBodies(t, "/presets/bad-body", bodies);
});

t.test("stopwords: PUT, GET one as {stopwords: {id, stopwords}}, list, DELETE; 404s; 400s", async (t) => {
  t.same((await boot("/stopwords")).body, { stopwords: [] }, "none at first");
  const put = await boot("/stopwords/en-basic", { method: "PUT", body: { stopwords: ["the", "of", "AND"], locale: "en" } });
  t.equal(put.status, 200);
  t.same(put.body, { id: "en-basic", stopwords: ["the", "of", "AND"], locale: "en" }, "PUT answers the set");
  const other = await boot("/stopwords/x.1", { method: "PUT", body: { stopwords: ["gmbh"] } });
  t.same(other.body, { id: "x.1", stopwords: ["gmbh"] }, "locale is optional");
  t.same((await boot("/stopwords/en-basic")).body, { stopwords: { id: "en-basic", stopwords: ["the", "of", "AND"], locale: "en" } }, "GET one: {stopwords: {id, stopwords, locale}}");
  t.same((await boot("/stopwords/x.1")).body, { stopwords: { id: "x.1", stopwords: ["gmbh"] } });
  const list = await boot("/stopwords");
  t.same(new Map((list.body.stopwords as { id: string }[]).map((s) => [s.id, s])), new Map([["en-basic", put.body], ["x.1", other.body]]), "{stopwords: [...]}");
  const del = await boot("/stopwords/x.1", { method: "DELETE" });
  t.same([del.status, del.body], [200, { id: "x.1" }], "DELETE answers {id}");
  t.equal((await boot("/stopwords/x.1")).status, 404);
  t.match((await boot("/stopwords/x.1")).body, { message: /x\.1/ });
  t.equal((await boot("/stopwords/x.1", { method: "DELETE" })).status, 404);
  t.equal((await boot("/stopwords/a%2Fb")).status, 400, "a bad name -> 400");

  const bodies: [string, string][] = [
    ["bad JSON", "{\"stopwords\": "],
    ["empty body", ""],
    ["no stopwords", "{}"],
    ["stopwords empty", "{\"stopwords\": []}"],
    ["stopwords a string", "{\"stopwords\": \"the\"}"],
    ["a number", "{\"stopwords\": [\"the\", 1]}"],
    ["an empty word", "{\"stopwords\": [\"\"]}"],
    ["an unknown field", "{\"stopwords\": [\"the\"], \"bogus\": true}"],
    ["locale a number", "{\"stopwords\": [\"the\"], \"locale\": 5}"],
    ["an array body", "[\"the\"]"],
  ];
  await refusesBodies(t, "/stopwords/bad-body", bodies);
});

t.test("synonyms, presets and stopwords need their actions", async (t) => {
  const synAll = await mkKey(["synonyms:*"], ["lei"]);
  const synOther = await mkKey(["synonyms:*"], ["some_other_collection"]);
  const synGet = await mkKey(["synonyms:get"], ["lei"]);
  const preAll = await mkKey(["presets:*"]);
  const preGet = await mkKey(["presets:get"]);
  const stopAll = await mkKey(["stopwords:*"]);
  const search = await mkKey(["documents:search"], ["lei"]);
  const rule = { synonyms: ["aa", "bb"] };

  const as = (key: CreatedKey, path: string, method = "GET", body?: unknown) => call(path, { key: key.value, method, ...(body ? { body } : {}) });
  t.equal((await as(synAll, "/collections/lei/synonyms/k1", "PUT", rule)).status, 200, "synonyms:* may PUT");
  t.equal((await as(synAll, "/collections/lei/synonyms/k1")).status, 200, "and GET");
  t.equal((await as(synAll, "/collections/lei/synonyms")).status, 200, "and list");
  t.equal((await as(synGet, "/collections/lei/synonyms/k1")).status, 200, "synonyms:get may GET");
  t.equal((await as(synGet, "/collections/lei/synonyms/k1", "PUT", rule)).status, 403, "synonyms:get may not PUT");
  t.equal((await as(synGet, "/collections/lei/synonyms/k1", "DELETE")).status, 403, "nor DELETE");
  t.equal((await as(synOther, "/collections/lei/synonyms")).status, 403, "synonyms:* on another collection -> 403");
  t.equal((await as(synOther, "/collections/lei/synonyms/k2", "PUT", rule)).status, 403);
  t.equal((await as(search, "/collections/lei/synonyms/k2", "PUT", rule)).status, 403, "documents:search may not PUT synonyms");
  t.equal((await as(search, "/collections/lei/synonyms")).status, 403, "nor list them");
  t.equal((await as(preAll, "/collections/lei/synonyms")).status, 403, "presets:* is not synonyms");
  t.equal((await as(synAll, "/collections/lei/synonyms/k1", "DELETE")).status, 200, "synonyms:* may DELETE");

  t.equal((await as(preAll, "/presets/p1", "PUT", { value: { per_page: 2 } })).status, 200, "presets:* may PUT");
  t.equal((await as(preAll, "/presets")).status, 200, "and list");
  t.equal((await as(preGet, "/presets/p1")).status, 200, "presets:get may GET");
  t.equal((await as(preGet, "/presets/p1", "PUT", { value: {} })).status, 403, "presets:get may not PUT");
  t.equal((await as(preGet, "/presets/p1", "DELETE")).status, 403, "nor DELETE");
  t.equal((await as(preGet, "/presets")).status, 403, "nor list (presets:list)");
  t.equal((await as(synAll, "/presets/p1")).status, 403, "synonyms:* is not presets");
  t.equal((await as(search, "/presets/p2", "PUT", { value: {} })).status, 403, "documents:search may not PUT presets");
  t.equal((await as(preAll, "/presets/p1", "DELETE")).status, 200);

  t.equal((await as(stopAll, "/stopwords/s1", "PUT", { stopwords: ["the"] })).status, 200, "stopwords:* may PUT");
  t.equal((await as(stopAll, "/stopwords/s1")).status, 200, "and GET");
  t.equal((await as(stopAll, "/stopwords")).status, 200, "and list");
  t.equal((await as(preAll, "/stopwords")).status, 403, "presets:* is not stopwords");
  t.equal((await as(search, "/stopwords/s2", "PUT", { stopwords: ["the"] })).status, 403, "documents:search may not PUT stopwords");
  t.equal((await as(stopAll, "/presets")).status, 403, "stopwords:* is not presets");
  t.equal((await as(stopAll, "/stopwords/s1", "DELETE")).status, 200);

  for (const [method, path] of [["GET", "/collections/lei/synonyms"], ["PUT", "/collections/lei/synonyms/z"], ["GET", "/presets"], ["PUT", "/presets/z"], ["GET", "/stopwords"], ["DELETE", "/stopwords/z"]]) {
    const r = await bad(path, { method, ...(method === "PUT" ? { body: { synonyms: ["a", "b"], value: {}, stopwords: ["a"] } } : {}) });
    t.equal(r.status, 401, `${method} ${path} without a key -> 401`);
  }
  t.same([(await boot("/collections/lei/synonyms/k1")).status, (await boot("/presets/p1")).status, (await boot("/stopwords/s1")).status], [404, 404, 404], "deleted by the keys that could");
  t.same([(await boot("/collections/lei/synonyms/k2")).status, (await boot("/presets/p2")).status, (await boot("/stopwords/s2")).status], [404, 404, 404], "nothing stored by refused requests");
});

const top = async (q: string, n = 10, extra: Params = {}): Promise<string[]> => {
  const r = await boot(searchPath("lei", { q, query_by: "legalName", per_page: n, ...extra }));
  if (r.status !== 200) throw new Error(`search ${q} -> ${r.status} ${r.text}`);
  return leisOf(r.body);
};

t.test("synonym effects: multi-way ltd⇔limited, one-way rules in one direction only", async (t) => {
  const syn = "/collections/lei/synonyms/ltd-limited";
  // without any rule
  const alfordNone = await top("Alford International Holdings ltd");
  t.not(alfordNone[0], ALFORD_LIMITED.lei, "without the synonym, 'Alford International Holdings ltd' does not rank the Limited one first");
  t.ok(alfordNone.includes(ALFORD_LIMITED.lei), "(though it is found)");
  t.notOk((await top("SATS limited", 3)).includes(SATS.lei), "without the synonym, 'SATS limited' does not have SATS LTD. in the top 3");
  t.not((await top("Divestix Capital limited"))[0], DIVESTIX[1].lei, "without the synonym, 'Divestix Capital limited' does not rank Divestix Capital Ltd first");

  t.equal((await boot(syn, { method: "PUT", body: { synonyms: ["ltd", "limited"] } })).status, 200);
  t.equal((await top("Alford International Holdings ltd"))[0], ALFORD_LIMITED.lei, "with it, the exact name (Limited) ranks first for '... ltd'");
  t.ok((await top("SATS limited", 3)).includes(SATS.lei), "with it, 'SATS limited' has SATS LTD. in the top 3");
  t.equal((await top("Divestix Capital limited"))[0], DIVESTIX[1].lei, "with it, 'Divestix Capital limited' ranks Divestix Capital Ltd first");
  t.equal((await top("alford   INTERNATIONAL holdings LTD"))[0], ALFORD_LIMITED.lei, "case and extra spaces in q do not matter");
  const viaMulti = await multi({ searches: [{ collection: "lei", q: "SATS limited", query_by: "legalName", per_page: 3 }] });
  t.ok(leisOf(viaMulti.body.results[0]).includes(SATS.lei), "synonyms apply in multi_search too");
  const viaLive = await boot(searchPath(LIVE, { q: "SATS limited", query_by: "legalName", per_page: 3 }));
  t.ok(leisOf(viaLive.body).includes(SATS.lei), "and by the live collection's name");
  const merged = await boot(searchPath("lei", { q: "SATS limited", query_by: "legalName", per_page: 50 }));
  t.equal(new Set(leisOf(merged.body)).size, merged.body.hits.length, "merged variants: each LEI once");
  const twenty = leisOf((await boot(searchPath("lei", { q: "ltd", query_by: "legalName", per_page: 20 }))).body);
  const second = await boot(searchPath("lei", { q: "ltd", query_by: "legalName", per_page: 10, page: 2 }));
  t.equal(twenty.length, 20, "(the merged variants fill two pages of 10)");
  t.same(leisOf(second.body), twenty.slice(10), "merged variants are paged after merging: page 2 of 10 is hits 11-20");

  // one-way: root "limited" -> "ltd" applies to a query with "limited" only
  t.equal((await boot(syn, { method: "PUT", body: { root: "limited", synonyms: ["ltd"] } })).status, 200);
  t.ok((await top("SATS limited", 3)).includes(SATS.lei), "root limited: 'SATS limited' also searches 'SATS ltd'");
  t.not((await top("Alford International Holdings ltd"))[0], ALFORD_LIMITED.lei, "root limited: 'ltd' is not rewritten to 'limited'");
  // and the other way round
  t.equal((await boot(syn, { method: "PUT", body: { root: "ltd", synonyms: ["limited"] } })).status, 200);
  t.equal((await top("Alford International Holdings ltd"))[0], ALFORD_LIMITED.lei, "root ltd: '... ltd' also searches '... limited'");
  t.notOk((await top("SATS limited", 3)).includes(SATS.lei), "root ltd: 'limited' is not rewritten to 'ltd'");

  // a multi-word phrase
  t.equal((await boot(syn, { method: "DELETE" })).status, 200);
  const pvt = "/collections/lei/synonyms/pvt";
  t.notOk((await top("KODAK INDIA pvt ltd")).includes(KODAK.lei), "without a rule, 'KODAK INDIA pvt ltd' misses KODAK INDIA PRIVATE LIMITED in the top 10");
  t.equal((await boot(pvt, { method: "PUT", body: { synonyms: ["pvt ltd", "Private  Limited"] } })).status, 200);
  t.equal((await top("KODAK INDIA pvt ltd"))[0], KODAK.lei, "with {pvt ltd, Private  Limited}, the two-word phrase is replaced as a whole: first");
  t.equal((await top("kodak india PVT LTD"))[0], KODAK.lei, "whatever the case of q");
  t.equal((await boot(pvt, { method: "DELETE" })).status, 200);
  t.notOk((await top("SATS limited", 3)).includes(SATS.lei), "rules deleted: back to the plain search");
});

t.test("preset effects: fills missing parameters, the request's own win; unknown preset 404", async (t) => {
  t.equal((await boot("/presets/compact", { method: "PUT", body: { value: { query_by: "legalName", per_page: 3, prefix: false } } })).status, 200);
  const body = async (params: Params, init: KeyedInit = {}): Promise<KeyedResponse> => boot(searchPath("lei", params), init);

  const withPreset = await body({ q: "bank", preset: "compact" });
  const explicit = await body({ q: "bank", query_by: "legalName", per_page: 3, prefix: "false" });
  t.equal(withPreset.status, 200);
  t.same(leisOf(withPreset.body), leisOf(explicit.body), "preset=compact equals query_by=legalName&per_page=3&prefix=false");
  t.equal(withPreset.body.hits.length, 3, "per_page from the preset (a JSON number)");
  t.equal(withPreset.body.found, explicit.body.found);
  t.equal((await body({ q: "Divest", preset: "compact" })).body.found, 0, "prefix=false from the preset (a JSON boolean)");

  const own = await body({ q: "bank", preset: "compact", per_page: 7 });
  t.equal(own.body.hits.length, 7, "the request's per_page wins");
  t.same(leisOf(own.body), leisOf((await body({ q: "bank", query_by: "legalName", per_page: 7, prefix: "false" })).body));
  t.same(leisOf((await body({ q: "Divest", preset: "compact", prefix: "true" })).body).sort(), DIVESTIX.map((d) => d.lei).sort(), "the request's prefix wins");
  const allFields = await body({ q: "bank", preset: "compact", query_by: "legalName,legalAddress" });
  t.same(leisOf(allFields.body), leisOf((await body({ q: "bank", query_by: "legalName,legalAddress", per_page: 3, prefix: "false" })).body), "the request's query_by wins");

  const parent = await mkKey(["documents:search"], ["lei"]);
  const scoped = scopedToken(parent.value, JSON.stringify({ per_page: 2 }));
  t.equal((await call(searchPath("lei", { q: "bank", preset: "compact" }), { key: scoped })).body.hits.length, 2, "a scoped key's embedded per_page wins over the preset");

  const unknown = await body({ q: "bank", preset: "no-such-preset" });
  t.equal(unknown.status, 404, "unknown preset -> 404");
  t.match(unknown.body, { message: /no-such-preset/ });

  // a preset may hold any search parameter, stopwords included (Typesense)
  t.equal((await boot("/stopwords/preset-sw", { method: "PUT", body: { stopwords: ["the", "of"] } })).status, 200);
  t.equal((await boot("/presets/with-stopwords", { method: "PUT", body: { value: { query_by: "legalName", stopwords: "preset-sw" } } })).status, 200);
  const viaPreset = await body({ q: "the bank of cyprus", preset: "with-stopwords", per_page: 20 });
  const withoutStopwords = await body({ q: "bank cyprus", query_by: "legalName", per_page: 20 });
  const withStopwordsKept = await body({ q: "the bank of cyprus", query_by: "legalName", per_page: 20 });
  t.equal(viaPreset.status, 200);
  const hitsOf = (r: KeyedResponse): { found: number; leis: string[] } => ({ found: r.body.found, leis: leisOf(r.body) });
  t.notSame(hitsOf(withStopwordsKept), hitsOf(withoutStopwords), "the words 'the' and 'of' change the hits when kept");
  t.same(hitsOf(viaPreset), hitsOf(withoutStopwords), "a preset naming a stopword set applies it: the same hits as 'bank cyprus'");
  await boot("/presets/with-stopwords", { method: "DELETE" });
  await boot("/stopwords/preset-sw", { method: "DELETE" });
});

t.test("stopword effects: the words leave q (same hits as without them); unknown set 404", async (t) => {
  t.equal((await boot("/stopwords/en-basic", { method: "PUT", body: { stopwords: ["the", "OF", "and"] } })).status, 200);
  const ids = async (params: Params): Promise<{ found: number; leis: string[] }> => {
    const r = await boot(searchPath("lei", { query_by: "legalName", per_page: 20, ...params }));
    if (r.status !== 200) throw new Error(`${qs(params)} -> ${r.status} ${r.text}`);
    return { found: r.body.found, leis: leisOf(r.body) };
  };
  const plain = await ids({ q: "bank cyprus" });
  const raw = await ids({ q: "the bank of cyprus" });
  t.notSame(raw, plain, "without stopwords the words matter ('the bank of cyprus' differs from 'bank cyprus')");
  t.same(await ids({ q: "the bank of cyprus", stopwords: "en-basic" }), plain, "with stopwords=en-basic: the same hits as 'bank cyprus'");
  t.same(await ids({ q: "  THE   Bank OF cyprus ", stopwords: "en-basic" }), plain, "case-insensitive, extra spaces");
  t.same(await ids({ q: "hospice of the bluegrass", stopwords: "en-basic" }), await ids({ q: "hospice bluegrass" }), "another query");
  const only = await boot(searchPath("lei", { q: "the of", query_by: "legalName", stopwords: "en-basic" }));
  t.equal(only.status, 200, "a q of stopwords only is not an error");
  const multiR = await multi({ searches: [{ collection: "lei", q: "the bank of cyprus", query_by: "legalName", per_page: 20, stopwords: "en-basic" }] });
  t.same({ found: multiR.body.results[0].found, leis: leisOf(multiR.body.results[0]) }, plain, "stopwords apply in multi_search");
  const star = await boot(searchPath("lei", { q: "*", stopwords: "en-basic" }));
  t.equal(star.body.found, TOTAL, "q=* with stopwords");
  const unknown = await boot(searchPath("lei", { q: "the bank", stopwords: "no-such-set" }));
  t.equal(unknown.status, 404, "unknown stopword set -> 404");
  t.match(unknown.body, { message: /no-such-set/ });
});

t.test("synonyms, presets and stopwords persist across a restart with the same data dir", async (t) => {
  t.equal((await boot("/collections/lei/synonyms/ltd-limited", { method: "PUT", body: { synonyms: ["ltd", "limited"] } })).status, 200);
  t.equal((await boot("/presets/gone", { method: "PUT", body: { value: { per_page: 1 } } })).status, 200);
  t.equal((await boot("/presets/gone", { method: "DELETE" })).status, 200);
  const before = {
    synonyms: (await boot("/collections/lei/synonyms")).body,
    presets: (await boot("/presets")).body,
    stopwords: (await boot("/stopwords")).body,
  };
  t.ok(before.synonyms.synonyms.length === 1 && before.presets.presets.length >= 1 && before.stopwords.stopwords.length >= 1, "something of each kind is stored");

  const dataDir = srv.dataDir;
  t.equal(await srv.stop(), 0, "the server stops cleanly");
  srv = await startServer(t, { args: ["--api-key", KEY], dataDir });
  t.same({
    synonyms: (await boot("/collections/lei/synonyms")).body,
    presets: (await boot("/presets")).body,
    stopwords: (await boot("/stopwords")).body,
  }, before, "the same synonyms, presets and stopwords after the restart");
  t.equal((await boot("/presets/gone")).status, 404, "a deleted preset stays deleted");
  t.same((await boot("/stopwords/en-basic")).body, { stopwords: { id: "en-basic", stopwords: ["the", "OF", "and"] } });
  t.ok((await top("SATS limited", 3)).includes(SATS.lei), "the synonym still applies");
  t.equal((await boot(searchPath("lei", { q: "bank", preset: "compact" }))).body.hits.length, 3, "the preset still applies");
  t.same(leisOf((await boot(searchPath("lei", { q: "the bank of cyprus", query_by: "legalName", stopwords: "en-basic" }))).body),
    leisOf((await boot(searchPath("lei", { q: "bank cyprus", query_by: "legalName" }))).body), "the stopwords still apply");
  await boot("/collections/lei/synonyms/ltd-limited", { method: "DELETE" });
});

// ------------------------------------------------------------------------------ 5. import

t.test("POST /collections/lei/documents/import: a golden copy uploaded becomes the live collection", async (t) => {
  const server = await startServer(t, { args: ["--api-key", KEY], dataDir: tempDir(t, "leidex-import-") });
  let b: RunningServer = server;
  const req = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => keyedRequest(b.port, path, { key: KEY, ...init });
  const anon = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => keyedRequest(b.port, path, { localAddress: BAD_IP, ...init });
  const upload = (body: Buffer | string, init: KeyedInit = {}, path = "/collections/lei/documents/import"): Promise<KeyedResponse> =>
    req(path, { method: "POST", rawBody: body, headers: { "content-type": "text/csv" }, ...init });
  const records = async (): Promise<number> => (await req("/v1/stats")).body?.records;

  const synthetic = importSynthetics();
  const csv = goldenCopyCsv(200, synthetic);
  const small = goldenCopyCsv(100, synthetic, { eol: "\r\n", bom: true });
  const model = new Map(csv.rows.map((r) => { const m = mapRow(csv.header, r); return [m.entity.lei, m.entity]; }));
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
    const badLeis = goldenCopyCsv(0, synthetic.map((s) => ({ ...s, lei: s.lei.toLowerCase() }))).text;
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
    const searchKey = (await req("/keys", { method: "POST", body: { actions: ["documents:search", "documents:export"], collections: [] } })).body.value as string;
    const forbidden = await upload(csv.text, { key: searchKey });
    t.equal(forbidden.status, 403, "without documents:import -> 403");
    t.match(forbidden.body, { message: /documents:import/ });
    const otherColl = (await req("/keys", { method: "POST", body: { actions: ["documents:import"], collections: ["some_other_collection"] } })).body.value as string;
    t.equal((await upload(csv.text, { key: otherColl })).status, 403, "documents:import on another collection -> 403");
    t.equal((await upload(csv.text, {}, "/collections/no_such_collection/documents/import")).status, 404, "unknown collection -> 404");
    t.same(uploadFiles(b.dataDir), kept, "none of these wrote a file");
    t.equal(await records(), 205);

    const importer = (await req("/keys", { method: "POST", body: { actions: ["documents:import"], collections: ["lei"] } })).body.value as string;
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
    for (let i = 0; i < 20 && left.length !== kept.length; i++) { await new Promise((r) => setTimeout(r, 100)); left = uploadFiles(b.dataDir); }
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
    for (let i = 0; i < 20 && left.length !== kept.length; i++) { await new Promise((r) => setTimeout(r, 100)); left = uploadFiles(b.dataDir); }
    t.same(left, kept, "and nothing left written");
    t.equal(await records(), 205);

    const chunks = [0, 1, 2, 3].map((i) => body.subarray(Math.floor((i * body.length) / 4), Math.floor(((i + 1) * body.length) / 4)));
    const chunked = await chunkedPost(b.port, "/collections/lei/documents/import", { "x-typesense-api-key": KEY, "content-type": "text/csv" }, chunks, 20);
    t.equal(chunked.status, 200, `a chunked upload (no Content-Length) works: ${chunked.text}`);
    t.equal(chunked.body?.num_imported, 205);
    imported = chunked.body?.collection ?? imported;
    t.equal(uploadFiles(b.dataDir).length, 1, "one upload file kept");
  });

  await t.test("an upload still arriving when another import finishes is not lost", async (t) => {
    // upload A arrives slowly (chunked over ~1.2 s); upload B, sent meanwhile, is loaded first
    const slowBody = Buffer.from(goldenCopyCsv(150, synthetic).text, "utf8");
    const chunks = Array.from({ length: 6 }, (_, i) => slowBody.subarray(Math.floor((i * slowBody.length) / 6), Math.floor(((i + 1) * slowBody.length) / 6)));
    const slow = chunkedPost(b.port, "/collections/lei/documents/import?allow_shrink=true", { "x-typesense-api-key": KEY, "content-type": "text/csv" }, chunks, 200);
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
