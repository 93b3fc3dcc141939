// The cores bench: what more shard workers and more cores buy, build beside build.
//
//   npm run bench:cores -- [--records N] [--seed S] [--corpus synthetic|registry-shaped]
//        [--builds old=DIR,new=DIR | --server-dir DIR [--label L]] [--rounds R]
//        [--workers 1,2,4,8] [--rate 300] [--duration S] [--warmup S] [--pin 1,2] [--connections C]
//
// For each build (DIR/dist/src/main.js; default this checkout), alternating over rounds:
// 1. for each worker count, a server with `--workers N` (builds that only know `--shards N`: N
//    threads and N slices), then each query class open loop at --rate, distinct queries never
//    repeated: the server's CPU (utime + stime of all its threads) per answer, p50/p99, unsent;
//    RSS at ready and after the loads;
// 2. for each count in --pin, a server in its default configuration pinned with taskset to that
//    many cores, each class closed loop in turn: answers a second, and the CPU per answer at
//    saturation. The load generator runs on the cores after the largest count when the box has them.
// Writes bench/out/cores-<N>-<label>.json and prints each figure beside the first build's.

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Args, buildList, isMain, type Build } from "./args.js";
import { ensureGoldenZip } from "./generate.js";
import { pipelineRefusal, runLoad, type LoadResult } from "./loadgen.js";
import { Rng } from "./prng.js";
import {
  cpuSeconds,
  freePort,
  readMemory,
  removeDirLater,
  runCli,
  runSync,
  startServer,
  startWatchdog,
  type ServerProcess,
} from "./proc.js";
import { buildQuerySet, queryTokens } from "./queries.js";
import { RecordFactory } from "./records.js";
import { ensureRegistryZip } from "./registry-shaped.js";
import { CORPUS_NOTE, corpusOf, SEARCH_CLASS_NAMES, SEARCHES, type Corpus, type NameQuery } from "./search-classes.js";
import { median, table } from "./table.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = existsSync(path.resolve(HERE, "../package.json")) ? path.resolve(HERE, "..") : path.resolve(HERE, "../..");
const OUT = path.join(REPO, "bench", "out");

const CLASSES = ["exact", "typo", "first-words-typo", "prefix", "one-word", "two-words", "lookup"] as const;
type CoresClass = (typeof CLASSES)[number];
const CLASS_NAMES: Readonly<Record<CoresClass, string>> = {
  ...SEARCH_CLASS_NAMES,
  "one-word": "broad one-word queries",
  "two-words": "broad two-word queries",
  lookup: "lookups by LEI",
};
/**
 * The closed loops' loads: each class, and lookups again with `--pipeline` requests written
 * together on each connection. A lookup costs the server some 30 µs and a client sending them
 * one by one nearly as much, so on a box where the two share the cores the client holds the
 * lookups' figure down; pipelined, the client costs a fraction of that.
 */
const PIN_LOADS = [...CLASSES, "pipelined-lookups"] as const;
type PinLoad = (typeof PIN_LOADS)[number];
const pinLoadName = (load: PinLoad, pipeline: number): string =>
  load === "pipelined-lookups" ? `lookups by LEI, ${pipeline} pipelined` : CLASS_NAMES[load];
/** A name's first words: many names share them, so these classes take their distinct queries from every name (BROAD). */
const firstWords =
  (n: number): NameQuery =>
  (_rng, name) => {
    const words = queryTokens(name);
    return words.length >= n ? words.slice(0, n).join(" ") : null;
  };
const BROAD: ReadonlyArray<[CoresClass, NameQuery]> = [
  ["one-word", firstWords(1)],
  ["two-words", firstWords(2)],
];

interface Options {
  readonly records: number;
  readonly seed: number;
  readonly corpus: Corpus;
  readonly builds: readonly Build[];
  readonly rounds: number;
  readonly workers: readonly number[];
  readonly rate: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly pin: readonly number[];
  readonly connections: number;
  /** requests a connection writes together in the pipelined lookups' closed loop */
  readonly pipeline: number;
}

