// The registry-shaped bench: one or more builds on the same registry-shaped zip and queries.
//
//   npm run bench:registry -- [--records N] [--seed S] [--server-dir DIR] [--label L]
//        [--builds before=DIR,after=DIR] [--rounds R] [--first-round K] [--duration S] [--warmup S]
//        [--connections C] [--rates 1000,3000] [--shards K] [--lock FILE] [--max-load L] [--report]
//        [--postgres [--pg-queries N] [--pg-modes knn,similarity,word-knn,word-similarity] [--pg-timeout-ms T]]
//
// For each build (its DIR/dist/src/main.js; default this checkout), in turn and alternating over
// rounds: starts the server on the zip (bench/out/registry-<N>-s<seed>-v*.zip, generated once by
// registry-shaped.ts), then measures ranking (exact name top-1, other-width top-1, typo top-3 ...),
// each query class sent sequentially (p50/p99/max), a realistic mix closed loop and open loop at
// fixed rates, lookups, ready time and RSS. Writes bench/out/registry-<N>-<label>[-r<k>].json and
// prints every run side by side with the ratios last build / first build. With --postgres, then loads
// the same zip into PostgreSQL 15 + pg_trgm once (registry-postgres.ts), runs the targeted classes
// in each pg_trgm mode, writes bench/out/registry-<N>-postgres.json, and the report adds each
// class's top-1/3/10 of the builds beside pg_trgm's best mode. --rounds 0 --postgres runs only
// PostgreSQL and reports it beside the builds' saved runs.

import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Args, buildList, isMain, type Build } from "./args.js";
import { Histogram, type LatencySummary } from "./histogram.js";
import { runLoad, type LoadResult } from "./loadgen.js";
import {
  cpuSeconds,
  freePort,
  machineBusySeconds,
  readMemory,
  removeDirLater,
  runCli,
  startWatchdog,
  startServer,
  onCleanup,
  type ServerProcess,
} from "./proc.js";
import { median, table } from "./table.js";
import { startBareUws } from "./bare-uws.js";
import { Rng } from "./prng.js";
import { otherWidth } from "./registry-corpus.js";
import { HEADLINE_TOP, PG_MODES, runRegistryPostgres, type PgModeName, type RegistryPgResult } from "./registry-postgres.js";
import {
  ensureRegistryZip,
  fullNameTypo,
  QUERY_CLASSES,
  targetRank,
  TopTally,
  typedPrefix,
  type QueryClass,
  type RankedRow,
  type RegistryQueries,
} from "./registry-shaped.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = existsSync(path.resolve(HERE, "../package.json")) ? path.resolve(HERE, "..") : path.resolve(HERE, "../..");
const OUT = path.join(REPO, "bench", "out");

interface Options {
  readonly records: number;
  readonly seed: number;
  readonly builds: readonly Build[];
  readonly rounds: number;
  /** Number of the first round (a later session continues a series without overwriting its files). */
  readonly firstRound: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  readonly rates: readonly number[];
  readonly shards: number | null;
  readonly lock: string | null;
  readonly maxLoad: number;
  /** Also run the PostgreSQL + pg_trgm baseline once on the same zip and queries. */
  readonly postgres: boolean;
  /** PostgreSQL: first N queries of each class (null: all), modes, per-query timeout. */
  readonly pgQueries: number | null;
  readonly pgModes: readonly PgModeName[];
  readonly pgTimeoutMs: number;
}

interface ClassResult {
  readonly queries: number;
  readonly errors: number;
  /** Shares of queries whose target record is first, in the top 3, in the top 10 (classes with a target). */
  readonly top1: number | null;
  readonly top3: number | null;
  readonly top10: number | null;
  readonly medianFound: number;
  readonly latency: LatencySummary;
  /** The first queries whose target was not first: its rank (0 = not on the page) and the name ranked first instead. */
  readonly misses?: ReadonlyArray<{ readonly q: string; readonly rank: number; readonly first: string }>;
}

interface LoadRun {
  readonly name: string;
  readonly load: LoadResult;
  /** Server CPU (utime + stime, all threads) over the load, in cores. */
  readonly serverCores: number;
  /** Busy CPU of the whole machine over the load, in cores: minus server and client, what else ran (the cores are shared). */
  readonly machineCores: number;
}

