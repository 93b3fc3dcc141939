// Corporate families and the identifier crosswalk on the bundled sample's real Level 2 rows
// (data/sample/level2/): parents, children and exceptions answer what the rows say, read here
// independently; the family tree is consistent both ways; ISIN and BIC lookups answer the right
// entity and refuse malformed codes; relationships to LEIs outside Level 1 are bare LEIs; the
// parent filters, the keyed API's filter_by, batch, match and the MCP tools take part.

import t from "tap";
import { randomBytes } from "node:crypto";
import { parseCsv, readSample, sampleParents, withCheckDigits } from "./helpers/fixture.js";
import { keyedApi, leisOf, searchPath } from "./helpers/keys.js";
import { connectClient } from "./helpers/mcp-clients.js";
import { pMap, qs, startServer } from "./helpers/server.js";
import { readFileSync } from "node:fs";

const level2 = (name: string): string[][] => parseCsv(readFileSync(new URL(`../data/sample/level2/${name}`, import.meta.url), "utf8"));
const [rrHeader, ...rrRows] = level2("rr.csv");
const [repexHeader, ...repexRows] = level2("repex.csv");
const [, ...isinRows] = level2("isin-lei.csv");
const [, ...bicRows] = level2("bic-lei.csv");
const rr = rrRows.map((r) => Object.fromEntries(rrHeader.map((h, i) => [h, r[i]])));
const repex = repexRows.map((r) => Object.fromEntries(repexHeader.map((h, i) => [h, r[i]])));
const START = "Relationship.StartNode.NodeID",
  END = "Relationship.EndNode.NodeID",
  TYPE = "Relationship.RelationshipType",
  STATUS = "Relationship.RelationshipStatus";

const sample = readSample();
const inLevel1 = new Set(sample.rows.map((r) => r[sample.header.indexOf("LEI")]));

/** a valid LEI neither Level 1 nor Level 2 of the sample holds */
const UNKNOWN = withCheckDigits("LEIDEXUNKNOWN00000");
const API_KEY = `l2-boot-${randomBytes(12).toString("hex")}`;
const srv = await startServer(t, { args: ["--api-key", API_KEY] });
const { boot } = keyedApi(() => srv.port, API_KEY);

interface Related {
  lei: string;
  entity: { lei: string; legalName: string | null } | null;
  relationship: {
    startNode: string;
    endNode: string;
    type: string;
    status: string | null;
    periods: unknown[];
    registration: Record<string, unknown>;
  };
}

t.test("relationships answer what the RR rows say: parents with their records, fund manager, umbrella fund", async (t) => {
  const starts = [...new Set(rr.map((r) => r[START]))];
  const wrong: string[] = [];
  await pMap(starts, 8, async (lei) => {
    const got = await srv.get(`/v1/entities/${lei}/relationships`);
    if (got.status !== 200) return void wrong.push(`${lei}: HTTP ${got.status}`);
    const b = got.body;
    const own = rr.filter((r) => r[START] === lei);
    const check = (field: string, type: string, many: boolean): void => {
      const rows = own.filter((r) => r[TYPE] === type);
      const answered: Related[] = many ? b[field] : b[field] === null ? [] : [b[field]];
      const want = many ? rows.map((r) => r[END]).sort() : rows.length > 0 ? [preferredEnd(rows)] : [];
      const have = answered.map((x) => x.lei).sort();
      if (JSON.stringify(have) !== JSON.stringify(want))
        wrong.push(`${lei}.${field}: ${JSON.stringify(have)}, want ${JSON.stringify(want)}`);
      for (const x of answered) {
        const row = rows.find((r) => r[END] === x.lei)!;
        if (x.relationship.type !== type || x.relationship.startNode !== lei || x.relationship.endNode !== x.lei)
          wrong.push(`${lei}.${field}: record ${JSON.stringify(x.relationship).slice(0, 80)}`);
        if (x.relationship.status !== (row[STATUS] === "NULL" || row[STATUS] === "" ? null : row[STATUS]))
          wrong.push(`${lei}.${field}: status`);
        if (x.relationship.registration.initialRegistrationDate !== (row["Registration.InitialRegistrationDate"] || null))
          wrong.push(`${lei}.${field}: registration date`);
        const period1 = row["Relationship.Period.1.startDate"];
        if (period1 && !JSON.stringify(x.relationship.periods).includes(period1)) wrong.push(`${lei}.${field}: periods`);
        // embedded where Level 1 holds it, a bare LEI otherwise
        if ((x.entity !== null) !== inLevel1.has(x.lei))
          wrong.push(`${lei}.${field}: entity ${x.entity ? "embedded" : "null"} for ${x.lei}`);
        if (x.entity && x.entity.lei !== x.lei) wrong.push(`${lei}.${field}: embedded the wrong entity`);
      }
    };
    check("directParent", "IS_DIRECTLY_CONSOLIDATED_BY", false);
    check("ultimateParent", "IS_ULTIMATELY_CONSOLIDATED_BY", false);
    check("fundManagers", "IS_FUND-MANAGED_BY", true);
    check("umbrellaFund", "IS_SUBFUND_OF", false);
  });
  t.same(wrong.slice(0, 20), [], `every one of ${starts.length} start nodes answers its rows`);
});

