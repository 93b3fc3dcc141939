// Level 2 in the daily pipeline, against the GLEIF imitation serving all four files (rr and
// repex through the golden copy API, ISIN and BIC through the mapping API, whose zips hold
// reversed names and which answers 406 to Accept: application/json): a reload swaps Level 2
// atomically with Level 1; the real quirks load (a NULL status, a start node failing its check
// digits, relationships to LEIs outside Level 1); a corrupt, incomplete or unreachable Level 2
// file no longer stops Level 1: that part keeps the live copy, marked stale (issue 45); offline,
// the bundled sample brings its Level 2 rows.

import t from "tap";
import { csvLine, entityRow, parseCsv, withBadCheckDigits, withCheckDigits } from "./helpers/fixture.js";
import { GleifImitation, level2File, sampleGoldenCopy, sampleLevel2, sampleLevel2Text, zipVerbatim } from "./helpers/gleif-imitation.js";
import { freePort, startServer, type RunningServer } from "./helpers/server.js";

const PARENT = "851WYGNLUQLFZBSYGB56"; // COMMERZBANK Aktiengesellschaft, in the sample
const NEW = withCheckDigits("LEIDEXL2NEW0000001");
const QUIRK_START = withBadCheckDigits("LEIDEXL2BAD0000001");
const OUTSIDE_PARENT = withCheckDigits("LEIDEXL2OUT0000001");

/** An RR row in the sample file's 54 columns. */
function rrRow(start: string, end: string, type: string, status: string): string {
  const [rrHeader] = parseCsv(sampleLevel2Text("rr"));
  const v: Record<string, string> = {
    "Relationship.StartNode.NodeID": start,
    "Relationship.StartNode.NodeIDType": "LEI",
    "Relationship.EndNode.NodeID": end,
    "Relationship.EndNode.NodeIDType": "LEI",
    "Relationship.RelationshipType": type,
    "Relationship.RelationshipStatus": status,
    "Relationship.Period.1.startDate": "2026-01-01T00:00:00Z",
    "Relationship.Period.1.periodType": "RELATIONSHIP_PERIOD",
    "Registration.InitialRegistrationDate": "2026-01-02T00:00:00Z",
    "Registration.RegistrationStatus": "PUBLISHED",
    "Registration.ValidationSources": "FULLY_CORROBORATED",
  };
  return csvLine(rrHeader.map((h) => v[h] ?? ""));
}

const sampleRr = sampleLevel2Text("rr");
/** B's relationship records: the sample's, NEW under PARENT, and the quirks. */
const rrB =
  sampleRr +
  [
    rrRow(NEW, PARENT, "IS_DIRECTLY_CONSOLIDATED_BY", "ACTIVE"),
    rrRow(NEW, PARENT, "IS_ULTIMATELY_CONSOLIDATED_BY", "NULL"),
    rrRow(QUIRK_START, OUTSIDE_PARENT, "IS_DIRECTLY_CONSOLIDATED_BY", "NULL"),
  ].join("\n") +
  "\n";

const A = sampleGoldenCopy("2026-09-30 08:00:00");
const B = sampleGoldenCopy("2026-09-30 16:00:00", [entityRow(NEW, "Levelzwei Neugruendung GmbH")]);

const gleif = await GleifImitation.start();
t.teardown(() => gleif.close());

