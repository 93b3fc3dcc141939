// Issue 42, upstream GLEIF faults and the disk: the real link shapes of GLEIF's APIs load (item 1);
// a metadata answer that never ends is cut at its cap (3); a trickling API fails within its
// deadline (the mapping API: that part only, issue 45) and a later SIGHUP loads afresh (4); a download that runs past its announced size is
// cut, its partial file removed, and the free-disk floor refuses a download and an upload (5); an
// import that fills the disk answers 507 in the keyed API's shape (13). The server serves on
// through each, with its live collection.

import t from "tap";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { GleifImitation, sampleGoldenCopy, sampleLevel2 } from "./helpers/gleif-imitation.js";
import { fetchGot, startServer, waitLog, type RunningServer } from "./helpers/server.js";

const A = sampleGoldenCopy("2026-09-30 08:00:00");
const B = sampleGoldenCopy("2026-09-30 16:00:00", [], 6000);
const C = sampleGoldenCopy("2026-10-01 00:00:00", [], 5900);
const D = sampleGoldenCopy("2026-10-01 08:00:00", [], 5800);
const KEY = "hardening-upstream-key";
const ISIN = "US3158052262"; // in the sample's ISIN file, of 001GPB6A9XPE8XJICC14
const BIC = "LBTCUS44XXX"; // in the sample's BIC file, of 01ERPZV3DOLNXY2MLB90

const downloads = (srv: RunningServer): string[] => {
  const dir = join(srv.dataDir, "downloads");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};

/**
 * POSTs `bytes` of a body in 1 MiB chunks to the keyed import; the answer, even when it comes
 * before the body is done. `chunked`: of unknown length, else with its Content-Length (a short
 * one the server reads to its end after an early answer, so the answer arrives).
 */
function upload(port: number, bytes: number, chunked = true): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: "/collections/lei/documents/import",
      method: "POST",
      headers: {
        "x-typesense-api-key": KEY,
        "content-type": "text/csv",
        ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(bytes) }),
      },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      res.on("error", reject);
    });
    req.on("error", (err) => {
      if (!answered) setTimeout(() => (answered ? undefined : reject(err)), 2000);
    });
    const chunk = Buffer.alloc(Math.min(bytes, 1024 * 1024), "A");
    chunk.write("LEI,Entity.LegalName\n");
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes && (chunked ? !answered : true) && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

const gleif = await GleifImitation.start();
t.teardown(() => gleif.close());
/** The file's top-level test: the shared server is torn down with it. */
const root = t;

// ---------------------------------------------------------------- the imitation's shapes

t.test("the imitation answers in GLEIF's real shapes (api-v2.md)", async (t) => {
  gleif.publish(A, {}, sampleLevel2("20260930-0800"));
  const lei2 = (await fetchGot(`${gleif.api}/golden-copies/publishes/lei2/latest`)).body.data;
  t.equal(lei2.publish_date, "2026-09-30 08:00:00");
  t.same(Object.keys(lei2.full_file).sort(), ["csv", "json", "xml"], "full_file: csv, json and xml");
  t.same(Object.keys(lei2.delta_files).sort(), ["IntraDay", "LastDay", "LastMonth", "LastWeek"], "the four deltas");
  t.match(lei2.full_file.csv, {
    url: /\/storage\/golden-copy-files\/2026\/09\/30\/\d+\/20260930-0800-gleif-goldencopy-lei2-golden-copy\.csv\.zip$/,
    size: A.zip.length,
    size_human_readable: /^\d+\.\d\d MB$/,
    record_count: A.rows,
    type: "lei2",
    format: "csv",
    delta_type: "GoldenCopy",
    cdf_version: "LEI_3.1",
  });
  const rr = (await fetchGot(`${gleif.api}/golden-copies/publishes/rr/latest`)).body.data;
  const folder = (u: string): string => /\/(\d+)\/[^/]+$/.exec(u)![1];
  t.not(folder(rr.full_file.csv.url), folder(lei2.full_file.csv.url), "a different numeric folder per type");
  const all = await fetchGot(`${gleif.api}/golden-copies/publishes/latest`);
  t.same(Object.keys(all.body.data).sort(), ["lei2", "repex", "rr"]);
  t.equal(all.headers.get("x-gleif-publish-date"), "2026-09-30T08:00:00+00:00");
  t.equal((await fetchGot(`${gleif.api}/golden-copies/publishes?page[size]=1`)).body.data[0].publish_date, "2026-09-30 08:00:00");
  const redirect = await fetch(`${gleif.api}/golden-copies/publishes/lei2/latest.csv`, { redirect: "manual" });
  t.equal(redirect.status, 302, "latest.csv is a 302");
  t.equal(redirect.headers.get("location"), lei2.full_file.csv.url, "to the storage URL");

  for (const [kind, fileName] of [
    ["isin-lei", /^isin-lei-20260930T\d{6}\.zip$/],
    ["bic-lei", /^LEI-BIC-20260930\.zip$/],
  ] as const) {
    const latest = await fetchGot(`${gleif.mappingApi}/${kind}/latest`, { headers: { accept: "*/*" } });
    const { id, attributes } = latest.body.data;
    t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, `${kind}: a uuid`);
    t.match(attributes.fileName, fileName, `${kind}: GLEIF's file name`);
    t.equal(attributes.downloadLink, `${gleif.mappingApi}/${kind}/${id}/download`, `${kind}: linked as <uuid>/download`);
    t.equal((await fetchGot(`${gleif.mappingApi}/${kind}/latest`, { headers: { accept: "application/json" } })).status, 406);
    t.equal((await fetchGot(`${gleif.mappingApi}/${kind}?page[size]=2`)).body.data[0].id, id, "the list, newest first");
    t.equal((await fetch(`${gleif.mappingApi}/${kind}/latest/download`)).status, 200, "latest/download");
  }
});

