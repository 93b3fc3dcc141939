// GLEIF deltas (docs/golden-copy.md#deltas). Against the GLEIF imitation, which serves full files
// and real deltas of lei2, rr and repex, and the real server, across six publications: a new
// publication 8 hours after the live one is applied from its IntraDay deltas without downloading
// any full file (relationships and exceptions added and deleted) and without rebuilding a slice
// (an overlay laid over the live one, with the record the rr delta gave a new parent), and
// answers as a server that loaded the full files does; the change feed lists each
// changed field once; a corrupt or missing delta falls back to the full file (and that full load
// gives back the memory of the delta-built collection it replaces); a gap of 16 hours
// takes the LastDay delta; a kill -9 restart serves the delta-built collection from its segments
// and those of the full load under it; a second delta chained onto it answers as a full load;
// the daily full load of a publication the deltas built finds and logs their drift, and gives the
// memory of the collection it replaced back. A tenant's watchlist on real LEIs of the sample
// receives the delta's changes as signed lei.lapsed, lei.renewal_due, lei.parent_changed and
// lei.name_changed events.

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t, { type Test } from "tap";
import { entityRow, parseCsv, readSample, withCheckDigits } from "./helpers/fixture.js";
import {
  GleifImitation,
  goldenCopy,
  goldenDelta,
  csvText,
  level2Delta,
  sampleLevel2,
  sampleLevel2Text,
  type DeltaName,
  type GoldenCopy,
  type GoldenDelta,
} from "./helpers/gleif-imitation.js";
import { metric, startServer, tempDir, waitLog, type RunningServer } from "./helpers/server.js";
import { untilUnmapped, wasmMemories } from "./helpers/wasm-memories.js";
import { generatedOperatorKey, json, webhookCalls, WEBHOOK_SERVER_ARGS } from "./helpers/webhook-api.js";
import { startReceiver, verifyMailSignature, type Hit } from "./helpers/webhook-receiver.js";

const { header, rows: sampleRows } = readSample();
const col = (name: string): number => header.indexOf(name);
const NAME = col("Entity.LegalName");
const STATUS = col("Registration.RegistrationStatus");
const RENEWAL = col("Registration.NextRenewalDate");

const A = withCheckDigits("LEIDEXDELTA0000001");
const B = withCheckDigits("LEIDEXDELTA0000002");
const X = sampleRows[100];
const Y = sampleRows[200];
const Z = sampleRows[300];
const V = sampleRows[400];
const RENEWAL_DATE = `${new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10)}T00:00:00+00:00`;

/** A registry as rows by LEI, in the order GLEIF sorts its file. */
type Registry = Map<string, string[]>;
const registry = (rows: string[][]): Registry => new Map(rows.map((r) => [r[0], r]));
const changed = (row: string[], column: number, value: string): string[] => row.map((v, i) => (i === column ? value : v));