/** Of a start node's rows of one type, the end the API shows: ACTIVE first, then no status, then INACTIVE. */
function preferredEnd(rows: Record<string, string>[]): string {
  const rank = (r: Record<string, string>): number => (r[STATUS] === "ACTIVE" ? 0 : r[STATUS] === "INACTIVE" ? 2 : 1);
  return [...rows].sort((a, b) => rank(a) - rank(b) || a[END].localeCompare(b[END]))[0][END];
}

t.test("children are paged with counts, and every child lists its parent and back", async (t) => {
  const kinds: [string, string][] = [
    ["direct", "IS_DIRECTLY_CONSOLIDATED_BY"],
    ["ultimate", "IS_ULTIMATELY_CONSOLIDATED_BY"],
    ["managed-funds", "IS_FUND-MANAGED_BY"],
    ["sub-funds", "IS_SUBFUND_OF"],
  ];
  const wrong: string[] = [];
  for (const [kind, type] of kinds) {
    const parents = [...new Set(rr.filter((r) => r[TYPE] === type).map((r) => r[END]))];
    await pMap(parents, 8, async (parent) => {
      const want = rr
        .filter((r) => r[TYPE] === type && r[END] === parent)
        .map((r) => r[START])
        .sort();
      // pages of 4: every child once, in LEI order, with the count on every page
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(want.length / 4) + 1; page++) {
        const got = await srv.json(`/v1/entities/${parent}/children${qs({ type: kind, page, limit: 4 })}`);
        if (got.found !== want.length) wrong.push(`${parent} ${kind}: found ${got.found}, want ${want.length}`);
        seen.push(...got.results.map((x: Related) => x.lei));
        for (const x of got.results as Related[])
          if (x.relationship.endNode !== parent || x.relationship.type !== type) wrong.push(`${parent} ${kind}: a foreign record`);
      }
      if (JSON.stringify(seen) !== JSON.stringify(want)) wrong.push(`${parent} ${kind}: ${seen.join(" ")} want ${want.join(" ")}`);
      const counts = (await srv.json(`/v1/entities/${parent}/relationships`)).children;
      const name = { direct: "direct", ultimate: "ultimate", "managed-funds": "managedFunds", "sub-funds": "subFunds" }[kind]!;
      if (counts[name] !== want.length) wrong.push(`${parent}: children.${name} ${counts[name]}, want ${want.length}`);
    });
  }
  t.same(wrong.slice(0, 20), [], "children and counts match the rows");

  // both ways: a child's direct parent lists it among its direct children
  const directs = rr.filter((r) => r[TYPE] === "IS_DIRECTLY_CONSOLIDATED_BY" && r[STATUS] !== "INACTIVE");
  const broken: string[] = [];
  await pMap(directs, 8, async (row) => {
    const parent = (await srv.json(`/v1/entities/${row[START]}/relationships`)).directParent as Related | null;
    if (!parent) return void broken.push(`${row[START]} has no direct parent`);
    const children = await srv.json(`/v1/entities/${parent.lei}/children?type=direct&limit=100`);
    if (!children.results.some((c: Related) => c.lei === row[START])) broken.push(`${parent.lei} does not list ${row[START]}`);
  });
  t.same(broken, [], `${directs.length} direct relationships read the same from both ends`);
});

