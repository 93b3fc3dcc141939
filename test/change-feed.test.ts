// Issue 45, item 3: the change feed, end to end against the GLEIF imitation. Three publications
// of the bundled sample, the second and third with real records edited: a name (twice), a
// registration status to LAPSED, a NextRenewalDate, a headquarters address, successor LEIs, an
// RR parent, a REPEX exception and an ISIN added; plus an LEI new in the third. The feed must list
// each changed field once with its old and new value and its publication, page by cursor, filter,
// give one entity's history, and add nothing when a publication is loaded again: by --reload-now,
// and by the load that a kill -9 before the swap would leave to redo (the live collection put
// back to the second publication while the feed already holds the third's changes).

import t from "tap";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { csvLine, parseCsv, readSample, withCheckDigits } from "./helpers/fixture.js";
import { csvText, goldenCopy, GleifImitation, sampleLevel2, sampleLevel2Text, type GoldenCopy } from "./helpers/gleif-imitation.js";
import Database from "better-sqlite3";
import { metric, ON_POSTGRES, startServer, tempDir, type RunningServer } from "./helpers/server.js";
import { axeViolations, browserMissing, launchBrowser } from "./helpers/browser.js";
import type { StoredChange } from "../src/changes/model.js";

// ---------------------------------------------------------------- the publications

const { header, rows } = readSample();
const col = (name: string): number => {
  const i = header.indexOf(name);
  if (i < 0) throw new Error(`no column ${name}`);
  return i;
};
const LEI = col("LEI"),
  NAME = col("Entity.LegalName"),
  REG_STATUS = col("Registration.RegistrationStatus"),
  RENEWAL = col("Registration.NextRenewalDate"),
  HQ_CITY = col("Entity.HeadquartersAddress.City"),
  SUCCESSOR_1 = col("Entity.SuccessorEntity.1.SuccessorLEI"),
  SUCCESSOR_2 = col("Entity.SuccessorEntity.2.SuccessorLEI");
const ADDRESS_PARTS = ["FirstAddressLine", "City", "Region", "PostalCode", "Country"];
const hqOf = (row: string[]): string | null => {
  const parts = ADDRESS_PARTS.map((p) => row[col(`Entity.HeadquartersAddress.${p}`)]).filter((v) => v !== "");
  return parts.length > 0 ? parts.join(", ") : null;
};

const leiOf = (i: number): string => rows[i][LEI];
const sampleLeis = new Set(rows.map((r) => r[LEI]));

// Level 2: a child with one active direct parent (RR), an LEI with one direct exception (REPEX), an issuer of ISINs
const rr = parseCsv(sampleLevel2Text("rr"));
const rrAt = (name: string): number => rr[0].indexOf(name);
const directRows = rr
  .slice(1)
  .filter(
    (r) =>
      r[rrAt("Relationship.RelationshipType")] === "IS_DIRECTLY_CONSOLIDATED_BY" && r[rrAt("Relationship.RelationshipStatus")] === "ACTIVE",
  );
const directCount = new Map<string, number>();
for (const r of rr.slice(1))
  if (r[rrAt("Relationship.RelationshipType")] === "IS_DIRECTLY_CONSOLIDATED_BY") {
    const child = r[rrAt("Relationship.StartNode.NodeID")];
    directCount.set(child, (directCount.get(child) ?? 0) + 1);
  }
const rrChildRow = directRows.find(
  (r) => sampleLeis.has(r[rrAt("Relationship.StartNode.NodeID")]) && directCount.get(r[rrAt("Relationship.StartNode.NodeID")]) === 1,
)!;
const RR_CHILD = rrChildRow[rrAt("Relationship.StartNode.NodeID")];
const OLD_PARENT = rrChildRow[rrAt("Relationship.EndNode.NodeID")];