interface RunResult {
  readonly label: string;
  readonly dir: string;
  readonly round: number;
  readonly startedAt: string;
  readonly loadAverageAtStart: readonly number[];
  readonly readySeconds: number;
  readonly rssReadyBytes: number;
  readonly rssAfterBytes: number;
  readonly hwmBytes: number;
  readonly classes: Readonly<Record<QueryClass, ClassResult>>;
  readonly slowest: ReadonlyArray<{ readonly cls: QueryClass; readonly q: string; readonly ms: number; readonly found: number }>;
  /** Broad and long queries, one at a time (absent in runs saved before they were sent). */
  readonly hostile?: HostileResult;
  readonly loads: readonly LoadRun[];
}

interface HostileResult {
  readonly queries: number;
  readonly p50Ms: number;
  readonly maxMs: number;
  readonly slowest: ReadonlyArray<{ readonly path: string; readonly ms: number; readonly found: number }>;
}

function log(line: string): void {
  process.stderr.write(`[registry ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

const enc = encodeURIComponent;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- lock (the CPU rule: 2 shared cores)

/** Waits for a quiet machine (1-min load below maxLoad, no other lock), then takes the lock file, naming its holder in it. */
async function acquireLock(file: string, maxLoad: number, holder: string): Promise<() => void> {
  for (;;) {
    const load = os.loadavg()[0]!;
    if (load < maxLoad && !existsSync(file)) {
      try {
        const fd = openSync(file, "wx");
        writeSync(fd, `${holder}\n`);
        closeSync(fd);
        break;
      } catch {
        // Someone took it between the check and the create: wait again.
      }
    }
    log(`waiting: load ${load.toFixed(2)}${existsSync(file) ? `, ${file} exists` : ""}`);
    await sleep(15_000);
  }
  log(`took ${file}`);
  const unregister = onCleanup(() => unlinkSync(file));
  return () => {
    unregister();
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
    log(`released ${file}`);
  };
}

// ---------------------------------------------------------------- sequential queries

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: target, agent, timeout: 60_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

interface SearchPage {
  readonly found: number;
  readonly results: readonly RankedRow[];
}

async function runClasses(
  port: number,
  queries: RegistryQueries,
): Promise<{ classes: Record<QueryClass, ClassResult>; slowest: RunResult["slowest"] }> {
  const classes = {} as Record<QueryClass, ClassResult>;
  const all: Array<{ cls: QueryClass; q: string; ms: number; found: number }> = [];
  for (const cls of QUERY_CLASSES) {
    const items = queries.classes[cls];
    const hist = new Histogram();
    let errors = 0;
    const tally = new TopTally();
    const found: number[] = [];
    const misses: Array<{ q: string; rank: number; first: string }> = [];
    for (const item of items) {
      const t0 = performance.now();
      let page: SearchPage | null = null;
      try {
        const r = await get(port, `/v1/entities?q=${enc(item.q)}`);
        if (r.status === 200) page = JSON.parse(r.body) as SearchPage;
      } catch {
        page = null;
      }
      const ms = performance.now() - t0;
      hist.record(ms * 1000);
      if (page === null) {
        errors++;
        continue;
      }
      found.push(page.found);
      all.push({ cls, q: item.q, ms, found: page.found });
      if (item.lei !== undefined) {
        const rank = targetRank(item, page.results);
        tally.add(rank);
        if (rank !== 0 && misses.length < 25) misses.push({ q: item.q, rank: rank + 1, first: page.results[0]?.legalName ?? "" });
      }
    }
    found.sort((a, b) => a - b);
    classes[cls] = {
      queries: items.length,
      errors,
      ...tally.shares(),
      medianFound: found.length === 0 ? 0 : found[found.length >> 1]!,
      latency: hist.summary(),
      misses,
    };
    const c = classes[cls];
    log(
      `  ${cls}: ${items.length} queries, top-1 ${pct(c.top1)}, top-3 ${pct(c.top3)}, p50 ${c.latency.p50Ms} ms, p99 ${c.latency.p99Ms} ms, max ${c.latency.maxMs} ms${errors > 0 ? `, ${errors} errors` : ""}`,
    );
  }
  const slowest = all
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 8)
    .map((s) => ({ ...s, ms: Math.round(s.ms * 100) / 100 }));
  return { classes, slowest };
}

/**
 * The costliest queries an outsider can send, built from the corpus's most frequent words:
 * one-character prefixes and frequent words with every facet, frequent words filtered, two and
 * three frequent words together, and all 16 words a query keeps, as typed and with a typo in
 * each, with and without a filter. Each path is sent once (the answer cache never serves one).
 */
export function hostilePaths(queries: RegistryQueries): string[] {
  const words = queries.classes["one-word"].map((item) => item.q).filter((w) => /^[\p{L}\p{N}]{4,}$/u.test(w));
  const facets = "&facets=country,jurisdiction,status,registrationStatus,category";
  const typo = (w: string): string => w.slice(0, 1) + w[2] + w[1] + w.slice(3);
  const paths: string[] = [];
  const q = (text: string, extra = ""): void => {
    paths.push(`/v1/entities?q=${enc(text)}${extra}`);
  };
  for (const c of ["a", "s", "e", "m", "1"]) q(c, facets);
  for (const w of words.slice(0, 20)) {
    q(w, facets);
    q(w, "&country=DE");
    q(w.slice(0, 3), "&status=ACTIVE");
  }
  for (let i = 0; i + 1 < 24; i += 2) {
    q(`${words[i]} ${words[i + 1]}`);
    q(`${words[i]} ${words[i + 1]} ${words[i + 2]}`, facets);
  }
  for (let k = 0; k < 4; k++) {
    const sixteen = words.slice(k * 16, k * 16 + 16);
    q(sixteen.join(" "));
    q(sixteen.join(" "), "&country=DE");
    q(sixteen.map(typo).join(" "));
    q(sixteen.map(typo).join(" "), facets);
  }
  return paths;
}

async function runHostile(port: number, paths: readonly string[]): Promise<HostileResult> {
  const timed: Array<{ path: string; ms: number; found: number }> = [];
  for (const path of paths) {
    const t0 = performance.now();
    const r = await get(port, path);
    const ms = performance.now() - t0;
    timed.push({ path, ms: Math.round(ms * 100) / 100, found: r.status === 200 ? (JSON.parse(r.body) as SearchPage).found : -r.status });
  }
  const byMs = [...timed].sort((a, b) => a.ms - b.ms);
  const result = {
    queries: timed.length,
    p50Ms: byMs[byMs.length >> 1]!.ms,
    maxMs: byMs[byMs.length - 1]!.ms,
    slowest: byMs.slice(-5).reverse(),
  };
  log(`  broad and long queries: ${result.queries}, p50 ${result.p50Ms} ms, max ${result.maxMs} ms`);
  return result;
}

// ---------------------------------------------------------------- load mixes

interface Mixes {
  readonly lookups: string[];
  /** Disjoint slices of one mixed pool, one per load: no request repeats across loads, so the answer cache serves only in-run repeats. */
  readonly mixed: string[][];
  readonly description: string;
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * The realistic mix of issue 21: 40 % lookups, 35 % type-ahead prefixes of 1–3 words (broad),
 * 15 % pasted names with typos, 7 % pasted exact names, 3 % other-width names; names from all over
 * the corpus (not only the real records).
 */
const MIX_LOOKUP_SHARE = 0.4;

function buildMixes(queries: RegistryQueries, seed: number, slices: number): Mixes {
  const rng = Rng.at(seed, 201, 0);
  const lookups = shuffle(
    queries.loadLeis.map((l) => `/v1/entities/${l}`),
    rng,
  );
  const pool: string[] = [];
  const names = shuffle([...queries.loadNames], rng);
  let n = 0;
  let l = 0;
  for (let k = 0; k < 400_000 && n < names.length * 3; k++) {
    const r = rng.float();
    if (r < MIX_LOOKUP_SHARE) {
      pool.push(lookups[l++ % lookups.length]!);
      continue;
    }
    const name = names[n++ % names.length]!.name;
    let q: string | null;
    if (r < 0.75) q = typedPrefix(rng, name);
    else if (r < 0.9) q = fullNameTypo(rng, name);
    else if (r < 0.97) q = name;
    else q = otherWidth(name);
    if (q !== null) pool.push(`/v1/entities?q=${enc(q)}`);
  }
  const size = Math.floor(pool.length / slices);
  return {
    lookups,
    mixed: Array.from({ length: slices }, (_, s) => pool.slice(s * size, (s + 1) * size)),
    description: "40 % lookup, 35 % 1-3 word prefix, 15 % full name with typos, 7 % exact name, 3 % other-width name",
  };
}

// ---------------------------------------------------------------- one run

async function runOnce(
  opts: Options,
  build: Build,
  round: number,
  zip: string,
  queries: RegistryQueries,
  mixes: Mixes,
): Promise<RunResult> {
  const main = path.join(build.dir, "dist", "src", "main.js");
  if (!existsSync(main)) throw new Error(`${main} not found: build that checkout first`);
  const startedAt = new Date().toISOString();
  const loadAverageAtStart = os.loadavg();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "leidex-registry-data-"));
  const removeData = removeDirLater(dataDir);
  const port = await freePort();
  const args = [main, "--host", "127.0.0.1", "--port", String(port), "--source", zip, "--data-dir", dataDir, "--rate-limit", "0"];
  if (opts.shards !== null) args.push("--shards", String(opts.shards));
  log(`${build.label} (round ${round}): node ${args.join(" ")}`);
  const server = await startServer({
    command: process.execPath,
    args,
    readyTimeoutMs: 15 * 60_000,
    logFile: path.join(OUT, `registry-server-${opts.records}-${build.label}.log`),
    cwd: build.dir,
  });
  try {
    const rssReadyBytes = readMemory(server.pid)?.rssBytes ?? 0;
    log(`  ready in ${server.readySeconds.toFixed(1)} s, RSS ${mib(rssReadyBytes)}`);
    const probe = await get(server.port, mixes.lookups[0]!);
    if (probe.status !== 200) throw new Error(`lookup ${mixes.lookups[0]} answered ${probe.status}: ${probe.body.slice(0, 200)}`);
    const { classes, slowest } = await runClasses(server.port, queries);
    const hostile = await runHostile(server.port, hostilePaths(queries));
    const loads: LoadRun[] = [];
    const scenarios: Array<{ name: string; paths: string[]; rate?: number }> = [
      { name: `mix closed loop, ${opts.connections} connections`, paths: mixes.mixed[0]! },
      ...opts.rates.map((rate, k) => ({ name: `mix open loop at ${rate} req/s`, paths: mixes.mixed[k + 1]!, rate })),
      { name: `lookup closed loop, ${opts.connections} connections`, paths: mixes.lookups },
    ];
    for (const sc of scenarios) loads.push(await measureLoad(opts, server, sc));
    const mem = readMemory(server.pid);
    await server.stop();
    loads.push(await measureBareUws(opts, mixes.lookups));
    return {
      label: build.label,
      dir: build.dir,
      round,
      startedAt,
      loadAverageAtStart,
      readySeconds: server.readySeconds,
      rssReadyBytes,
      rssAfterBytes: mem?.rssBytes ?? 0,
      hwmBytes: mem?.hwmBytes ?? 0,
      classes,
      slowest,
      hostile,
      loads,
    };
  } finally {
    await server.stop();
    removeData();
  }
}

/** One load against a running server, with the server's and the machine's CPU over it. */
async function measureLoad(opts: Options, server: ServerProcess, sc: { name: string; paths: string[]; rate?: number }): Promise<LoadRun> {
  const cpu0 = cpuSeconds(server.pid);
  const busy0 = machineBusySeconds();
  const t0 = performance.now();
  const load = await runLoad({
    host: "127.0.0.1",
    port: server.port,
    paths: sc.paths,
    connections: opts.connections,
    durationS: opts.durationS,
    warmupS: opts.warmupS,
    seed: opts.seed,
    ...(sc.rate !== undefined ? { ratePerS: sc.rate } : {}),
  });
  const wallS = (performance.now() - t0) / 1000;
  const serverCores = (cpuSeconds(server.pid) - cpu0) / wallS;
  const machineCores = (machineBusySeconds() - busy0) / wallS;
  const others = machineCores - serverCores - load.clientCpuPct / 100;
  log(
    `  ${sc.name}: ${Math.round(load.rps)} req/s, p50 ${load.latency.p50Ms} ms, p99 ${load.latency.p99Ms} ms, max ${load.latency.maxMs} ms, unsent ${load.backlog}, non-2xx ${load.non2xx}, errors ${load.errors}, server ${serverCores.toFixed(2)} cores, client ${(load.clientCpuPct / 100).toFixed(2)}, everything else ~${others.toFixed(2)}`,
  );
  if (server.child.exitCode !== null) throw new Error(`server exited during "${sc.name}":\n${server.tail()}`);
  return { name: sc.name, load, serverCores, machineCores };
}

/** The HTTP ceiling in the same round: a bare uWebSockets.js answering the lookups' paths with a fixed small JSON. */
async function measureBareUws(opts: Options, paths: string[]): Promise<LoadRun> {
  const bare = await startBareUws(await freePort());
  try {
    return await measureLoad(opts, bare, { name: bareLoadName(opts), paths });
  } finally {
    await bare.stop();
  }
}

const bareLoadName = (opts: Options): string => `bare uWS closed loop, ${opts.connections} connections`;

// ---------------------------------------------------------------- report

const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;
const pct = (x: number | null): string => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);

interface Metric {
  readonly name: string;
  readonly value: (r: RunResult) => number | null;
  readonly fmt: (v: number) => string;
  /** True when another process took a share of the cores during this figure's load: shown with *, left out of the medians. */
  readonly disturbed?: (r: RunResult) => boolean;
}

/** Cores used by neither the server nor the load generator above which a load counts as disturbed by a neighbour. */
const DISTURBED_CORES = 0.25;

function otherCores(x: LoadRun): number | null {
  // machineCores is absent in runs saved before it was measured.
  return (x as Partial<LoadRun>).machineCores === undefined
    ? null
    : Math.max(0, x.machineCores - x.serverCores - x.load.clientCpuPct / 100);
}

function metrics(opts: Options): Metric[] {
  const ms = (v: number): string => (v < 10 ? v.toFixed(2) : v.toFixed(1));
  const int = (v: number): string => Math.round(v).toLocaleString("en-US");
  const p = (v: number): string => `${(v * 100).toFixed(1)} %`;
  const out: Metric[] = [
    { name: "ready s", value: (r) => r.readySeconds, fmt: (v) => v.toFixed(1) },
    { name: "RSS at ready MiB", value: (r) => r.rssReadyBytes / 2 ** 20, fmt: int },
    { name: "RSS after loads MiB", value: (r) => r.rssAfterBytes / 2 ** 20, fmt: int },
    { name: "peak RSS (VmHWM) MiB", value: (r) => r.hwmBytes / 2 ** 20, fmt: int },
    { name: "exact name top-1", value: (r) => r.classes.exact.top1, fmt: p },
    { name: "exact name (fund/parish) top-1", value: (r) => r.classes["exact-family"].top1, fmt: p },
    { name: "other-width name top-1", value: (r) => r.classes.width.top1, fmt: p },
    { name: "typo full name top-3", value: (r) => r.classes.typo.top3, fmt: p },
    { name: "prefix top-3", value: (r) => r.classes.prefix.top3, fmt: p },
    { name: "two words top-10", value: (r) => r.classes["two-word"].top10, fmt: p },
  ];
  for (const cls of QUERY_CLASSES) {
    out.push({ name: `seq ${cls} p50 ms`, value: (r) => r.classes[cls].latency.p50Ms, fmt: ms });
    out.push({ name: `seq ${cls} p99 ms`, value: (r) => r.classes[cls].latency.p99Ms, fmt: ms });
    out.push({ name: `seq ${cls} max ms`, value: (r) => r.classes[cls].latency.maxMs, fmt: ms });
  }
  out.push({ name: "broad and long queries p50 ms", value: (r) => r.hostile?.p50Ms ?? null, fmt: ms });
  out.push({ name: "broad and long queries max ms", value: (r) => r.hostile?.maxMs ?? null, fmt: ms });
  out.push({ name: "seq one-word median found", value: (r) => r.classes["one-word"].medianFound, fmt: int });
  const lookupName = `lookup closed loop, ${opts.connections} connections`;
  const loadNames = [
    `mix closed loop, ${opts.connections} connections`,
    ...opts.rates.map((rate) => `mix open loop at ${rate} req/s`),
    lookupName,
    bareLoadName(opts),
  ];
  for (const ln of loadNames) {
    const lr = (r: RunResult): LoadRun | undefined => r.loads.find((x) => x.name === ln);
    const disturbed = (r: RunResult): boolean => {
      const x = lr(r);
      return x !== undefined && (otherCores(x) ?? 0) > DISTURBED_CORES;
    };
    const first = out.length;
    out.push({ name: `${ln}: req/s`, value: (r) => lr(r)?.load.rps ?? null, fmt: int });
    out.push({ name: `${ln}: p50 ms`, value: (r) => lr(r)?.load.latency.p50Ms ?? null, fmt: ms });
    out.push({ name: `${ln}: p99 ms`, value: (r) => lr(r)?.load.latency.p99Ms ?? null, fmt: ms });
    out.push({ name: `${ln}: max ms`, value: (r) => lr(r)?.load.latency.maxMs ?? null, fmt: ms });
    if (ln.includes("open")) out.push({ name: `${ln}: unsent`, value: (r) => lr(r)?.load.backlog ?? null, fmt: int });
    out.push({
      name: `${ln}: non-2xx+errors`,
      value: (r) => {
        const x = lr(r);
        return x === undefined ? null : x.load.non2xx + x.load.errors;
      },
      fmt: int,
    });
    out.push({ name: `${ln}: server cores`, value: (r) => lr(r)?.serverCores ?? null, fmt: (v) => v.toFixed(2) });
    // utime + stime of the server over the load divided by its answers: no client can bias it
    out.push({
      name: `${ln}: server CPU us/answer`,
      value: (r) => {
        const x = lr(r);
        return x === undefined || x.load.rps === 0 ? null : cpuPerAnswerUs(x);
      },
      fmt: ms,
    });
    // Not server, not client: another process on the shared cores (absent in runs saved before this field).
    out.push({
      name: `${ln}: other procs cores ~`,
      value: (r) => {
        const x = lr(r);
        return x === undefined ? null : otherCores(x);
      },
      fmt: (v) => v.toFixed(2),
    });
    for (let k = first; k < out.length; k++) out[k] = { ...out[k]!, disturbed };
  }
  // A search's CPU: the closed-loop mix's, less its share of lookups at the lookup load's CPU each.
  const mixLoad = (r: RunResult): LoadRun | undefined => r.loads.find((x) => x.name === loadNames[0]);
  const lookupLoad = (r: RunResult): LoadRun | undefined => r.loads.find((x) => x.name === lookupName);
  const bareLoad = (r: RunResult): LoadRun | undefined => r.loads.find((x) => x.name === bareLoadName(opts));
  out.push({
    name: "search in the mix: server CPU us/answer",
    fmt: ms,
    value: (r) => {
      const m = mixLoad(r),
        l = lookupLoad(r);
      return m === undefined || l === undefined
        ? null
        : (cpuPerAnswerUs(m) - MIX_LOOKUP_SHARE * cpuPerAnswerUs(l)) / (1 - MIX_LOOKUP_SHARE);
    },
  });
  out.push({
    name: "lookup CPU / bare uWS CPU per answer",
    fmt: (v) => v.toFixed(2),
    value: (r) => {
      const l = lookupLoad(r),
        b = bareLoad(r);
      return l === undefined || b === undefined ? null : cpuPerAnswerUs(l) / cpuPerAnswerUs(b);
    },
  });
  return out;
}

const cpuPerAnswerUs = (x: LoadRun): number => (x.serverCores * 1e6) / x.load.rps;

function report(opts: Options, runs: readonly RunResult[]): string {
  const ms = metrics(opts);
  const labels = opts.builds.map((b) => b.label);
  const header = ["metric", ...runs.map((r) => `${r.label} r${r.round}`)];
  const compare = labels.length >= 2;
  if (compare) header.push(`${labels[labels.length - 1]}/${labels[0]} (medians)`);
  const rows = [header];
  for (const m of ms) {
    const row = [
      m.name,
      ...runs.map((r) => {
        const v = m.value(r);
        return v === null ? "-" : m.fmt(v) + (m.disturbed?.(r) === true ? "*" : "");
      }),
    ];
    if (compare) {
      const med = (label: string): number | null => {
        const vals = runs
          .filter((r) => r.label === label && m.disturbed?.(r) !== true)
          .map(m.value)
          .filter((v): v is number => v !== null);
        return vals.length === 0 ? null : median(vals);
      };
      const a = med(labels[0]!);
      const b = med(labels[labels.length - 1]!);
      row.push(a === null || b === null ? "-" : a === 0 ? (b === 0 ? "1.00" : "inf") : (b / a).toFixed(2));
    }
    rows.push(row);
  }
  const note = `\n* another process used over ${DISTURBED_CORES} of the shared cores during that load (machine busy time minus server and client): left out of the medians`;
  return table(rows) + note;
}

/** bench/out/registry-<N>-postgres.json: the PostgreSQL baseline of that corpus size. */
const pgFile = (records: number): string => path.join(OUT, `registry-${records}-postgres.json`);

function savedPostgres(records: number): RegistryPgResult | null {
  const file = pgFile(records);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as RegistryPgResult) : null;
}

/** Each targeted class: the builds' top-1/3/10 (medians over their runs) beside pg_trgm's best mode, then every mode's headline share. */
function recallReport(opts: Options, runs: readonly RunResult[], pgr: RegistryPgResult): string {
  const p = (x: number | null | undefined): string => (x === null || x === undefined ? "-" : (x * 100).toFixed(1));
  const ms = (v: number): string => (v < 10 ? v.toFixed(2) : v.toFixed(1));
  const tops = (r: { top1: number | null; top3: number | null; top10: number | null }): string =>
    `${p(r.top1)} / ${p(r.top3)} / ${p(r.top10)}`;
  const labels = [...new Set([...opts.builds.map((b) => b.label), ...runs.map((r) => r.label)])].filter((l) =>
    runs.some((r) => r.label === l),
  );
  const med = (label: string, cls: QueryClass, k: "top1" | "top3" | "top10"): number | null => {
    const vals = runs
      .filter((r) => r.label === label)
      .map((r) => r.classes[cls][k])
      .filter((v): v is number => v !== null);
    return vals.length === 0 ? null : median(vals);
  };
  const modes = PG_MODES.filter((m) => pgr.modes.some((x) => x.name === m));
  const header = [
    "class (judged by)",
    "pg queries",
    ...labels.map((l) => `${l} top-1/3/10 %`),
    "pg_trgm best top-1/3/10 %",
    "best mode",
    "pg p50 ms",
  ];
  const rows = [header];
  const byMode = [["class", ...modes.map((m) => `${m} %`), ...modes.map((m) => `${m} p50 ms`)]];
  for (const cls of QUERY_CLASSES) {
    const pc = pgr.classes[cls];
    if (pc === undefined) continue;
    const best = pc.modes[pc.best]!;
    const head = HEADLINE_TOP[cls] ?? "top1";
    rows.push([
      `${cls} (${head.replace("top", "top-")})`,
      String(best.queries),
      ...labels.map((l) => tops({ top1: med(l, cls, "top1"), top3: med(l, cls, "top3"), top10: med(l, cls, "top10") })),
      tops(best) + (best.errors > 0 ? ` (${best.errors} timeouts)` : ""),
      pc.best,
      ms(best.latency.p50Ms),
    ]);
    byMode.push([
      cls,
      ...modes.map((m) => p(pc.modes[m]?.[head])),
      ...modes.map((m) => {
        const r = pc.modes[m];
        return r === undefined ? "-" : ms(r.latency.p50Ms);
      }),
    ]);
  }
  const l = pgr.load;
  const s = (x: number | null): string => (x === null ? "-" : `${x.toFixed(1)} s`);
  return [
    `recall per query class beside pg_trgm, ${pgr.server.split(" on ")[0]}, same corpus, ${pgr.names.toLocaleString("en-US")} names of ${pgr.records.toLocaleString("en-US")} records; ` +
      `load ${s(l.totalSeconds)} (zip to COPY file ${s(l.readSeconds)}, COPY ${s(l.copySeconds)}, GIN ${s(l.ginSeconds)}, GiST ${s(l.gistSeconds)}); ` +
      `similarity_threshold ${pgr.similarityThreshold}, word_similarity_threshold ${pgr.wordSimilarityThreshold}, statement_timeout ${pgr.statementTimeoutMs} ms${pgr.perClass === null ? "" : `, first ${pgr.perClass} queries of each class`}`,
    "",
    table(rows),
    "",
    `every pg_trgm mode, the share each class is judged by, and p50 (one query at a time, straight to the database):`,
    "",
    table(byMode),
  ].join("\n");
}

// ---------------------------------------------------------------- main

export async function runRegistryBench(opts: Options): Promise<RunResult[]> {
  const data = await ensureRegistryZip(OUT, opts.records, opts.seed, log);
  const c = data.queries.corpus;
  log(
    `corpus: ${c.records.toLocaleString("en-US")} records, ${c.real} real; distractors ${JSON.stringify(c.distractors)}; query classes ${QUERY_CLASSES.map((k) => `${k} ${data.queries.classes[k].length}`).join(", ")}`,
  );
  const mixes = buildMixes(data.queries, opts.seed, 1 + opts.rates.length);
  (globalThis as { gc?: () => void }).gc?.();
  const runs: RunResult[] = [];
  for (let round = opts.firstRound; round < opts.firstRound + opts.rounds; round++) {
    for (const build of opts.builds) {
      const release = opts.lock === null ? () => undefined : await acquireLock(opts.lock, opts.maxLoad, build.label);
      let run: RunResult;
      try {
        run = await runOnce(opts, build, round, data.zip, data.queries, mixes);
      } finally {
        release();
      }
      runs.push(run);
      const file = path.join(OUT, `registry-${opts.records}-${build.label}${opts.rounds > 1 || round > 1 ? `-r${round}` : ""}.json`);
      writeFileSync(
        file,
        JSON.stringify(
          { options: opts, node: process.version, cores: os.availableParallelism(), mix: mixes.description, corpus: c, run },
          null,
          2,
        ) + "\n",
      );
      log(`wrote ${path.relative(REPO, file)}`);
    }
  }
  let pgr: RegistryPgResult | null = null;
  if (opts.postgres) {
    const release = opts.lock === null ? () => undefined : await acquireLock(opts.lock, opts.maxLoad, "pg");
    try {
      pgr = await runRegistryPostgres({
        zip: data.zip,
        queries: data.queries,
        perClass: opts.pgQueries,
        modes: opts.pgModes,
        statementTimeoutMs: opts.pgTimeoutMs,
        log,
      });
    } finally {
      release();
    }
    writeFileSync(pgFile(opts.records), JSON.stringify(pgr, null, 2) + "\n");
    log(`wrote ${path.relative(REPO, pgFile(opts.records))}`);
  }
  // With no round run here (--rounds 0), the builds' columns are their saved runs, as --report shows them.
  const shown = runs.length > 0 ? runs : savedRuns(opts);
  if (shown.length > 0)
    process.stdout.write(
      `\nregistry-shaped corpus, ${opts.records.toLocaleString("en-US")} records (seed ${opts.seed}); mix: ${mixes.description}; ${opts.durationS} s per load after ${opts.warmupS} s warm-up\n\n${report(opts, shown)}\n\n`,
    );
  if (pgr !== null) process.stdout.write(`${recallReport(opts, shown, pgr)}\n\n`);
  for (const r of runs)
    process.stdout.write(
      `slowest single queries, ${r.label} r${r.round}: ${r.slowest.map((s) => `${s.ms} ms ${s.cls} "${s.q}" (found ${s.found})`).join("; ")}\n`,
    );
  for (const r of runs.filter((x) => x.hostile !== undefined)) {
    process.stdout.write(
      `slowest broad and long queries, ${r.label} r${r.round}: ${r.hostile!.slowest.map((s) => `${s.ms} ms ${decodeURIComponent(s.path)} (found ${s.found})`).join("; ")}\n`,
    );
  }
  return runs;
}

/** Every run of these builds at this size already in bench/out (all rounds, all sessions), for one table. */
function savedRuns(opts: Options): RunResult[] {
  const runs: RunResult[] = [];
  for (const b of opts.builds) {
    const re = new RegExp(`^registry-${opts.records}-${b.label.replace(/[^\w-]/g, "")}(-r\\d+)?\\.json$`);
    for (const f of readdirSync(OUT).filter((n) => re.test(n)))
      runs.push((JSON.parse(readFileSync(path.join(OUT, f), "utf8")) as { run: RunResult }).run);
  }
  // Chronological, so alternation shows in the columns.
  return runs.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

function parseBuilds(args: Args): Build[] {
  const builds = buildList(args, REPO);
  // bench/out/registry-<N>-postgres.json is the PostgreSQL baseline's, not a build's.
  if (builds.some((b) => b.label === "postgres")) throw new Error("the label postgres is taken by the PostgreSQL baseline");
  return builds;
}

/** Whatever hangs, the bench ends. */
const WATCHDOG_MS = 3 * 3600_000;

async function main(): Promise<void> {
  startWatchdog("bench:registry", WATCHDOG_MS);
  const args = new Args(process.argv.slice(2), ["report", "postgres"]);
  const shards = args.string("shards");
  const lock = args.string("lock");
  const pgQueries = args.string("pg-queries");
  const pgModes = (args.string("pg-modes") ?? PG_MODES.join(",")).split(",");
  const unknownMode = pgModes.find((m) => !(PG_MODES as readonly string[]).includes(m));
  if (unknownMode !== undefined) throw new Error(`--pg-modes: unknown mode ${unknownMode}; modes: ${PG_MODES.join(",")}`);
  const opts: Options = {
    records: args.int("records", 1_000_000),
    seed: args.int("seed", 1),
    builds: parseBuilds(args),
    rounds: args.int("rounds", 1),
    firstRound: args.int("first-round", 1),
    durationS: args.number("duration", 10),
    warmupS: args.number("warmup", 2),
    connections: args.int("connections", 64),
    rates: (args.string("rates") ?? "1000,3000").split(",").map(Number),
    shards: shards === undefined ? null : args.int("shards", 1),
    lock: lock === undefined ? null : path.resolve(lock),
    maxLoad: args.number("max-load", 1.0),
    postgres: args.flag("postgres"),
    pgQueries: pgQueries === undefined ? null : args.int("pg-queries", 0),
    pgModes: pgModes as PgModeName[],
    pgTimeoutMs: args.int("pg-timeout-ms", 10_000),
  };
  // --report: no measurement, the table of every saved run of these builds at this size (and of PostgreSQL's, if saved).
  if (args.flag("report")) {
    const runs = savedRuns(opts);
    const pgr = savedPostgres(opts.records);
    if (runs.length > 0) process.stdout.write(`${report(opts, runs)}\n\n`);
    if (pgr !== null) process.stdout.write(`${recallReport(opts, runs, pgr)}\n`);
  } else await runRegistryBench(opts);
}

if (isMain(import.meta.url)) runCli("bench:registry", main);