interface ClassRun {
  readonly cls: CoresClass;
  readonly answers: number;
  readonly cpuUsPerAnswer: number;
  /** less what the idle server spent over the same window (its timers, metrics, GC) */
  readonly netCpuUsPerAnswer?: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly unsent: number;
  readonly failed: number;
}

interface WorkersRun {
  readonly workers: number;
  /** the server's CPU while idle, in cores: the lower of IDLE_S before the classes and IDLE_S after them */
  readonly idleCores: number;
  readonly readySeconds: number;
  readonly rssReadyBytes: number;
  readonly rssAfterBytes: number;
  readonly classes: readonly ClassRun[];
}

interface PinRun {
  readonly cores: number;
  /** one class of distinct requests; older result files: "searches" (the four search classes mixed) or "lookups" */
  readonly load: PinLoad | "searches" | "lookups";
  readonly rps: number;
  readonly p99Ms: number;
  readonly failed: number;
  /** Server CPU over the measured window, in cores: shows the pinning held and how busy the server was. */
  readonly serverCores: number;
  readonly clientCores: number;
  /** The window ends early when the distinct requests run out. */
  readonly windowS: number;
}

interface Round {
  readonly round: number;
  readonly startedAt: string;
  readonly loadAverage: readonly number[];
  readonly workers: readonly WorkersRun[];
  readonly pins: readonly PinRun[];
}

interface BuildRuns {
  readonly label: string;
  readonly dir: string;
  /** The flag that set the worker count: builds before issue 43 know only --shards. */
  readonly flag: "--workers" | "--shards";
  readonly rounds: Round[];
}

/** Request paths, each sent once in a server's life, so the answer cache serves none. */
interface Paths {
  readonly warmup: readonly string[];
  readonly classes: Readonly<Record<CoresClass, readonly string[]>>;
  /** each class's distinct requests for the closed loops */
  readonly closed: Readonly<Record<CoresClass, readonly string[]>>;
}