const waitFor = async <T>(what: string, probe: () => Promise<T | null | false>, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
const reloadAndWait = async (srv: RunningServer, pattern: RegExp): Promise<string> => {
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  return waitFor(`log ${pattern}`, async () => pattern.exec(srv.stdout().slice(mark))?.[0] ?? null);
};

gleif.publish(A, {}, sampleLevel2("20260930-0800"));
// retries out of the way: a stale part's retry would load again between the subtests' SIGHUPs
const srv = await startServer(t, { source: null, shards: 2, timeoutMs: 90_000, args: [...gleif.args, "--retry-seconds", "600"] });

t.test("GLEIF mode loads all four files: families, ISINs and BICs answer", async (t) => {
  t.equal((await srv.json("/v1/stats")).published, A.published, "publication A is live");
  const fund = await srv.json("/v1/entities/001GPB6A9XPE8XJICC14/relationships");
  t.equal(fund.fundManagers[0].lei, "5493001Z012YSB2A0K51", "relationships loaded from the rr publication");
  t.same(fund.directParentException.reasons, ["NO_KNOWN_PERSON"], "exceptions from the repex publication");
  t.equal(
    (await srv.json("/v1/isin/US3158052262")).lei,
    "001GPB6A9XPE8XJICC14",
    "ISINs from the mapping API (a reversed name inside the zip)",
  );
  t.equal((await srv.json("/v1/bic/LBTCUS44XXX")).lei, "01ERPZV3DOLNXY2MLB90", "BICs too");
  t.match(srv.stdout(), /Level 2: 142 relationship records, 33 reporting exceptions, 67 ISIN and 484 BIC pairs/, "the log counts them");
  t.equal((await srv.get(`/v1/entities/${NEW}/relationships`)).status, 404, "NEW is in neither level yet");
});

t.test("a reload swaps Level 2 atomically with Level 1; the quirks load", async (t) => {
  gleif.publish(B, {}, sampleLevel2("20260930-1600", { rr: rrB }));
  // one probe request reads both levels: never the new Level 1 with the old Level 2 or back
  const seen = new Set<string>();
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const r = await srv.get(`/v1/entities/${NEW}/relationships`);
      if (r.status === 404) seen.add("old");
      else if (r.status === 200 && r.body.entity?.lei === NEW && r.body.directParent?.lei === PARENT) seen.add("new");
      else seen.add(`torn: ${r.status} ${r.text.slice(0, 200)}`);
    }
  })();
  await reloadAndWait(srv, /loaded \d+ records as lei_20260930-1600/);
  await new Promise((r) => setTimeout(r, 200));
  probing = false;
  await probe;
  t.same(
    [...seen].filter((s) => s.startsWith("torn")),
    [],
    "every answer during the swap came from one generation",
  );
  t.ok(seen.has("new"), "the new generation answers after the swap");

  const rel = await srv.json(`/v1/entities/${NEW}/relationships`);
  t.equal(rel.directParent.relationship.status, "ACTIVE");
  t.equal(rel.ultimateParent.relationship.status, null, "a NULL status is null");
  t.equal(rel.ultimateParent.entity.legalName, "COMMERZBANK Aktiengesellschaft", "the parent embedded");
  const children = await srv.json(`/v1/entities/${PARENT}/children?type=direct&limit=100`);
  t.ok(
    children.results.some((c: { lei: string }) => c.lei === NEW),
    "the parent lists the new child",
  );
  t.equal((await srv.json(`/v1/entities?ultimateParent=${PARENT}&q=Levelzwei`)).found, 1, "the filter sees it");
  const quirk = await srv.get(`/v1/entities/${QUIRK_START}/relationships`);
  t.equal(quirk.status, 200, "a start node failing its check digits is kept");
  t.equal(quirk.body.directParent.lei, OUTSIDE_PARENT, "with its parent");
  t.equal(quirk.body.directParent.entity, null, "a parent outside Level 1: a bare LEI");
});

const CORRUPTIONS: [string, keyof ReturnType<typeof sampleLevel2>, RegExp, (stamp: string) => ReturnType<typeof sampleLevel2>][] = [
  [
    "an RR zip whose CRC-32 fails",
    "rr",
    /CRC-32/,
    (stamp) => {
      const l2 = sampleLevel2(stamp, { rr: rrB });
      const entry = `${stamp}-gleif-goldencopy-rr-golden-copy.csv`;
      const zip = zipVerbatim(entry, Buffer.from(rrB, "utf8"));
      const at = zip.indexOf(Buffer.from("IS_SUBFUND_OF"));
      zip.write("IS_SUBFUNX_OF", at, "latin1");
      return { ...l2, rr: level2File("rr", stamp, rrB, zip) };
    },
  ],
  [
    "an RR file without its NodeID columns",
    "rr",
    /lacks required column/,
    (stamp) => sampleLevel2(stamp, { rr: rrB.replaceAll("StartNode.NodeID", "StartNode.Id") }),
  ],
  [
    "an RR file with fewer rows than announced",
    "rr",
    /its publication announces/,
    (stamp) => {
      const l2 = sampleLevel2(stamp, { rr: rrB });
      return { ...l2, rr: { ...l2.rr, rows: l2.rr.rows + 1 } };
    },
  ],
  [
    "an ISIN file that is not a zip",
    "isin",
    /zip/,
    (stamp) => {
      const l2 = sampleLevel2(stamp, { rr: rrB });
      return { ...l2, isin: { ...l2.isin, zip: Buffer.concat([Buffer.from("PK\u0003\u0004"), Buffer.alloc(64, 7)]) } };
    },
  ],
];

