// Issue 45 item 2: one failing part does not stop the rest. Against the GLEIF imitation (the golden
// copy API on one host, the mapping API on another that can be taken down) and the real server,
// across publications: with rr or repex not answering, a file failing its checks, or the mapping
// host down, Level 1 of the new publication still goes live, the live copy of the missing part is
// kept (parents written into Level 1 still come from the last good rr), and /v1/stats,
// /health/ready, /metrics and the page say which part is stale, since when and why; a later load
// that fetches it makes it fresh; a restart keeps the markers; a first start with rr hanging
// loads Level 1 after the deadline, with no parents and rr missing. The code before this item
// loaded none of these publications.

import t from "tap";
import { csvLine, entityRow, parseCsv, withCheckDigits } from "./helpers/fixture.js";
import {
  GleifImitation,
  sampleGoldenCopy,
  sampleLevel2,
  sampleLevel2Text,
  type GoldenCopy,
  type Level2Publication,
} from "./helpers/gleif-imitation.js";
import { browserMissing, launchBrowser } from "./helpers/browser.js";
import { startServer, tempDir, waitLog, type RunningServer } from "./helpers/server.js";

const NEW = withCheckDigits("LEIDEXPARTS0000001");
const PARENT_A = "851WYGNLUQLFZBSYGB56"; // COMMERZBANK Aktiengesellschaft, in the sample
const PARENT_B = "549300YRNUQ0FK60YT75"; // Lino Engineering AB, in the sample
const FUND = "001GPB6A9XPE8XJICC14"; // in the sample's rr, repex and ISIN files
const ISIN = "US3158052262"; // the sample ISIN file's first pair, of FUND
const BIC = "LBTCUS44XXX"; // the sample BIC file's first pair

const [rrHeader] = parseCsv(sampleLevel2Text("rr"));
function rrRow(start: string, end: string, type: string): string {
  const v: Record<string, string> = {
    "Relationship.StartNode.NodeID": start,
    "Relationship.StartNode.NodeIDType": "LEI",
    "Relationship.EndNode.NodeID": end,
    "Relationship.EndNode.NodeIDType": "LEI",
    "Relationship.RelationshipType": type,
    "Relationship.RelationshipStatus": "ACTIVE",
    "Registration.RegistrationStatus": "PUBLISHED",
  };
  return csvLine(rrHeader.map((h) => v[h] ?? ""));
}
/** The sample's relationship records, with NEW under `parent` (direct and ultimate). */
const rrWith = (parent: string): string =>
  sampleLevel2Text("rr") +
  [rrRow(NEW, parent, "IS_DIRECTLY_CONSOLIDATED_BY"), rrRow(NEW, parent, "IS_ULTIMATELY_CONSOLIDATED_BY")].join("\n") +
  "\n";
/** A mapping file without its first pair. */
const withoutFirstPair = (text: string): string => {
  const lines = text.split("\n");
  return [lines[0], ...lines.slice(2)].join("\n");
};

/** A publication of the sample with NEW named `name`. */
const pub = (publishDate: string, name: string): GoldenCopy => sampleGoldenCopy(publishDate, [entityRow(NEW, name)]);
const P1 = pub("2026-09-30 08:00:00", "Teilquellen Eins GmbH");
const P2 = pub("2026-09-30 16:00:00", "Teilquellen Zwei GmbH");
const P3 = pub("2026-10-01 00:00:00", "Teilquellen Drei GmbH");
const P4 = pub("2026-10-01 08:00:00", "Teilquellen Vier GmbH");
const P5 = pub("2026-10-01 16:00:00", "Teilquellen Fuenf GmbH");
const P6 = pub("2026-10-02 00:00:00", "Teilquellen Sechs GmbH");

const gleif = await GleifImitation.start();
t.teardown(() => gleif.close());
/** the mapping API on a host of its own, as GLEIF's is */
const mapping = await GleifImitation.start();
t.teardown(() => mapping.close());

function publish(p: GoldenCopy, level2: Level2Publication): void {
  gleif.publish(p, {}, level2);
  mapping.publishLevel2(level2);
}

async function reload(srv: RunningServer, re: RegExp): Promise<string> {
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  return waitLog(srv, mark, re);
}

const dataDir = tempDir(t, "leidex-parts-");
/** The server of the sequence, on one data dir; it outlives each subtest (torn down with the file). */
const start = (): Promise<RunningServer> =>
  startServer(t, {
    source: null,
    shards: 1,
    dataDir,
    timeoutMs: 90_000,
    args: ["--gleif-api", gleif.api, "--gleif-mapping-api", mapping.mappingApi, "--retry-seconds", "600"],
    env: { LEIDEX_UPSTREAM_TIMEOUT: "3" },
  });

type PartState = { status: string; from: string | null; loadedAt: string | null; since: string | null; reason: string | null };
type Stats = { published: string; parts: Record<"rr" | "repex" | "isin" | "bic", PartState> };

let srv: RunningServer;
/** when publication 1's parts were loaded */
let loadedAt1 = "";