// ---------------------------------------------------------------- item 1

let srv: RunningServer;

t.test("item 1: a GLEIF load with the real link shapes goes live, and ISIN and BIC lookups answer", async (t) => {
  srv = await startServer(root, {
    source: null,
    shards: 1,
    timeoutMs: 90_000,
    // deadlines shortened (by environment, which a build without these flags ignores): 3 s for a
    // metadata call; a download gets 3 s and its size at 1 MB/s
    args: [...gleif.args, "--retry-seconds", "600", "--api-key", KEY],
    env: { LEIDEX_UPSTREAM_TIMEOUT: "3", LEIDEX_DOWNLOAD_MIN_RATE: "1024" },
  });
  const stats = await srv.json("/v1/stats");
  t.equal(stats.published, A.published, "publication A is live, not the OFFLINE fallback");
  t.notMatch(stats.source, /OFFLINE/);
  t.equal((await srv.json(`/v1/isin/${ISIN}`)).lei, "001GPB6A9XPE8XJICC14", "an ISIN answers");
  t.equal((await srv.json(`/v1/bic/${BIC}`)).lei, "01ERPZV3DOLNXY2MLB90", "a BIC answers");
  const files = downloads(srv);
  t.ok(
    files.some((f) => /^level2-isin-isin-lei-20260930T\d{6}\.zip$/.test(f)),
    `the ISIN file kept under its own name (${files.join(", ")})`,
  );
  t.ok(
    files.some((f) => f === "level2-bic-LEI-BIC-20260930.zip"),
    "the BIC file beside it",
  );
  t.notOk(files.includes("download"), "nothing saved as downloads/download");
});

// ---------------------------------------------------------------- item 3

t.test("item 3: a metadata answer that never ends is cut at 1 MiB; the live collection stays", async (t) => {
  gleif.slowApi = { part: "lei2", mode: "endless" };
  t.teardown(() => {
    gleif.slowApi = null;
  });
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  const line = await waitLog(srv, mark, /load failed: [^\n]*/, 30_000);
  t.match(line, /GLEIF API \S+\/lei2\/latest sent more than 1048576 bytes/, "the cap's message");
  t.match(line, /lei_20260930-0800 stays live/);
  t.equal((await srv.json("/v1/stats")).published, A.published, "A stays live");
  t.equal((await srv.get("/health")).status, 200, "the server answers");
});

// ---------------------------------------------------------------- item 4

t.test("item 4: a trickling mapping API is cut at its deadline and fails its part only; once it recovers, SIGHUP fetches it", async (t) => {
  gleif.publish(B, {}, sampleLevel2("20260930-1600"));
  gleif.slowApi = { part: "isin", mode: "trickle" };
  t.teardown(() => {
    gleif.slowApi = null;
  });
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  // issue 45 item 2: before, the whole load failed and A stayed live
  const line = await waitLog(srv, mark, /Level 2 isin is stale[^\n]*/, 30_000);
  t.match(line, /GLEIF API \S+\/isin-lei\/latest did not answer in full within 3 s/, "the deadline's message");
  const stats = await srv.json("/v1/stats");
  t.equal(stats.published, B.published, "Level 1 of B is live");
  t.equal(stats.parts.isin.status, "stale", "the ISIN map is A's, marked stale");
  t.equal((await srv.json(`/v1/isin/${ISIN}`)).lei, "001GPB6A9XPE8XJICC14", "and answers");
  t.equal((await srv.get("/health")).status, 200, "the server answers");

  gleif.slowApi = null;
  const again = srv.stdout().length;
  srv.child.kill("SIGHUP");
  await waitLog(srv, again, /loaded \d+ records as lei_20260930-1600_b/);
  t.equal((await srv.json("/v1/stats")).parts.isin.status, "fresh", "the ISIN map is fetched again");
});

// ---------------------------------------------------------------- item 5