const repex = parseCsv(sampleLevel2Text("repex"));
const exceptionRow = repex
  .slice(1)
  .find(
    (r) =>
      sampleLeis.has(r[0]) &&
      r[0] !== RR_CHILD &&
      r[1] === "DIRECT_ACCOUNTING_CONSOLIDATION_PARENT" &&
      r[2] !== "NATURAL_PERSONS" &&
      r[3] === "" &&
      repex.filter((x) => x[0] === r[0] && x[1] === r[1]).length === 1,
  )!;
const EXCEPTION_LEI = exceptionRow[0];
const OLD_REASON = exceptionRow[2];

const isin = parseCsv(sampleLevel2Text("isin"));
const ISSUER = isin.slice(1).find((r) => sampleLeis.has(r[0]))![0];
const ISSUER_ISINS = new Set(
  isin
    .slice(1)
    .filter((r) => r[0] === ISSUER)
    .map((r) => r[1]),
).size;

// Level 1 records to edit: distinct, and none of them the Level 2 picks
const taken = new Set([RR_CHILD, EXCEPTION_LEI, ISSUER]);
const pick = (test: (r: string[]) => boolean): number => {
  const i = rows.findIndex((r) => !taken.has(r[LEI]) && test(r));
  taken.add(rows[i][LEI]);
  return i;
};
const RENAMED = pick(() => true);
// issued, with a renewal date already past: it lapses, and its page warns
const LAPSING = pick((r) => r[REG_STATUS] === "ISSUED" && Date.parse(r[RENEWAL]) < Date.now());
const RENEWING = pick((r) => r[RENEWAL] !== "");
const MOVING = pick((r) => r[HQ_CITY] !== "");
const MERGED = pick((r) => r[SUCCESSOR_1] === "");
const NEW_PARENT = leiOf(pick(() => true));
/** a record no publication edits */
const QUIET = pick(() => true);
const SUCCESSORS = [leiOf(pick(() => true)), leiOf(pick(() => true))];

const NAME_2 = "Changefeed Umbenannt Erste GmbH";
const NAME_3 = "Changefeed Umbenannt Zweite GmbH";
const RENEWAL_2 = "2031-03-31T00:00:00Z";
const NEW_CITY = "Changefeedstadt";
const NEW_LEI = withCheckDigits("LEIDEXCHGFEED00001");

const edited = (edits: Map<number, (r: string[]) => void>, extra: string[][] = []): string[][] => [
  ...rows.map((r, i) => {
    const edit = edits.get(i);
    if (!edit) return r;
    const copy = [...r];
    edit(copy);
    return copy;
  }),
  ...extra,
];

const edits2 = new Map<number, (r: string[]) => void>([
  [RENAMED, (r) => (r[NAME] = NAME_2)],
  [LAPSING, (r) => (r[REG_STATUS] = "LAPSED")],
  [RENEWING, (r) => (r[RENEWAL] = RENEWAL_2)],
]);
const edits3 = new Map(edits2);
edits3.set(RENAMED, (r) => (r[NAME] = NAME_3));
edits3.set(MOVING, (r) => (r[HQ_CITY] = NEW_CITY));
edits3.set(MERGED, (r) => {
  r[SUCCESSOR_1] = SUCCESSORS[0];
  r[SUCCESSOR_2] = SUCCESSORS[1];
});
const newRow = [...rows[0]];
newRow[LEI] = NEW_LEI;
newRow[NAME] = "Changefeed Neuling Holding AG";

const publication = (date: string, data: string[][]): GoldenCopy => goldenCopy(date, { csv: csvText(header, data), rows: data.length });
const P1 = publication("2026-10-01 00:00:00", rows);
const P2 = publication("2026-10-01 08:00:00", edited(edits2));
const P3 = publication("2026-10-01 16:00:00", edited(edits3, [newRow]));

const rrText = (): string =>
  [rr[0], ...rr.slice(1).map((r) => (r === rrChildRow ? r.map((v, i) => (i === rrAt("Relationship.EndNode.NodeID") ? NEW_PARENT : v)) : r))]
    .map(csvLine)
    .join("\n") + "\n";
