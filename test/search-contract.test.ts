// GET /v1/entities: the SearchPage shape, every filter (comma and repeat OR, case), facets and
// their consistency with filtered counts, paging, clamping, q edge cases and `fields`. One server
// on the fixture (real sample + synthetic rows); expectations are computed from the data.

import t, { type Test } from "tap";
import { ENTITY_KEYS, SYNTH_LOU, writeFixture, type ModelRecord } from "./helpers/fixture.js";
import { FACET_FIELD, facetCounts, isSortedFacet, passes, select } from "./helpers/model.js";
import { pMap, qs, startServer, tempDir, type Params } from "./helpers/server.js";

const fx = writeFixture(tempDir(t));
const srv = await startServer(t, { source: fx.csv, rateLimit: 0 });
const TOTAL = fx.model.length;

const search = async (params: Params): Promise<any> => {
  const r = await srv.get(`/v1/entities${qs(params)}`);
  if (r.status !== 200) throw new Error(`${qs(params)} -> ${r.status} ${r.text}`);
  return r.body;
};
const status400 = async (t: Test, query: string, mentions?: string): Promise<void> => {
  const r = await srv.get(`/v1/entities${query}`);
  t.equal(r.status, 400, `${query} -> 400`);
  t.type(r.body?.error, "string", `${query}: {"error": string}`);
  t.same(Object.keys(r.body ?? {}), ["error"], `${query}: error body has only 'error'`);
  if (mentions) t.match(r.body?.error ?? "", mentions, `${query}: error names ${mentions}`);
};
const leis = (page: any): string[] => page.results.map((e: any) => e.lei);
const synthByName = (name: string): ModelRecord => fx.synthetic.find((r) => r.entity.legalName === name)!;

t.test("SearchPage shape with no parameters", async (t) => {
  const page = await search({});
  t.same(Object.keys(page).sort(), ["found", "limit", "outOf", "page", "results", "searchTimeMs"], "no facets key without facets=");
  t.equal(page.found, TOTAL, "everything matches");
  t.equal(page.outOf, TOTAL, "outOf = total records");
  t.equal(page.page, 1);
  t.equal(page.limit, 20, "default limit 20");
  t.equal(page.results.length, 20);
  t.ok(Number.isInteger(page.searchTimeMs) && page.searchTimeMs >= 0, "searchTimeMs is a non-negative integer");
  for (const e of page.results) {
    t.same(Object.keys(e).sort(), [...ENTITY_KEYS].sort(), "every LegalEntity field is present");
    t.same(e, fx.byLei.get(e.lei)?.entity, `result ${e.lei} equals the CSV row`);
  }
  t.equal(new Set(leis(page)).size, 20, "no duplicate results");
});

t.test("outOf is the dataset size whatever the query and filters", async (t) => {
  for (const p of [{ q: "bank" }, { country: "DE" }, { q: "zzzzqqqqxxxx" }, { q: "!!!" }, { status: "INACTIVE", q: "fund" }]) {
    const page = await search(p);
    t.equal(page.outOf, TOTAL, JSON.stringify(p));
  }
  const stats = await srv.json("/v1/stats");
  t.equal(stats.records, TOTAL, "stats.records = rows in the file");
});