function publication(publishDate: string, reg: Registry): GoldenCopy {
  const rows = [...reg.values()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return goldenCopy(publishDate, { csv: csvText(header, rows), rows: rows.length });
}

const R1 = registry([...sampleRows, entityRow(A, "Deltaprobe Eins GmbH")]);
// publication 2: A renamed, X lapsed, V due for renewal in 20 days, B new
const deltaRows2 = [
  entityRow(A, "Deltaprobe Zwei GmbH"),
  changed(X, STATUS, "LAPSED"),
  changed(V, RENEWAL, RENEWAL_DATE),
  entityRow(B, "Deltaneu Bravo AG"),
];
const R2 = new Map([...R1, ...registry(deltaRows2)]);
// publication 3: Y renamed
const R3 = new Map([...R2, ...registry([changed(Y, NAME, `${Y[NAME]} Neu`)])]);
// publication 4: B renamed
const R4 = new Map([...R3, ...registry([entityRow(B, "Deltaneu Charlie AG")])]);
// publication 5: A renamed again; its full file also renames Z, which its delta leaves out (drift)
const deltaRows5 = [entityRow(A, "Deltaprobe Fuenf GmbH")];
const R5 = new Map([...R4, ...registry([...deltaRows5, changed(Z, NAME, `${Z[NAME]} Anders`)])]);

// publication 2's Level 2: a direct relationship of the sample deleted, one of A added; an
// exception of the sample deleted, one of B added. Its full files, and its deltas with `DeletedAt`
const [rrHeader, ...rrRows] = parseCsv(sampleLevel2Text("rr"));
const RR = (name: string): number => rrHeader.indexOf(`Relationship.${name}`);
const sampleLeis = new Set(sampleRows.map((r) => r[0]));
const droppedRr = rrRows.find(
  (r) => r[RR("RelationshipType")] === "IS_DIRECTLY_CONSOLIDATED_BY" && sampleLeis.has(r[RR("StartNode.NodeID")]),
)!;
const PARENT = sampleRows[50][0];
const relationshipOf = (start: string): string[] =>
  droppedRr.map((v, i) => (i === RR("StartNode.NodeID") ? start : i === RR("EndNode.NodeID") ? PARENT : v));
const addedRr = relationshipOf(A);
// two records with several other names that only the rr delta changes: the overlay carries them,
// re-encoded from the full load's documents; M2's side line is made one an older version wrote
// (the names joined), which makes the loader read it from the full file instead
const OTHER_NAMES = header.flatMap((name, i) => (/^Entity\.(Transliterated)?OtherEntityNames\.\w+\.\d$/.test(name) ? [i] : []));
const otherNamesOf = (row: string[]): string[] => OTHER_NAMES.map((i) => row[i]).filter((v) => v !== "");
const wordsOf = (text: string): string[] => text.toLowerCase().match(/\w+/g) ?? [];
/** each of its other names has a word its legal name lacks: a search finds it by that name alone */
const namedOtherwise = (r: string[]): boolean => otherNamesOf(r).every((n) => wordsOf(n).some((w) => !wordsOf(r[NAME]).includes(w)));
const [M1, M2] = sampleRows.filter(
  (r) => otherNamesOf(r).length >= 2 && namedOtherwise(r) && !rrRows.some((rr) => rr[RR("StartNode.NodeID")] === r[0]),
);
const movedRr = [M1, M2].map((r) => relationshipOf(r[0]));
const [repexHeader, ...repexRows] = parseCsv(sampleLevel2Text("repex"));
const padded = (row: string[]): string[] => repexHeader.map((_, i) => row[i] ?? "");
const droppedRepex = padded(repexRows[0]);
const addedRepex = padded([B, "DIRECT_ACCOUNTING_CONSOLIDATION_PARENT", "NO_KNOWN_PERSON"]);
const DELETED_AT = "2026-10-01T07:12:00Z";
const level2P2 = sampleLevel2("20261001-0800", {
  rr: csvText(rrHeader, [...rrRows.filter((r) => r !== droppedRr), addedRr, ...movedRr]),
  repex: csvText(repexHeader, [...repexRows.slice(1).map(padded), addedRepex]),
});
const rrDelta = level2Delta(
  "rr",
  "2026-10-01 08:00:00",
  "IntraDay",
  [...rrHeader, "DeletedAt"],
  [[...droppedRr, DELETED_AT], [...addedRr, ""], ...movedRr.map((r) => [...r, ""])],
);
const repexDelta = level2Delta("repex", "2026-10-01 08:00:00", "IntraDay", repexHeader, [
  droppedRepex.map((v, i) => (repexHeader[i] === "DeletedAt" ? DELETED_AT : v)),
  addedRepex,
]);

const P1 = publication("2026-10-01 00:00:00", R1);
const P2 = publication("2026-10-01 08:00:00", R2);
const P3 = publication("2026-10-01 16:00:00", R3);
const P4 = publication("2026-10-02 00:00:00", R4);
const P5 = publication("2026-10-02 16:00:00", R5);
// publication 6, 8 hours on: B renamed again, by a delta on the delta-built publication 5
const deltaRows6 = [entityRow(B, "Deltaneu Delta AG")];
const R6 = new Map([...R5, ...registry(deltaRows6)]);
const P6 = publication("2026-10-03 00:00:00", R6);

const gleif = await GleifImitation.start();
t.teardown(() => gleif.close());
const receiver = await startReceiver(t);
process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
const dataDir = tempDir(t, "leidex-deltas-");

const start = (args: string[] = [], dir = dataDir): Promise<RunningServer> =>
  startServer(t, {
    source: null,
    shards: 2,
    dataDir: dir,
    timeoutMs: 90_000,
    args: [...WEBHOOK_SERVER_ARGS, ...gleif.args, "--retry-seconds", "600", ...args],
  });

async function reload(srv: RunningServer, re: RegExp): Promise<string> {
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  await waitLog(srv, mark, re);
  return srv.stdout().slice(mark);
}

type Stats = { published: string; records: number; delta: { window: string; file: string; rows: number; seconds: number } | null };
type Change = { lei: string; field: string; valueOld: string | null; valueNew: string | null; publication: string };

async function changesOf(srv: RunningServer, published: string): Promise<Change[]> {
  const out: Change[] = [];
  let since = "0";
  for (;;) {
    const page = await srv.json(`/v1/changes?since=${since}&limit=1000`);
    if (page.changes.length === 0) return out.filter((c) => c.publication === published);
    out.push(...page.changes);
    since = page.next;
  }
}

/** The answer without what differs between two servers that hold the same records (timings). */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => k !== "searchTimeMs")
      .map(([k, v]) => [k, comparable(v)]),
  );
}

