// GET /collections/{name}/documents/search on the keyed engine API: the same found, LEIs, order,
// documents and facets as the public API, Typesense's response shape, the filter_by syntax,
// paging and limits, refusals, and the num_typos and prefix parameters.

import t from "tap";
import { randomBytes } from "node:crypto";
import { keyedApi, leis, leisOf, searchPath } from "./helpers/keys.js";
import { DIVESTIX, SEYMOUR } from "./helpers/keyed-extras.js";
import { qs, startServer, type Params } from "./helpers/server.js";

const API_KEY = `kt-boot-${randomBytes(12).toString("hex")}`;

const srv = await startServer(t, { args: ["--api-key", API_KEY], shards: 2 });
const { call, boot } = keyedApi(() => srv.port, API_KEY);

// the bundled sample's record count (engine-keys.test.ts checks that /collections says so too)
const TOTAL = 6147;

interface Case {
  name: string;
  keyed: Params;
  pub: Params;
  facets?: [string, string][];
}

t.test("keyed search and public search agree: same found, same LEIs in the same order, same facets", async (t) => {
  const cases: Case[] = [
    { name: "q over all fields", keyed: { q: "bank", per_page: 20 }, pub: { q: "bank", limit: 20 } },
    {
      name: "query_by legalName = fields=name",
      keyed: { q: "bank", query_by: "legalName", per_page: 20 },
      pub: { q: "bank", fields: "name", limit: 20 },
    },
    {
      name: "two-word name query",
      keyed: { q: "deutsche bank", query_by: "legalName,otherNames", per_page: 20 },
      pub: { q: "deutsche bank", fields: "name", limit: 20 },
    },
    {
      name: "address fields",
      keyed: { q: "london", query_by: "legalAddress,city", per_page: 30 },
      pub: { q: "london", fields: "address", limit: 30 },
    },
    { name: "a typo", keyed: { q: "bnak", per_page: 10 }, pub: { q: "bnak", limit: 10 } },
    { name: "q=* with a filter", keyed: { q: "*", filter_by: "country:US", per_page: 25 }, pub: { country: "US", limit: 25 } },
    {
      name: "filter list, &&, facets",
      keyed: {
        q: "holdings",
        filter_by: "country:[GB,US] && entityStatus:ACTIVE",
        facet_by: "country,entityStatus,entityCategory",
        per_page: 20,
      },
      pub: { q: "holdings", country: "GB,US", status: "ACTIVE", facets: "country,status,category", limit: 20 },
      facets: [
        ["country", "country"],
        ["entityStatus", "status"],
        ["entityCategory", "category"],
      ],
    },
    {
      name: "parentheses",
      keyed: { q: "*", filter_by: "(country:US) && (entityCategory:[GENERAL,FUND])", facet_by: "registrationStatus", per_page: 15 },
      pub: { country: "US", category: "GENERAL,FUND", facets: "registrationStatus", limit: 15 },
      facets: [["registrationStatus", "registrationStatus"]],
    },
    { name: "page 2", keyed: { q: "fund", page: 2, per_page: 20 }, pub: { q: "fund", page: 2, limit: 20 } },
    { name: "page 3 of 100", keyed: { q: "*", page: 3, per_page: 100 }, pub: { page: 3, limit: 100 } },
  ];
  for (const c of cases) {
    const k = await boot(searchPath("lei", c.keyed));
    const p = await call(`/v1/entities${qs(c.pub)}`);
    t.equal(k.status, 200, `${c.name}: keyed 200`);
    t.equal(p.status, 200, `${c.name}: public 200`);
    t.equal(k.body.found, p.body.found, `${c.name}: found ${p.body.found}`);
    t.ok(k.body.hits.length > 0, `${c.name}: some hits`);
    t.same(
      leis(k),
      p.body.results.map((e: { lei: string }) => e.lei),
      `${c.name}: same LEIs, same order`,
    );
    t.same(
      k.body.hits.map((h: { document: unknown }) => h.document),
      p.body.results,
      `${c.name}: documents as the public API serves them`,
    );
    for (const [field, param] of c.facets ?? []) {
      const kf = (k.body.facet_counts as { field_name: string; counts: { value: string; count: number }[] }[]).find(
        (f) => f.field_name === field,
      );
      const pf = (p.body.facets as { field: string; values: { value: string; count: number }[] }[]).find((f) => f.field === param);
      t.ok(kf && pf, `${c.name}: facet ${field} present on both`);
      t.same(
        kf?.counts.map((x) => [x.value, x.count]),
        pf?.values.map((x) => [x.value, x.count]),
        `${c.name}: facet ${field} counts agree`,
      );
    }
  }

  // per_page 250 (deeper than the public limit): the first 250 of the public API's first 300
  const wide = await boot(searchPath("lei", { q: "*", per_page: 250 }));
  const pubPages = await Promise.all([1, 2, 3].map((page) => call(`/v1/entities${qs({ page, limit: 100 })}`)));
  t.equal(wide.body.hits.length, 250, "per_page=250 gives 250 hits");
  t.same(
    leis(wide),
    pubPages.flatMap((r) => r.body.results.map((e: { lei: string }) => e.lei)).slice(0, 250),
    "the 250 are the public API's first 250, in order",
  );
});

