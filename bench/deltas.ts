// The delta bench: what applying one GLEIF Level 1 delta costs, beside a full reload, in one run.
//
//   npm run bench -- --deltas [--records N] [--seed S] [--delta-records D] [--level2 all|rr|none]
//                             [--moved M] [--rate R] [--idle S] [--builds label=DIR,label=DIR [--rounds R]]
//
// 1. The synthetic golden copy of N records (generate.ts, reused from bench/out/), and a delta of
//    D of its records (every N/D-th, each renamed and updated), zipped as GLEIF names a delta.
//    The synthetic Level 2 files of the corpus (level2-generate.ts): with --level2 all (the
//    default) rr, repex and the ISIN and BIC mapping files, as GLEIF serves them; rr alone; or
//    none. The rr delta deletes the direct relationships of M children (--moved, default 10,000)
//    that the Level 1 delta does not hold, spread over the file: records whose parents change
//    though their Level 1 record does not; the repex delta gives each of them an exception.
// 2. A GLEIF imitation on 127.0.0.1: the golden copy API's lei2, rr and repex `latest`, the
//    mapping API's, and the files, served from disk; a part not served answers 404 (missing).
// 3. The server (this checkout's dist/src/main.js, or with --builds each build's in turn, round
//    by round) loads publication 1 from the full file. Then, each the same way: publication 2,
//    8 hours on, with its IntraDay delta; publication 3, with no delta, so a full load. Each
//    starts with SIGHUP and ends when /v1/stats shows it live. Meanwhile RSS is sampled every
//    200 ms and name searches run open loop at --rate, distinct and never repeated; the same
//    searches ran on the idle server first (the baseline). RSS is read again 30 s after, the
//    server idle.
// Prints time to live, bytes downloaded, RSS (before, peak, 30 s after), the searches' latency
// and outcomes, and the main thread's longest event-loop stall during each load (/metrics), the
// delta beside the full load; writes bench/out/deltas-<N>.json (with --builds,
// deltas-<N>-<label>-r<R>.json for each run).