const repexText = (): string =>
  [repex[0], ...repex.slice(1).map((r) => (r === exceptionRow ? r.map((v, i) => (i === 2 ? "NATURAL_PERSONS" : v)) : r))]
    .map(csvLine)
    .join("\n") + "\n";
const isinText = (): string => sampleLevel2Text("isin").replace(/\n*$/, "\n") + `${ISSUER},DE000CHGFD00\n`;

const L1 = sampleLevel2("20261001-0000");
const L2 = sampleLevel2("20261001-0800", { rr: rrText() });
const L3 = sampleLevel2("20261001-1600", { rr: rrText(), repex: repexText(), isin: isinText() });

/** Every change the feed must list, as (lei, field) → [old, new, publication]. */
const EXPECTED = new Map<string, [string | null, string | null, string]>([
  [`${leiOf(RENAMED)} legalName ${P2.published}`, [rows[RENAMED][NAME], NAME_2, P2.published]],
  [`${leiOf(LAPSING)} registrationStatus ${P2.published}`, ["ISSUED", "LAPSED", P2.published]],
  [`${leiOf(RENEWING)} nextRenewalDate ${P2.published}`, [rows[RENEWING][RENEWAL], RENEWAL_2, P2.published]],
  [`${RR_CHILD} directParent ${P2.published}`, [OLD_PARENT, NEW_PARENT, P2.published]],
  [`${leiOf(RENAMED)} legalName ${P3.published}`, [NAME_2, NAME_3, P3.published]],
  [
    `${leiOf(MOVING)} hqAddress ${P3.published}`,
    [hqOf(rows[MOVING]), hqOf(rows[MOVING].map((v, i) => (i === HQ_CITY ? NEW_CITY : v))), P3.published],
  ],
  [`${leiOf(MERGED)} successorLeis ${P3.published}`, [null, SUCCESSORS.join("; "), P3.published]],
  [`${EXCEPTION_LEI} directParentException ${P3.published}`, [OLD_REASON, "NATURAL_PERSONS", P3.published]],
  [`${ISSUER} isinCount ${P3.published}`, [String(ISSUER_ISINS), String(ISSUER_ISINS + 1), P3.published]],
]);

// ---------------------------------------------------------------- helpers

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitForPublication(srv: RunningServer, published: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const stats = await srv.json("/v1/stats").catch(() => null);
    if (stats?.published === published) return;
    await sleep(200);
  }
  throw new Error(`publication ${published} never went live\n${srv.stdout().slice(-3000)}\n${srv.stderr().slice(-2000)}`);
}

async function waitLog(srv: RunningServer, re: RegExp): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!re.test(srv.stdout())) {
    if (Date.now() > deadline) throw new Error(`no log line ${re}\n${srv.stdout().slice(-3000)}`);
    await sleep(100);
  }
}

async function allChanges(srv: RunningServer, query = "", limit = 1000): Promise<StoredChange[]> {
  const out: StoredChange[] = [];
  let since = "0";
  for (;;) {
    const page = await srv.json(`/v1/changes?since=${since}&limit=${limit}${query}`);
    if (page.changes.length === 0) {
      if (page.next !== since) throw new Error("an empty page moved the cursor");
      return out;
    }
    out.push(...page.changes);
    since = page.next;
  }
}

const keyOf = (r: StoredChange): string => `${r.lei} ${r.field} ${r.publication}`;

// ---------------------------------------------------------------- the server

const gleif = await GleifImitation.start();
t.teardown(() => gleif.close());
const dataDir = tempDir(t, "leidex-changes-");
const args = [...gleif.args, "--retry-seconds", "1"];
const start = (extra: string[] = []): Promise<RunningServer> =>
  startServer(t, { source: null, shards: 2, dataDir, timeoutMs: 120_000, args: [...args, ...extra] });

