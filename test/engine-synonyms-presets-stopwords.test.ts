// Synonyms, presets and stopwords on the keyed engine API, against a real server over HTTP: CRUD
// in Typesense's shapes, the actions they need, their effects on search (and multi_search), and
// persistence across a restart. One server: the effects and the restart use what the earlier
// tests stored.
//
// Requests meant to fail with 401 go out from 127.0.0.3, so 127.0.0.1 never meets the guessing
// guard.

import t, { type Test } from "tap";
import { randomBytes } from "node:crypto";
import { keyedApi, leisOf, scopedToken, searchPath, type CreatedKey, type KeyedInit, type KeyedResponse } from "./helpers/keys.js";
import { ALFORD_LIMITED, ALFORD_SARL, DIVESTIX, KODAK, SATS, SEYMOUR } from "./helpers/keyed-extras.js";
import { qs, startServer, type Params, type RunningServer } from "./helpers/server.js";

const KEY = `kx-boot-${randomBytes(12).toString("hex")}`;
const TOTAL = 6147;

let srv: RunningServer = await startServer(t, { args: ["--api-key", KEY] });
const { call, boot, bad, mkKeyFor: mkKey, multi } = keyedApi(() => srv.port, KEY);

const LIVE: string = (await boot("/collections/lei")).body?.name;

t.test("the sample records the effects rely on are there, and the live collection is the sample", async (t) => {
  t.equal(LIVE, "lei_sample");
  for (const r of [SEYMOUR, ALFORD_LIMITED, ALFORD_SARL, SATS, KODAK, ...DIVESTIX]) {
    t.equal((await call(`/v1/entities/${r.lei}`)).body?.legalName, r.name, `${r.lei} is ${r.name}`);
  }
});

/** PUTs each bad body to `path`: a 400 with {message} for each (a 413 for `tooLarge`), and nothing stored after. */
async function refusesBodies(t: Test, path: string, bodies: [string, string][], tooLarge?: unknown): Promise<void> {
  for (const [label, raw] of bodies) {
    const r = await boot(path, { method: "PUT", rawBody: raw });
    t.equal(r.status, 400, `${label} -> 400`);
    t.match(r.body, { message: String }, `${label}: {message}`);
  }
  if (tooLarge !== undefined)
    t.equal((await boot(path, { method: "PUT", rawBody: JSON.stringify(tooLarge) })).status, 413, "a body over 64 KiB -> 413");
  t.equal((await boot(path)).status, 404, "nothing was stored by the refused bodies");
}