import { createReadStream, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import { Args, buildList, type Build } from "./args.js";
import { parseCsvLine, readHeader } from "./csv.js";
import { ensureLevel2, REPEX_HEADER } from "./level2-generate.js";
import { openLocal } from "../src/golden-copy/source.js";
import { ensureGoldenZip } from "./generate.js";
import { GoldenRowWriter } from "./golden-row.js";
import type { LatencySummary } from "./histogram.js";
import { runLoad, type LoadResult } from "./loadgen.js";
import { freePort, readMemory, removeDirLater, RssSampler, startServer, type ServerProcess } from "./proc.js";
import { Rng } from "./prng.js";
import { RecordFactory, type EntityRecord } from "./records.js";
import { table } from "./table.js";
import { OUT, REPO } from "./paths.js";
import { writeSingleEntryZip } from "./zip.js";

export interface DeltaOptions {
  readonly records: number;
  readonly seed: number;
  readonly deltaRecords: number;
  /** the Level 2 parts served: all four, rr alone, or none */
  readonly level2: "all" | "rr" | "none";
  /** children whose direct relationship the rr delta deletes */
  readonly moved: number;
  readonly rate: number;
  readonly idleS: number;
  /** the builds measured, each in turn in every round; this checkout alone by default */
  readonly builds: readonly Build[];
  readonly rounds: number;
}

export function deltaOptions(args: Args): DeltaOptions {
  return {
    records: args.int("records", 3_430_000),
    seed: args.int("seed", 1),
    deltaRecords: args.int("delta-records", 60_000),
    level2: level2Choice(args.string("level2") ?? "all"),
    moved: args.int("moved", 10_000),
    rate: args.int("rate", 100),
    idleS: args.int("idle", 20),
    builds: buildList(args, REPO),
    rounds: args.int("rounds", 1),
  };
}

const log = (line: string): void => {
  process.stderr.write(`[deltas ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

/** A file the imitation serves, and the rows GLEIF would announce for it. */
interface Served {
  file: string;
  records: number;
}

function level2Choice(v: string): DeltaOptions["level2"] {
  if (v === "all" || v === "rr" || v === "none") return v;
  throw new Error(`--level2 ${v}: all, rr or none`);
}

/** A golden copy's full file and (optionally) IntraDay delta. */
interface GoldenFiles {
  full: Served;
  intraDay: Served | null;
}

/** A publication of the imitation: its date, and the files of each part served (a part absent: 404). */
/** The Level 2 parts of a publication. */
type Level2Served = Pick<Publish, "rr" | "repex" | "isin" | "bic">;

interface Publish extends GoldenFiles {
  publishDate: string;
  rr?: GoldenFiles;
  repex?: GoldenFiles;
  isin?: Served;
  bic?: Served;
}

/** The golden copy API's and the mapping API's `latest` and their files, from disk; every other route answers 404. */
class GleifFiles {
  current: Publish | null = null;
  readonly bytesSent = new Map<string, number>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<GleifFiles> {
    const port = await freePort();
    let self: GleifFiles | null = null;
    const server = createServer((req, res) => self!.handle(req.url ?? "/", res));
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    self = new GleifFiles(server, port);
    return self;
  }

  get api(): string {
    return `http://127.0.0.1:${this.port}/api/v2`;
  }

  private describe(file: Served): Record<string, unknown> {
    return {
      url: `http://127.0.0.1:${this.port}/files/${path.basename(file.file)}`,
      size: statSync(file.file).size,
      record_count: file.records,
    };
  }

  private handle(url: string, res: ServerResponse): void {
    const p = this.current;
    const mapping = /^\/api\/v2\/mapping\/(isin|bic)-lei\/latest$/.exec(url)?.[1] as "isin" | "bic" | undefined;
    const mapped = mapping === undefined ? undefined : p?.[mapping];
    if (mapped !== undefined) {
      const fileName = path.basename(mapped.file);
      const body = { data: { attributes: { downloadLink: `http://127.0.0.1:${this.port}/files/${fileName}`, fileName } } };
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    const type = /^\/api\/v2\/golden-copies\/publishes\/(lei2|rr|repex)\/latest$/.exec(url)?.[1];
    const files = p === null ? undefined : type === "lei2" ? p : type === "rr" ? p.rr : type === "repex" ? p.repex : undefined;
    if (p !== null && files !== undefined) {
      const body = {
        data: {
          publish_date: p.publishDate,
          full_file: { csv: this.describe(files.full) },
          delta_files: files.intraDay === null ? {} : { IntraDay: { csv: this.describe(files.intraDay) } },
        },
      };
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    const file = /^\/files\/([^/]+)$/.exec(url);
    const all = p === null ? [] : [p, p.rr, p.repex].flatMap((g) => [g?.full, g?.intraDay]).concat([p.isin, p.bic]);
    const served = file ? all.find((f) => f !== null && f !== undefined && path.basename(f.file) === file[1])?.file : undefined;
    if (served === undefined) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    const size = statSync(served).size;
    this.bytesSent.set(path.basename(served), (this.bytesSent.get(path.basename(served)) ?? 0) + size);
    res.writeHead(200, { "Content-Type": "application/zip", "Content-Length": String(size) });
    createReadStream(served).pipe(res);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** D records of the corpus, every N/D-th, each renamed and with a later update date: a delta's rows; their LEIs. */
async function writeDelta(opts: DeltaOptions, file: string): Promise<Set<string>> {
  const leis = new Set<string>();
  const factory = new RecordFactory(opts.seed, opts.records);
  const { line, names } = await readHeader();
  const writer = new GoldenRowWriter(names);
  const step = Math.max(1, Math.floor(opts.records / opts.deltaRecords));
  const count = Math.min(opts.deltaRecords, Math.floor(opts.records / step));
  async function* rows(): AsyncGenerator<Buffer> {
    yield Buffer.from(`${line}\n`);
    let buf = Buffer.allocUnsafe(1 << 20);
    let pos = 0;
    for (let k = 0; k < count; k++) {
      const rec: EntityRecord = factory.recordAt(k * step);
      leis.add(rec.lei);
      const changed = { ...rec, legalName: `${rec.legalName} Neu`, lastUpdateDate: "2026-09-30T15:00:00Z" };
      let end = writer.renderInto(changed, buf, pos);
      if (end < 0) {
        yield buf.subarray(0, pos);
        buf = Buffer.allocUnsafe(1 << 20);
        pos = 0;
        end = writer.renderInto(changed, buf, pos);
      }
      pos = end;
    }
    if (pos > 0) yield buf.subarray(0, pos);
  }
  await writeSingleEntryZip(rows(), file, {
    entryName: path.basename(file, ".zip"),
    mtime: new Date(Date.UTC(2026, 8, 30, 16)),
    zip64Local: false,
  });
  return leis;
}

/**
 * The rr delta: the IS_DIRECTLY_CONSOLIDATED_BY rows of `moved` children none of `held` (the
 * Level 1 delta's LEIs), every k-th such row of the full file, each with DeletedAt; the children.
 */
async function writeRrDelta(fullRr: string, moved: number, held: ReadonlySet<string>, file: string): Promise<string[]> {
  const lines: string[] = [];
  let header = "";
  let candidates = 0;
  const opened = await openLocal(fullRr);
  const direct: string[] = [];
  let rest = "";
  try {
    for await (const chunk of opened.stream) {
      const text = rest + (chunk as Buffer).toString("utf8");
      const parts = text.split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        if (header === "") {
          header = line;
          continue;
        }
        if (!line.includes('"IS_DIRECTLY_CONSOLIDATED_BY"')) continue;
        if (held.has(parseCsvLine(line)[0])) continue;
        candidates++;
        direct.push(line);
      }
    }
  } finally {
    opened.close();
  }
  const step = Math.max(1, Math.floor(candidates / moved));
  const children: string[] = [];
  for (let i = 0; i < direct.length && lines.length < moved; i += step) {
    lines.push(`${direct[i]},"2026-09-30T15:00:00Z"`);
    children.push(parseCsvLine(direct[i])[0]);
  }
  await writeCsvZip(`${header},"DeletedAt"`, lines, file);
  return children;
}

/** The repex delta: a direct-parent exception (NON_CONSOLIDATING) for each of `leis`. */
async function writeRepexDelta(leis: readonly string[], file: string): Promise<void> {
  const blanks = Array.from({ length: REPEX_HEADER.length - 3 }, () => '""').join(",");
  const lines = leis.map((lei) => `"${lei}","DIRECT_ACCOUNTING_CONSOLIDATION_PARENT","NON_CONSOLIDATING",${blanks}`);
  await writeCsvZip(REPEX_HEADER.map((h) => `"${h}"`).join(","), lines, file);
}

async function writeCsvZip(header: string, lines: readonly string[], file: string): Promise<void> {
  async function* rows(): AsyncGenerator<Buffer> {
    yield Buffer.from(`${header}\n${lines.join("\n")}\n`);
  }
  await writeSingleEntryZip(rows(), file, {
    entryName: path.basename(file, ".zip"),
    mtime: new Date(Date.UTC(2026, 8, 30, 16)),
    zip64Local: false,
  });
}

/** Seconds the server idles after each load before its RSS is read again. */
const SETTLE_S = 30;

interface Phase {
  readonly name: string;
  readonly secondsToLive: number;
  readonly bytesDownloaded: number;
  readonly rssBeforeBytes: number;
  readonly rssPeakBytes: number;
  /** RSS SETTLE_S after it went live, the server idle meanwhile: what the replaced collection left */
  readonly rssSettledBytes: number;
  readonly search: LatencySummary;
  readonly searchUnsent: number;
  readonly searchFailed: number;
  /** the searches' answers by status, and the requests that got none, by kind */
  readonly searchOutcomes: Readonly<Record<string, number>>;
  readonly statsDelta: unknown;
  /** the main thread's longest event-loop delay during the load: it answers HTTP too, and runs the load */
  readonly mainLagMaxMs: number;
}

async function published(server: ServerProcess): Promise<{ published: string | null; delta: unknown }> {
  const res = await fetch(`http://${server.host}:${server.port}/v1/stats`);
  return (await res.json()) as { published: string | null; delta: unknown };
}

/**
 * The main thread's longest event-loop stall since the last scrape, in ms: prom-client's
 * `nodejs_eventloop_lag_max_seconds` less `nodejs_eventloop_lag_min_seconds` (their histogram
 * restarts at each scrape). Each sample is one period of the sampling timer, that period
 * included, and the least sample is that period (10 ms; 100 ms in builds before 2026-12-02).
 */
async function mainLagMaxMs(server: ServerProcess): Promise<number> {
  const text = await (await fetch(`http://${server.host}:${server.port}/metrics`)).text();
  const gauge = (name: string): number => {
    const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
    if (!match) throw new Error(`/metrics has no ${name}`);
    return Number(match[1]);
  };
  return (gauge("nodejs_eventloop_lag_max_seconds") - gauge("nodejs_eventloop_lag_min_seconds")) * 1000;
}

/** SIGHUP, then until /v1/stats shows `publication` live: the time, peak RSS, and the searches run meanwhile. */
async function measure(
  name: string,
  server: ServerProcess,
  gleif: GleifFiles,
  publication: string,
  paths: string[],
  rate: number,
): Promise<Phase> {
  const sentBefore = [...gleif.bytesSent.values()].reduce((a, b) => a + b, 0);
  const rssBeforeBytes = readMemory(server.pid)?.rssBytes ?? 0;
  const sampler = new RssSampler(server.pid);
  const stop = new AbortController();
  const load = runLoad({
    host: server.host,
    port: server.port,
    paths,
    connections: 8,
    durationS: 3600,
    warmupS: 0,
    ratePerS: rate,
    signal: stop.signal,
  });
  await mainLagMaxMs(server);
  const started = performance.now();
  server.child.kill("SIGHUP");
  let stats = await published(server);
  while (stats.published !== publication) {
    if (performance.now() - started > 3_600_000) throw new Error(`${name}: not live within an hour; last output:\n${server.tail()}`);
    await new Promise((r) => setTimeout(r, 200));
    stats = await published(server);
  }
  const secondsToLive = (performance.now() - started) / 1000;
  const lagMs = await mainLagMaxMs(server);
  stop.abort();
  const result: LoadResult = await load;
  const rssPeakBytes = sampler.stop();
  const bytesDownloaded = [...gleif.bytesSent.values()].reduce((a, b) => a + b, 0) - sentBefore;
  await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  const rssSettledBytes = readMemory(server.pid)?.rssBytes ?? 0;
  log(
    `${name}: live in ${secondsToLive.toFixed(1)} s, ${(bytesDownloaded / 1e6).toFixed(1)} MB downloaded, RSS peak ${(rssPeakBytes / 2 ** 20).toFixed(0)} MiB`,
  );
  return {
    name,
    secondsToLive,
    bytesDownloaded,
    rssBeforeBytes,
    rssPeakBytes,
    rssSettledBytes,
    search: result.latency,
    searchUnsent: result.backlog,
    searchFailed: result.errors + result.non2xx,
    searchOutcomes: { ...result.statusCounts, ...result.errorKinds },
    statsDelta: stats.delta,
    mainLagMaxMs: lagMs,
  };
}

export async function runDeltaBench(opts: DeltaOptions): Promise<void> {
  const golden = await ensureGoldenZip(OUT, opts.records, opts.seed, log);
  const work = mkdtempSync(path.join(os.tmpdir(), "leidex-deltas-"));
  removeDirLater(work);
  const delta = path.join(work, "20260930-1600-gleif-goldencopy-lei2-intra-day.csv.zip");
  const held = await writeDelta(opts, delta);
  const deltaRecords = held.size;
  log(`delta of ${deltaRecords} records: ${(statSync(delta).size / 1e6).toFixed(1)} MB`);
  let level2: Level2Served = {};
  if (opts.level2 !== "none") {
    const files = await ensureLevel2(OUT, opts.records, opts.seed, log);
    const rrDelta = path.join(work, "20260930-1600-gleif-goldencopy-rr-intra-day.csv.zip");
    const moved = await writeRrDelta(files.paths.rr, opts.moved, held, rrDelta);
    log(`rr delta deleting the direct relationships of ${moved.length} children no Level 1 delta row holds`);
    level2 = { rr: { full: { file: files.paths.rr, records: files.stats.rr.rows }, intraDay: { file: rrDelta, records: moved.length } } };
    if (opts.level2 === "all") {
      const repexDelta = path.join(work, "20260930-1600-gleif-goldencopy-repex-intra-day.csv.zip");
      await writeRepexDelta(moved, repexDelta);
      level2.repex = {
        full: { file: files.paths.repex, records: files.stats.repex.rows },
        intraDay: { file: repexDelta, records: moved.length },
      };
      level2.isin = { file: files.paths.isin, records: files.stats.isin.rows };
      level2.bic = { file: files.paths.bic, records: files.stats.bic.rows };
    }
  }
  const gleif = await GleifFiles.start();
  try {
    const compared = opts.builds.length > 1 || opts.rounds > 1;
    for (let round = 1; round <= opts.rounds; round++) {
      for (const build of opts.builds) {
        const run = compared ? `${build.label}-r${round}` : null;
        if (run !== null) log(`round ${round}: ${build.label} (${build.dir})`);
        await runOnce(
          opts,
          build,
          run,
          gleif,
          { file: golden.zip, records: opts.records },
          { file: delta, records: deltaRecords },
          level2,
          work,
        );
      }
    }
  } finally {
    await gleif.close();
  }
}

/** One server of one build through the three publications; `run` names it when builds or rounds are compared. */
async function runOnce(
  opts: DeltaOptions,
  build: Build,
  run: string | null,
  gleif: GleifFiles,
  full: Served,
  delta: Served,
  level2: Level2Served,
  work: string,
): Promise<void> {
  const withoutDeltas: Level2Served = {
    ...level2,
    rr: level2.rr && { full: level2.rr.full, intraDay: null },
    repex: level2.repex && { full: level2.repex.full, intraDay: null },
  };
  // distinct name searches: each phase takes its own, none repeats; every run the same ones
  const factory = new RecordFactory(opts.seed, opts.records);
  const rng = Rng.at(opts.seed, 71, 0);
  const searches = (n: number): string[] =>
    Array.from({ length: n }, () => `/v1/entities?q=${encodeURIComponent(factory.recordAt(rng.int(opts.records)).legalName)}&limit=10`);

  gleif.current = { publishDate: "2026-09-30 08:00:00", full, intraDay: null, ...withoutDeltas };
  const port = await freePort();
  const suffix = run === null ? "" : `-${run}`;
  const server = await startServer({
    command: process.execPath,
    args: [
      path.join(build.dir, "dist", "src", "main.js"),
      ...["--host", "127.0.0.1", "--port", String(port), "--data-dir", path.join(work, `data${suffix}`), "--rate-limit", "0"],
      ...["--gleif-api", gleif.api, "--gleif-mapping-api", `${gleif.api}/mapping`, "--retry-seconds", "86400"],
    ],
    readyTimeoutMs: 3_600_000,
    logFile: path.join(OUT, `deltas-server-${opts.records}${suffix}.log`),
  });
  try {
    log(`publication 1 live after ${server.readySeconds.toFixed(1)} s (a first load)`);
    const idle = await runLoad({
      host: server.host,
      port: server.port,
      paths: searches(opts.rate * opts.idleS + 100),
      connections: 8,
      durationS: opts.idleS,
      warmupS: 0,
      ratePerS: opts.rate,
    });
    gleif.current = { publishDate: "2026-09-30 16:00:00", full, intraDay: delta, ...level2 };
    const applied = await measure("IntraDay delta", server, gleif, "2026-09-30T16:00:00Z", searches(opts.rate * 3600), opts.rate);
    gleif.current = { publishDate: "2026-10-01 00:00:00", full, intraDay: null, ...withoutDeltas };
    const reload = await measure("full reload", server, gleif, "2026-10-01T00:00:00Z", searches(opts.rate * 3600), opts.rate);
    report(opts, run, delta.records, idle, [applied, reload]);
  } finally {
    await server.stop();
  }
}

function report(opts: DeltaOptions, run: string | null, deltaRecords: number, idle: LoadResult, phases: Phase[]): void {
  const mib = (b: number): string => (b / 2 ** 20).toFixed(0);
  const ms = (x: number): string => x.toFixed(1);
  const [delta, full] = phases as [Phase, Phase];
  const rows: string[][] = [
    ["", "idle", delta.name, full.name, "delta ÷ full"],
    [
      "seconds until live",
      "",
      delta.secondsToLive.toFixed(1),
      full.secondsToLive.toFixed(1),
      (delta.secondsToLive / full.secondsToLive).toFixed(2),
    ],
    [
      "MB downloaded",
      "",
      (delta.bytesDownloaded / 1e6).toFixed(1),
      (full.bytesDownloaded / 1e6).toFixed(1),
      (delta.bytesDownloaded / full.bytesDownloaded).toFixed(3),
    ],
    ["RSS before, MiB", "", mib(delta.rssBeforeBytes), mib(full.rssBeforeBytes), ""],
    ["RSS peak, MiB", "", mib(delta.rssPeakBytes), mib(full.rssPeakBytes), (delta.rssPeakBytes / full.rssPeakBytes).toFixed(2)],
    [`RSS ${SETTLE_S} s after, MiB`, "", mib(delta.rssSettledBytes), mib(full.rssSettledBytes), ""],
    ["search p50 ms", ms(idle.latency.p50Ms), ms(delta.search.p50Ms), ms(full.search.p50Ms), ""],
    ["search p99 ms", ms(idle.latency.p99Ms), ms(delta.search.p99Ms), ms(full.search.p99Ms), ""],
    ["search max ms", ms(idle.latency.maxMs), ms(delta.search.maxMs), ms(full.search.maxMs), ""],
    ["main thread's longest stall, ms", "", ms(delta.mainLagMaxMs), ms(full.mainLagMaxMs), ""],
    ["searches answered", String(idle.latency.count), String(delta.search.count), String(full.search.count), ""],
    [
      "unsent, failed",
      `${idle.backlog}, ${idle.errors + idle.non2xx}`,
      `${delta.searchUnsent}, ${delta.searchFailed}`,
      `${full.searchUnsent}, ${full.searchFailed}`,
      "",
    ],
  ];
  const outcomes = (o: Readonly<Record<string, number>>): string =>
    Object.entries(o)
      .map(([k, n]) => `${k}: ${n}`)
      .join(", ");
  process.stdout.write(
    `\n${run === null ? "" : `${run}: `}GLEIF delta of ${deltaRecords.toLocaleString("en-US")} records on ${opts.records.toLocaleString("en-US")} (synthetic corpus), ` +
      (opts.level2 === "none"
        ? "no Level 2, "
        : `${opts.level2 === "all" ? "Level 2 (rr, repex, ISIN, BIC)" : "rr alone"}, its rr delta moving ${opts.moved.toLocaleString("en-US")} records more, `) +
      `exact-name searches open loop at ${opts.rate}/s during each:\n\n${table(rows)}\n` +
      `\nsearch outcomes: idle ${outcomes({ ...idle.statusCounts, ...idle.errorKinds })}; ` +
      `${delta.name} ${outcomes(delta.searchOutcomes)}; ${full.name} ${outcomes(full.searchOutcomes)}\n`,
  );
  const file = path.join(OUT, `deltas-${opts.records}${run === null ? "" : `-${run}`}.json`);
  writeFileSync(file, JSON.stringify({ opts, run, deltaRecords, idle, phases }, null, 2) + "\n");
}