t.test("every filter selects exactly the records the data says", async (t) => {
  const cases: Record<string, string[]>[] = [
    { country: ["DE"] },
    { country: ["us"] },
    { country: ["IN", "IT"] },
    { country: ["ZZ"] },
    { jurisdiction: ["US-DE"] },
    { jurisdiction: ["US"] },
    { jurisdiction: ["us-de"] },
    { jurisdiction: ["US", "GB"] },
    { jurisdiction: ["CH"] },
    { status: ["ACTIVE"] },
    { status: ["INACTIVE"] },
    { status: ["active", "inactive"] },
    { category: ["BRANCH"] },
    { category: ["INTERNATIONAL_ORGANIZATION"] },
    { category: ["fund"] },
    { category: ["GENERAL", "FUND"] },
    { legalForm: ["8888"] },
    { legalForm: ["2hbr"] },
    { legalForm: ["8888", "ZVVM"] },
    { managingLou: [SYNTH_LOU] },
    { managingLou: [SYNTH_LOU.toLowerCase()] },
    { city: ["Wilmington"] },
    { city: ["wilmington"] },
    { city: ["MALMO"] },
    { city: ["zurich"] },
    { city: ["Frankfurt am Main"] },
    { city: ["MÜNCHEN"] },
    { city: ["Biberach an der Riss"] },
    { region: ["US-DE"] },
    { region: ["de-by"] },
    { region: ["US-NY", "US-CA"] },
    { country: ["US"], status: ["ACTIVE"], registrationStatus: ["LAPSED"] },
    { jurisdiction: ["US"], region: ["US-DE"] },
    { country: ["NL"], managingLou: [SYNTH_LOU], category: ["GENERAL"] },
  ];
  for (const reg of ["ISSUED", "LAPSED", "RETIRED", "DUPLICATE", "ANNULLED", "PENDING_TRANSFER", "PENDING_ARCHIVAL", "MERGED"]) {
    cases.push({ registrationStatus: [reg] });
  }
  cases.push({ registrationStatus: ["pending_transfer", "Pending_Archival"] });
  for (const c of cases) {
    const expected = select(fx.model, c);
    const params: Record<string, string> = {};
    for (const [k, vs] of Object.entries(c)) params[k] = vs.join(",");
    const page = await search({ ...params, limit: 100 });
    t.equal(page.found, expected.length, `found for ${JSON.stringify(params)}`);
    t.equal(page.results.length, Math.min(100, expected.length), `page size for ${JSON.stringify(params)}`);
    const bad = page.results.filter((e: any) => !Object.entries(c).every(([p, vs]) => passes(fx.byLei.get(e.lei)!, p, vs)));
    t.same(
      bad.map((e: any) => e.lei),
      [],
      `every result passes ${JSON.stringify(params)}`,
    );
  }
});

t.test("the synthetic statuses and categories are each found", async (t) => {
  for (const reg of ["DUPLICATE", "ANNULLED", "PENDING_TRANSFER", "PENDING_ARCHIVAL", "MERGED"]) {
    const page = await search({ registrationStatus: reg });
    t.equal(page.found, 1, `${reg}: only the synthetic row has it`);
    t.equal(page.results[0]?.registrationStatus, reg);
  }
  const branch = await search({ category: "BRANCH" });
  t.same(leis(branch), [synthByName("Corvanta Bank Luxembourg Branch").entity.lei]);
  const io = await search({ category: "INTERNATIONAL_ORGANIZATION" });
  t.same(leis(io), [synthByName("International Zeltrane Commodities Organization").entity.lei]);
});

t.test("a repeated filter parameter is OR, like commas", async (t) => {
  const pairs: [Record<string, string[]>, Record<string, string>][] = [
    [{ country: ["DE", "FR"] }, { country: "DE,FR" }],
    [{ jurisdiction: ["US", "GB"] }, { jurisdiction: "US,GB" }],
    [{ registrationStatus: ["LAPSED", "RETIRED", "MERGED"] }, { registrationStatus: "LAPSED,RETIRED,MERGED" }],
    [{ category: ["fund", "BRANCH"] }, { category: "FUND,BRANCH" }],
    [{ region: ["US-DE", "US-NY"] }, { region: "US-DE,US-NY" }],
    [{ status: ["ACTIVE", "INACTIVE"] }, { status: "ACTIVE,INACTIVE" }],
    [{ legalForm: ["8888", "2HBR"] }, { legalForm: "8888,2HBR" }],
  ];
  for (const [repeated, comma] of pairs) {
    const a = await search({ ...repeated, limit: 50 });
    const b = await search({ ...comma, limit: 50 });
    t.equal(a.found, b.found, `${JSON.stringify(repeated)} found`);
    t.same(leis(a), leis(b), `${JSON.stringify(repeated)} same results`);
    const [param, values] = Object.entries(repeated)[0];
    t.equal(a.found, select(fx.model, { [param]: values }).length, `${param} OR count matches the data`);
  }
  const de = await search({ country: "DE" });
  const dup = await search({ country: ["DE", "DE"] });
  const dupComma = await search({ country: "DE,de" });
  t.equal(dup.found, de.found, "a value repeated does not count twice");
  t.equal(dupComma.found, de.found, "DE,de counts DE once");
});

