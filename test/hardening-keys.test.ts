// Issue 20, the key-management and keyed-search holes: a scoped key's filter that could be
// escaped (1), filters nested deep enough to overflow the stack (9), collection patterns that
// froze the front with a backtracking RegExp (2), key management that ignored the caller's own
// scope and let chosen values probe other keys (3), and the bootstrap key compared with === (14).
//
// Requests that spend an address's guessing budget go out from their own 127.0.0.x addresses.

import t from "tap";
import crypto, { randomBytes } from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import { keyedRequest, scopedToken, type KeyedInit, type KeyedResponse } from "./helpers/keys.js";
import { ON_POSTGRES, qs, ROOT, startServer, tempDir, type Params } from "./helpers/server.js";

const API_KEY = `hk-boot-${randomBytes(12).toString("hex")}`;
const srv = await startServer(t, { args: ["--api-key", API_KEY], shards: 2 });

const call = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => keyedRequest(srv.port, path, init);
const boot = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => call(path, { key: API_KEY, ...init });
const searchPath = (collection: string, params: Params): string => `/collections/${collection}/documents/search${qs(params)}`;
const countries = (r: KeyedResponse): string[] => [
  ...new Set((r.body.hits as { document: { country: string } }[]).map((h) => h.document.country)),
];

interface CreatedKey {
  id: number;
  value: string;
}
async function mkKey(spec: Record<string, unknown>, creator = API_KEY): Promise<CreatedKey> {
  const r = await call("/keys", { method: "POST", key: creator, body: { collections: [], ...spec } });
  if (r.status !== 201) throw new Error(`POST /keys ${JSON.stringify(spec)} -> ${r.status} ${r.text}`);
  return r.body as CreatedKey;
}

const found = async (filter: string): Promise<number> =>
  (await boot(searchPath("lei", { q: "*", filter_by: filter, per_page: 1 }))).body.found as number;
const DE = await found("country:DE");
const FR = await found("country:FR");

const dist = (p: string): string => new URL(`dist/src/${p}`, `file://${ROOT}/`).href;

// ---- 1: a scoped key's embedded filter_by ----

