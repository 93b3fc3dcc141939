// POST /multi_search on the keyed engine API: per-search and common parameters with each item
// equal to the single search, keys per search and scoped keys, and malformed bodies and limits.
//
// Requests meant to fail with 401 go out from 127.0.0.3, so 127.0.0.1 never meets the guessing
// guard.

import t from "tap";
import { randomBytes } from "node:crypto";
import { keyedApi, leisOf, scopedToken, searchPath, type KeyedInit } from "./helpers/keys.js";
import { SEYMOUR } from "./helpers/keyed-extras.js";
import { startServer, type Params } from "./helpers/server.js";

const KEY = `kx-boot-${randomBytes(12).toString("hex")}`;
const TOTAL = 6147;

const srv = await startServer(t, { args: ["--api-key", KEY] });
const { call, boot, bad, mkKeyFor: mkKey, multi } = keyedApi(() => srv.port, KEY);

const withoutTime = (body: Record<string, unknown>): Record<string, unknown> => {
  const { search_time_ms: _t, ...rest } = body;
  return rest;
};
/** A single search's answer in multi_search's item shape: the body without search_time_ms, or {code, error}. */
async function singleAsItem(collection: string, params: Params, init: KeyedInit = {}): Promise<Record<string, unknown>> {
  const r = await boot(searchPath(collection, params), init);
  return r.status === 200 ? withoutTime(r.body) : { code: r.status, error: r.body?.message };
}