t.test("keyed search: Typesense's shape, the filter syntax, paging, limits, errors", async (t) => {
  const r = await boot(searchPath("lei", { q: "bank", query_by: "legalName" }));
  t.match(
    r.body,
    { found: Number, out_of: TOTAL, page: 1, search_time_ms: Number, hits: Array, facet_counts: Array },
    "Typesense's response fields",
  );
  t.same(r.body.facet_counts, [], "facet_counts present (empty) without facet_by");
  t.equal(r.body.hits.length, 10, "per_page defaults to 10");
  t.ok(
    r.body.hits.every((h: { document: { lei?: string } }) => typeof h.document?.lei === "string"),
    "hits[].document with its lei",
  );

  const us = (await boot(searchPath("lei", { q: "*", filter_by: "country:US" }))).body;
  t.ok(us.found > 0 && us.hits.every((h: { document: { country: string } }) => h.document.country === "US"), "field:value");
  t.equal((await boot(searchPath("lei", { q: "*", filter_by: "country:=US" }))).body.found, us.found, "field:=value means the same here");
  const gb = (await boot(searchPath("lei", { q: "*", filter_by: "country:GB" }))).body.found;
  t.equal((await boot(searchPath("lei", { q: "*", filter_by: "country:[US,GB]" }))).body.found, us.found + gb, "field:[a,b] is a union");
  t.equal((await boot(searchPath("lei", { q: "*", filter_by: "country:US && country:GB" }))).body.found, 0, "contradicting clauses -> 0");
  t.equal(
    (await boot(searchPath("lei", { q: "*", filter_by: "(country:[US,GB]) && (country:GB)" }))).body.found,
    gb,
    "parentheses and && intersect",
  );
  const ny = await boot(searchPath("lei", { q: "*", filter_by: "city:`New York` && country:US" }));
  t.ok(
    ny.body.found > 0 && ny.body.hits.every((h: { document: { city: string } }) => h.document.city.toLowerCase() === "new york"),
    "backticks quote a value with a space",
  );

  t.equal(
    (await boot(searchPath("lei", { q: "*", filter_by: "country:US || country:GB" }))).body.found,
    us.found + gb,
    "|| within one field is a union",
  );
  t.equal((await boot(searchPath("lei", { q: "*", filter_by: "country:!=US" }))).body.found, TOTAL - us.found, "!= excludes a value");
  t.equal(
    (await boot(searchPath("lei", { q: "*", filter_by: "country:!=[US,GB] && country:!=US" }))).body.found,
    TOTAL - us.found - gb,
    "!= with a list, twice",
  );
  const refusals: [Params, RegExp][] = [
    [{ q: "*", filter_by: "country:US || entityStatus:ACTIVE" }, /\|\|/],
    [{ q: "*", filter_by: "country:!=US || country:GB" }, /!=/],
    [{ q: "*", filter_by: "(country:US" }, /parenthes/],
    [{ q: "*", filter_by: "legalName:foo" }, /legalName/],
    [{ q: "*", facet_by: "legalName" }, /legalName/],
    [{ q: "bank", query_by: "nosuchfield" }, /query_by/],
    [{ query_by: "legalName" }, /'q'/],
    [{ q: "*", bogus: "1" }, /bogus/],
    [{ q: "*", per_page: -1 }, /per_page/],
    [{ q: "*", per_page: "x" }, /per_page/],
    [{ q: "*", page: 0 }, /page/],
    [{ q: "*", page: "x" }, /page/],
    [{ q: "*", page: 41, per_page: 250 }, /page/],
  ];
  for (const [params, message] of refusals) {
    const x = await boot(searchPath("lei", params));
    t.equal(x.status, 400, `${qs(params)} -> 400`);
    t.match(x.body, { message }, `${qs(params)}: {message} says what is wrong`);
  }

  // per_page=0 (InstantSearch's facet-only queries): found and facets, no hits, as in Typesense
  const counted = await boot(searchPath("lei", { q: "bank", facet_by: "country", per_page: 0, page: 3 }));
  const ranked = await boot(searchPath("lei", { q: "bank", facet_by: "country" }));
  t.equal(counted.status, 200, "per_page=0 is accepted");
  t.same(counted.body.hits, [], "and returns no hits");
  t.equal(counted.body.found, ranked.body.found, "with the same found");
  t.same(counted.body.facet_counts, ranked.body.facet_counts, "and the same facet counts");
  t.equal(counted.body.request_params.per_page, 0);

  const capped = await boot(searchPath("lei", { q: "*", per_page: 251 }));
  t.ok(
    capped.status === 422 || (capped.status === 200 && capped.body.hits.length === 250),
    `per_page=251 never returns more than 250 hits (${capped.status}, ${capped.body?.hits?.length})`,
  );
  const last = await boot(searchPath("lei", { q: "*", page: 25, per_page: 250 }));
  t.equal(last.body.page, 25);
  t.equal(last.body.hits.length, TOTAL - 24 * 250, "the last page of 250 holds the remainder");
  const before = await boot(searchPath("lei", { q: "*", page: 24, per_page: 250 }));
  t.equal(
    new Set([...leis(before), ...leis(last)]).size,
    before.body.hits.length + last.body.hits.length,
    "consecutive deep pages do not overlap",
  );
  const beyond = await boot(searchPath("lei", { q: "*", page: 30, per_page: 250 }));
  t.same([beyond.status, beyond.body.hits.length, beyond.body.found], [200, 0, TOTAL], "a page past the end is empty, found unchanged");
});