t.test("reporting exceptions: the reasons where no parent is reported", async (t) => {
  const wrong: string[] = [];
  await pMap(repex, 8, async (row) => {
    const b = await srv.json(`/v1/entities/${row.LEI}/relationships`);
    const field =
      row["Exception.Category"] === "DIRECT_ACCOUNTING_CONSOLIDATION_PARENT" ? "directParentException" : "ultimateParentException";
    const reasons = [1, 2, 3, 4, 5].map((i) => row[`Exception.Reason.${i}`]).filter(Boolean);
    const e = b[field];
    if (!e || e.lei !== row.LEI || e.category !== row["Exception.Category"] || JSON.stringify(e.reasons) !== JSON.stringify(reasons))
      wrong.push(`${row.LEI} ${field}: ${JSON.stringify(e)}`);
  });
  t.same(wrong, [], `${repex.length} exceptions answered`);
  const fund = await srv.json("/v1/entities/001GPB6A9XPE8XJICC14/relationships");
  t.equal(fund.directParent, null, "a fund reports no accounting parent");
  t.same(fund.directParentException.reasons, ["NO_KNOWN_PERSON"], "and says why");
  t.equal(fund.fundManagers[0].lei, "5493001Z012YSB2A0K51", "its fund manager");
  t.equal(fund.fundManagers[0].entity, null, "outside Level 1: a bare LEI");
  t.equal(fund.umbrellaFund.lei, "C7J4FOV6ELAVE39B7M82", "its umbrella fund");
});

t.test("an LEI only Level 2 knows answers its relationships; one nobody knows is a 404; malformed is a 400", async (t) => {
  const outside = rr.map((r) => r[END]).find((lei) => !inLevel1.has(lei))!;
  const got = await srv.get(`/v1/entities/${outside}/relationships`);
  t.equal(got.status, 200, "a parent outside Level 1 is known through its relationships");
  t.equal(got.body.entity, null, "with no entity");
  t.ok(
    Object.values(got.body.children as Record<string, number>).some((n) => n > 0),
    "and its children counted",
  );
  t.equal((await srv.get(`/v1/entities/${outside}`)).status, 404, "GET /v1/entities/{lei} still says Level 1 does not hold it");
  t.equal((await srv.get(`/entity/${outside}`)).status, 200, "its page on the search page exists");
  t.equal((await srv.get(`/entity/${UNKNOWN}`)).status, 404, "an LEI nobody knows has none");
  t.equal((await srv.get(`/v1/entities/${UNKNOWN}/relationships`)).status, 404, "unknown to both: 404");
  for (const bad of ["NOT-AN-LEI", "5493001KJTIIGC8Y1R1", "5493001KJTIIGC8Y1R13"]) {
    const r = await srv.get(`/v1/entities/${bad}/relationships`);
    t.equal(r.status, 400, `${bad}: 400`);
    t.type(r.body.error, "string", "with a message");
  }
  for (const q of ["type=cousins", "page=0", "limit=101", "limit=x", "page=1&page=2", "what=1"]) {
    const r = await srv.get(`/v1/entities/851WYGNLUQLFZBSYGB56/children?${q}`);
    t.equal(r.status, 400, `children?${q}: 400 (${r.body?.error})`);
  }
  for (const q of ["depth=0", "depth=11", "limit=501", "depth=-1"])
    t.equal((await srv.get(`/v1/entities/851WYGNLUQLFZBSYGB56/family?${q}`)).status, 400, `family?${q}: 400`);
  t.equal((await srv.get("/v1/entities/851WYGNLUQLFZBSYGB56/relationships", { method: "POST" })).status, 405, "POST: 405");
});