t.test("a repeated q, fields, page, limit or city is a 400 naming it", async (t) => {
  await status400(t, "?q=bank&q=fund", "q");
  await status400(t, "?fields=name&fields=all", "fields");
  await status400(t, "?page=1&page=2", "page");
  await status400(t, "?limit=5&limit=5", "limit");
  await status400(t, "?city=London&city=Paris", "city");
});

t.test("filter values that are malformed are a 400 naming the parameter", async (t) => {
  for (const [param, value] of [
    ["country", "DEU"],
    ["country", "1A"],
    ["country", "D"],
    ["country", "DE,"],
    ["country", ",DE"],
    ["jurisdiction", "US-"],
    ["jurisdiction", "U-DE"],
    ["status", "DORMANT"],
    ["status", "ACTIVE,"],
    ["registrationStatus", "ISSUED;DROP"],
    ["category", "FUND-X"],
    ["legalForm", "ABC"],
    ["legalForm", "ABCDE"],
    ["managingLou", "5493001KJTIIGC8Y1R1"],
    ["region", "DE"],
    ["region", "US_DE"],
    ["fields", "names"],
    ["fields", "ALL"],
    ["facets", "city"],
    ["facets", "legalForm"],
    ["facets", "managingLou"],
    ["facets", "region"],
    ["facets", "nope"],
    ["facets", "country,"],
    ["q", "x".repeat(501)],
    ["city", "x".repeat(201)],
  ]) {
    await status400(t, qs({ [param]: value }), param);
  }
});

t.test("city is one value, matched ignoring case and diacritics, and may contain a comma", async (t) => {
  const zurich = select(fx.model, { city: ["Zurich"] });
  t.ok(zurich.some((r) => r.entity.city === "Zürich") && zurich.some((r) => r.entity.city === "ZURICH"), "fixture has Zürich and ZURICH");
  for (const v of ["Zurich", "ZÜRICH", "zürich", "  zurich  "]) {
    const page = await search({ city: v, limit: 100 });
    t.equal(page.found, zurich.length, `city=${JSON.stringify(v)}`);
  }
  // a value with a comma is a single city, not a list: no record has the city "Wilmington,London"
  const comma = await search({ city: "Wilmington,London" });
  t.equal(comma.found, 0, "city=Wilmington,London is one (absent) city, not an OR list");
  const greek = fx.model.find((r) => r.entity.city === "Λεμεσός, Κύπρος");
  if (greek) {
    const page = await search({ city: "ΛΕΜΕΣΟΣ, ΚΥΠΡΟΣ" });
    t.ok(leis(page).includes(greek.entity.lei), "a city holding a comma is matched whole (and Greek accents folded)");
  }
});

t.test("city filter folds the letters that search folds (ø, ł)", async (t) => {
  // search finds Kołobrzeg and Lillestrøm by their ASCII spelling; the city filter should agree
  for (const [ascii, real] of [
    ["Kolobrzeg", "Kołobrzeg"],
    ["Lillestrom", "Lillestrøm"],
  ]) {
    const rec = fx.model.find((r) => r.entity.city === real);
    if (!rec) continue;
    const viaSearch = await search({ q: ascii, fields: "address" });
    t.ok(leis(viaSearch).includes(rec.entity.lei), `q=${ascii} finds the ${real} record`);
    const viaFilter = await search({ city: ascii });
    t.ok(leis(viaFilter).includes(rec.entity.lei), `city=${ascii} selects the ${real} record`);
  }
});