// ------------------------------------------------------------------------------ num_typos and prefix

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
  t.equal(
    (await boot(searchPath("lei", { q: "seymoor", query_by: "legalName", num_typos: 0 }))).body.found,
    0,
    "num_typos=0: nothing at all",
  );

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
  t.same(
    (await found({ q: "Divest", query_by: "legalName,otherNames", prefix: "false,true" })).sort(),
    divestix,
    "one value per field: any true allows it",
  );
  t.same(await found({ q: "Divest", query_by: "legalName,otherNames", prefix: "false, false" }), [], "false,false");
  t.same(
    await found({ q: "divestix", query_by: "legalName", prefix: "false" }).then((l) => l.sort()),
    divestix,
    "the whole word still matches with prefix=false",
  );
  // a one-letter truncation is also one typo away: prefix=false alone still finds it, with num_typos=0 not
  t.ok(
    (await found({ q: "seymou", query_by: "legalName", prefix: "false" })).includes(SEYMOUR.lei),
    "'seymou' with prefix=false: one typo away",
  );
  t.notOk(
    (await found({ q: "seymou", query_by: "legalName", prefix: "false", num_typos: 0 })).includes(SEYMOUR.lei),
    "'seymou' with prefix=false and num_typos=0: not found",
  );
  t.ok((await found({ q: "seymou", query_by: "legalName", num_typos: 0 })).includes(SEYMOUR.lei), "'seymou' by prefix with num_typos=0");

  for (const bad of ["yes", "1", "0", "", "true,maybe", "TRUE "]) {
    const r = await boot(searchPath("lei", { q: "Divest", prefix: bad }));
    t.equal(r.status, 400, `prefix=${JSON.stringify(bad)} -> 400`);
    t.match(r.body, { message: /prefix/ });
  }
});
