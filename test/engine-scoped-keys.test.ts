// Typesense scoped search keys on the keyed engine API (issue 4): the research vectors and the
// official client's derivation, parent rules, embedded parameters (filter ANDed, per_page wins),
// expiry (over HTTP and in-process with an injected clock) and tampering, and scoped keys made
// and used by the official typesense client.
//
// Requests that are meant to fail with 401 go out from 127.0.0.4, so that the 30-a-minute guessing
// guard never trips on 127.0.0.1 by accident.

import t from "tap";
import { randomBytes } from "node:crypto";
import { Client, Errors, SearchClient } from "typesense";
import { KNOWN_LEI, keyedApi, leis, nowSeconds, scopedDigest, scopedToken, searchPath, typesenseError } from "./helpers/keys.js";
import { inProcess, key } from "./helpers/keys-in-process.js";
import { qs, startServer } from "./helpers/server.js";

const API_KEY = `kt-boot-${randomBytes(12).toString("hex")}`;

const srv = await startServer(t, { args: ["--api-key", API_KEY], shards: 2 });
const port = srv.port;
const { call, boot, badScoped, mkKey, node } = keyedApi(() => port, API_KEY);

t.test("scoped keys: the research vectors and the official client's derivation", async (t) => {
  // vector 1 (typesense-js Keys.spec.ts)
  const parent1 = "RN23GFr1s6jQ9kgSNg2O7fYcAUXU7127";
  const params1 = '{"filter_by":"company_id:124"}';
  const vector1 = "SC9sT0hncHFwTHNFc3U3d3psRDZBUGNXQUViQUdDNmRHSmJFQnNnczJ4VT1STjIzeyJmaWx0ZXJfYnkiOiJjb21wYW55X2lkOjEyNCJ9";
  t.equal(scopedToken(parent1, params1), vector1, "the test's own derivation reproduces vector 1");
  const client = new Client({ nodes: [{ host: "127.0.0.1", port, protocol: "http" }], apiKey: API_KEY, numRetries: 0, logLevel: "silent" });
  t.equal(client.keys().generateScopedSearchKey(parent1, { filter_by: "company_id:124" }), vector1, "and so does the official client");
  // vector 2 (typesense auth_manager_test.cpp): spacing inside the JSON is part of the signed bytes
  t.equal(scopedDigest("KeyVal", '{"filter_by": "user_id:1080"}'), "IvjqWNZ5M5ElcvbMoXj45BxkQrZG4ZKEaNQoRioCx2s=", "vector 2 digest");

  // vector 1 against the server: the parent exists with that value, so the token authenticates and
  // its embedded filter is applied (company_id is not a field here: a 400 about it, not a 401)
  const p1 = await mkKey({ description: "vector 1 parent", actions: ["documents:search"], value: parent1 });
  const v1 = await call(searchPath("lei", { q: "*" }), { key: vector1 });
  t.equal(v1.status, 400, "vector 1 authenticates; its embedded filter reaches the search");
  t.match(v1.body?.message, /company_id/, "the embedded filter_by is the one applied");
  await boot(`/keys/${p1.id}`, { method: "DELETE" });
  t.equal(
    (await badScoped(searchPath("lei", { q: "*" }), { key: vector1 })).status,
    401,
    "once the parent is deleted, its scoped keys are refused",
  );
});