t.test("publication 1, every part fetched: all fresh, nothing stale in readiness", async (t) => {
  publish(P1, sampleLevel2("20260930-0800", { rr: rrWith(PARENT_A) }));
  srv = await start();
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P1.published);
  for (const part of ["rr", "repex", "isin", "bic"] as const) t.equal(stats.parts[part].status, "fresh", `${part} fresh`);
  t.equal(stats.parts.rr.from, P1.published, "rr from the publication");
  t.match(stats.parts.isin.from, /^isin-lei-20260930T\d{6}\.zip$/, "isin from its mapping file");
  loadedAt1 = stats.parts.rr.loadedAt!;
  t.ok(loadedAt1, "with the time it was loaded");
  const ready = await srv.get("/health/ready");
  t.equal(ready.status, 200);
  t.notOk("staleParts" in ready.body, "no stale parts listed");
  t.equal((await srv.json(`/v1/entities/${NEW}`)).directParent, PARENT_A, "NEW's parent from rr 1");
});

t.test("publication 2 with the rr API down: Level 1 goes live, parents stay those of rr 1, rr is stale since its load", async (t) => {
  publish(P2, sampleLevel2("20260930-1600", { rr: rrWith(PARENT_B) }));
  gleif.level2Down = "rr";
  t.teardown(() => {
    gleif.level2Down = null;
  });
  await reload(srv, /loaded \d+ records as lei_20260930-1600/);
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P2.published, "publication 2 is live (the old code kept publication 1)");
  const entity = await srv.json(`/v1/entities/${NEW}`);
  t.equal(entity.legalName, "Teilquellen Zwei GmbH", "a record changed in publication 2 shows its new name");
  t.equal(entity.directParent, PARENT_A, "its parent written from the kept rr of publication 1");
  t.equal((await srv.json(`/v1/entities/${NEW}/relationships`)).directParent.lei, PARENT_A, "the relationships too");
  t.match(stats.parts.rr, {
    status: "stale",
    from: P1.published,
    loadedAt: loadedAt1,
    since: loadedAt1,
    reason: /rr\/latest answered HTTP 503/,
  });
  t.match(stats.parts.repex, { status: "fresh", from: P2.published });
  const ready = await srv.get("/health/ready");
  t.equal(ready.status, 200, "ready: Level 1 is current");
  t.same(
    ready.body.staleParts,
    [{ part: "rr", status: "stale", since: loadedAt1, reason: stats.parts.rr.reason }],
    "the stale part listed",
  );
  const metrics = (await srv.get("/metrics")).text;
  t.match(metrics, /leidex_source_part_stale\{part="rr"\} 1/);
  t.match(metrics, /leidex_source_part_stale\{part="repex"\} 0/);
  t.match(metrics, new RegExp(`leidex_source_part_stale_since_timestamp_seconds\\{part="rr"\\} ${Date.parse(loadedAt1) / 1000}`));

  const missing = browserMissing();
  if (missing) t.comment(`page not checked: ${missing}`);
  else {
    const browser = await launchBrowser(t);
    const page = await browser.newPage();
    await page.goto(`${srv.base}/`);
    await page.waitForFunction(() => (document.getElementById("stale-parts")?.textContent ?? "") !== "");
    t.match(
      await page.locator("#stale-parts").innerText(),
      /^Relationship records: stale since .+, an earlier load's copy/,
      "the page says so",
    );
    await page.close();
  }
});

t.test("publication 3 complete: everything fresh again, parents from rr 3", async (t) => {
  publish(P3, sampleLevel2("20261001-0000", { rr: rrWith(PARENT_B) }));
  await reload(srv, /loaded \d+ records as lei_20261001-0000/);
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P3.published);
  for (const part of ["rr", "repex", "isin", "bic"] as const) t.equal(stats.parts[part].status, "fresh", `${part} fresh`);
  t.equal(stats.parts.rr.from, P3.published);
  t.equal((await srv.json(`/v1/entities/${NEW}`)).directParent, PARENT_B, "the new parent");
  t.notOk("staleParts" in (await srv.json("/health/ready")), "nothing stale");
  t.match((await srv.get("/metrics")).text, /leidex_source_part_stale\{part="rr"\} 0/);
});

t.test("publication 4 with the repex API down: Level 1 goes live, the exceptions of repex 3 stay", async (t) => {
  publish(P4, sampleLevel2("20261001-0800", { rr: rrWith(PARENT_B) }));
  gleif.level2Down = "repex";
  t.teardown(() => {
    gleif.level2Down = null;
  });
  await reload(srv, /loaded \d+ records as lei_20261001-0800/);
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P4.published, "publication 4 is live");
  t.equal((await srv.json(`/v1/entities/${NEW}`)).legalName, "Teilquellen Vier GmbH");
  t.match(stats.parts.repex, { status: "stale", from: P3.published, reason: /repex\/latest answered HTTP 503/ });
  t.match(stats.parts.rr, { status: "fresh", from: P4.published });
  t.same((await srv.json(`/v1/entities/${FUND}/relationships`)).directParentException.reasons, ["NO_KNOWN_PERSON"], "exceptions kept");
});