gleif.publish(P1, {}, L1);
let srv = await start();
const before = {
  rrChild: await srv.json(`/v1/entities/${RR_CHILD}`),
  renewing: await srv.json(`/v1/entities/${leiOf(RENEWING)}`),
};
/** The collections directory as it was with P2 live: put back later to redo P3's load. */
const p2Snapshot = tempDir(t, "leidex-changes-p2-");

t.test("the first load is compared with nothing", async (t) => {
  t.same((await srv.json("/v1/changes")).changes, [], "no changes");
  t.equal((await srv.json("/v1/stats")).changesDetected, null, "/v1/stats: not compared");
  t.equal(before.rrChild.directParent, OLD_PARENT, "the RR child's parent as published");
  t.equal(before.renewing.nextRenewalDate, rows[RENEWING][RENEWAL], "nextRenewalDate in the document");
  t.equal(before.renewing.successorLeis, null, "successorLeis null where the record names none");
});

t.test("two more publications: each changed field listed once, with its old and new value and publication", async (t) => {
  gleif.publish(P2, {}, L2);
  srv.child.kill("SIGHUP");
  await waitForPublication(srv, P2.published);
  t.equal((await srv.json("/v1/stats")).changesDetected, 4, "/v1/stats: P2's four changes");
  await srv.stop();
  cpSync(join(dataDir, "collections"), p2Snapshot, { recursive: true });
  srv = await start();
  // the check every start makes must be over before P3 is published, or the SIGHUP would join it
  await waitLog(srv, /GLEIF publication 2026-10-01 08:00:00 is already loaded/);

  gleif.publish(P3, {}, L3);
  srv.child.kill("SIGHUP");
  await waitForPublication(srv, P3.published);

  const all = await allChanges(srv);
  const keys = all.map(keyOf);
  t.same([...keys].sort(), [...EXPECTED.keys()].sort(), "exactly the changed fields, each once");
  for (const r of all) {
    const want = EXPECTED.get(keyOf(r));
    if (!want) continue;
    t.same([r.valueOld, r.valueNew, r.publication], want, `${r.field} of ${r.lei}`);
    t.match(r.detectedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, "detectedAt is ISO 8601 UTC");
  }
  t.notOk(
    all.some((r) => r.lei === NEW_LEI),
    "an LEI new in P3 is no field change",
  );
  const ids = all.map((r) => BigInt(r.id));
  t.ok(
    ids.every((id, i) => i === 0 || id > ids[i - 1]),
    "ids increase",
  );
  t.same(all.filter((r) => r.publication === P2.published).length, 4, "P2's changes come first");

  const stats = await srv.json("/v1/stats");
  t.equal(stats.changesDetected, 5, "/v1/stats: P3's five changes");
  t.type(stats.changeDetectionSeconds, "number");
  const metrics = await (await fetch(`${srv.base}/metrics`)).text();
  t.equal(metric(metrics, "leidex_changes_detected"), 5, "/metrics: the last load's changes");
  t.type(metric(metrics, "leidex_changes_detection_seconds"), "number");
});

t.test("the documents carry nextRenewalDate and successorLeis", async (t) => {
  t.equal((await srv.json(`/v1/entities/${leiOf(RENEWING)}`)).nextRenewalDate, RENEWAL_2);
  t.equal((await srv.json(`/v1/entities/${leiOf(MERGED)}`)).successorLeis, SUCCESSORS.join("; "));
  t.equal((await srv.json(`/v1/entities/${RR_CHILD}`)).directParent, NEW_PARENT);
  const batch = await srv.json("/v1/entities/batch", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ leis: [leiOf(MERGED)] }),
  });
  t.equal(batch.results[0].entity.successorLeis, SUCCESSORS.join("; "), "batch");
  const search = await srv.json(`/v1/entities?q=${encodeURIComponent(NAME_3)}&limit=1`);
  t.equal(search.results[0].nextRenewalDate, rows[RENAMED][RENEWAL] || null, "search");
});