t.test("scoped keys: parent rules, embedded parameters, expiry, tampering", async (t) => {
  const searchOnly = await mkKey({ description: "scoped parent", actions: ["documents:search"] });
  const spaced = '{ "per_page" : 3,  "filter_by": "country:US" }';
  const token = scopedToken(searchOnly.value, spaced);
  const r = await call(searchPath("lei", { q: "bank", per_page: 50 }), { key: token });
  t.equal(r.status, 200, "a scoped key with spaced JSON authenticates (the exact bytes are signed)");
  t.equal(r.body.hits.length, 3, "embedded per_page overrides the request's 50");
  t.ok(
    r.body.hits.every((h: { document: { country: string } }) => h.document.country === "US"),
    "embedded filter applied",
  );
  const pub = await call(`/v1/entities${qs({ q: "bank", country: "US", limit: 3 })}`);
  t.equal(r.body.found, pub.body.found, "found equals the public API's for q=bank&country=US");
  t.same(
    leis(r),
    pub.body.results.map((e: { lei: string }) => e.lei),
    "same LEIs, same order",
  );

  // filter_by is ANDed, never replaced
  const gb = await call(searchPath("lei", { q: "*", filter_by: "country:GB" }), { key: token });
  t.equal(gb.status, 200);
  t.equal(gb.body.found, 0, "request country:GB AND embedded country:US -> nothing (the request cannot replace the filter)");
  const both = await call(searchPath("lei", { q: "*", filter_by: "country:[GB,US]" }), { key: token });
  t.ok(
    both.body.found > 0 && both.body.hits.every((h: { document: { country: string } }) => h.document.country === "US"),
    "widening in the request stays within the embedded filter",
  );
  const active = await call(searchPath("lei", { q: "*", filter_by: "entityStatus:ACTIVE" }), { key: token });
  const pubActive = await call(`/v1/entities${qs({ country: "US", status: "ACTIVE", limit: 3 })}`);
  t.equal(active.body.found, pubActive.body.found, "request entityStatus:ACTIVE AND embedded country:US");
  const viaQuery = await call(searchPath("lei", { q: "*" }), { key: token, via: "query:x-typesense-api-key" });
  t.equal(
    viaQuery.body.found,
    (await call("/v1/entities?country=US&limit=1")).body.found,
    "a scoped key in the query parameter works the same",
  );

  // a scoped key is for documents:search only, on its parent's collections
  const get = await call(`/collections/lei/documents/${KNOWN_LEI}`, { key: token });
  t.equal(get.status, 403, "a scoped key cannot fetch a document");
  t.match(get.body?.message, /documents:get/);
  t.equal((await call("/collections", { key: token })).status, 403, "nor list collections");
  t.equal((await call("/keys", { key: token })).status, 403, "nor list keys");
  const narrow = await mkKey({ actions: ["documents:search"], collections: ["nothing"] });
  const narrowToken = scopedToken(narrow.value, '{"filter_by":"country:US"}');
  t.equal((await call(searchPath("lei", { q: "*" }), { key: narrowToken })).status, 403, "the parent's collections bind its scoped keys");

  // the parent must hold exactly documents:search; two candidates share a prefix
  const prefix = `PX${randomBytes(1).toString("hex")}`;
  const wide = await mkKey({
    description: "wide parent",
    actions: ["documents:search", "documents:get"],
    value: `${prefix}wide-${randomBytes(8).toString("hex")}`,
  });
  const exact = await mkKey({
    description: "exact parent",
    actions: ["documents:search"],
    value: `${prefix}exact-${randomBytes(8).toString("hex")}`,
  });
  t.equal(wide.value.slice(0, 4), exact.value.slice(0, 4), "the two parents share their 4-char prefix");
  const fromWide = await badScoped(searchPath("lei", { q: "*" }), { key: scopedToken(wide.value, '{"filter_by":"country:US"}') });
  t.equal(fromWide.status, 401, "a parent with more than documents:search cannot sign scoped keys");
  const fromExact = await call(searchPath("lei", { q: "*" }), { key: scopedToken(exact.value, '{"filter_by":"country:US"}') });
  t.equal(fromExact.status, 200, "the right parent is found among keys sharing the prefix");
  const star = await mkKey({ actions: ["*"] });
  t.equal(
    (await badScoped(searchPath("lei", { q: "*" }), { key: scopedToken(star.value, "{}") })).status,
    401,
    "a '*' key cannot be a parent",
  );
  t.equal(
    (await badScoped(searchPath("lei", { q: "*" }), { key: scopedToken(API_KEY, '{"filter_by":"country:US"}') })).status,
    401,
    "the bootstrap key cannot be a parent",
  );

  // tampering
  const forged = Buffer.from(Buffer.from(token, "base64").toString("utf8").replace("country:US", "country:GB")).toString("base64");
  t.equal((await badScoped(searchPath("lei", { q: "*" }), { key: forged })).status, 401, "changing the embedded params breaks the HMAC");
  const nested = scopedToken(searchOnly.value, JSON.stringify({ filter_by: "country:US" }));
  t.equal(
    (await badScoped(searchPath("lei", { q: "*" }), { key: scopedToken(nested, "{}") })).status,
    401,
    "a scoped key cannot be the parent of another",
  );
  t.equal(
    (await badScoped(searchPath("lei", { q: "*" }), { key: scopedToken(searchOnly.value, "[1,2]") })).status,
    401,
    "params that are not an object -> 401",
  );

  // expiry: embedded expires_at in the past; a parent that expires earlier than the embedded one
  const past = scopedToken(searchOnly.value, JSON.stringify({ filter_by: "country:US", expires_at: nowSeconds() - 10 }));
  const expiredScoped = await badScoped(searchPath("lei", { q: "*" }), { key: past });
  t.equal(expiredScoped.status, 401, "an embedded expires_at in the past -> 401");
  t.match(expiredScoped.body?.message, /expired/, "the message says expired");
  const future = scopedToken(searchOnly.value, JSON.stringify({ expires_at: nowSeconds() + 3600 }));
  t.equal((await call(searchPath("lei", { q: "*" }), { key: future })).status, 200, "an embedded expires_at in the future works");
});