const served = (deltas: Partial<Record<DeltaName, GoldenDelta>>) => ({ deltas });

/** Asserts that two servers answer every path the same, byte for byte but for searchTimeMs. */
async function sameAnswers(t: Test, a: RunningServer, b: RunningServer, paths: string[]): Promise<void> {
  let same = 0;
  for (const path of paths) {
    const [x, y] = await Promise.all([a.get(path), b.get(path)]);
    if (x.status === y.status && JSON.stringify(comparable(x.body)) === JSON.stringify(comparable(y.body))) same++;
    else t.same(comparable(x.body), comparable(y.body), `${path} answers the same`);
  }
  t.equal(same, paths.length, `all ${paths.length} answers the same byte for byte, but for searchTimeMs`);
}

/** The collections on disk: the live one, and the full load it is laid over. */
/** The first rows of the sample's mapping file of `part`, split into LEI and code. */
const mappingRows = (part: "isin" | "bic"): string[][] =>
  sampleLevel2Text(part)
    .split("\n")
    .slice(1, 8)
    .map((line) => line.trim().split(","));
const collectionsOnDisk = (): string[] =>
  readdirSync(join(dataDir, "collections"))
    .filter((name) => name.startsWith("lei_"))
    .sort();
let srv: RunningServer;

t.test("publication 1 loads from its full file: no delta", async (t) => {
  gleif.publish(P1);
  srv = await start();
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P1.published);
  t.equal(stats.delta, null, "a full load applied no delta");
});

/** The watching tenant's webhook, made before publication 2. */
let hook: { id: string; secret: string };
const WATCHED = [A, X[0], V[0], droppedRr[RR("StartNode.NodeID")]];
const eventsOf = (type: string, lei: string): Hit[] =>
  receiver.hits("/watch").filter((h) => json(h).type === type && json(h).data.lei === lei);

t.test("a tenant watches LEIs the next publication's deltas change", async (t) => {
  const { api, mkTenant, mkHook } = webhookCalls(() => srv, generatedOperatorKey(srv), receiver);
  const tenant = await mkTenant("delta-watcher");
  hook = await mkHook(tenant.key, "/watch", ["lei.lapsed", "lei.renewal_due", "lei.parent_changed", "lei.name_changed"]);
  const list = await api("POST", "/v1/watchlists", tenant.key, { name: "counterparties", leis: WATCHED });
  t.equal(list.status, 201, list.text);
  t.equal(list.body.lei_count, WATCHED.length);
});

/** Rewrites M2's side line in collection `name` as a version before 2026-12 wrote it, its other names joined, in as many bytes. */
function joinOtherNamesOfM2(t: Test, name: string): void {
  const path = join(dataDir, "collections", name, "level2", "tracked-side.jsonl");
  const text = readFileSync(path, "utf8");
  const names = otherNamesOf(M2);
  const line = `"otherNames":${JSON.stringify(names)}`;
  t.ok(text.includes(line), "M2's side line holds its other names one by one");
  const joined = `"otherNames":${" ".repeat(names.length + 1)}${JSON.stringify(names.join("; "))}`;
  t.equal(Buffer.byteLength(joined), Buffer.byteLength(line));
  writeFileSync(path, text.replace(line, joined));
}