t.test("the family tree: from the ultimate parent down, the entity always in it, consistent with the children", async (t) => {
  // a member of the sample's largest group
  const member = rr.find((r) => r[TYPE] === "IS_DIRECTLY_CONSOLIDATED_BY" && r[END] === "851WYGNLUQLFZBSYGB56" && inLevel1.has(r[START]))!;
  const top = sampleParents().get(member[START])!.ultimateParent ?? member[END];
  const f = await srv.json(`/v1/entities/${member[START]}/family?depth=3&limit=500`);
  t.equal(f.lei, member[START], "names the entity asked about");
  t.equal(f.top.lei, top, "the top is the ultimate parent");
  type Node = { lei: string; relationship: { startNode: string; endNode: string } | null; childCount: number; children: Node[] };
  const all: Node[] = [];
  const walk = (n: Node, parent: Node | null): void => {
    all.push(n);
    if (parent && (n.relationship?.startNode !== n.lei || n.relationship?.endNode !== parent.lei))
      t.fail(`${n.lei}: its record links it to ${parent.lei}`);
    for (const c of n.children) walk(c, n);
  };
  walk(f.top, null);
  t.equal(all.length, f.nodes, "nodes counts every member");
  t.ok(
    all.some((n) => n.lei === member[START]),
    "the entity is in its family",
  );
  t.equal(new Set(all.map((n) => n.lei)).size, all.length, "no member twice");
  const children = await srv.json(`/v1/entities/${f.top.lei}/children?type=direct&limit=100`);
  t.same(
    f.top.children.map((c: Node) => c.lei).sort(),
    children.results.map((c: Related) => c.lei).sort(),
    "the top's children are its direct children",
  );
  t.equal(f.top.childCount, children.found, "childCount is the direct children's count");

  const small = await srv.json(`/v1/entities/${member[START]}/family?limit=3`);
  t.equal(small.nodes, 3, "the size cap holds");
  t.equal(small.truncated, true, "and says it cut");
  const path = JSON.stringify(small.top);
  t.ok(path.includes(`"lei":"${member[START]}"`), "the path to the entity survives the cap");
  const alone = await srv.json("/v1/entities/001GPB6A9XPE8XJICC14/family");
  t.equal(alone.top.lei, "001GPB6A9XPE8XJICC14", "an entity with no parent tops its own family");
});