t.test("paging by cursor and the filters", async (t) => {
  const all = await allChanges(srv);
  t.same(await allChanges(srv, "", 2), all, "pages of 2 give the same rows in the same order");
  const last = all[all.length - 1].id;
  const empty = await srv.json(`/v1/changes?since=${last}`);
  t.same(empty, { changes: [], next: last }, "past the end: an empty page that keeps the cursor");

  t.same(
    (await allChanges(srv, `&lei=${leiOf(RENAMED).toLowerCase()}`)).map((r) => r.valueNew),
    [NAME_2, NAME_3],
    "lei= (any case): that LEI's changes in order",
  );
  t.same(
    (await allChanges(srv, "&field=registrationStatus")).map((r) => r.lei),
    [leiOf(LAPSING)],
    "field=",
  );
  t.same(
    (await allChanges(srv, "&type=relationship")).map((r) => `${r.lei} ${r.field}`),
    [`${RR_CHILD} directParent`],
    "type=relationship",
  );
  t.same(
    (await allChanges(srv, "&type=exception")).map((r) => r.field),
    ["directParentException"],
    "type=exception",
  );
  t.same(
    (await allChanges(srv, "&type=isin")).map((r) => r.valueNew),
    [String(ISSUER_ISINS + 1)],
    "type=isin",
  );
  t.equal((await allChanges(srv, "&type=lei")).length, all.length - 3, "type=lei: the rest");

  // newest first, paged down with before
  const newest: StoredChange[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await srv.json(`/v1/changes?order=newest&limit=2${before === undefined ? "" : `&before=${before}`}`);
    if (page.changes.length === 0) {
      t.equal(page.next, before, "an empty newest-first page keeps the before cursor");
      break;
    }
    newest.push(...page.changes);
    t.equal(page.next, page.changes[page.changes.length - 1].id, "next is the page's oldest id");
    before = page.next;
  }
  t.same(newest, [...all].reverse(), "order=newest in pages of 2: every row once, newest first");
  t.same(
    (await srv.json(`/v1/changes?order=newest&since=${all[1].id}&before=${last}`)).changes,
    all.slice(2, -1).reverse(),
    "since and before bound a newest-first page from both sides",
  );
  t.same((await srv.json(`/v1/changes?order=oldest&limit=3`)).changes, all.slice(0, 3), "order=oldest is the default order");
});