t.test("publication 2, 8 hours on: applied from its IntraDay deltas, no full file downloaded", async (t) => {
  joinOtherNamesOfM2(t, "lei_20261001-0000");
  const intraDay = goldenDelta(P2.publishDate, "IntraDay", deltaRows2);
  gleif.publish(
    P2,
    { deltas: { IntraDay: intraDay, LastDay: intraDay }, level2Deltas: { rr: { IntraDay: rrDelta }, repex: { IntraDay: repexDelta } } },
    level2P2,
  );
  const log = await reload(srv, /loaded \d+ records as lei_20261001-0800/);
  t.match(log, /applying its IntraDay delta \(4 records/, "the smallest window that covers 8 hours");
  t.match(
    log,
    /laid 7 records of the deltas \(3 of them for their new parents\) over the 1 slice\(s\) of lei_20261001-0000/,
    "laid over the live slices, none rebuilt: the delta's records, and the three the rr delta gave new parents",
  );
  t.match(log, /3 record\(s\) of the full load have new parents: 2 re-encoded from its documents/);
  t.match(log, /1 of them read from 20261001-0000-gleif-goldencopy-lei2-golden-copy\.csv\.zip: their other names were kept joined/);
  t.match(log, /Level 2 rr: applying its IntraDay delta \(4 records\)/);
  t.match(log, /Level 2 rr: \S+ as the live collection parsed it; only its deltas are read/, "the full rr file is not parsed again");
  t.match(
    log,
    /Level 2 rr: the live collection's tables hold 0 of its 1 delta\(s\); the rest laid over them/,
    "its tables copied, not rebuilt",
  );
  t.match(
    log,
    /Level 2 repex: the live collection's tables hold \S+ and 0 delta\(s\); only the rest is laid over them/,
    "nor the full repex file, whose rows are not even read",
  );
  t.notMatch(log, /written whole/, "each live table held what its files make");
  t.match(log, /Level 2 repex: applying its IntraDay delta \(2 records\)/);
  t.equal(gleif.fileRequestsFor(P2), 0, "the full file of publication 2 was not downloaded");
  t.equal(gleif.fileRequests.get(level2P2.rr.name) ?? 0, 0, "nor its full rr");
  t.equal(gleif.fileRequests.get(level2P2.repex.name) ?? 0, 0, "nor its full repex");
  t.equal((await srv.json(`/v1/entities/${A}`)).directParent, PARENT, "a relationship the rr delta adds");
  t.not(
    (await srv.json(`/v1/entities/${droppedRr[RR("StartNode.NodeID")]}`)).directParent,
    droppedRr[RR("EndNode.NodeID")],
    "one it deletes",
  );
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P2.published);
  t.equal(stats.records, R2.size, "every LEI once: the delta's records replaced the live ones");
  t.match(stats.delta, { window: "IntraDay", file: "20261001-0800-gleif-goldencopy-lei2-intra-day.csv.zip", rows: 4 });
  t.ok(stats.delta!.seconds > 0, "with what it cost");
  t.equal((await srv.json(`/v1/entities/${A}`)).legalName, "Deltaprobe Zwei GmbH", "a changed record shows its new values");
  t.equal((await srv.json(`/v1/entities/${X[0]}`)).registrationStatus, "LAPSED");
  t.equal((await srv.json(`/v1/entities/${B}`)).legalName, "Deltaneu Bravo AG", "a new LEI is there");
  const metrics = await (await fetch(`${srv.base}/metrics`)).text();
  t.equal(metric(metrics, "leidex_delta_loads_total"), 1);
  t.equal(metric(metrics, "leidex_delta_records", { window: "IntraDay" }), 4);
  t.ok((metric(metrics, "leidex_delta_apply_seconds", { window: "IntraDay" }) ?? 0) > 0);
});