t.test("ISIN and BIC lookups answer the entity the mapping names; bad check digits are a 400, unknown a 404", async (t) => {
  const wrong: string[] = [];
  await pMap(isinRows, 8, async ([lei, isin]) => {
    const r = await srv.get(`/v1/isin/${isin}`);
    if (r.status !== 200 || r.body.lei !== lei) wrong.push(`${isin}: ${r.status} ${r.body?.lei}, want ${lei}`);
    if (r.status === 200 && (r.body.legalName !== undefined) !== inLevel1.has(lei)) wrong.push(`${isin}: entity shape`);
    const lower = await srv.get(`/v1/isin/${isin.toLowerCase()}`);
    if (lower.body?.lei !== lei) wrong.push(`${isin} lower-case`);
  });
  t.same(wrong, [], `${isinRows.length} ISINs answer their issuer`);
  await pMap(bicRows, 8, async ([lei, bic]) => {
    const r = await srv.get(`/v1/bic/${bic}`);
    if (r.status !== 200 || r.body.lei !== lei) wrong.push(`${bic}: ${r.status} ${r.body?.lei}, want ${lei}`);
  });
  t.same(wrong, [], `${bicRows.length} BICs answer their entity`);
  const head = bicRows.find(([, bic]) => bic.endsWith("XXX"))!;
  t.equal((await srv.json(`/v1/bic/${head[1].slice(0, 8)}`)).lei, head[0], "an 8-character BIC is its head office (XXX)");

  const [issuer, isin] = isinRows.find(([lei]) => inLevel1.has(lei))!;
  const digit = Number(isin[11]);
  const badDigit = `${isin.slice(0, 11)}${(digit + 1) % 10}`;
  const bad = await srv.get(`/v1/isin/${badDigit}`);
  t.equal(bad.status, 400, "a failing ISIN check digit: 400");
  t.match(bad.body.error, /check digit/, "says so");
  for (const malformed of ["US037833100", "1S0378331005", "US03783310055", "US-378331005"])
    t.equal((await srv.get(`/v1/isin/${malformed}`)).status, 400, `${malformed}: 400`);
  t.equal((await srv.get("/v1/isin/US0378331005")).status, 404, "a valid ISIN no one maps: 404");
  for (const malformed of ["ABC", "1BCDUS33", "ABCDUS33X", "ABCDUS33XXXX"])
    t.equal((await srv.get(`/v1/bic/${malformed}`)).status, 400, `BIC ${malformed}: 400`);
  t.equal((await srv.get("/v1/bic/ZZZZUS33XXX")).status, 404, "an unknown BIC: 404");

  const isins = await srv.json(`/v1/entities/${issuer}/isins`);
  const want = isinRows
    .filter(([lei]) => lei === issuer)
    .map(([, i]) => i)
    .sort();
  t.same(isins.results, want, "the issuer's ISINs, in ISIN order");
  t.equal(isins.found, want.length, "with their count");
});

t.test("filters: directParent, ultimateParent (every member), hasParent; the keyed API's filter_by", async (t) => {
  const parents = sampleParents();
  const members = (key: "directParent" | "ultimateParent", of: string): string[] =>
    [...parents.entries()]
      .filter(([lei, p]) => p[key] === of && inLevel1.has(lei))
      .map(([lei]) => lei)
      .sort();
  const group = [...parents.values()].map((p) => p.ultimateParent).find((u) => u !== null && members("ultimateParent", u).length >= 3)!;
  const all = async (params: Record<string, string>): Promise<string[]> =>
    (await srv.json(`/v1/entities${qs({ ...params, limit: 100 })}`)).results.map((e: { lei: string }) => e.lei).sort();
  t.same(await all({ ultimateParent: group }), members("ultimateParent", group), "ultimateParent: every member of the group in Level 1");
  t.same(await all({ ultimateParent: group.toLowerCase() }), members("ultimateParent", group), "any case");
  t.same(await all({ directParent: group }), members("directParent", group), "directParent: its direct children");
  const withParent = [...parents.entries()].filter(([lei, p]) => inLevel1.has(lei) && (p.directParent || p.ultimateParent)).length;
  const hasParent = await srv.json("/v1/entities?hasParent=true&limit=1&facets=hasParent");
  t.equal(hasParent.found, withParent, "hasParent=true: every entity reporting a parent");
  t.equal((await srv.json("/v1/entities?hasParent=false&limit=1")).found, sample.rows.length - withParent, "hasParent=false: the rest");
  t.same(hasParent.facets[0].values, [{ value: "TRUE", count: withParent }], "faceted by hasParent");
  t.equal((await srv.get("/v1/entities?hasParent=maybe")).status, 400, "hasParent takes true or false");
  t.equal((await srv.get("/v1/entities?ultimateParent=NOTALEI")).status, 400, "ultimateParent takes LEIs");
  const doc = await srv.json(`/v1/entities/${members("ultimateParent", group)[0]}`);
  t.equal(doc.ultimateParent, group, "the LegalEntity carries its ultimate parent");

  const keyed = await boot(searchPath("lei", { q: "*", filter_by: `ultimateParent:=${group}`, per_page: 100 }));
  t.equal(keyed.status, 200, "filter_by ultimateParent");
  t.same(leisOf(keyed.body).sort(), members("ultimateParent", group), "the keyed API filters the group the same");
  const keyedHas = await boot(searchPath("lei", { q: "*", filter_by: "hasParent:true", facet_by: "hasParent", per_page: 1 }));
  t.equal(keyedHas.body.found, withParent, "filter_by hasParent:true");
});