t.test("jurisdiction US matches US-DE and every other US subdivision, and plain US", async (t) => {
  const us = await search({ jurisdiction: "US", facets: "jurisdiction", limit: 1 });
  const values = us.facets[0].values as { value: string; count: number }[];
  t.ok(values.length > 3, "several US jurisdictions");
  t.ok(
    values.every((v) => v.value === "US" || v.value.startsWith("US-")),
    "only US jurisdictions",
  );
  t.equal(
    values.reduce((a, v) => a + v.count, 0),
    us.found,
    "facet counts add up to found",
  );
  t.ok(
    values.some((v) => v.value === "US-DE"),
    "US-DE included",
  );
  const usde = await search({ jurisdiction: "US-DE" });
  t.ok(usde.found < us.found, "US-DE alone is a subset");
  // a subdivision code never prefix-matches: US-D is not US-DE
  const partial = await search({ jurisdiction: "US-D" });
  t.equal(partial.found, 0, "US-D matches nothing");
});

t.test("facets: shape, order, and counts equal to the data", async (t) => {
  const all = ["country", "jurisdiction", "status", "registrationStatus", "category"];
  const page = await search({ facets: all.join(","), limit: 1 });
  t.same(
    page.facets.map((f: any) => f.field),
    all,
    "one facet per requested field, in request order",
  );
  for (const f of page.facets) {
    t.same(Object.keys(f).sort(), ["field", "values"]);
    t.ok(isSortedFacet(f.values), `${f.field}: sorted by count desc then value`);
    t.same(f.values, facetCounts(fx.model, f.field), `${f.field}: counts equal the data`);
  }
  const reg = page.facets
    .find((f: any) => f.field === "registrationStatus")
    .values.map((v: any) => v.value)
    .sort();
  t.same(reg, ["ANNULLED", "DUPLICATE", "ISSUED", "LAPSED", "MERGED", "PENDING_ARCHIVAL", "PENDING_TRANSFER", "RETIRED"]);

  const repeated = await search({ facets: ["status", "category"], limit: 1 });
  t.same(
    repeated.facets.map((f: any) => f.field),
    ["status", "category"],
    "facets repeated = OR",
  );
  const lower = await search({ facets: "status", status: "inactive", limit: 1 });
  t.same(lower.facets[0].values, facetCounts(select(fx.model, { status: ["INACTIVE"] }), "status"), "facets follow the filters");
});

t.test("facet counts agree with the found of the filters narrowed to that value", async (t) => {
  for (const filters of [
    {},
    { country: "US" },
    { status: "ACTIVE", registrationStatus: "LAPSED" },
    { managingLou: SYNTH_LOU },
    { jurisdiction: "US,GB" },
  ]) {
    const base = await search({ ...filters, facets: "country,status,registrationStatus,category,jurisdiction", limit: 1 });
    for (const f of base.facets) {
      const total = f.values.reduce((a: number, v: any) => a + v.count, 0);
      t.ok(total <= base.found, `${JSON.stringify(filters)} ${f.field}: counts sum ≤ found`);
      const withValue = select(fx.model, Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, v.split(",")]))).filter(
        (r) => r.entity[FACET_FIELD[f.field]] !== null,
      ).length;
      t.equal(total, withValue, `${JSON.stringify(filters)} ${f.field}: counts cover every matching record with a value`);
      for (const v of f.values.slice(0, 3)) {
        // narrowing a facet that is also a filter: the value must be within the filter's values
        const narrowed = { ...filters, [f.field]: v.value };
        const filtered = await search({ ...narrowed, limit: 1 });
        t.equal(filtered.found, v.count, `${JSON.stringify(narrowed)}: found = facet count`);
      }
    }
  }
});