t.test("item 5: a download past its announced size is cut and its partial file removed; the server serves on", async (t) => {
  gleif.publish(C, { fileMode: "oversize" });
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  const line = await waitLog(srv, mark, /load failed: [^\n]*/, 30_000);
  t.match(line, /download of \S+20261001-0000-gleif-goldencopy-lei2-golden-copy\.csv\.zip cut at [\d.]+ MB: [\d.]+ MB were announced/);
  const files = downloads(srv);
  t.notOk(
    files.some((f) => f.endsWith(".part") || f.startsWith(C.stamp)),
    `no partial file left (${files.join(", ")})`,
  );
  t.equal((await srv.json("/v1/stats")).published, B.published, "B stays live");
  t.equal((await srv.get("/health")).status, 200, "the server answers");
});

t.test("item 4: a trickling download fails past its deadline, its partial file removed; a later SIGHUP loads afresh", async (t) => {
  gleif.publish(D, { fileMode: "trickle" });
  const mark = srv.stdout().length;
  srv.child.kill("SIGHUP");
  const line = await waitLog(srv, mark, /load failed: [^\n]*/, 60_000);
  t.match(line, /download of \S+20261001-0800-gleif-goldencopy-lei2-golden-copy\.csv\.zip too slow: [^\n]*past its deadline of \d+ s/);
  t.notOk(
    downloads(srv).some((f) => f.endsWith(".part") || f.startsWith(D.stamp)),
    "no partial file left",
  );
  t.equal((await srv.json("/v1/stats")).published, B.published, "B stays live");
  t.equal((await srv.get("/health")).status, 200, "the server answers");

  gleif.publish(D); // the storage recovers
  const again = srv.stdout().length;
  srv.child.kill("SIGHUP");
  await waitLog(srv, again, /loaded \d+ records as lei_20261001-0800/);
  t.equal((await srv.json("/v1/stats")).published, D.published, "the publication is live");
});

t.test("item 5 and 13: the free-disk floor refuses a download, and an upload with 507", async (t) => {
  gleif.publish(C); // honest this time
  const floored = await startServer(t, {
    source: null,
    shards: 1,
    timeoutMs: 90_000,
    args: [...gleif.args, "--retry-seconds", "600", "--api-key", KEY],
    env: { LEIDEX_DISK_FLOOR_MB: "10000000" },
  });
  t.match(floored.stdout(), /download of \S+ not started: [\d.]+ MB free on the data dir's disk[^\n]*must stay free \(--disk-floor-mb\)/);
  t.match((await floored.json("/v1/stats")).source, /OFFLINE FALLBACK/, "the bundled sample stands in");
  t.notOk(
    downloads(floored).some((f) => f.startsWith(C.stamp)),
    "nothing downloaded",
  );
  // a small body in one write: the early answer closes the connection, which can race a write still going
  let r: { status: number; body: unknown } | null = null;
  for (let attempt = 0; r === null && attempt < 3; attempt++) r = await upload(floored.port, 1024, false).catch(() => null);
  if (r === null) throw new Error("no answer to the upload in three tries");
  t.equal(r.status, 507, "an upload the floor refuses is 507, the server's trouble");
  t.match(r.body, { message: /disk is full/ }, "in the keyed API's shape");
  t.notOk(
    downloads(floored).some((f) => f.startsWith("upload-")),
    "no upload file left",
  );
  t.equal((await floored.get("/health")).status, 200);
  await floored.stop();
});

// ---------------------------------------------------------------- item 13

/** A fresh dir with a tmpfs of `size` mounted on it, or null where mounting is not permitted (not root). */
function smallDisk(size: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), "leidex-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}
const disk = smallDisk("32m");
t.teardown(() => {
  if (disk === null) return;
  execFileSync("umount", ["-l", disk], { stdio: "ignore" });
  rmSync(disk, { recursive: true, force: true });
});

t.test(
  "item 13: an import that fills the disk answers 507; the partial upload is removed; the server serves on",
  { skip: disk === null ? "mounting a tmpfs is not permitted here (it needs root)" : false },
  async (t) => {
    const dir = disk!;
    const dataDir = join(dir, "data");
    mkdirSync(dataDir);
    const small = await startServer(t, { shards: 1, dataDir, args: ["--api-key", KEY], env: { LEIDEX_DISK_FLOOR_MB: "0" } });
    // the early answer closes the connection, which can race a write still going: up to three tries
    let r: { status: number; body: unknown } | null = null;
    for (let attempt = 0; r === null && attempt < 3; attempt++) r = await upload(small.port, 64 * 1024 * 1024).catch(() => null);
    if (r === null) throw new Error("no answer to the upload in three tries");
    t.equal(r.status, 507, "a full disk is the server's trouble: 507, not 400");
    t.match(r.body, { message: /disk is full[^]*the live collection stays/ }, "in the keyed API's shape");
    t.notMatch(String((r.body as { message: string }).message), /ENOSPC|\/tmp/, "naming no errno and no server path");
    t.notOk(
      downloads(small).some((f) => f.startsWith("upload-")),
      "the partial upload was removed",
    );
    t.equal((await small.json("/v1/stats")).records, 6147, "the live collection stays");
    t.equal((await small.get("/health")).status, 200, "the server answers");
    await small.stop();
  },
);