t.test("a scoped key's filter cannot be escaped: each filter is parsed on its own, then ANDed", async (t) => {
  t.ok(DE > 0 && FR > 0, `the sample holds German (${DE}) and French (${FR}) entities`);
  const parent = await mkKey({ description: "scoped parent", actions: ["documents:search"] });
  const token = scopedToken(parent.value, JSON.stringify({ filter_by: "country:DE" }));
  const search = (filter: string): Promise<KeyedResponse> =>
    call(searchPath("lei", { q: "*", filter_by: filter, per_page: 250 }), { key: token });

  const plain = await call(searchPath("lei", { q: "*", per_page: 250 }), { key: token });
  t.equal(plain.body.found, DE, "without a request filter: the key's filter alone");

  for (const escape of ["country:FR) || (country:FR", "country:FR)) || ((country:FR", "country:FR) || country:FR || (country:FR"]) {
    const r = await search(escape);
    t.equal(r.status, 400, `'${escape}' does not parse on its own: 400 (got ${r.status}, found ${r.body?.found})`);
    t.match(r.body, { message: /filter_by/ }, "the message names filter_by");
  }
  const either = await search("country:FR || country:DE");
  t.equal(either.status, 200);
  t.equal(either.body.found, DE, "an OR in the request is still within the key's filter");
  t.same(countries(either), ["DE"], "only German entities");
  t.equal((await search("country:FR")).body.found, 0, "a request for French entities finds none");
  t.equal((await search("(country:[FR,DE])")).body.found, DE, "parentheses of the request's own are fine");

  // through /multi_search: the request's key and each search's own
  const multi = await call("/multi_search", {
    method: "POST",
    key: token,
    body: {
      searches: [
        { collection: "lei", q: "*", filter_by: "country:FR) || (country:FR" },
        { collection: "lei", q: "*", filter_by: "country:FR" },
        { collection: "lei", q: "*", filter_by: "country:FR) || (country:FR", "x-typesense-api-key": token },
        { collection: "lei", q: "*" },
      ],
    },
  });
  t.equal(multi.status, 200);
  const [escaped, french, ownKey, all] = multi.body.results as { code?: number; found?: number; error?: string }[];
  t.match(escaped, { code: 400, error: /filter_by/ }, "multi_search: the escape is that search's 400");
  t.equal(french.found, 0, "multi_search: French entities stay out");
  t.match(ownKey, { code: 400 }, "multi_search with the search's own key: 400 too");
  t.equal(all.found, DE, "multi_search: the key's filter applies");

  // a broken embedded filter is the key's fault, and says so
  const broken = scopedToken(parent.value, JSON.stringify({ filter_by: "country:DE) || (country:FR" }));
  const b = await call(searchPath("lei", { q: "*" }), { key: broken });
  t.equal(b.status, 400);
  t.match(b.body, { message: /scoped key's embedded filter_by/ });

  // a preset fills only what neither the request nor the key set: the key's filter_by stays
  t.equal((await boot("/presets/french", { method: "PUT", body: { value: { filter_by: "country:FR" } } })).status, 200);
  const preset = await call(searchPath("lei", { q: "*", preset: "french" }), { key: token });
  t.equal(preset.body.found, DE, "the preset's filter_by does not replace the key's");
});

t.test("multi_search reads its query string as a single search does: escapes that are not UTF-8 are a 400", async (t) => {
  const body = { searches: [{ collection: "lei" }] };
  const bad = await boot("/multi_search?q=%C3%28", { method: "POST", body });
  t.equal(bad.status, 400, "q=%C3%28 shared by every search: 400, not a search for U+FFFD");
  t.match(bad.body, { message: /UTF-8/ });
  const good = await boot("/multi_search?q=*&filter_by=country:DE", { method: "POST", body });
  t.equal(good.status, 200);
  t.equal(good.body.results[0].found, DE, "parameters of the query string still apply to every search");
});

// ---- 9: nesting depth ----

t.test("filter_by nests at most 400 parentheses deep; deeper is a 400, not a stack overflow", async (t) => {
  const nested = (n: number): string => `${"(".repeat(n)}country:DE${")".repeat(n)}`;
  const at = async (n: number): Promise<KeyedResponse> => boot(searchPath("lei", { q: "*", per_page: 1, filter_by: nested(n) }));
  const ok = await at(400);
  t.equal(ok.status, 200, "400 deep is served");
  t.equal(ok.body.found, DE);
  const over = await at(401);
  t.equal(over.status, 400, "401 deep: 400");
  t.match(over.body, { message: /nest more than 400 deep/ });
  const deep = await boot("/multi_search", {
    method: "POST",
    body: {
      searches: [
        { collection: "lei", q: "*", filter_by: nested(5000) },
        { collection: "lei", q: "*", filter_by: "country:DE" },
      ],
    },
  });
  t.equal(deep.status, 200, "5,000 deep in a multi_search: the server answers");
  t.match(deep.body.results[0], { code: 400, error: /nest more than 400 deep/ }, "that search is a 400");
  t.equal(deep.body.results[1].found, DE, "the next search is served");
  const unbalanced = await boot("/multi_search", {
    method: "POST",
    body: { searches: [{ collection: "lei", q: "*", filter_by: "(".repeat(20_000) }] },
  });
  t.match(unbalanced.body.results[0], { code: 400 }, "20,000 unclosed parentheses: 400");

  // long chains stay correct (and linear: see filter-by.ts)
  const chain = Array.from({ length: 2000 }, (_, i) => `country:!=X${String.fromCharCode(65 + (i % 26))}`).join(" && ");
  const r = await boot("/multi_search", {
    method: "POST",
    body: {
      searches: [
        { collection: "lei", q: "*", filter_by: `${chain} && country:DE` },
        { collection: "lei", q: "*", filter_by: Array(2000).fill("country:DE").join(" || ") },
      ],
    },
  });
  t.equal(r.body.results[0].found, DE, "2,000 != clauses ANDed");
  t.equal(r.body.results[1].found, DE, "2,000 clauses ORed");
});

// ---- 2: collection patterns ----

t.test("a collection pattern cannot freeze the front: (a+)+b is matched in linear time", async (t) => {
  const k = await mkKey({
    description: "nested quantifiers",
    actions: ["aliases:upsert", "aliases:get", "aliases:delete"],
    collections: ["(a+)+b"],
  });
  const evil = "a".repeat(40);
  const [put, health] = await Promise.all([
    call(`/aliases/${evil}`, { method: "PUT", key: k.value, body: { collection_name: "lei" } }),
    srv.get("/health"),
  ]);
  t.equal(put.status, 403, "40 a's do not match (a+)+b: 403, answered");
  t.match(put.body, { message: /does not cover/ });
  t.equal(health.status, 200, "the front kept serving");
  const good = await call("/aliases/aaab", { method: "PUT", key: k.value, body: { collection_name: "lei" } });
  t.equal(good.status, 200, "a name the pattern matches is covered");
  t.equal((await call("/aliases/aaab", { method: "DELETE", key: k.value })).status, 200);
});

t.test("patterns the linear matcher cannot run are refused at creation with a 400 that says why", async (t) => {
  const tries: [string, RegExp][] = [
    ["(a)\\1", /backreference/],
    ["(?=lei)lei", /lookahead or lookbehind/],
    ["(?<!x)lei", /lookahead or lookbehind/],
    ["lei\\b", /word boundary/],
    ["(a{100}){100}", /steps/],
    ["a{1000}", /repetition count above 100/],
  ];
  for (const [pattern, why] of tries) {
    const r = await boot("/keys", { method: "POST", body: { actions: ["documents:search"], collections: ["lei", pattern] } });
    t.equal(r.status, 400, `'${pattern}' -> 400`);
    t.match(r.body, { message: why }, `'${pattern}': ${r.body?.message}`);
    t.match(r.body?.message, pattern, "the message quotes the pattern");
  }
  const many = await boot("/keys", {
    method: "POST",
    body: { actions: ["documents:search"], collections: Array(10).fill("[a-z]{0,100}[a-z]{0,100}x") },
  });
  t.equal(many.status, 400, "patterns too large together: 400");
  t.match(many.body, { message: /across the key's patterns/ });
  for (const fine of ["lei_.*", "x|lei_sample", "[invalid", "(?:l|x)ei(_[a-z]+)?", "lei_sam{0,2}ple", "^lei$"]) {
    const r = await boot("/keys", { method: "POST", body: { actions: ["documents:search"], collections: [fine] } });
    t.equal(r.status, 201, `'${fine}' is accepted`);
  }
});

t.test("the linear matcher agrees with RegExp on the syntax it accepts", async (t) => {
  const { compilePattern, patternMatches } = (await import(dist("keys/collection-pattern.js"))) as {
    compilePattern: (p: string) => { kind: string };
    patternMatches: (c: { kind: string }, name: string) => boolean;
  };
  const patterns = [
    "lei",
    "lei_.*",
    "l.*i",
    "x|lei_sample",
    "(a|ab)(c|bcd)(d*)",
    "(a+)+b",
    "[^_]+_[a-z]{2,}",
    "a{2,3}",
    "a{2,}b?",
    "(?:ab)*",
    "\\d+\\.\\d*",
    "[\\w-]+",
    "^a|b$",
    "a{,2}",
    "a{",
    "(?<n>a|b)+",
    "[]a",
    "[^]*",
    "\\x61\\u0062",
    "[a\\]]+",
    "()*a",
    "(a*)*",
    "a*?b",
    "[.]",
  ];
  const names = [
    "",
    "a",
    "ab",
    "abcd",
    "aab",
    "lei",
    "lei_sample",
    "LEI",
    "lxi",
    "x",
    "12.5",
    "1.",
    "ab-c_d",
    "a{,2}",
    "a{",
    "aaa",
    "aaaab",
    "a]",
    "]",
    "b",
    "abab",
    ".",
  ];
  for (const p of patterns) {
    const want = new RegExp(`^(?:${p})$`);
    const compiled = compilePattern(p);
    t.equal(compiled.kind, "pattern", `'${p}' is supported`);
    const differ = names.filter((n) => want.test(n) !== patternMatches(compiled, n));
    t.same(differ, [], `'${p}' matches what RegExp matches`);
  }
  t.equal(patternMatches(compilePattern("(a+)+b"), "a".repeat(5000)), false, "5,000 a's against (a+)+b: no match, at once");
});

t.test(
  "a pattern stored before it was refused matches nothing, with one log line, and freezes nothing",
  { skip: ON_POSTGRES },
  async (t) => {
    const dir = tempDir(t, "leidex-legacy-keys-");
    const { openStateDb } = (await import(dist("store/state-db.js"))) as { openStateDb: (dir: string) => { close(): void } };
    const { KeyStore } = (await import(dist("keys/key-store.js"))) as {
      KeyStore: { open(backend: unknown): Promise<{ create(k: Record<string, unknown>): Promise<{ id: number } | null> }> };
    };
    const { SqliteKeys } = (await import(dist("keys/sqlite-keys.js"))) as { SqliteKeys: new (db: unknown) => unknown };
    const db = openStateDb(dir);
    const store = await KeyStore.open(new SqliteKeys(db));
    const value = `legacy-${randomBytes(8).toString("hex")}`;
    const stored = (await store.create({
      value,
      description: "legacy",
      actions: ["aliases:upsert"],
      collections: ["(a+)+\\1b", "lei"],
      expiresAt: 64723363199,
      autodelete: false,
    }))!;
    db.close();
    const legacy = await startServer(t, { args: ["--api-key", API_KEY], dataDir: dir, shards: 1 });
    const lines = legacy
      .stdout()
      .split("\n")
      .filter((l) => l.includes("(a+)+\\1b"));
    t.equal(lines.length, 1, "one log line names the pattern");
    t.match(lines[0], new RegExp(`API key ${stored.id}: .*not supported \\(a backreference\\); it matches no collection`));
    const put = await keyedRequest(legacy.port, `/aliases/${"a".repeat(40)}`, {
      method: "PUT",
      key: value,
      body: { collection_name: "lei" },
    });
    t.equal(put.status, 403, "the backtracking pattern is not run: 403, answered");
    t.equal(
      (await keyedRequest(legacy.port, "/aliases/aab", { method: "PUT", key: value, body: { collection_name: "lei" } })).status,
      403,
      "and it matches nothing",
    );
    t.equal(
      (await keyedRequest(legacy.port, "/aliases/lei", { method: "PUT", key: value, body: { collection_name: "lei" } })).status,
      409,
      "the key's other entries still count",
    );
  },
);

// ---- 3: key management within the caller's own powers ----

t.test("a key lists, gets and deletes only keys within its own powers", async (t) => {
  const mighty = await mkKey({ description: "all-powerful", actions: ["*"] });
  const limited = await mkKey({ description: "keys:* on one collection", actions: ["keys:*"], collections: ["only_this_collection"] });
  const inside = await mkKey({ description: "inside", actions: ["keys:list"], collections: ["only_this_collection"] }, limited.value);
  const allCollections = await mkKey({ description: "same actions, all collections", actions: ["keys:list"] });
  const otherCollection = await mkKey({ description: "another collection", actions: ["keys:list"], collections: ["another"] });

  const listed = (await call("/keys", { key: limited.value })).body.keys as { id: number }[];
  t.same(
    listed.map((k) => k.id).sort((a, b) => a - b),
    [limited.id, inside.id],
    "GET /keys: itself and the key within its powers only",
  );
  for (const [name, k] of [
    ["the all-powerful key", mighty],
    ["an all-collections key", allCollections],
    ["another collection's key", otherCollection],
  ] as const) {
    t.equal((await call(`/keys/${k.id}`, { key: limited.value })).status, 404, `GET ${name}: 404, as if absent`);
    t.equal((await call(`/keys/${k.id}`, { key: limited.value, method: "DELETE" })).status, 404, `DELETE ${name}: 404`);
    t.equal((await boot(`/keys/${k.id}`)).status, 200, `${name} is still there`);
  }
  t.equal((await call("/keys", { key: mighty.value })).status, 200, "the all-powerful key still works");
  t.equal((await call(`/keys/${inside.id}`, { key: limited.value })).status, 200, "GET of a key within: 200");
  t.equal((await call(`/keys/${inside.id}`, { key: limited.value, method: "DELETE" })).status, 200, "DELETE of a key within: 200");
  const all = (await boot("/keys")).body.keys as { id: number }[];
  t.ok(
    [mighty, limited, allCollections, otherCollection].every((k) => all.some((x) => x.id === k.id)),
    "the bootstrap key sees every key",
  );

  // patterns: a child entry is within when it is one of the caller's entries verbatim, or a plain name one of them matches
  const team = await mkKey({ description: "keys:* on team_.*", actions: ["keys:*"], collections: ["team_.*"] });
  const plain = await mkKey({ actions: ["keys:get"], collections: ["team_a"] });
  const same = await mkKey({ actions: ["keys:get"], collections: ["team_.*"] });
  const wider = await mkKey({ actions: ["keys:get"], collections: ["team_.*|x"] });
  const narrower = await mkKey({ actions: ["keys:get"], collections: ["team_a.*"] });
  const seen = new Set(((await call("/keys", { key: team.value })).body.keys as { id: number }[]).map((k) => k.id));
  t.ok(seen.has(plain.id) && seen.has(same.id), "a plain name it matches, and its own pattern verbatim: within");
  t.notOk(seen.has(wider.id), "a wider pattern: outside");
  t.notOk(seen.has(narrower.id), "another pattern, even a narrower one: outside (patterns are not compared)");

  // expiry: a key never sees a key that outlives it
  const soon = Math.floor(Date.now() / 1000) + 3600;
  const expiring = await mkKey({ actions: ["keys:*"], expires_at: soon });
  const forever = await mkKey({ actions: ["keys:list"] });
  const shorter = await mkKey({ actions: ["keys:list"], expires_at: soon - 60 });
  t.equal((await call(`/keys/${forever.id}`, { key: expiring.value })).status, 404, "a key that outlives the caller: 404");
  t.equal((await call(`/keys/${shorter.id}`, { key: expiring.value })).status, 200, "one that expires earlier: 200");
});

t.test("POST /keys with a chosen value spends the address's guessing budget: clashes cannot be probed", async (t) => {
  const admin = await mkKey({ description: "admin", actions: ["*"] });
  const from = "127.0.0.61";
  const statuses: number[] = [];
  for (let i = 0; i < 40 && !statuses.includes(429); i++) {
    statuses.push(
      (
        await call("/keys", {
          method: "POST",
          key: admin.value,
          localAddress: from,
          body: { actions: ["documents:search"], collections: [], value: admin.value },
        })
      ).status,
    );
  }
  const first429 = statuses.indexOf(429);
  t.ok(first429 >= 30 && first429 <= 32, `30 clashes answered 409, then 429 (first 429 at #${first429 + 1})`);
  t.ok(
    statuses.slice(0, first429).every((s) => s === 409),
    "the ones before are 409",
  );
  const fresh = await call("/keys", {
    method: "POST",
    key: admin.value,
    localAddress: from,
    body: { actions: ["documents:search"], collections: [], value: `fresh-${randomBytes(8).toString("hex")}` },
  });
  t.equal(fresh.status, 429, "past the budget a free chosen value is 429 too: a clash is not told from a free value");
  t.ok(Number(fresh.headers["retry-after"]) >= 1, "with Retry-After");
  t.equal(
    (
      await call("/keys", {
        method: "POST",
        key: admin.value,
        localAddress: from,
        body: { actions: ["documents:search"], collections: [] },
      })
    ).status,
    201,
    "a generated value costs nothing",
  );
  t.equal((await call("/collections", { key: "not-a-key-xxxxxxxx", localAddress: from })).status, 429, "it is the budget bad keys spend");
  t.equal(
    (
      await call("/keys", {
        method: "POST",
        key: admin.value,
        localAddress: "127.0.0.62",
        body: { actions: ["documents:search"], collections: [], value: admin.value },
      })
    ).status,
    409,
    "another address: its own budget",
  );
});

// ---- 14: the bootstrap key in constant time ----

t.test("the bootstrap key is compared in constant time (timingSafeEqual over its bytes)", async (t) => {
  const original = crypto.timingSafeEqual;
  const compared: number[] = [];
  crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    compared.push(a.byteLength, b.byteLength);
    return original(a, b);
  }) as typeof original;
  syncBuiltinESMExports();
  t.teardown(() => {
    crypto.timingSafeEqual = original;
    syncBuiltinESMExports();
  });
  const { KeyAuth } = (await import(dist("keys/auth.js"))) as {
    KeyAuth: new (
      store: unknown,
      boot: string,
      failures: unknown,
    ) => { check(ip: string, k: string, a: string, c: string[]): { ok: boolean } };
  };
  const { RateLimiter } = (await import(dist("http/rate-limit.js"))) as {
    RateLimiter: new (limit: number, windowSeconds: number) => unknown;
  };
  const store = { byExactValue: () => null, byPrefix: () => [] };
  const auth = new KeyAuth(store, "in-process-bootstrap-value", new RateLimiter(30, 60));
  t.equal(auth.check("10.1.1.1", "in-process-bootstrap-value", "keys:create", []).ok, true, "the bootstrap key works");
  t.same(compared.slice(0, 2), [26, 26], "through timingSafeEqual over its bytes");
  compared.length = 0;
  t.equal(
    auth.check("10.1.1.1", "in-process-bootstrap-valuX", "keys:create", []).ok,
    false,
    "a value of its length that differs in the last byte does not",
  );
  t.same(compared.slice(0, 2), [26, 26], "compared the same way, never by ===");
  compared.length = 0;
  t.equal(auth.check("10.1.1.1", "in-process", "keys:create", []).ok, false, "a prefix of it does not");
  t.same(compared, [], "a value of another length is refused without comparing bytes (a key's length is no secret)");
});