t.test("the official typesense client: scoped keys with SearchClient (query parameter) and Client (header)", async (t) => {
  const admin = new Client({ nodes: [node()], apiKey: API_KEY, numRetries: 0, logLevel: "silent" });
  const parent = await admin.keys().create({ description: "scoped parent (client)", actions: ["documents:search"], collections: [] });
  const scoped = admin
    .keys()
    .generateScopedSearchKey(parent.value!, { filter_by: "country:GB", per_page: 5, expires_at: nowSeconds() + 3600 });
  const pub = await call(`/v1/entities${qs({ q: "holdings", country: "GB", limit: 5 })}`);
  const params = { q: "holdings", query_by: "legalName,legalAddress", per_page: 100 };
  const searchClient = new SearchClient({
    nodes: [node()],
    apiKey: scoped,
    numRetries: 0,
    logLevel: "silent",
    cacheSearchResultsForSeconds: 0,
  });
  const fullClient = new Client({ nodes: [node()], apiKey: scoped, numRetries: 0, logLevel: "silent" });
  const runs: [string, () => Promise<{ found: number; hits?: { document: unknown }[] }>][] = [
    ["SearchClient", () => searchClient.collections("lei").documents().search(params, {})],
    ["Client", () => fullClient.collections("lei").documents().search(params)],
  ];
  for (const [name, search] of runs) {
    const r = await search();
    t.equal(r.hits?.length, Math.min(5, pub.body.found), `${name}: embedded per_page wins`);
    t.equal(r.found, pub.body.found, `${name}: embedded filter applied (found as public q=holdings&country=GB)`);
    t.same(
      r.hits?.map((h) => (h.document as { lei: string }).lei),
      pub.body.results.map((e: { lei: string }) => e.lei),
      `${name}: same LEIs in the same order`,
    );
  }
  const scopedAdmin = new Client({ nodes: [node()], apiKey: scoped, numRetries: 0, logLevel: "silent" });
  const refused = await typesenseError(scopedAdmin.keys().retrieve());
  t.equal(refused.status, 403, "a scoped key cannot list keys through the client");

  const expired = admin.keys().generateScopedSearchKey(parent.value!, { filter_by: "country:GB", expires_at: nowSeconds() - 60 });
  const e = await typesenseError(
    new SearchClient({ nodes: [node()], apiKey: expired, numRetries: 0, logLevel: "silent" })
      .collections("lei")
      .documents()
      .search({ q: "x", query_by: "legalName" }, {}),
  );
  t.ok(e.error instanceof Errors.RequestUnauthorized, `an expired scoped key is RequestUnauthorized (${e.name})`);
  t.match(e.message, /expired/);
});

t.test("scoped keys made by the official client with its own documented parameters", async (t) => {
  const admin = new Client({ nodes: [node()], apiKey: API_KEY, numRetries: 0, logLevel: "silent" });
  const parent = await admin.keys().create({ actions: ["documents:search"], collections: [] });
  const scoped = admin.keys().generateScopedSearchKey(parent.value!, { filter_by: "country:GB", cache_ttl: 60 });
  const r = await call(searchPath("lei", { q: "*" }), { key: scoped });
  t.equal(r.status, 200, `a scoped key embedding cache_ttl still searches (got ${r.status} ${r.body?.message})`);
});

// ---- in-process: KeyAuth over a real SQLite file, with an injected clock ----

t.test("in-process: a scoped key's effective expiry is min(parent, embedded); vector 2 through KeyAuth", async (t) => {
  const { clock, db, store, auth } = await inProcess(t);
  t.teardown(() => db.close());
  const T = clock.s;
  await store.create(key("parent-expires-early", { expiresAt: T + 10 }));
  await store.create(key("parent-never-expires"));
  const laterEmbedded = scopedToken("parent-expires-early", JSON.stringify({ expires_at: T + 1000 }));
  const earlierEmbedded = scopedToken("parent-never-expires", JSON.stringify({ filter_by: "country:US", expires_at: T + 20 }));
  const at = (s: number, token: string) => {
    clock.s = s;
    return auth.check("10.0.0.2", token, "documents:search", ["lei", "lei_sample"]);
  };
  t.equal(at(T + 10, laterEmbedded).ok, true, "parent earlier: works through the parent's second");
  t.match(
    at(T + 11, laterEmbedded),
    { ok: false, status: 401, message: /expired/ },
    "a later embedded expires_at does not extend the parent",
  );
  t.equal(at(T + 20, earlierEmbedded).ok, true, "embedded earlier: works through its second");
  t.match(at(T + 21, earlierEmbedded), { ok: false, status: 401, message: /expired/ }, "the embedded expires_at ends it before the parent");
  const ok = at(T, earlierEmbedded);
  t.match(ok, { ok: true, caller: { kind: "scoped", embedded: { filter_by: "country:US" } } }, "the embedded params reach the caller");

  // vector 2: a 6-character parent (below the HTTP API's minimum, so only here), spaced JSON
  await store.create(key("KeyVal"));
  const v2 = Buffer.from("IvjqWNZ5M5ElcvbMoXj45BxkQrZG4ZKEaNQoRioCx2s=" + "KeyV" + '{"filter_by": "user_id:1080"}').toString("base64");
  t.match(
    at(T, v2),
    { ok: true, caller: { kind: "scoped", embedded: { filter_by: "user_id:1080" } } },
    "the research digest of vector 2 authenticates",
  );
  const badFloat = scopedToken("parent-never-expires", JSON.stringify({ expires_at: T + 0.5 }));
  t.match(at(T, badFloat), { ok: false, status: 401 }, "a non-integer embedded expires_at -> 401");
});