t.test("batch lookup and matching take ISINs and BICs where they take LEIs", async (t) => {
  const [lei, isin] = isinRows.find(([l]) => inLevel1.has(l))!;
  const r = await srv.get("/v1/entities/batch", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ leis: [isin, `${isin.slice(0, 11)}${(Number(isin[11]) + 1) % 10}`, "US0378331005", lei] }),
  });
  t.equal(r.status, 200);
  t.same(
    r.body.results.map((x: { status: string; entity?: { lei: string } }) => [x.status, x.entity?.lei]),
    [
      ["found", lei],
      ["invalid", undefined],
      ["not_found", undefined],
      ["found", lei],
    ],
    "an ISIN is found as its issuer; a bad check digit invalid; an unmapped ISIN not found",
  );
  const name = (await srv.json(`/v1/entities/${lei}`)).legalName as string;
  const m = await srv.get("/v1/match", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rows: [{ name, lei: isin }] }),
  });
  t.equal(m.status, 200);
  t.equal(m.body.results[0].candidates[0].explanation.lei, "agrees", "a row's ISIN agrees with its issuer's LEI");
});

t.test("MCP: get_corporate_family and find_entity_by_identifier, with output schemas", async (t) => {
  const client = await connectClient("sdk-v1", `${srv.base}/mcp`);
  t.teardown(() => client.close());
  const tools = await client.listTools();
  for (const name of ["get_corporate_family", "find_entity_by_identifier"]) {
    const tool = tools.find((x) => x.name === name);
    t.ok(tool?.outputSchema, `${name} is listed with an output schema`);
  }
  const member = rr.find((x) => x[TYPE] === "IS_DIRECTLY_CONSOLIDATED_BY" && inLevel1.has(x[START]))!;
  const family = await client.callTool("get_corporate_family", { lei: member[START] });
  t.notOk(family.isError, "answers");
  const http = await srv.json(`/v1/entities/${member[START]}/relationships`);
  t.same((family.structuredContent as { relationships: unknown }).relationships, http, "the same relationships as the HTTP route");
  t.match(family.content[0].text, /direct parent: /, "and a text rendering");
  const [lei, isin] = isinRows.find(([l]) => inLevel1.has(l))!;
  const found = await client.callTool("find_entity_by_identifier", { identifier: isin.toLowerCase() });
  t.same((found.structuredContent as { kind: string; lei: string }).kind, "ISIN");
  t.equal((found.structuredContent as { lei: string }).lei, lei, "an ISIN finds its issuer");
  const bic = await client.callTool("find_entity_by_identifier", { identifier: bicRows[0][1] });
  t.equal((bic.structuredContent as { lei: string }).lei, bicRows[0][0], "a BIC finds its entity");
  t.ok((await client.callTool("find_entity_by_identifier", { identifier: "hello" })).isError, "neither form: an error result");
  t.ok((await client.callTool("get_corporate_family", { lei: UNKNOWN })).isError, "unknown LEI: an error result");
});

t.test("restart: Level 2 is served again from the persisted tables", async (t) => {
  const before = await srv.json("/v1/entities/851WYGNLUQLFZBSYGB56/relationships");
  await srv.kill9();
  const again = await startServer(t, { dataDir: srv.dataDir });
  t.match(again.stdout(), /serving lei_sample .* from its segments/, "served from disk, not loaded again");
  t.same(await again.json("/v1/entities/851WYGNLUQLFZBSYGB56/relationships"), before, "the same answer after kill -9 and restart");
  t.equal((await again.json(`/v1/isin/${isinRows[0][1]}`)).lei, isinRows[0][0], "ISINs too");
});