t.test("publication 5 with an rr file that fails its checks: rr stays that of publication 4", async (t) => {
  const level2 = sampleLevel2("20261001-1600", { rr: rrWith(PARENT_A) });
  publish(P5, { ...level2, rr: { ...level2.rr, rows: level2.rr.rows + 1 } });
  await reload(srv, /loaded \d+ records as lei_20261001-1600/);
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P5.published, "publication 5 is live");
  t.match(stats.parts.rr, { status: "stale", from: P4.published, reason: /holds \d+ rows, its publication announces \d+/ });
  t.equal(stats.parts.repex.status, "fresh", "repex fetched again: fresh");
  t.equal((await srv.json(`/v1/entities/${NEW}`)).directParent, PARENT_B, "the parent of the kept rr, not of the broken file");
});

let isinSince = "";

t.test("publication 6 with the mapping host down: Level 1 refreshes, ISIN and BIC lookups keep the old data", async (t) => {
  await mapping.down();
  publish(
    P6,
    sampleLevel2("20261002-0000", {
      rr: rrWith(PARENT_A),
      isin: withoutFirstPair(sampleLevel2Text("isin")),
      bic: withoutFirstPair(sampleLevel2Text("bic")),
    }),
  );
  await reload(srv, /loaded \d+ records as lei_20261002-0000/);
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P6.published, "publication 6 is live (the old code kept publication 5)");
  t.equal((await srv.json(`/v1/entities/${NEW}`)).legalName, "Teilquellen Sechs GmbH");
  t.match(stats.parts.isin, { status: "stale", reason: /isin-lei\/latest unreachable/ });
  t.match(stats.parts.bic, { status: "stale", reason: /bic-lei\/latest unreachable/ });
  t.equal(stats.parts.rr.status, "fresh", "rr fetched: fresh again");
  t.equal((await srv.json(`/v1/entities/${NEW}`)).directParent, PARENT_A, "with its parent");
  t.equal((await srv.json(`/v1/isin/${ISIN}`)).lei, FUND, "an ISIN of the kept map answers");
  t.equal((await srv.get(`/v1/bic/${BIC}`)).status, 200, "a BIC of the kept map answers");
  isinSince = stats.parts.isin.since!;
  t.same(
    (await srv.json("/health/ready")).staleParts.map((p: { part: string }) => p.part),
    ["isin", "bic"],
  );
});

t.test("a restart keeps the stale markers; once the mapping host is back, a reload fetches them from the kept Level 1", async (t) => {
  await srv.stop();
  srv = await start();
  const mark = 0;
  await waitLog(
    srv,
    mark,
    /GLEIF publication 2026-10-02 00:00:00 is already loaded; isin still cannot be fetched[^\n]*; bic still cannot be fetched/,
  );
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P6.published);
  t.match(stats.parts.isin, { status: "stale", since: isinSince }, "isin still stale, since the same time");
  t.equal(stats.parts.bic.status, "stale");
  t.equal((await srv.json("/health/ready")).staleParts.length, 2);

  await mapping.up();
  const line = await reload(srv, /loaded \d+ records as lei_20261002-0000_b/);
  t.comment(line);
  t.match(srv.stdout(), /already loaded, with isin, bic not fresh: loading it again from its kept download/);
  const after = (await srv.json("/v1/stats")) as Stats;
  t.equal(after.published, P6.published, "the same publication");
  t.equal(after.parts.isin.status, "fresh");
  t.equal(after.parts.bic.status, "fresh");
  t.equal((await srv.get(`/v1/isin/${ISIN}`)).status, 404, "the new ISIN map, without that pair, is live");
  t.notOk("staleParts" in (await srv.json("/health/ready")));
  await srv.stop();
});

t.test("first start with the rr API hanging: Level 1 loads after the deadline, with no parents; rr missing", async (t) => {
  publish(P1, sampleLevel2("20260930-0800", { rr: rrWith(PARENT_A) }));
  gleif.slowApi = { part: "rr", mode: "trickle" };
  t.teardown(() => {
    gleif.slowApi = null;
  });
  const first = await startServer(t, {
    source: null,
    shards: 1,
    timeoutMs: 90_000,
    args: ["--gleif-api", gleif.api, "--gleif-mapping-api", mapping.mappingApi, "--retry-seconds", "600"],
    env: { LEIDEX_UPSTREAM_TIMEOUT: "2" },
  });
  const stats = (await first.json("/v1/stats")) as Stats;
  t.equal(stats.published, P1.published, "publication 1 is live, not the offline fallback");
  t.match(stats.parts.rr, { status: "missing", from: null, loadedAt: null, reason: /rr\/latest did not answer in full within 2 s/ });
  t.ok(stats.parts.rr.since, "missing since the failure");
  t.equal(stats.parts.repex.status, "fresh");
  t.equal((await first.json(`/v1/entities/${NEW}`)).directParent, null, "no parents");
  t.equal((await first.json(`/v1/entities/${FUND}/relationships`)).fundManagers.length, 0, "no relationships");
  t.same((await first.json("/health/ready")).staleParts, [
    { part: "rr", status: "missing", since: stats.parts.rr.since, reason: stats.parts.rr.reason },
  ]);
  await first.stop();
});