t.test("the delta-built collection answers as a full load of the same publication", async (t) => {
  const full = await start([], tempDir(t, "leidex-deltas-full-"));
  t.teardown(() => full.stop());
  t.equal(((await full.json("/v1/stats")) as Stats).published, P2.published);
  t.equal(gleif.fileRequestsFor(P2), 1, "that server downloaded the full file");
  t.equal(gleif.fileRequests.get(level2P2.rr.name), 1, "and the full rr");
  const names = sampleRows.slice(0, 400).map((r) => r[NAME]);
  const paths = [
    "/v1/entities?q=deltaprobe",
    "/v1/entities?q=deltaneu%20brvo",
    "/v1/entities?q=gmbh&facets=country,registrationStatus&limit=100",
    "/v1/entities?registrationStatus=LAPSED&limit=100&facets=country",
    "/v1/facets/registrationStatus",
    `/v1/entities/${A}`,
    `/v1/entities/${B}`,
    `/v1/entities/${X[0]}`,
    ...[M1, M2].flatMap((r) => [r[NAME], ...otherNamesOf(r)]).map((n) => `/v1/entities?q=${encodeURIComponent(n)}&limit=5`),
    ...[M1, M2].flatMap((r) => otherNamesOf(r)).map((n) => `/v1/entities?q=${encodeURIComponent(n)}&fields=name&limit=5`),
    ...[A, B, droppedRr[RR("StartNode.NodeID")], droppedRepex[0], PARENT, M1[0], M2[0]].flatMap((lei) => [
      `/v1/entities/${lei}`,
      `/v1/entities/${lei}/relationships`,
      `/v1/entities/${lei}/children`,
    ]),
    `/v1/entities?directParent=${PARENT}`,
    "/v1/entities?hasParent=true&limit=100",
    ...names.slice(0, 150).map((n) => `/v1/entities?q=${encodeURIComponent(n)}&limit=5`),
    ...names.slice(150, 300).map((n) => `/v1/entities?q=${encodeURIComponent(n.slice(0, Math.max(3, Math.floor(n.length / 2))))}&limit=5`),
    ...names.slice(300).map((n) => `/v1/entities?q=${encodeURIComponent(n.replace(/[aeiou]/i, ""))}&limit=5`),
  ];
  await sameAnswers(t, srv, full, paths);
});

t.test("the change feed lists each field the deltas changed once", async (t) => {
  const changes = await changesOf(srv, P2.published);
  t.same(
    changes.map((c) => `${c.lei} ${c.field}`).sort(),
    [
      `${A} legalName`,
      `${A} directParent`,
      `${X[0]} registrationStatus`,
      `${V[0]} nextRenewalDate`,
      `${droppedRr[RR("StartNode.NodeID")]} directParent`,
      `${droppedRepex[0]} directParentException`,
      `${M1[0]} directParent`,
      `${M2[0]} directParent`,
    ].sort(),
    "B is new: no field of it changed",
  );
  const change = (lei: string, field: string): Change | undefined => changes.find((c) => c.lei === lei && c.field === field);
  t.match(change(A, "legalName"), { valueOld: "Deltaprobe Eins GmbH", valueNew: "Deltaprobe Zwei GmbH" });
  t.match(change(A, "directParent"), { valueOld: null, valueNew: PARENT });
  t.match(change(X[0], "registrationStatus"), { valueOld: X[STATUS], valueNew: "LAPSED" });
  t.match(change(V[0], "nextRenewalDate"), { valueOld: V[RENEWAL], valueNew: RENEWAL_DATE });
  t.match(change(droppedRr[RR("StartNode.NodeID")], "directParent"), { valueOld: droppedRr[RR("EndNode.NodeID")] });
  t.match(change(droppedRepex[0], "directParentException"), { valueOld: droppedRepex[2], valueNew: null });
  t.match(change(M1[0], "directParent"), { valueOld: null, valueNew: PARENT });
});

t.test("the watchlist receives the delta's changes as signed events, each once", async (t) => {
  const dropped = droppedRr[RR("StartNode.NodeID")];
  const expected: [string, string][] = [
    ["lei.lapsed", X[0]],
    ["lei.renewal_due", V[0]],
    ["lei.name_changed", A],
    ["lei.parent_changed", A],
    ["lei.parent_changed", dropped],
  ];
  await receiver.waitFor(() => expected.every(([type, lei]) => eventsOf(type, lei).length > 0), 60_000, "the events of publication 2");
  for (const [type, lei] of expected) {
    const hits = eventsOf(type, lei);
    t.ok(
      hits.every((h) => verifyMailSignature(hook.secret, h)),
      `${type} of ${lei} is signed with the webhook's secret`,
    );
  }
  t.match(json(eventsOf("lei.lapsed", X[0])[0]).data, {
    changes: [{ field: "registrationStatus", valueOld: X[STATUS], valueNew: "LAPSED" }],
  });
  t.match(json(eventsOf("lei.renewal_due", V[0])[0]).data, { nextRenewalDate: RENEWAL_DATE, daysLeft: 20, threshold: 30 });
  t.match(json(eventsOf("lei.name_changed", A)[0]).data, {
    changes: [{ field: "legalName", valueOld: "Deltaprobe Eins GmbH", valueNew: "Deltaprobe Zwei GmbH" }],
  });
  t.match(json(eventsOf("lei.parent_changed", A)[0]).data, { directParent: { old: null, new: PARENT } });
  t.match(json(eventsOf("lei.parent_changed", dropped)[0]).data, { directParent: { old: droppedRr[RR("EndNode.NodeID")] } });
  t.same(eventsOf("lei.lapsed", B), [], "nothing for an LEI nobody watches");
  await new Promise((r) => setTimeout(r, 2000)); // let any duplicate arrive
  for (const [type, lei] of expected) t.equal(eventsOf(type, lei).length, 1, `${type} of ${lei} once`);
});