t.test("synonyms: PUT, GET, list, DELETE in Typesense's shapes; 404s; 400s on bad ids and bodies", async (t) => {
  const base = "/collections/lei/synonyms";
  t.same((await boot(base)).body, { synonyms: [] }, "none at first: {synonyms: []}");
  const put = await boot(`${base}/coat-ish`, { method: "PUT", body: { synonyms: ["blazer", "coat", "jacket"] } });
  t.equal(put.status, 200);
  t.same(put.body, { id: "coat-ish", synonyms: ["blazer", "coat", "jacket"] }, "PUT answers the rule with its id");
  const oneWay = await boot(`${base}/one.way_1`, {
    method: "PUT",
    body: { root: "smart phone", synonyms: ["iphone", "android"], locale: "", symbols_to_index: [] },
  });
  t.equal(oneWay.status, 200, "Typesense's optional fields are accepted");
  t.same(oneWay.body, { id: "one.way_1", synonyms: ["iphone", "android"], root: "smart phone" });
  t.same((await boot(`${base}/coat-ish`)).body, put.body, "GET one");
  t.same((await boot(`/collections/${LIVE}/synonyms/coat-ish`)).body, put.body, "by the live name too (synonyms belong to the alias)");
  const again = await boot(`${base}/coat-ish`, { method: "PUT", body: { synonyms: ["blazer", "coat"] } });
  t.same(again.body, { id: "coat-ish", synonyms: ["blazer", "coat"] }, "PUT again replaces");
  const list = await boot(base);
  t.equal(list.status, 200);
  t.same(
    new Map((list.body.synonyms as { id: string }[]).map((s) => [s.id, s])),
    new Map([
      ["coat-ish", again.body],
      ["one.way_1", oneWay.body],
    ]),
    "{synonyms: [...]} holds each rule once, as last put",
  );
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
    ["bad JSON", '{"synonyms": ['],
    ["empty body", ""],
    ["null", "null"],
    ["an array", '["ltd", "limited"]'],
    ["a string", '"ltd"'],
    ["no synonyms", "{}"],
    ["synonyms a string", '{"synonyms": "ltd,limited"}'],
    ["synonyms empty", '{"synonyms": []}'],
    ["a number in synonyms", '{"synonyms": ["ltd", 5]}'],
    ["an empty phrase", '{"synonyms": ["ltd", ""]}'],
    ["a phrase of 201 characters", JSON.stringify({ synonyms: ["ltd", "x".repeat(201)] })],
    ["51 phrases", JSON.stringify({ synonyms: Array.from({ length: 51 }, (_, i) => `w${i}`) })],
    ["an unknown field", '{"synonyms": ["ltd", "limited"], "bogus": 1}'],
    ["root empty", '{"synonyms": ["ltd"], "root": ""}'],
    ["root a number", '{"synonyms": ["ltd"], "root": 5}'],
    ["root an array", '{"synonyms": ["ltd"], "root": ["limited"]}'],
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
  t.same(
    new Map((list.body.presets as { name: string }[]).map((p) => [p.name, p])),
    new Map([
      ["compact_v1", put.body],
      ["other", named.body],
    ]),
    "{presets: [...]}",
  );
  const del = await boot("/presets/other", { method: "DELETE" });
  t.same([del.status, del.body], [200, { name: "other" }], "DELETE answers {name}");
  t.equal((await boot("/presets/other")).status, 404, "GET deleted -> 404");
  t.equal((await boot("/presets/other", { method: "DELETE" })).status, 404, "DELETE again -> 404");
  t.match((await boot("/presets/never")).body, { message: String });
  t.equal((await boot("/presets/bad%20name", { method: "PUT", body: { value } })).status, 400, "a bad name -> 400");
  t.equal((await boot(`/presets/${"p".repeat(129)}`)).status, 400, "a 129-character name -> 400");

  const bodies: [string, string][] = [
    ["bad JSON", '{"value": {'],
    ["empty body", ""],
    ["null", "null"],
    ["no value", "{}"],
    ["value a string", '{"value": "q=*"}'],
    ["value an array", '{"value": ["q", "*"]}'],
    ["value null", '{"value": null}'],
    ["a null parameter", '{"value": {"per_page": null}}'],
    ["a nested parameter", '{"value": {"query_by": {"a": 1}}}'],
    ["an array parameter", '{"value": {"query_by": ["legalName"]}}'],
    ["an unknown field", '{"value": {}, "searches": []}'],
    ["name a number", '{"value": {}, "name": 5}'],
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
  t.same(
    (await boot("/stopwords/en-basic")).body,
    { stopwords: { id: "en-basic", stopwords: ["the", "of", "AND"], locale: "en" } },
    "GET one: {stopwords: {id, stopwords, locale}}",
  );
  t.same((await boot("/stopwords/x.1")).body, { stopwords: { id: "x.1", stopwords: ["gmbh"] } });
  const list = await boot("/stopwords");
  t.same(
    new Map((list.body.stopwords as { id: string }[]).map((s) => [s.id, s])),
    new Map([
      ["en-basic", put.body],
      ["x.1", other.body],
    ]),
    "{stopwords: [...]}",
  );
  const del = await boot("/stopwords/x.1", { method: "DELETE" });
  t.same([del.status, del.body], [200, { id: "x.1" }], "DELETE answers {id}");
  t.equal((await boot("/stopwords/x.1")).status, 404);
  t.match((await boot("/stopwords/x.1")).body, { message: /x\.1/ });
  t.equal((await boot("/stopwords/x.1", { method: "DELETE" })).status, 404);
  t.equal((await boot("/stopwords/a%2Fb")).status, 400, "a bad name -> 400");

  const bodies: [string, string][] = [
    ["bad JSON", '{"stopwords": '],
    ["empty body", ""],
    ["no stopwords", "{}"],
    ["stopwords empty", '{"stopwords": []}'],
    ["stopwords a string", '{"stopwords": "the"}'],
    ["a number", '{"stopwords": ["the", 1]}'],
    ["an empty word", '{"stopwords": [""]}'],
    ["an unknown field", '{"stopwords": ["the"], "bogus": true}'],
    ["locale a number", '{"stopwords": ["the"], "locale": 5}'],
    ["an array body", '["the"]'],
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

  const as = (key: CreatedKey, path: string, method = "GET", body?: unknown) =>
    call(path, { key: key.value, method, ...(body ? { body } : {}) });
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

  for (const [method, path] of [
    ["GET", "/collections/lei/synonyms"],
    ["PUT", "/collections/lei/synonyms/z"],
    ["GET", "/presets"],
    ["PUT", "/presets/z"],
    ["GET", "/stopwords"],
    ["DELETE", "/stopwords/z"],
  ]) {
    const r = await bad(path, { method, ...(method === "PUT" ? { body: { synonyms: ["a", "b"], value: {}, stopwords: ["a"] } } : {}) });
    t.equal(r.status, 401, `${method} ${path} without a key -> 401`);
  }
  t.same(
    [(await boot("/collections/lei/synonyms/k1")).status, (await boot("/presets/p1")).status, (await boot("/stopwords/s1")).status],
    [404, 404, 404],
    "deleted by the keys that could",
  );
  t.same(
    [(await boot("/collections/lei/synonyms/k2")).status, (await boot("/presets/p2")).status, (await boot("/stopwords/s2")).status],
    [404, 404, 404],
    "nothing stored by refused requests",
  );
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
  t.not(
    (await top("Divestix Capital limited"))[0],
    DIVESTIX[1].lei,
    "without the synonym, 'Divestix Capital limited' does not rank Divestix Capital Ltd first",
  );

  t.equal((await boot(syn, { method: "PUT", body: { synonyms: ["ltd", "limited"] } })).status, 200);
  t.equal(
    (await top("Alford International Holdings ltd"))[0],
    ALFORD_LIMITED.lei,
    "with it, the exact name (Limited) ranks first for '... ltd'",
  );
  t.ok((await top("SATS limited", 3)).includes(SATS.lei), "with it, 'SATS limited' has SATS LTD. in the top 3");
  t.equal(
    (await top("Divestix Capital limited"))[0],
    DIVESTIX[1].lei,
    "with it, 'Divestix Capital limited' ranks Divestix Capital Ltd first",
  );
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
  t.notOk(
    (await top("KODAK INDIA pvt ltd")).includes(KODAK.lei),
    "without a rule, 'KODAK INDIA pvt ltd' misses KODAK INDIA PRIVATE LIMITED in the top 10",
  );
  t.equal((await boot(pvt, { method: "PUT", body: { synonyms: ["pvt ltd", "Private  Limited"] } })).status, 200);
  t.equal(
    (await top("KODAK INDIA pvt ltd"))[0],
    KODAK.lei,
    "with {pvt ltd, Private  Limited}, the two-word phrase is replaced as a whole: first",
  );
  t.equal((await top("kodak india PVT LTD"))[0], KODAK.lei, "whatever the case of q");
  t.equal((await boot(pvt, { method: "DELETE" })).status, 200);
  t.notOk((await top("SATS limited", 3)).includes(SATS.lei), "rules deleted: back to the plain search");
});

t.test("preset effects: fills missing parameters, the request's own win; unknown preset 404", async (t) => {
  t.equal(
    (await boot("/presets/compact", { method: "PUT", body: { value: { query_by: "legalName", per_page: 3, prefix: false } } })).status,
    200,
  );
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
  t.same(
    leisOf((await body({ q: "Divest", preset: "compact", prefix: "true" })).body).sort(),
    DIVESTIX.map((d) => d.lei).sort(),
    "the request's prefix wins",
  );
  const allFields = await body({ q: "bank", preset: "compact", query_by: "legalName,legalAddress" });
  t.same(
    leisOf(allFields.body),
    leisOf((await body({ q: "bank", query_by: "legalName,legalAddress", per_page: 3, prefix: "false" })).body),
    "the request's query_by wins",
  );

  const parent = await mkKey(["documents:search"], ["lei"]);
  const scoped = scopedToken(parent.value, JSON.stringify({ per_page: 2 }));
  t.equal(
    (await call(searchPath("lei", { q: "bank", preset: "compact" }), { key: scoped })).body.hits.length,
    2,
    "a scoped key's embedded per_page wins over the preset",
  );

  const unknown = await body({ q: "bank", preset: "no-such-preset" });
  t.equal(unknown.status, 404, "unknown preset -> 404");
  t.match(unknown.body, { message: /no-such-preset/ });

  // a preset may hold any search parameter, stopwords included (Typesense)
  t.equal((await boot("/stopwords/preset-sw", { method: "PUT", body: { stopwords: ["the", "of"] } })).status, 200);
  t.equal(
    (await boot("/presets/with-stopwords", { method: "PUT", body: { value: { query_by: "legalName", stopwords: "preset-sw" } } })).status,
    200,
  );
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
  const multiR = await multi({
    searches: [{ collection: "lei", q: "the bank of cyprus", query_by: "legalName", per_page: 20, stopwords: "en-basic" }],
  });
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
  t.ok(
    before.synonyms.synonyms.length === 1 && before.presets.presets.length >= 1 && before.stopwords.stopwords.length >= 1,
    "something of each kind is stored",
  );

  const dataDir = srv.dataDir;
  t.equal(await srv.stop(), 0, "the server stops cleanly");
  srv = await startServer(t, { args: ["--api-key", KEY], dataDir });
  t.same(
    {
      synonyms: (await boot("/collections/lei/synonyms")).body,
      presets: (await boot("/presets")).body,
      stopwords: (await boot("/stopwords")).body,
    },
    before,
    "the same synonyms, presets and stopwords after the restart",
  );
  t.equal((await boot("/presets/gone")).status, 404, "a deleted preset stays deleted");
  t.same((await boot("/stopwords/en-basic")).body, { stopwords: { id: "en-basic", stopwords: ["the", "OF", "and"] } });
  t.ok((await top("SATS limited", 3)).includes(SATS.lei), "the synonym still applies");
  t.equal((await boot(searchPath("lei", { q: "bank", preset: "compact" }))).body.hits.length, 3, "the preset still applies");
  t.same(
    leisOf((await boot(searchPath("lei", { q: "the bank of cyprus", query_by: "legalName", stopwords: "en-basic" }))).body),
    leisOf((await boot(searchPath("lei", { q: "bank cyprus", query_by: "legalName" }))).body),
    "the stopwords still apply",
  );
  await boot("/collections/lei/synonyms/ltd-limited", { method: "DELETE" });
});