const LIVE: string = (await boot("/collections/lei")).body?.name;

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
    { collection: "lei", q: '  Ärger "quoted" & 100% + más  ', query_by: "legalName" }, // ugly q
    { collection: "lei", q: "bank", page: 1.5 }, // not a whole number: this item only
    { collection: "lei", q: "*", filter_by: "country:GR && country:DE" }, // contradictory: empty
  ];
  const common = { query_by: "legalName", per_page: 3 };
  const r = await multi({ searches }, common);
  t.equal(r.status, 200);
  t.equal(r.body?.results?.length, searches.length, "one result per search, in order");
  const expected = await Promise.all(
    searches.map(async ({ collection, ...own }) => singleAsItem(collection, { ...common, ...own } as Params)),
  );
  for (let i = 0; i < searches.length; i++) {
    const got = r.body.results[i];
    t.same(
      got && "found" in got ? withoutTime(got) : got,
      expected[i],
      `search ${i} ${JSON.stringify(searches[i])} equals the single search`,
    );
  }
  t.match(r.body.results[2], { code: 404, error: /no_such_collection/ }, "an unknown collection is an item {code:404, error}");
  t.match(r.body.results[5], { code: 400, error: /\|\|/ }, "a refused filter is an item {code:400, error}");
  t.match(r.body.results[7], { code: 404, error: /no-such-preset/ }, "an unknown preset is an item {code:404}");
  t.match(r.body.results[9], { code: 400, error: /page/ });
  t.same(
    r.body.results[6].facet_counts[0].counts.map((c: { value: string }) => c.value).sort(),
    ["GB", "US"],
    "|| within one field: both values",
  );
  t.equal(r.body.results[0].hits.length, 3, "common per_page applies");
  t.equal(r.body.results[1].hits.length, 5, "the search's own per_page wins over the common one");
  t.equal(r.body.results[1].page, 2);
  t.ok(leisOf(r.body.results[3]).includes(SEYMOUR.lei), "num_typos given as a JSON number works");
  t.equal(r.body.results[4].found, 0, "prefix given as a JSON boolean false works");
  t.equal(r.body.results[10].found, 0);

  // the collection (and q) from the common query; an empty search object takes everything from there
  const common2 = { collection: "lei", q: "bank", query_by: "legalName", per_page: 2 };
  const r2 = await multi(
    { searches: [{}, { q: "seymour" }, { collection: LIVE, per_page: 4 }, { q: "*", filter_by: "country:GR" }] },
    common2,
  );
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

  const own = await call("/multi_search", {
    method: "POST",
    body: {
      searches: [
        { collection: "lei", q: "bank", "x-typesense-api-key": searchLei.value },
        { collection: "lei", q: "*", "x-search-api-key": searchLei.value },
      ],
    },
  });
  t.equal(own.status, 200, "no header key: each search's own key in the body is used");
  t.same(
    own.body.results.map((x: { found: number }) => x.found > 0),
    [true, true],
  );

  const refused = await multi(body([{ collection: "lei", q: "*", "x-typesense-api-key": searchOther.value }]));
  t.equal(
    refused.status,
    403,
    "a search's own key limited to another collection refuses the whole request, though the header key is the bootstrap key",
  );
  t.match(refused.body, { message: String });
  t.notOk(refused.body && "results" in refused.body, "no partial results");

  const ownWins = await call("/multi_search", {
    method: "POST",
    key: searchOther.value,
    body: { searches: [{ collection: "lei", q: "bank", "x-typesense-api-key": searchLei.value }] },
  });
  t.equal(ownWins.status, 200, "a search's own key wins over the header's");
  const headerOnly = await call("/multi_search", { method: "POST", key: searchOther.value, body: body([]) });
  t.equal(headerOnly.status, 403, "the header key limited to another collection is refused");

  const unknownOwn = await bad("/multi_search", {
    method: "POST",
    key: KEY,
    body: body([{ collection: "lei", q: "*", "x-typesense-api-key": `nope-${randomBytes(6).toString("hex")}` }]),
  });
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
  const s = await call("/multi_search", {
    method: "POST",
    key: scoped,
    body: {
      searches: [
        { collection: "lei", q: "limited", query_by: "legalName", per_page: 50 },
        { collection: "lei", q: "*", filter_by: "country:DE" },
        { collection: "lei", q: "*", "x-typesense-api-key": scoped },
      ],
    },
  });
  t.equal(s.status, 200, "a scoped key works with multi_search");
  const viaSingle = await call(searchPath("lei", { q: "limited", query_by: "legalName", per_page: 50 }), { key: scoped });
  t.same(withoutTime(s.body.results[0]), withoutTime(viaSingle.body), "equal to the single search with the same scoped key");
  t.equal(s.body.results[0].hits.length, 4, "the embedded per_page wins over the search's");
  t.ok(
    s.body.results[0].hits.every((h: { document: { country: string } }) => h.document.country === "GB"),
    "the embedded filter applies",
  );
  t.equal(s.body.results[1].found, 0, "the embedded filter is ANDed with the search's (GB && DE)");
  const gb = (await boot(searchPath("lei", { q: "*", filter_by: "country:GB" }))).body.found;
  t.equal(s.body.results[2].found, gb, "a scoped key carried in the body works too");
  const scopedExport = await call("/collections/lei/documents/export", { key: scoped });
  t.equal(scopedExport.status, 403, "a scoped key does not export");
});

t.test("POST /multi_search: malformed bodies and limits", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["bad JSON", '{"searches": [', /Bad JSON/],
    ["empty body", "", /Bad JSON/],
    ["no searches", "{}", /searches/],
    ["searches an object", '{"searches": {}}', /searches/],
    ["searches a string", '{"searches": "x"}', /searches/],
    ["null", "null", /searches/],
    ["an array body", '[{"collection": "lei", "q": "*"}]', /searches/],
    ["a number in searches", '{"searches": [1]}', /object/],
    ["null in searches", '{"searches": [null]}', /object/],
    ["an array in searches", '{"searches": [[]]}', /object/],
    ["a bad item after a good one", '{"searches": [{"collection": "lei", "q": "*"}, "x"]}', /object/],
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
  const huge = await boot("/multi_search", {
    method: "POST",
    rawBody: JSON.stringify({ searches: [{ collection: "lei", q: "x".repeat(70_000) }] }),
  });
  t.equal(huge.status, 413, "a body over 64 KiB -> 413, as PUT /presets or POST /keys answer");
  t.equal((await boot("/health")).status, 200, "the server still answers");
});