function log(line: string): void {
  process.stderr.write(`[cores ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

const enc = encodeURIComponent;
/** Distinct searches of a class for its closed loop, per core of the largest --pin: more than such a server answers in a window. */
const CLOSED_NAMES_PER_CORE = 20_000;
const CLOSED_LEIS = 200_000;
/**
 * Warm-up searches a second, sent closed loop: more than a server answers, so the warm-up lasts
 * --warmup s. A server's CPU per search keeps falling over its first several thousand answers
 * (V8's code on every thread, the engine's first touches), and a short warm-up bills that to
 * whichever class runs first.
 */
const WARMUP_PER_S = 4_000;
/** Seconds of a closed loop's start left out of its window: the connections' ramp (the server is warm by then). */
const CLOSED_RAMP_S = 2;
/**
 * Seconds the server is watched idle, before the classes and again after them, to tell its own
 * background CPU from the answers'. The lower of the two is taken: right after a load, V8's own
 * threads (compilation, collection) still run for seconds, and a single reading then made the
 * net figures go below zero.
 */
const IDLE_S = 4;
/** Seconds left to pass after the warm-up before the first idle reading. */
const SETTLE_S = 3;

// ---------------------------------------------------------------- corpus and queries

async function corpus(opts: Options, names: number): Promise<{ zip: string; names: string[]; leis: string[] }> {
  if (opts.corpus === "registry-shaped") {
    const data = await ensureRegistryZip(OUT, opts.records, opts.seed, log);
    return { zip: data.zip, names: data.queries.loadNames.map((n) => n.name), leis: [...data.queries.loadLeis] };
  }
  const { zip } = await ensureGoldenZip(OUT, opts.records, opts.seed, log);
  const factory = new RecordFactory(opts.seed, opts.records);
  const leiCount = Math.min(opts.records, CLOSED_LEIS + names);
  const leis = Array.from({ length: leiCount }, (_, k) => factory.identityAt(Math.floor((k * opts.records) / leiCount)).lei);
  return { zip, names: buildQuerySet(factory, names, opts.seed).map((q) => q.name), leis };
}

/** Disjoint slices of the names and LEIs: the warm-up's, each class's, and the closed loops' with the rest. */
/** Searches the warm-up may send. */
const warmupCount = (opts: Options): number => Math.ceil(WARMUP_PER_S * opts.warmupS) + 50;
/** Requests a class's open loop may send: what falls due in its window, and some over. */
const perClassCount = (opts: Options): number => Math.ceil(opts.rate * opts.durationS * 1.1) + 50;

function buildPaths(opts: Options, names: readonly string[], leis: readonly string[]): Paths {
  const perClass = perClassCount(opts);

  const seen = new Set<string>();
  let next = 0;
  const take = (count: number, make: NameQuery, rng: Rng): string[] => {
    const out: string[] = [];
    while (out.length < count && next < names.length) {
      const q = make(rng, names[next++]!);
      const p = q === null ? null : `/v1/entities?q=${enc(q)}`;
      if (p !== null && !seen.has(p)) {
        seen.add(p);
        out.push(p);
      }
    }
    return out;
  };
  const rng = Rng.at(opts.seed, 43, 0);
  const mixed: NameQuery = (r, name) => SEARCHES[r.int(SEARCHES.length)]![1](r, name);
  const warmup = take(warmupCount(opts), mixed, rng);
  const classes = { lookup: leis.slice(0, perClass).map((l) => `/v1/entities/${l}`) } as Record<CoresClass, string[]>;
  for (const [cls, make] of SEARCHES) classes[cls] = take(perClass, make, rng);
  const closed = { lookup: leis.slice(perClass).map((l) => `/v1/entities/${l}`) } as Record<CoresClass, string[]>;
  const closedPerClass = Math.floor((names.length - next) / SEARCHES.length);
  for (const [cls, make] of SEARCHES) closed[cls] = take(closedPerClass, make, rng);
  // the broad classes scan every name again (skipping what any list holds): their queries repeat a
  // lot, and taking them from the shared run of names would use it up
  for (const [cls, make] of BROAD) {
    next = 0;
    classes[cls] = take(perClass, make, rng);
    closed[cls] = take(closedPerClass, make, rng);
  }
  for (const cls of CLASSES)
    if (classes[cls].length < perClass)
      log(`only ${classes[cls].length} distinct ${CLASS_NAMES[cls]} for ${perClass} due: a window ends early`);
  return { warmup, classes, closed };
}

// ---------------------------------------------------------------- servers and cores

/** Whether a build knows `--workers` (shard threads apart from slices), else only `--shards`. */
function knowsWorkers(dir: string): boolean {
  try {
    return /^\s*["']?workers["']?\s*:\s*\{/m.test(readFileSync(path.join(dir, "dist", "src", "config", "cli.js"), "utf8"));
  } catch {
    return false;
  }
}

/** The cores this process may run on (Cpus_allowed_list), in order. */
function allowedCores(): number[] {
  const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync("/proc/self/status", "utf8"));
  const cores: number[] = [];
  for (const part of (m?.[1] ?? `0-${os.availableParallelism() - 1}`).split(",")) {
    const [lo, hi] = part.split("-").map(Number);
    for (let c = lo!; c <= (hi ?? lo!); c++) cores.push(c);
  }
  return cores;
}

/** Pins every thread of this process, so the load generator it forks next runs there. */
function pinSelf(cores: readonly number[]): void {
  runSync("taskset", ["-a", "-p", "-c", cores.join(","), String(process.pid)]);
}

/** What every measurement of a run shares. */
interface Bench {
  readonly opts: Options;
  readonly zip: string;
  readonly paths: Paths;
  /** The cores this process may use: a pinned server takes the first ones, the load generator those after. */
  readonly allowed: readonly number[];
}

async function start(
  bench: Bench,
  build: BuildRuns,
  dataDir: string,
  extra: readonly string[],
  cores: readonly number[] | null,
): Promise<ServerProcess> {
  const main = path.join(build.dir, "dist", "src", "main.js");
  const port = await freePort();
  const args = [
    main,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--source",
    bench.zip,
    "--data-dir",
    dataDir,
    "--rate-limit",
    "0",
    ...extra,
  ];
  const command = cores === null ? [process.execPath, ...args] : ["taskset", "-c", cores.join(","), process.execPath, ...args];
  log(`${build.label}: ${command.join(" ")}`);
  return startServer({
    command: command[0]!,
    args: command.slice(1),
    readyTimeoutMs: 15 * 60_000,
    logFile: path.join(OUT, `cores-server-${bench.opts.records}-${build.label}.log`),
    cwd: build.dir,
  });
}

// ---------------------------------------------------------------- measurements

const failedOf = (l: LoadResult): number => l.non2xx + l.errors;

/** One class open loop at the fixed rate: the server's CPU over the load divided by its answers. */
async function openLoop(
  opts: Options,
  server: ServerProcess,
  paths: readonly string[],
): Promise<{ load: LoadResult; cpuUs: number; seconds: number }> {
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  const load = await runLoad({
    host: "127.0.0.1",
    port: server.port,
    paths,
    connections: opts.connections,
    durationS: opts.durationS,
    warmupS: 0,
    ratePerS: opts.rate,
    total: paths.length,
  });
  const cpuUs = ((cpuSeconds(server.pid) - cpu0) * 1e6) / Math.max(1, load.requests);
  if (server.child.exitCode !== null) throw new Error(`server exited under load:\n${server.tail()}`);
  return { load, cpuUs, seconds: (performance.now() - t0) / 1000 };
}

/** Every server's first load: the warm-up searches, all classes mixed, closed loop for --warmup s. */
async function warmUp(bench: Bench, server: ServerProcess): Promise<void> {
  await runLoad({
    host: "127.0.0.1",
    port: server.port,
    paths: bench.paths.warmup,
    connections: bench.opts.connections,
    durationS: bench.opts.warmupS,
    warmupS: 0,
    total: bench.paths.warmup.length,
  });
}

/** The server's CPU over IDLE_S with nothing asked of it, in cores. */
async function idleCoresOf(server: ServerProcess): Promise<number> {
  const cpu0 = cpuSeconds(server.pid);
  await delay(IDLE_S * 1000);
  return (cpuSeconds(server.pid) - cpu0) / IDLE_S;
}

async function measureWorkers(bench: Bench, build: BuildRuns, dataDir: string, workers: number): Promise<WorkersRun> {
  const { opts, paths } = bench;
  const server = await start(bench, build, dataDir, [build.flag, String(workers)], null);
  try {
    const rssReadyBytes = readMemory(server.pid)?.rssBytes ?? 0;
    await warmUp(bench, server);
    await delay(SETTLE_S * 1000);
    const idleBefore = await idleCoresOf(server);
    const measured: { run: Omit<ClassRun, "netCpuUsPerAnswer">; seconds: number }[] = [];
    for (const cls of CLASSES) {
      const { load, cpuUs, seconds } = await openLoop(opts, server, paths.classes[cls]);
      const run = {
        cls,
        answers: load.requests,
        cpuUsPerAnswer: cpuUs,
        p50Ms: load.latency.p50Ms,
        p99Ms: load.latency.p99Ms,
        unsent: load.backlog,
        failed: failedOf(load),
      };
      log(
        `  ${workers} workers, ${CLASS_NAMES[cls]}: ${cpuUs.toFixed(0)} µs CPU/answer over ${run.answers}, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, unsent ${run.unsent}, failed ${run.failed}`,
      );
      measured.push({ run, seconds });
    }
    const idleCores = Math.min(idleBefore, await idleCoresOf(server));
    log(
      `  ${workers} workers, idle: ${(idleBefore * 1000).toFixed(1)} ms CPU a second before the classes, ${(idleCores * 1000).toFixed(1)} the lower`,
    );
    const classes = measured.map(({ run, seconds }): ClassRun => ({
      ...run,
      netCpuUsPerAnswer: run.cpuUsPerAnswer - (idleCores * seconds * 1e6) / Math.max(1, run.answers),
    }));
    const rssAfterBytes = readMemory(server.pid)?.rssBytes ?? 0;
    return { workers, idleCores, readySeconds: server.readySeconds, rssReadyBytes, rssAfterBytes, classes };
  } finally {
    await server.stop();
  }
}

/** A process's CPU time sampled every 100 ms, so its use can be read over the load generator's measured window (the last seconds) alone. */
class CpuTrace {
  private readonly samples: Array<{ at: number; cpu: number }> = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 100);
  }

  private sample(): void {
    this.samples.push({ at: performance.now(), cpu: cpuSeconds(this.pid) });
  }

  /** Cores used over the last `seconds` (stops the sampling). */
  coresOverLast(seconds: number): number {
    clearInterval(this.timer);
    this.sample();
    const end = this.samples[this.samples.length - 1]!;
    const from = end.at - seconds * 1000;
    const start = this.samples.find((x) => x.at >= from) ?? this.samples[0]!;
    return end.at === start.at ? 0 : (end.cpu - start.cpu) / ((end.at - start.at) / 1000);
  }
}

/** The server's CPU per answer at saturation: its cores over the window divided by the answers a second. */
const cpuPerAnswer = (run: PinRun): number => (run.rps > 0 ? (run.serverCores / run.rps) * 1e6 : 0);

async function measurePinned(bench: Bench, build: BuildRuns, dataDir: string, cores: readonly number[]): Promise<PinRun[]> {
  const { opts, paths } = bench;
  const server = await start(bench, build, dataDir, [], cores);
  const runs: PinRun[] = [];
  try {
    await warmUp(bench, server);
    for (const kind of PIN_LOADS) {
      const pipelined = kind === "pipelined-lookups";
      const list = paths.closed[pipelined ? "lookup" : kind];
      if (list.length === 0) {
        // a corpus with fewer distinct queries of a class than the closed loops take: none left for it
        log(`  pinned to ${cores.length} core(s), ${pinLoadName(kind, opts.pipeline)}: no distinct queries of this class`);
        runs.push({ cores: cores.length, load: kind, rps: 0, p99Ms: 0, failed: 0, serverCores: 0, clientCores: 0, windowS: 0 });
        continue;
      }
      const trace = new CpuTrace(server.pid);
      const load = await runLoad({
        host: "127.0.0.1",
        port: server.port,
        paths: list,
        connections: opts.connections,
        durationS: opts.durationS,
        warmupS: CLOSED_RAMP_S,
        // Searches stop when their distinct queries run out (the window then ends early); lookups
        // may come round again: the answer cache keeps search answers only.
        ...(kind === "lookup" || pipelined ? {} : { total: list.length }),
        ...(pipelined ? { pipeline: opts.pipeline } : {}),
      });
      const serverCores = trace.coresOverLast(load.durationS);
      const run: PinRun = {
        cores: cores.length,
        load: kind,
        rps: load.rps,
        p99Ms: load.latency.p99Ms,
        failed: failedOf(load),
        serverCores,
        clientCores: load.clientCpuPct / 100,
        windowS: load.durationS,
      };
      const name = pinLoadName(kind, opts.pipeline);
      if (run.rps === 0) log(`  pinned to ${cores.length} core(s), ${name}: no distinct queries left after the warm-up`);
      else
        log(
          `  pinned to ${cores.length} core(s), ${name}: ${Math.round(run.rps)}/s over ${run.windowS.toFixed(1)} s (${cpuPerAnswer(run).toFixed(0)} µs CPU/answer), p99 ${run.p99Ms} ms, failed ${run.failed}, server ${serverCores.toFixed(2)} cores, client ${run.clientCores.toFixed(2)}`,
        );
      runs.push(run);
    }
    return runs;
  } finally {
    await server.stop();
  }
}

async function measureRound(bench: Bench, build: BuildRuns, dataDir: string, round: number): Promise<Round> {
  const { opts, allowed } = bench;
  const startedAt = new Date().toISOString();
  const loadAverage = os.loadavg();
  const workers: WorkersRun[] = [];
  for (const n of opts.workers) workers.push(await measureWorkers(bench, build, dataDir, n));
  const pins: PinRun[] = [];
  const maxPin = Math.max(...opts.pin);
  const clientCores = allowed.slice(maxPin);
  if (clientCores.length > 0) pinSelf(clientCores);
  try {
    for (const k of opts.pin) pins.push(...(await measurePinned(bench, build, dataDir, allowed.slice(0, k))));
  } finally {
    if (clientCores.length > 0) pinSelf(allowed);
  }
  return { round, startedAt, loadAverage, workers, pins };
}

// ---------------------------------------------------------------- report

const fmt = (v: number | null, digits = 0): string =>
  v === null ? "-" : v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (a: number | null, b: number | null): string => (a === null || b === null || b === 0 ? "-" : `${(a / b).toFixed(2)}×`);
const medianOf = (xs: ReadonlyArray<number | undefined>): number | null => {
  const vs = xs.filter((x): x is number => x !== undefined);
  return vs.length === 0 ? null : median(vs);
};
const mib = (b: number): number => b / 2 ** 20;

/** One table: a row per key, for each build its figures, then each later build's first figure beside the first build's. */
function sideBySide<K>(
  builds: readonly BuildRuns[],
  head: readonly string[],
  columns: readonly string[],
  keys: readonly K[],
  keyCells: (key: K) => string[],
  figures: (b: BuildRuns, key: K) => string[],
  compared: (b: BuildRuns, key: K) => number | null,
): string {
  const [first, ...others] = builds;
  const rows = [
    [
      ...head,
      ...builds.flatMap((b) => columns.map((c, i) => (i === 0 ? `${b.label} ${c}` : c))),
      ...others.map((b) => `${b.label}÷${first!.label}`),
    ],
  ];
  for (const key of keys)
    rows.push([
      ...keyCells(key),
      ...builds.flatMap((b) => figures(b, key)),
      ...others.map((b) => ratio(compared(b, key), compared(first!, key))),
    ]);
  return table(rows);
}

function report(opts: Options, builds: readonly BuildRuns[]): string {
  const w1 = opts.workers[0]!;
  const c1 = opts.pin[0]!;
  const byWorkers = (b: BuildRuns, n: number): WorkersRun[] => b.rounds.flatMap((r) => r.workers.filter((w) => w.workers === n));
  const classFig = (b: BuildRuns, n: number, cls: CoresClass, pick: (c: ClassRun) => number): number | null =>
    medianOf(
      byWorkers(b, n)
        .map((w) => w.classes.find((c) => c.cls === cls))
        .map((c) => (c === undefined ? undefined : pick(c))),
    );
  const gross = (b: BuildRuns, [cls, n]: [CoresClass, number]): number | null => classFig(b, n, cls, (c) => c.cpuUsPerAnswer);
  // older result files have no idle figure: their gross one stands in
  const cpu = (b: BuildRuns, [cls, n]: [CoresClass, number]): number | null =>
    classFig(b, n, cls, (c) => c.netCpuUsPerAnswer ?? c.cpuUsPerAnswer);
  const cpuTable = sideBySide(
    builds,
    ["class", "workers"],
    ["µs/answer", "net of idle", `÷${w1}w`, "p50 ms", "p99 ms", "unsent", "failed"],
    CLASSES.flatMap((cls) => opts.workers.map((n): [CoresClass, number] => [cls, n])),
    ([cls, n]) => [CLASS_NAMES[cls], String(n)],
    (b, [cls, n]) => [
      fmt(gross(b, [cls, n])),
      fmt(cpu(b, [cls, n])),
      ratio(cpu(b, [cls, n]), cpu(b, [cls, w1])),
      fmt(
        classFig(b, n, cls, (c) => c.p50Ms),
        2,
      ),
      fmt(
        classFig(b, n, cls, (c) => c.p99Ms),
        1,
      ),
      fmt(classFig(b, n, cls, (c) => c.unsent)),
      fmt(classFig(b, n, cls, (c) => c.failed)),
    ],
    cpu,
  );

  type PinKey = [PinRun["load"], number];
  // a window that answered nothing had no distinct queries left after its warm-up: no figure ("-"), not a zero
  const pinFig = (b: BuildRuns, [load, k]: PinKey, pick: (p: PinRun) => number): number | null =>
    medianOf(b.rounds.flatMap((r) => r.pins.filter((p) => p.cores === k && p.load === load && p.rps > 0).map(pick)));
  const rps = (b: BuildRuns, key: PinKey): number | null => pinFig(b, key, (p) => p.rps);
  const pinTable = sideBySide(
    builds,
    ["load", "cores"],
    ["answers/s", `÷${c1} core${c1 === 1 ? "" : "s"}`, "µs CPU/answer", "p99 ms", "window s", "server cores", "client cores"],
    PIN_LOADS.flatMap((load) => opts.pin.map((k): PinKey => [load, k])),
    ([load, k]) => [(PIN_LOADS as readonly string[]).includes(load) ? pinLoadName(load as PinLoad, opts.pipeline) : load, String(k)],
    (b, key) => [
      fmt(rps(b, key)),
      ratio(rps(b, key), rps(b, [key[0], c1])),
      fmt(pinFig(b, key, cpuPerAnswer)),
      fmt(
        pinFig(b, key, (p) => p.p99Ms),
        1,
      ),
      fmt(
        pinFig(b, key, (p) => p.windowS),
        1,
      ),
      fmt(
        pinFig(b, key, (p) => p.serverCores),
        2,
      ),
      fmt(
        pinFig(b, key, (p) => p.clientCores),
        2,
      ),
    ],
    rps,
  );

  const rss = (b: BuildRuns, n: number, pick: (w: WorkersRun) => number): number | null => medianOf(byWorkers(b, n).map(pick));
  const after = (b: BuildRuns, n: number): number | null => rss(b, n, (w) => mib(w.rssAfterBytes));
  const rssTable = sideBySide(
    builds,
    ["workers"],
    ["RSS ready MiB", "after loads MiB", `÷${w1}w`],
    opts.workers,
    (n) => [String(n)],
    (b, n) => [fmt(rss(b, n, (w) => mib(w.rssReadyBytes))), fmt(after(b, n)), ratio(after(b, n), after(b, w1))],
    after,
  );

  const allowed = allowedCores();
  const maxPin = Math.max(...opts.pin);
  const client =
    allowed.length > maxPin
      ? `the load generator on core(s) ${allowed.slice(maxPin).join(",")}, apart from the server's`
      : `the load generator shares the server's cores: this box has ${allowed.length}, and a core of its own needs ${maxPin + 1}`;
  return [
    `Server CPU (utime + stime, all threads) per answer, open loop at ${opts.rate}/s for ${opts.durationS} s per class, distinct queries; net of idle: less the idle server's CPU over the same window (the lower of ${IDLE_S} s before the classes, ${SETTLE_S} s after the warm-up, and ${IDLE_S} s after them); medians of ${opts.rounds} round(s); worker flag: ${builds.map((b) => `${b.label} ${b.flag}`).join(", ")}`,
    "",
    cpuTable,
    "",
    `Closed loop at saturation, each class apart, ${opts.connections} connections, server pinned with taskset (default configuration); ${client}; µs CPU/answer: the server's cores over the window ÷ answers a second; a window shorter than ${opts.durationS} s ran out of distinct queries, and "-" had none left after its warm-up`,
    "",
    pinTable,
    "",
    "RSS of the server process (/proc/PID/status VmRSS), at ready and after the open-loop loads",
    "",
    rssTable,
  ].join("\n");
}

// ---------------------------------------------------------------- main

async function runCores(opts: Options): Promise<void> {
  const data = await corpus(
    opts,
    warmupCount(opts) + (perClassCount(opts) * 2 + CLOSED_NAMES_PER_CORE * Math.max(...opts.pin)) * SEARCHES.length,
  );
  const allowed = allowedCores();
  const bench: Bench = { opts, zip: data.zip, paths: buildPaths(opts, data.names, data.leis), allowed };
  if (Math.max(...opts.pin) > allowed.length)
    throw new Error(`--pin ${opts.pin.join(",")}: this process may use ${allowed.length} core(s)`);
  const builds: BuildRuns[] = opts.builds.map((b) => ({ ...b, flag: knowsWorkers(b.dir) ? "--workers" : "--shards", rounds: [] }));
  const dataDirs = builds.map(() => mkdtempSync(path.join(os.tmpdir(), "leidex-cores-data-")));
  const removers = dataDirs.map(removeDirLater);
  const heading = `${opts.records.toLocaleString("en-US")} records, ${CORPUS_NOTE[opts.corpus]}, seed ${opts.seed}`;
  log(heading);
  try {
    for (let round = 1; round <= opts.rounds; round++)
      for (const [i, build] of builds.entries()) {
        log(`round ${round}: ${build.label} (${build.flag})`);
        build.rounds.push(await measureRound(bench, build, dataDirs[i]!, round));
        const file = path.join(OUT, `cores-${opts.records}-${build.label.replace(/[^\w-]/g, "")}.json`);
        writeFileSync(
          file,
          JSON.stringify({ options: { ...opts, builds: undefined }, corpus: CORPUS_NOTE[opts.corpus], build }, null, 2) + "\n",
        );
      }
  } finally {
    for (const remove of removers) remove();
  }
  process.stdout.write(`\n${heading}\n\n${report(opts, builds)}\n`);
}

const list = (text: string): number[] => text.split(",").map((x) => Number(x.replace(/_/g, "")));

async function main(): Promise<void> {
  startWatchdog("bench:cores", 3 * 3600_000);
  const args = new Args(process.argv.slice(2));
  const opts: Options = {
    records: args.int("records", 1_000_000),
    seed: args.int("seed", 1),
    corpus: corpusOf(args.string("corpus")),
    builds: buildList(args, REPO),
    rounds: args.int("rounds", 1),
    workers: list(args.string("workers") ?? "1,2,4,8"),
    rate: args.number("rate", 300),
    durationS: args.number("duration", 10),
    warmupS: args.number("warmup", 5),
    pin: list(args.string("pin") ?? "1,2"),
    connections: args.int("connections", 32),
    pipeline: args.int("pipeline", 16),
  };
  const refusal = pipelineRefusal(opts.pipeline, null);
  if (refusal !== null) throw new Error(`--pipeline: ${refusal}`);
  for (const n of [...opts.workers, ...opts.pin])
    if (!Number.isInteger(n) || n < 1) throw new Error(`--workers and --pin take counts of 1 or more, got ${n}`);
  await runCores(opts);
}

if (isMain(import.meta.url)) runCli("bench:cores", main);