// Typo candidates and dropped words are decided without the filters, over all slices: a filter
// only narrows what the same query matches, so facet counts predict the filtered found.
t.test("facet counts agree with the found of the text query filtered on that value", async (t) => {
  const countries = facetCounts(fx.model, "country")
    .slice(0, 15)
    .map((v) => v.value);
  for (const q of ["bank", "fund", "energy", "services", "real estate", "logistics"]) {
    const base = await search({ q, facets: "country,registrationStatus,category", limit: 1 });
    const counts = (field: string): Map<string, number> =>
      new Map(base.facets.find((f: any) => f.field === field).values.map((v: any) => [v.value, v.count]));
    for (const c of countries) {
      const filtered = await search({ q, country: c, limit: 1 });
      t.equal(filtered.found, counts("country").get(c) ?? 0, `q=${q} country=${c}: found = facet count`);
    }
    for (const field of ["registrationStatus", "category"]) {
      for (const [value, count] of counts(field)) {
        t.equal((await search({ q, [field]: value, limit: 1 })).found, count, `q=${q} ${field}=${value}: found = facet count`);
      }
    }
  }
});

// A one-word query fills its page from its best ranges and only counts the rest (the typo and
// prefix ranges that cannot score higher): found, facets and the order must not notice.
t.test("found does not depend on page or limit", async (t) => {
  for (const q of ["bank", "fund", "metalli", "energy trading", "kraft", "Hollowmare", "ba", "servces", "holdnig"]) {
    const founds = new Set<number>();
    for (const [limit, page] of [
      [1, 1],
      [20, 1],
      [100, 1],
      [100, 2],
      [100, 10],
      [1, 1000],
    ]) {
      founds.add((await search({ q, limit, page })).found);
    }
    t.equal(founds.size, 1, `q=${q}: same found for every page/limit (got ${[...founds].join(", ")})`);
  }
});

t.test("paging: pages are disjoint and continue the order", async (t) => {
  for (const q of ["bank", "", "s.r.l.", "limited", "ba", "servces"]) {
    const big = await search({ q, limit: 30 });
    t.ok(big.found >= 30, `q=${JSON.stringify(q)} has at least 30 hits`);
    const pages = await pMap([1, 2, 3], 3, (page) => search({ q, limit: 10, page }));
    pages.forEach((p, i) => {
      t.equal(p.page, i + 1);
      t.equal(p.limit, 10);
      t.equal(p.found, big.found, "found does not depend on the page");
      t.equal(p.results.length, 10);
    });
    const joined = pages.flatMap(leis);
    t.equal(new Set(joined).size, 30, `q=${JSON.stringify(q)}: pages 1-3 are disjoint`);
    t.same(joined, leis(big), `q=${JSON.stringify(q)}: pages 1-3 = the first 30 in order`);
  }
  // the last partial page and beyond
  const few = await search({ registrationStatus: "LAPSED", limit: 100 });
  const n = few.found;
  t.ok(n > 100 && n < 1000, "LAPSED spans several pages");
  const lastPage = Math.ceil(n / 100);
  const last = await search({ registrationStatus: "LAPSED", limit: 100, page: lastPage });
  t.equal(last.results.length, n - (lastPage - 1) * 100, "last page holds the remainder");
  const beyond = await search({ registrationStatus: "LAPSED", limit: 100, page: lastPage + 1 });
  t.same(beyond.results, [], "a page past the end is empty");
  t.equal(beyond.found, n, "and still says found");
  const everything = await pMap(
    Array.from({ length: lastPage }, (_, i) => i + 1),
    2,
    (page) => search({ registrationStatus: "LAPSED", limit: 100, page }),
  );
  const allLeis = everything.flatMap(leis);
  t.equal(new Set(allLeis).size, n, "walking every page yields every LAPSED record once");
  t.same(new Set(allLeis), new Set(select(fx.model, { registrationStatus: ["LAPSED"] }).map((r) => r.entity.lei)));
});

