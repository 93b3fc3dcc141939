// How ingest time and memory grow with the registry: for each size, a first load, a restart
// from the persisted segments, and a reload while the loaded collection stays live (the daily
// case, and the peak of memory). Download is excluded: the source is a local zip.
//
//   npm run bench:scale -- [--records 500000,1000000,2000000,3430000] [--seed S] [--shards K] [--no-level2]
//
// Each load includes the Level 2 files of the same corpus (RR, REPEX, ISIN and BIC from
// level2-generate.ts, generated once into bench/out/ like the zips) unless --no-level2.
//
// Per size it reports: first load to ready and the server's own ingestSeconds; peak RSS of the
// first load (VmHWM); steady RSS a few seconds after ready; restart to ready and RSS after it;
// the reload's duration and the peak RSS while old and new collections are both in memory.
// Writes bench/out/scale-results.json.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Args, isMain } from "./args.js";
import { ensureGoldenZip } from "./generate.js";
import { describeLevel2, ensureLevel2, type Level2Stats } from "./level2-generate.js";
import { freePort, readMemory, removeDirLater, RssSampler, runCli, startServer, type ServerProcess } from "./proc.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const OUT = path.join(REPO, "bench", "out");
const SERVER_MAIN = path.join(REPO, "dist", "src", "main.js");
const SETTLE_MS = 5_000;
const LOADED = /loaded (\d+) records as (\S+) in ([\d.]+) s/g;

interface ScaleRow {
  records: number;
  zipMiB: number;
  /** the Level 2 files loaded with the golden copy; null without them */
  level2: { rr: number; repex: number; isin: number; bic: number; zipMiB: number } | null;
  firstReadySeconds: number;
  ingestSeconds: number | null;
  firstLoadPeakRssMiB: number;
  steadyRssMiB: number;
  restartReadySeconds: number;
  restartRssMiB: number;
  reloadSeconds: number;
  reloadPeakRssMiB: number;
  afterReloadRssMiB: number;
}