t.test("one entity's history", async (t) => {
  const history = await srv.json(`/v1/entities/${leiOf(RENAMED)}/changes`);
  t.same(
    history.changes.map((r: StoredChange) => [r.field, r.valueOld, r.valueNew, r.publication]),
    [
      ["legalName", rows[RENAMED][NAME], NAME_2, P2.published],
      ["legalName", NAME_2, NAME_3, P3.published],
    ],
  );
  t.equal(history.next, history.changes[1].id);
  const page = await srv.json(`/v1/entities/${leiOf(RENAMED)}/changes?limit=1`);
  t.equal(page.changes.length, 1, "limit");
  const rest = await srv.json(`/v1/entities/${leiOf(RENAMED)}/changes?since=${page.next}`);
  t.same(rest.changes, history.changes.slice(1), "since");
  const latest = await srv.json(`/v1/entities/${leiOf(RENAMED)}/changes?order=newest&limit=1`);
  t.same(latest.changes, history.changes.slice(1), "order=newest&limit=1: the latest change only");
  const older = await srv.json(`/v1/entities/${leiOf(RENAMED)}/changes?order=newest&before=${latest.next}`);
  t.same(older.changes, history.changes.slice(0, 1), "before: the changes under it");
  t.same((await srv.json(`/v1/entities/${leiOf(QUIET)}/changes`)).changes, [], "an entity without changes: an empty history");

  // the MCP tool gives the same page
  const tool = async (args: Record<string, unknown>): Promise<{ structuredContent: unknown; content: { text: string }[] }> => {
    const call = await fetch(`${srv.base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_entity_changes", arguments: args } }),
    });
    return ((await call.json()) as { result: { structuredContent: unknown; content: { text: string }[] } }).result;
  };
  const result = await tool({ lei: leiOf(RENAMED) });
  t.same(result.structuredContent, history, "get_entity_changes: the HTTP history");
  t.match(result.content[0].text, `legalName: ${rows[RENAMED][NAME]} → ${NAME_2}`, "its text names each change");
  const newest = await tool({ lei: leiOf(RENAMED), order: "newest", limit: 1 });
  t.same(newest.structuredContent, latest, "get_entity_changes with order newest: the HTTP page");
  t.match(newest.content[0].text, /newest first[\s\S]*pass it as before for the older changes/, "its text says the order and the cursor");

  const unknown = await srv.get(`/v1/entities/${withCheckDigits("LEIDEXCHGFEED99999")}/changes`);
  t.equal(unknown.status, 404, "an LEI neither held nor in the feed");
  t.match(unknown.body.error, /does not hold/);
  const malformed = await srv.get("/v1/entities/NOT-AN-LEI/changes");
  t.equal(malformed.status, 400);
  t.match(malformed.body.error, /not an LEI/);
});

t.test("bad parameters are 400s that say what is valid", async (t) => {
  const cases: [string, RegExp][] = [
    ["/v1/changes?since=abc", /since must be a cursor/],
    ["/v1/changes?since=-1", /since must be a cursor/],
    ["/v1/changes?before=x1", /before must be a cursor/],
    ["/v1/changes?order=desc", /order must be oldest or newest; got 'desc'/],
    [`/v1/entities/${leiOf(RENAMED)}/changes?order=`, /order must be oldest or newest/],
    ["/v1/changes?field=bogus", /unknown field 'bogus'; the feed follows legalName, otherNames/],
    ["/v1/changes?type=bogus", /unknown type 'bogus'; the record types are lei, relationship, exception, isin/],
    ["/v1/changes?lei=ABC", /not an LEI/],
    ["/v1/changes?limit=0", /limit must be a whole number from 1 to 1000/],
    ["/v1/changes?limit=1001", /limit must be a whole number from 1 to 1000/],
    ["/v1/changes?limit=ten", /limit must be/],
    ["/v1/changes?color=red", /unknown parameter 'color'/],
    [`/v1/entities/${leiOf(RENAMED)}/changes?lei=${leiOf(RENAMED)}`, /unknown parameter 'lei'/],
    ["/v1/changes?since=%zz", /malformed query string/],
  ];
  for (const [path, message] of cases) {
    const r = await srv.get(path);
    t.equal(r.status, 400, path);
    t.match(r.body?.error, message, path);
  }
  t.equal((await srv.get("/v1/changes", { method: "POST" })).status, 405, "POST is not allowed");
});

t.test(
  "the entity page: the next renewal date, a warning when it is past, the recent changes",
  { skip: browserMissing() ?? false },
  async (t) => {
    const browser = await launchBrowser(t);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));

    await page.goto(`${srv.base}/entity/${leiOf(RENAMED)}`);
    const changes = page.locator("section.changes");
    await changes.locator("tbody tr").first().waitFor();
    t.equal(await changes.locator("tbody tr").count(), 2, "both name changes");
    t.match(await changes.locator("tbody tr").first().innerText(), new RegExp(`Legal name\\s+${NAME_2}\\s+${NAME_3}`), "newest first");

    await page.goto(`${srv.base}/entity/${leiOf(RENEWING)}`);
    await page.locator("section.changes tbody tr").first().waitFor();
    t.equal(await page.locator(".renewal-overdue").count(), 0, "a renewal date to come: no warning");
    t.match(await page.locator("dl.fields").innerText(), /Next renewal\s+\S/, "the renewal date is shown");

    await page.goto(`${srv.base}/entity/${leiOf(LAPSING)}`);
    await page.locator("section.changes tbody tr").first().waitFor();
    t.equal(await page.locator(".renewal-overdue").count(), 1, "a date past: the warning");
    t.same(await axeViolations(page), [], "no WCAG A/AA violation with the changes table");
    t.same(errors, [], "no page errors");
  },
);

t.test("the same publication loaded again adds nothing", async (t) => {
  const all = await allChanges(srv);
  await srv.stop();
  srv = await start(["--reload-now"]);
  await waitForPublication(srv, P3.published);
  t.equal((await srv.json("/v1/stats")).changesDetected, null, "--reload-now loads before anything is live: compared with nothing");
  t.same(await allChanges(srv), all, "the feed is as it was");

  // as after a kill -9 between storing P3's changes and the swap: P2 live again, P3 to load
  await srv.kill9();
  rmSync(join(dataDir, "collections"), { recursive: true, force: true });
  cpSync(p2Snapshot, join(dataDir, "collections"), { recursive: true });
  srv = await start();
  await waitForPublication(srv, P3.published);
  t.equal((await srv.json("/v1/stats")).changesDetected, 5, "P3 against P2 finds its five changes again");
  t.same(await allChanges(srv), all, "and stores none of them twice");
});

t.test("retention: a change detected longer ago than --changes-retention-days is pruned at start", { skip: ON_POSTGRES }, async (t) => {
  const kept = await allChanges(srv);
  await srv.stop();
  const db = new Database(join(dataDir, "state.db"));
  db.prepare(
    "INSERT INTO lei_changes (lei, record_type, field, value_old, value_new, publication, detected_at) VALUES (?, 'lei', 'legalName', 'Old', 'Older', '2020-01-01T00:00:00Z', '2020-01-01T00:00:00.000Z')",
  ).run(leiOf(QUIET));
  db.close();
  srv = await start(["--changes-retention-days", "30"]);
  const deadline = Date.now() + 30_000;
  let now = await allChanges(srv);
  while (now.length !== kept.length && Date.now() < deadline) {
    await sleep(100);
    now = await allChanges(srv);
  }
  t.same(now, kept, "the old row is gone, the recent ones stay");
  t.match(srv.stdout(), /changes: pruned 1 change\(s\) detected more than 30 days ago/);
});

t.test("a collection built before the new fields is served, and rebuilt from its kept download meanwhile", async (t) => {
  const dir = tempDir(t, "leidex-changes-old-");
  const first = await startServer(t, { dataDir: dir, shards: 1 });
  await first.stop();
  // as a manifest written before DOCUMENT_VERSION 2, and its collection without the tracked records
  const current = JSON.parse(readFileSync(join(dir, "collections", "current.json"), "utf8")).collection as string;
  const manifestPath = join(dir, "collections", current, "manifest.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  delete manifest.documents;
  writeFileSync(manifestPath, JSON.stringify(manifest));
  rmSync(join(dir, "collections", current, "level2", "tracked.tbl"));
  const again = await startServer(t, { dataDir: dir, shards: 1 });
  t.match(again.stdout(), /serving \S+ \(\d+ records\) from its segments/, "served from its segments at once");
  await waitLog(again, /built with older document fields: rebuilding it from /);
  const deadline = Date.now() + 120_000;
  const rebuilt = (): number | undefined => {
    try {
      const name = JSON.parse(readFileSync(join(dir, "collections", "current.json"), "utf8")).collection as string;
      return JSON.parse(readFileSync(join(dir, "collections", name, "manifest.json"), "utf8")).documents as number | undefined;
    } catch {
      return undefined;
    }
  };
  while (rebuilt() !== 2 && Date.now() < deadline) await sleep(200);
  t.equal(rebuilt(), 2, "the rebuilt collection's manifest says so");
  t.equal((await again.json(`/v1/entities/${leiOf(RENEWING)}`)).nextRenewalDate, rows[RENEWING][RENEWAL]);
});