t.test("limit clamping and the depth limit", async (t) => {
  for (const limit of [101, 500, 999999999]) {
    const page = await search({ limit });
    t.equal(page.limit, 100, `limit=${limit} is reported as 100`);
    t.equal(page.results.length, 100, `limit=${limit} returns 100`);
  }
  const one = await search({ limit: 1 });
  t.equal(one.results.length, 1);
  const deepest = await search({ limit: 100, page: 10 });
  t.equal(deepest.results.length, 100, "page 10 of 100 is allowed (window 1000)");
  const deepest1 = await search({ limit: 1, page: 1000 });
  t.equal(deepest1.results.length, 1, "page 1000 of 1 is allowed");
  const hundred = await search({ limit: 100, page: 10 });
  const single = await search({ limit: 1, page: 1000 });
  t.equal(single.results[0].lei, hundred.results[99].lei, "the 1000th result is the same whichever page size reaches it");
  const clamped = await search({ limit: 5000, page: 10 });
  t.equal(clamped.limit, 100, "clamped before the depth check");
  t.same(leis(clamped), leis(hundred));
  await status400(t, "?limit=100&page=11", "page too deep");
  await status400(t, "?limit=1&page=1001", "page too deep");
  await status400(t, "?limit=20&page=51", "page too deep");
  await status400(t, "?limit=500&page=11", "page too deep");
  await status400(t, "?page=999999999", "page too deep");
});

t.test("page and limit must be whole numbers from 1", async (t) => {
  for (const v of [
    "0",
    "-1",
    "1.5",
    "2.0",
    "abc",
    "",
    " 1",
    "1 ",
    "+1",
    "1e2",
    "0x10",
    "١",
    "１",
    "9999999999",
    "99999999999999999999999",
    "NaN",
    "Infinity",
    "1,2",
  ]) {
    await status400(t, qs({ page: v }), "page");
    await status400(t, qs({ limit: v }), "limit");
  }
});

t.test("q: empty, whitespace, punctuation only, length limit", async (t) => {
  for (const q of ["", " ", "   \t "]) {
    const page = await search({ q });
    t.equal(page.found, TOTAL, `q=${JSON.stringify(q)} matches everything`);
  }
  const emptyFiltered = await search({ q: "  ", country: "DE" });
  t.equal(emptyFiltered.found, select(fx.model, { country: ["DE"] }).length, "blank q: only filters apply");
  for (const q of ["!!!", "---", "()", "😀🚀", "、。", "%", "&&"]) {
    const page = await search({ q });
    t.equal(page.found, 0, `q=${JSON.stringify(q)} finds nothing`);
    t.same(page.results, []);
  }
  const ok = await search({ q: "bank " + "x".repeat(495) });
  t.equal(ok.page, 1, "a 500-character q is accepted");
  const multi = await search({ q: "é".repeat(500) });
  t.equal(multi.page, 1, "500 non-ASCII characters are accepted");
  await status400(t, qs({ q: "é".repeat(501) }), "q");
  await status400(t, qs({ q: "bank ".repeat(2000) }), "q");
});