function log(line: string): void {
  process.stderr.write(`[scale ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function stats(server: ServerProcess): Promise<{ records: number; ingestSeconds: number | null }> {
  const res = await fetch(`http://127.0.0.1:${server.port}/v1/stats`);
  return (await res.json()) as { records: number; ingestSeconds: number | null };
}

/** Resolves once the server's log shows `count` completed loads. */
async function loadsLogged(logFile: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = [...readFileSync(logFile, "utf8").matchAll(LOADED)].length;
    if (seen >= count) return;
    if (Date.now() > deadline) throw new Error(`no completed load in ${logFile} after ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

async function measure(records: number, seed: number, shards: number | null, withLevel2: boolean): Promise<ScaleRow> {
  const data = await ensureGoldenZip(OUT, records, seed, log);
  const level2 = withLevel2 ? await ensureLevel2(OUT, records, seed, log) : null;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "leidex-scale-"));
  const removeData = removeDirLater(dataDir);
  const logFile = path.join(OUT, `scale-server-${records}.log`);
  const args = [
    SERVER_MAIN,
    "--host",
    "127.0.0.1",
    "--port",
    String(await freePort()),
    "--source",
    data.zip,
    "--data-dir",
    dataDir,
    "--rate-limit",
    "0",
  ];
  if (shards !== null) args.push("--shards", String(shards));
  if (level2 !== null) {
    const p = level2.paths;
    args.push("--rr-source", p.rr, "--repex-source", p.repex, "--isin-source", p.isin, "--bic-source", p.bic);
  }
  const start = (): Promise<ServerProcess> =>
    startServer({ command: process.execPath, args, readyTimeoutMs: 30 * 60_000, logFile, cwd: REPO });
  try {
    log(
      `${records.toLocaleString("en-US")} records: first load${level2 !== null ? ` with Level 2 (${describeLevel2(level2.stats)})` : ""}`,
    );
    let server = await start();
    const firstReadySeconds = server.readySeconds;
    const { records: served, ingestSeconds } = await stats(server);
    if (served !== records) throw new Error(`the server serves ${served} records, the zip holds ${records}`);
    const firstLoadPeak = readMemory(server.pid)?.hwmBytes ?? 0;
    await sleep(SETTLE_MS);
    const steady = readMemory(server.pid)?.rssBytes ?? 0;
    log(
      `  ready in ${firstReadySeconds.toFixed(1)} s (ingest ${ingestSeconds ?? "?"} s), peak ${mib(firstLoadPeak)} MiB, steady ${mib(steady)} MiB`,
    );
    await server.stop();

    server = await start();
    const restartReadySeconds = server.readySeconds;
    await sleep(SETTLE_MS);
    const restartRss = readMemory(server.pid)?.rssBytes ?? 0;
    log(`  restart from segments: ready in ${restartReadySeconds.toFixed(1)} s, RSS ${mib(restartRss)} MiB`);

    // A reload (SIGHUP) builds a fresh collection while the one on disk stays live.
    const sampler = new RssSampler(server.pid, 100);
    const reloadStarted = performance.now();
    server.child.kill("SIGHUP");
    await loadsLogged(logFile, 1, 30 * 60_000);
    const reloadSeconds = (performance.now() - reloadStarted) / 1000;
    const reloadPeak = Math.max(sampler.stop(), readMemory(server.pid)?.hwmBytes ?? 0);
    await sleep(SETTLE_MS);
    const afterReload = readMemory(server.pid)?.rssBytes ?? 0;
    log(`  reload under a live collection: ${reloadSeconds.toFixed(1)} s, peak ${mib(reloadPeak)} MiB, after ${mib(afterReload)} MiB`);
    await server.stop();
    return {
      records,
      zipMiB: mib(data.zipBytes),
      level2: level2 === null ? null : level2Row(level2.stats),
      firstReadySeconds,
      ingestSeconds,
      firstLoadPeakRssMiB: mib(firstLoadPeak),
      steadyRssMiB: mib(steady),
      restartReadySeconds,
      restartRssMiB: mib(restartRss),
      reloadSeconds,
      reloadPeakRssMiB: mib(reloadPeak),
      afterReloadRssMiB: mib(afterReload),
    };
  } finally {
    removeData();
  }
}

function level2Row(s: Level2Stats): NonNullable<ScaleRow["level2"]> {
  return {
    rr: s.rr.rows,
    repex: s.repex.rows,
    isin: s.isin.rows,
    bic: s.bic.rows,
    zipMiB: mib(s.rr.fileBytes + s.repex.fileBytes + s.isin.fileBytes + s.bic.fileBytes),
  };
}

async function main(): Promise<void> {
  const args = new Args(process.argv.slice(2), ["no-level2"]);
  const withLevel2 = !args.flag("no-level2");
  const sizes = (args.string("records") ?? "500000,1000000,2000000,3430000").split(",").map((s) => Number(s.replace(/_/g, "")));
  if (sizes.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error("--records takes positive integers separated by commas");
  const seed = args.int("seed", 1);
  const shardsArg = args.string("shards");
  const rows: ScaleRow[] = [];
  for (const n of sizes) rows.push(await measure(n, seed, shardsArg === undefined ? null : args.int("shards", 1), withLevel2));

  const header = [
    "records",
    "zip MiB",
    "Level 2 zips MiB",
    "first load s",
    "ingest s",
    "load peak RSS",
    "steady RSS",
    "restart s",
    "restart RSS",
    "reload s",
    "reload peak RSS",
    "RSS after reload",
  ];
  const lines = rows.map((r) =>
    [
      r.records.toLocaleString("en-US"),
      r.zipMiB,
      r.level2 === null ? "—" : r.level2.zipMiB,
      r.firstReadySeconds.toFixed(1),
      r.ingestSeconds?.toFixed(1) ?? "?",
      `${r.firstLoadPeakRssMiB} MiB`,
      `${r.steadyRssMiB} MiB`,
      r.restartReadySeconds.toFixed(1),
      `${r.restartRssMiB} MiB`,
      r.reloadSeconds.toFixed(1),
      `${r.reloadPeakRssMiB} MiB`,
      `${r.afterReloadRssMiB} MiB`,
    ].map(String),
  );
  process.stdout.write(
    `| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|\n${lines.map((l) => `| ${l.join(" | ")} |`).join("\n")}\n`,
  );
  process.stdout.write(
    `machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(
        " ",
      )}; ${withLevel2 ? "Level 1 and Level 2 (RR, REPEX, ISIN, BIC) in every load" : "Level 1 only (--no-level2)"}; targets at 3.43M: ingest ≤ 90 s, reload peak RSS ≤ 2.5 GB, steady RSS ≤ 1.5 GB, restart ≤ 10 s\n`,
  );
  writeFileSync(
    path.join(OUT, "scale-results.json"),
    JSON.stringify({ at: new Date().toISOString(), cores: os.cpus().length, level2: withLevel2, rows }, null, 2) + "\n",
  );
}

if (isMain(import.meta.url)) runCli("scale", main);