t.test("publication 3 with a corrupt IntraDay delta: the full file is loaded instead", async (t) => {
  const good = goldenDelta(P3.publishDate, "IntraDay", [changed(Y, NAME, `${Y[NAME]} Neu`)]);
  const corrupt = { zip: good.zip.subarray(0, Math.floor(good.zip.length / 2)), rows: good.rows };
  gleif.publish(P3, served({ IntraDay: corrupt }));
  const replaced = [...wasmMemories(srv.child.pid!).keys()];
  t.ok(replaced.length >= 2, "the delta-built collection's memories (the full load's two slices at least) are among the server's mappings");
  const log = await reload(srv, /loaded \d+ records as lei_20261001-1600/);
  t.match(log, /the IntraDay delta of publication 2026-10-01 16:00:00 failed \(.+\); loading the full file/);
  t.equal(gleif.fileRequestsFor(P3), 1, "the full file was downloaded");
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P3.published);
  t.equal(stats.delta, null);
  t.equal((await srv.json(`/v1/entities/${Y[0]}`)).legalName, `${Y[NAME]} Neu`);
  const metrics = await (await fetch(`${srv.base}/metrics`)).text();
  t.equal(metric(metrics, "leidex_delta_fallbacks_total"), 1);
  t.same(
    (await changesOf(srv, P3.published)).map((c) => [c.lei, c.field]),
    [[Y[0], "legalName"]],
  );
  // the full load's slices the first load built, served beneath the overlay by the delta-built
  // collection, are given back with it, on a server that has not restarted since
  const unmapped = await untilUnmapped(srv.child.pid!, replaced);
  t.ok(unmapped.gone, `the replaced collection's memory was given back (still mapped: ${unmapped.left || "none"})`);
});

t.test("publication 4 whose IntraDay delta is announced but missing: the full file is loaded", async (t) => {
  gleif.publish(P4);
  const log = await reload(srv, /loaded \d+ records as lei_20261002-0000/);
  t.match(log, /the IntraDay delta of publication 2026-10-02 00:00:00 failed \(.*404.*\); loading the full file/);
  t.equal(gleif.fileRequestsFor(P4), 1);
  t.equal((await srv.json(`/v1/entities/${B}`)).legalName, "Deltaneu Charlie AG");
});