// issue 45 item 2: a failing Level 2 part no longer stops the load (it kept the live generation before)
CORRUPTIONS.forEach(([what, part, reason, make], i) => {
  t.test(`${what}: Level 1 goes live, that part keeps the live copy and is stale`, async (t) => {
    const C = sampleGoldenCopy(`2026-10-0${i + 1} 00:00:00`, [
      entityRow(NEW, "Levelzwei Neugruendung GmbH"),
      entityRow(withCheckDigits("LEIDEXL2NEW0000002"), "Zweite Neugruendung AG"),
    ]);
    gleif.publish(C, {}, make(C.stamp));
    const line = await reloadAndWait(srv, new RegExp(`Level 2 ${part} is stale[^\\n]*`));
    t.comment(line);
    const stats = await srv.json("/v1/stats");
    t.equal(stats.published, C.published, "the new Level 1 is live");
    t.match(stats.parts[part], { status: "stale", reason }, `${part} is stale, with its reason`);
    t.equal((await srv.json(`/v1/entities/${NEW}/relationships`)).directParent.lei, PARENT, "Level 2 relationships as before");
    t.equal((await srv.json("/v1/isin/US3158052262")).lei, "001GPB6A9XPE8XJICC14", "ISINs as before");
    t.equal((await srv.get(`/v1/entities/${withCheckDigits("LEIDEXL2NEW0000002")}`)).status, 200, "C's Level 1 is live");
  });
});

t.test("a Level 2 API that is down: Level 1 goes live, repex stays; once it is back, a reload makes it fresh", async (t) => {
  const D = sampleGoldenCopy("2026-10-08 00:00:00", [entityRow(NEW, "Levelzwei Neugruendung GmbH")]);
  gleif.publish(D, {}, sampleLevel2(D.stamp, { rr: rrB }));
  gleif.level2Down = "repex";
  t.teardown(() => {
    gleif.level2Down = null;
  });
  await reloadAndWait(srv, /Level 2 repex is stale[^\n]*repex[^\n]*/);
  const stats = await srv.json("/v1/stats");
  t.equal(stats.published, D.published, "D is live");
  t.match(stats.parts.repex, { status: "stale", reason: /HTTP 503/ });
  t.same((await srv.json("/v1/entities/001GPB6A9XPE8XJICC14/relationships")).directParentException.reasons, ["NO_KNOWN_PERSON"]);
  gleif.level2Down = null;
  await reloadAndWait(srv, /loaded \d+ records as lei_20261008-0000_b/);
  t.equal((await srv.json("/v1/stats")).parts.repex.status, "fresh", "once it is back, repex is fresh");
});

t.test("offline first start: the bundled sample stands in with its Level 2 rows", async (t) => {
  const dead = `http://127.0.0.1:${await freePort()}/api/v2`;
  const offline = await startServer(t, {
    source: null,
    shards: 1,
    args: ["--gleif-api", dead, "--gleif-mapping-api", dead, "--retry-seconds", "60"],
  });
  t.match((await offline.json("/v1/stats")).source, /OFFLINE FALLBACK/, "the fallback is live");
  const fund = await offline.json("/v1/entities/001GPB6A9XPE8XJICC14/relationships");
  t.equal(fund.umbrellaFund.lei, "C7J4FOV6ELAVE39B7M82", "families offline");
  t.equal((await offline.json("/v1/isin/US3158052262")).lei, "001GPB6A9XPE8XJICC14", "ISINs offline");
});