t.test("fields=name, address, lei, all", async (t) => {
  const ru = synthByName("Общество с ограниченной ответственностью «Снежнария»");
  const issued = synthByName("Vorlandia Kraftwerk Gesellschaft mbH");
  const top = async (p: Record<string, string>): Promise<string[]> => leis(await search({ ...p, limit: 10 }));

  t.ok((await top({ q: "Snowlandia", fields: "name" })).includes(ru.entity.lei), "other name searchable under fields=name");
  t.ok((await top({ q: "Snezhnariya", fields: "name" })).includes(ru.entity.lei), "transliterated name searchable under fields=name");
  t.ok((await top({ q: "Снежнария" })).includes(ru.entity.lei), "Cyrillic legal name searchable");
  t.notOk((await top({ q: "Snowlandia", fields: "address" })).includes(ru.entity.lei), "names are not address text");
  t.notOk((await top({ q: "Snowlandia", fields: "lei" })).includes(ru.entity.lei), "names are not LEI text");

  t.ok((await top({ q: "Leopoldstraße", fields: "address" })).includes(issued.entity.lei), "HQ line is address text");
  t.ok((await top({ q: "Marienplatz", fields: "address" })).includes(issued.entity.lei), "legal line is address text");
  t.ok((await top({ q: "80331", fields: "address" })).includes(issued.entity.lei), "postal code is address text");
  t.notOk((await top({ q: "Marienplatz", fields: "name" })).includes(issued.entity.lei), "address is not name text");
  t.notOk((await top({ q: "Vorlandia", fields: "address" })).includes(issued.entity.lei), "legal name is not address text");
  t.equal((await top({ q: "Vorlandia Kraftwerk", fields: "name" }))[0], issued.entity.lei);
  t.equal((await top({ q: "Vorlandia Kraftwerk", fields: "all" }))[0], issued.entity.lei);

  const lei = issued.entity.lei;
  t.equal((await top({ q: lei, fields: "lei" }))[0], lei, "fields=lei finds the LEI");
  t.equal((await top({ q: lei.toLowerCase(), fields: "lei" }))[0], lei, "fields=lei ignores case");
  t.equal((await top({ q: lei }))[0], lei, "fields=all finds an LEI first");
  const prefix = await search({ q: lei.slice(0, 14), fields: "lei", limit: 100 });
  t.ok(leis(prefix).includes(lei), "an LEI prefix finds it under fields=lei");
  t.ok(
    prefix.results.every((e: any) => e.lei.startsWith(lei.slice(0, 14))),
    "and only LEIs with that prefix",
  );
  const sample = fx.model[1234].entity.lei;
  t.equal((await top({ q: sample, fields: "lei" }))[0], sample, "a real LEI under fields=lei");
  const notName = await search({ q: sample, fields: "name" });
  t.notOk(leis(notName).includes(sample), "an LEI is not name text");
});

t.test("search combines q with filters (AND) and facets", async (t) => {
  const filtered = await search({ q: "srl", country: "IT", limit: 100 });
  t.ok(filtered.found > 0, "q=srl has Italian hits");
  t.ok(
    filtered.results.every((e: any) => e.country === "IT"),
    "every result in the filtered country",
  );
  const none = await search({ q: "Vorlandia", country: "FR" });
  t.equal(none.found, 0, "q matching a DE entity with country=FR finds nothing");
  const one = await search({ q: "Vorlandia", country: "de", registrationStatus: "issued", managingLou: SYNTH_LOU });
  t.equal(one.found, 1);
});

t.test("typo tolerance budget by word length", async (t) => {
  const ru = synthByName("Hollowmere Trust Company");
  const find = async (q: string): Promise<boolean> => leis(await search({ q, fields: "name", limit: 20 })).includes(ru.entity.lei);
  t.ok(await find("Hollowmere"), "exact");
  t.ok(await find("Hollowmare"), "1 typo in a 10-letter word");
  t.ok(await find("Holowmare"), "2 typos in a 10-letter word");
  t.notOk(await find("Hlowmare"), "3 typos in a 10-letter word do not match");
  t.notOk(await find("Hollowmxrxx"), "3 typos at the end of an 11-letter word do not match");
  const k = synthByName("Quellmoor Logistik AG");
  const findK = async (q: string): Promise<boolean> => leis(await search({ q, fields: "name", limit: 20 })).includes(k.entity.lei);
  t.ok(await findK("Quelmoor Logistik"), "1 typo in an 8-letter word");
  t.ok(await findK("Quellmoor Logstik"), "1 typo in a 8-letter word (second word)");
  t.ok(await findK("Quellmoor Logsitk"), "a transposition");
  const v = synthByName("Vorlandia Kraftwerk Gesellschaft mbH");
  const findV = async (q: string): Promise<boolean> => leis(await search({ q, fields: "name", limit: 20 })).includes(v.entity.lei);
  t.ok(await findV("Vorl"), "a 4-letter prefix");
  t.ok(await findV("Vorz"), "a 4-letter prefix with 1 typo");
  t.notOk(await findV("Vpr"), "no typo allowed under 4 characters");
  t.notOk(await findV("Vpzl"), "a 4-letter word with 2 typos does not match");
});