t.test("publication 5, 16 hours on: its LastDay delta; a kill -9 restart serves it from its segments", async (t) => {
  const isinDownloads = gleif.fileRequests.get(level2P2.isin.name) ?? 0;
  gleif.publish(P5, served({ LastDay: goldenDelta(P5.publishDate, "LastDay", deltaRows5) }));
  const log = await reload(srv, /loaded \d+ records as lei_20261002-1600/);
  t.match(log, /applying its LastDay delta \(1 records/);
  t.match(log, /laid 1 records of the deltas over the 1 slice\(s\) of lei_20261002-0000/);
  t.match(log, /Level 2 isin: the file the live collection's tables were built from; its \d+ pairs are kept/, "the same ISIN file");
  t.match(log, /Level 2 bic: the file the live collection's tables were built from; its \d+ pairs are kept/, "the same BIC file");
  t.equal(gleif.fileRequests.get(level2P2.isin.name) ?? 0, isinDownloads, "nor is it downloaded again");
  t.equal(gleif.fileRequestsFor(P5), 0);
  t.same(collectionsOnDisk(), ["lei_20261002-0000", "lei_20261002-1600"], "the full load it is laid over is kept");
  t.match(((await srv.json("/v1/stats")) as Stats).delta, { window: "LastDay", rows: 1 });
  await srv.kill9();
  srv = await start();
  t.match(srv.stdout(), /serving lei_20261002-1600 \(\d+ records\) from its segments/, "no rebuild");
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P5.published);
  t.match(stats.delta, { window: "LastDay", rows: 1 }, "the delta is still recorded");
  t.equal((await srv.json(`/v1/entities/${A}`)).legalName, "Deltaprobe Fuenf GmbH");
  t.equal((await srv.json(`/v1/entities/${Z[0]}`)).legalName, Z[NAME], "Z as the delta left it");
});

t.test("publication 6, 8 hours on: its delta chained onto the delta-built collection answers as a full load", async (t) => {
  gleif.publish(P6, served({ IntraDay: goldenDelta(P6.publishDate, "IntraDay", deltaRows6) }));
  const log = await reload(srv, /loaded \d+ records as lei_20261003-0000/);
  t.match(log, /laid 2 records of the deltas over the 1 slice\(s\) of lei_20261002-0000/, "the chain's records: publication 5's and 6's");
  t.equal(gleif.fileRequestsFor(P6), 0);
  t.same(collectionsOnDisk(), ["lei_20261002-0000", "lei_20261003-0000"], "the collection it replaced is gone, its base stays");
  t.same(
    (await changesOf(srv, P6.published)).map((c) => [c.lei, c.field, c.valueNew]),
    [[B, "legalName", "Deltaneu Delta AG"]],
  );
  await srv.kill9();
  srv = await start();
  t.match(srv.stdout(), /serving lei_20261003-0000 \(\d+ records\) from its segments/, "a restart opens base and overlay");
  const full = await start([], tempDir(t, "leidex-deltas-full6-"));
  t.teardown(() => full.stop());
  t.equal(((await full.json("/v1/stats")) as Stats).records, R6.size);
  // Z aside: publication 5's full file renames it and its delta does not (the drift found below)
  t.equal((await srv.json(`/v1/entities/${Z[0]}`)).legalName, Z[NAME]);
  await sameAnswers(t, srv, full, [
    "/v1/entities?q=deltaneu",
    "/v1/entities?q=deltaprobe%20funf",
    "/v1/entities?q=gmbh&facets=country,registrationStatus&limit=100",
    "/v1/facets/country",
    `/v1/entities/${A}`,
    `/v1/entities/${B}`,
    ...sampleRows.slice(500, 560).map((r) => `/v1/entities?q=${encodeURIComponent(r[NAME])}&limit=5`),
    "/v1/entities?registrationStatus=LAPSED&limit=100",
    // the mapping tables publication 5 kept from publication 4
    ...mappingRows("isin")
      .map(([lei, isin]) => [`/v1/isin/${isin}`, `/v1/entities/${lei}/isins`])
      .flat(),
    ...mappingRows("bic").map(([, bic]) => `/v1/bic/${bic}`),
  ]);
});

t.test("the daily full load reloads the delta-built publication from its full file and logs the drift", async (t) => {
  await srv.stop();
  // the daily time: the next whole minute at least 20 s away
  const at = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  const hhmm = `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")}`;
  srv = await start(["--reload-at", hhmm]);
  const replaced = [...wasmMemories(srv.child.pid!).keys()];
  t.ok(replaced.length > 0, "the delta-built collection's memory is among the server's mappings");
  const log = await waitLog(srv, 0, /drift: .+\n/, 150_000);
  t.match(log, /drift: the full file of publication 2026-10-03 00:00:00 differs from the collection its deltas built in 1 field changes/);
  t.equal(gleif.fileRequestsFor(P6), 2, "the full file was downloaded for it (after the comparison server's download)");
  const stats = (await srv.json("/v1/stats")) as Stats;
  t.equal(stats.published, P6.published);
  t.equal(stats.delta, null, "the live collection is the full load's");
  t.equal((await srv.json(`/v1/entities/${Z[0]}`)).legalName, `${Z[NAME]} Anders`, "the full file's record is live");
  const metrics = await (await fetch(`${srv.base}/metrics`)).text();
  t.equal(metric(metrics, "leidex_delta_drift_changes"), 1);
  t.same(
    (await changesOf(srv, P6.published)).filter((c) => c.lei === Z[0]).map((c) => c.field),
    ["legalName"],
    "the drift is in the change feed once",
  );
  // The collection the full load replaced (the full load under the deltas, read from its
  // segments) is given back, not only dropped: the server is idle meanwhile, so no query's
  // allocations collect it on any thread.
  const unmapped = await untilUnmapped(srv.child.pid!, replaced);
  t.ok(unmapped.gone, `the replaced collection's memory was given back (still mapped: ${unmapped.left || "none"})`);
});
