// The front under bulk and MCP floods (`npm run bench:front`, or `npm run bench -- --front`):
// /health sampled every 10 ms (open loop over 64 connections, so a stall counts for every sample
// that fell due during it, and a sample waits only for the server) with no load, then under each flood, per build, the builds alternating
// over the rounds; with each flood's own rate and latency, and the server's main-thread CPU per
// request of the flood (/proc/PID/task/PID/stat, the thread whose id is the process's).
//
//   npm run bench:front -- [--builds old=/work/main,new=.] [--rounds R] [--records N] [--seed S]
//                          [--idle-seconds S] [--mcp-init N] [--mcp-calls N] [--only name,name]

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Args, buildList, type Build } from "./args.js";
import { defaultSamplePath } from "./csv.js";
import { ensureGoldenZip } from "./generate.js";
import type { LatencySummary } from "./histogram.js";
import { runLoad, type LoadResult } from "./loadgen.js";
import { freePort, removeDirLater, startServer, type ServerProcess } from "./proc.js";
import { RecordFactory } from "./records.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = existsSync(path.resolve(HERE, "../package.json")) ? path.resolve(HERE, "..") : path.resolve(HERE, "../..");
const OUT = path.join(REPO, "bench", "out");

export interface FrontOptions {
  readonly builds: readonly Build[];
  readonly rounds: number;
  /** records of the synthetic corpus (generate.ts), or 0 for the bundled sample */
  readonly records: number;
  readonly seed: number;
  /** how long /health is sampled with no load */
  readonly idleSeconds: number;
  readonly mcpInit: number;
  readonly mcpCalls: number;
  /** scenario names to run (all when empty) */
  readonly only: readonly string[];
}

interface Flood {
  readonly name: string;
  readonly paths: string[];
  readonly bodies?: string[];
  readonly headers?: Record<string, string>;
  readonly connections: number;
  /** requests sent in all: a burst when it is the number of connections */
  readonly total: number;
}

interface ScenarioResult {
  readonly build: string;
  readonly round: number;
  readonly scenario: string;
  readonly health: LatencySummary;
  readonly healthSamples: number;
  readonly flood: LoadResult | null;
  /** main-thread CPU (user + system) over the flood, per request answered, in µs */
  readonly cpuPerRequestUs: number | null;
}

function log(line: string): void {
  process.stderr.write(`[bench:front ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** The corpus's LEIs and legal names. */
interface Corpus {
  readonly source: string;
  readonly leis: string[];
  readonly names: string[];
}

async function corpus(opts: FrontOptions): Promise<Corpus> {
  if (opts.records === 0) {
    const csv = readFileSync(defaultSamplePath(), "utf8");
    const rows = [...csv.matchAll(/^"([0-9A-Z]{20})","((?:[^"]|"")*)"/gm)];
    return { source: "sample", leis: rows.map((m) => m[1]), names: rows.map((m) => m[2].replaceAll('""', '"')).filter((n) => n !== "") };
  }
  const { zip } = await ensureGoldenZip(OUT, opts.records, opts.seed, log);
  const factory = new RecordFactory(opts.seed, opts.records);
  const picked = Array.from({ length: Math.min(opts.records, 20_000) }, (_, i) =>
    factory.recordAt(Math.floor((i * opts.records) / 20_000)),
  );
  return { source: zip, leis: picked.map((r) => r.lei), names: picked.map((r) => r.legalName) };
}

const MCP_HEADERS = { Accept: "application/json, text/event-stream", "Content-Type": "application/json" };

function floods(c: Corpus, opts: FrontOptions): Flood[] {
  const pick = <T>(items: readonly T[], k: number): T => items[k % items.length];
  const batches = Array.from({ length: 64 }, (_, b) =>
    JSON.stringify({ leis: Array.from({ length: 1000 }, (_, i) => pick(c.leis, b * 7919 + i * 13)) }),
  );
  const rows = (b: number): { name: string }[] => Array.from({ length: 1000 }, (_, i) => ({ name: pick(c.names, b * 1009 + i * 7) }));
  const matches = Array.from({ length: 8 }, (_, b) => JSON.stringify({ rows: rows(b), limit: 3 }));
  const reconciles = Array.from({ length: 8 }, (_, b) =>
    JSON.stringify({ queries: Object.fromEntries(rows(b + 8).map((r, i) => [`q${i}`, { query: r.name, limit: 3 }])) }),
  );
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  const queries = Array.from({ length: 2000 }, (_, i) =>
    pick(c.names, i * 31)
      .split(" ")
      .slice(0, 2)
      .join(" "),
  );
  const calls = queries.map((q, i) =>
    JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "search_legal_entities", arguments: { query: q } } }),
  );
  const same = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);
  return [
    { name: "500 × batch of 1,000 LEIs", paths: same(batches.length, "/v1/entities/batch"), bodies: batches, connections: 500, total: 500 },
    {
      name: "1,000 × batch of 1,000 LEIs",
      paths: same(batches.length, "/v1/entities/batch"),
      bodies: batches,
      connections: 1000,
      total: 1000,
    },
    { name: "40 × match of 1,000 rows", paths: same(matches.length, "/v1/match"), bodies: matches, connections: 40, total: 40 },
    {
      name: "40 × reconcile of 1,000 queries",
      paths: same(reconciles.length, "/reconcile"),
      bodies: reconciles,
      connections: 40,
      total: 40,
    },
    {
      name: `MCP initialize × ${opts.mcpInit}`,
      paths: ["/mcp"],
      bodies: [init],
      headers: MCP_HEADERS,
      connections: 256,
      total: opts.mcpInit,
    },
    {
      name: `MCP search_legal_entities × ${opts.mcpCalls}`,
      paths: same(calls.length, "/mcp"),
      bodies: calls,
      headers: MCP_HEADERS,
      connections: 64,
      total: opts.mcpCalls,
    },
    {
      name: `GET /v1/entities?q= × ${opts.mcpCalls}`,
      paths: queries.map((q) => `/v1/entities?q=${encodeURIComponent(q)}`),
      connections: 64,
      total: opts.mcpCalls,
    },
  ];
}

/** The main thread's CPU time so far (user + system), in µs. */
function mainThreadCpuUs(pid: number, tick: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields from the third of stat(5) on: utime and stime are its 14th and 15th
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / tick;
  } catch {
    return null;
  }
}

function clockTick(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** /health every 10 ms, open loop, while `during` runs (or for `seconds` when there is none). */
async function sampled(
  server: ServerProcess,
  during: (() => Promise<LoadResult>) | null,
  seconds: number,
): Promise<[LoadResult, LoadResult | null]> {
  const stop = new AbortController();
  const health = runLoad({
    host: "127.0.0.1",
    port: server.port,
    paths: ["/health"],
    // a sample falls due every 10 ms whether or not the last is answered: each waits only for the server
    connections: 64,
    durationS: during === null ? seconds : 3600,
    warmupS: 0,
    ratePerS: 100,
    requestTimeoutMs: 120_000,
    signal: stop.signal,
  });
  let flood: LoadResult | null = null;
  try {
    if (during !== null) flood = await during();
  } finally {
    stop.abort();
  }
  return [await health, flood];
}

async function runBuild(build: Build, round: number, c: Corpus, opts: FrontOptions, tick: number): Promise<ScenarioResult[]> {
  const main = path.join(build.dir, "dist", "src", "main.js");
  if (!existsSync(main)) throw new Error(`${main} not found: build ${build.label} first`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "leidex-bench-front-"));
  const removeData = removeDirLater(dataDir);
  const args = [
    main,
    "--host",
    "127.0.0.1",
    "--port",
    String(await freePort()),
    "--source",
    c.source,
    "--data-dir",
    dataDir,
    "--rate-limit",
    "0",
  ];
  const server = await startServer({
    command: process.execPath,
    args,
    readyTimeoutMs: 10 * 60_000,
    logFile: path.join(OUT, `front-${build.label}.log`),
    cwd: build.dir,
  });
  const results: ScenarioResult[] = [];
  try {
    const run = async (name: string, flood: Flood | null): Promise<void> => {
      if (opts.only.length > 0 && !opts.only.some((o) => name.includes(o))) return;
      log(`${build.label} round ${round}: ${name}`);
      const cpu0 = mainThreadCpuUs(server.pid, tick);
      const [health, load] = await sampled(
        server,
        flood === null
          ? null
          : () =>
              runLoad({
                host: "127.0.0.1",
                port: server.port,
                paths: flood.paths,
                ...(flood.bodies ? { bodies: flood.bodies } : {}),
                ...(flood.headers ? { headers: flood.headers } : {}),
                connections: flood.connections,
                durationS: 600,
                warmupS: 0,
                total: flood.total,
                requestTimeoutMs: 300_000,
              }),
        opts.idleSeconds,
      );
      const cpu1 = mainThreadCpuUs(server.pid, tick);
      const cpuPerRequestUs = load !== null && cpu0 !== null && cpu1 !== null && load.requests > 0 ? (cpu1 - cpu0) / load.requests : null;
      const r: ScenarioResult = {
        build: build.label,
        round,
        scenario: name,
        health: health.latency,
        healthSamples: health.requests,
        flood: load,
        cpuPerRequestUs,
      };
      results.push(r);
      log(`  ${line(r)}`);
      if (server.child.exitCode !== null) throw new Error(`the server exited during "${name}":\n${server.tail()}`);
    };
    await run("no load", null);
    for (const flood of floods(c, opts)) {
      await run(flood.name, flood);
      await new Promise((r) => setTimeout(r, 2000)); // what a flood left behind settles
    }
  } finally {
    await server.stop();
    removeData();
  }
  return results;
}

const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(0));

function line(r: ScenarioResult): string {
  const h = r.health;
  const f = r.flood;
  const flood =
    f === null
      ? ""
      : `; flood ${f.requests} answered (${f.rps.toFixed(f.rps < 100 ? 1 : 0)}/s, p50 ${ms(f.latency.p50Ms)} ms, max ${ms(f.latency.maxMs)} ms${f.non2xx + f.errors > 0 ? `, ${f.non2xx} non-2xx, ${f.errors} errors` : ""})`;
  const cpu = r.cpuPerRequestUs === null ? "" : `; main thread ${r.cpuPerRequestUs.toFixed(0)} µs CPU a request`;
  return `/health p50 ${ms(h.p50Ms)} ms, p99 ${ms(h.p99Ms)} ms, max ${ms(h.maxMs)} ms (${r.healthSamples} samples)${flood}${cpu}`;
}

function table(results: readonly ScenarioResult[]): string {
  const rows = [["scenario", "build", "round", "/health p50", "p99", "max", "flood req/s", "flood p50", "flood max", "errors", "CPU/req"]];
  for (const r of results) {
    const f = r.flood;
    rows.push([
      r.scenario,
      r.build,
      String(r.round),
      `${ms(r.health.p50Ms)} ms`,
      `${ms(r.health.p99Ms)} ms`,
      `${ms(r.health.maxMs)} ms`,
      f === null ? "" : f.rps.toFixed(f.rps < 100 ? 1 : 0),
      f === null ? "" : `${ms(f.latency.p50Ms)} ms`,
      f === null ? "" : `${ms(f.latency.maxMs)} ms`,
      f === null ? "" : String(f.non2xx + f.errors),
      r.cpuPerRequestUs === null ? "" : `${r.cpuPerRequestUs.toFixed(0)} µs`,
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ")).join("\n");
}

export async function runFrontBench(opts: FrontOptions): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const load0 = os.loadavg();
  const c = await corpus(opts);
  const tick = clockTick();
  const results: ScenarioResult[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    for (const build of opts.builds) results.push(...(await runBuild(build, round, c, opts, tick)));
  }
  const order = new Map(results.map((r, i) => [r.scenario, i]));
  const sorted = [...results].sort((a, b) => order.get(a.scenario)! - order.get(b.scenario)! || a.round - b.round);
  process.stdout.write(
    `\n${table(sorted)}\n\n/health sampled every 10 ms, open loop over 64 connections: its latency counts from when each sample fell due. ` +
      `Bulk floods: a burst, each connection sending one request at once; MCP floods: a number of calls over the connections, each sent when the last is answered; /health is sampled until the flood's last answer (and until every sample due by then is answered). ` +
      `CPU/req: the server's main thread (user + system) over the flood, per request answered (the samples included).\n` +
      `corpus: ${c.source === "sample" ? "the bundled sample (6,147 records)" : `${opts.records} synthetic records`}; ` +
      `${os.availableParallelism()} cores shared by the server, the load generators and whatever else runs; load average at start ${load0.map((l) => l.toFixed(2)).join(" ")}.\n`,
  );
  const file = path.join(OUT, "front-results.json");
  writeFileSync(
    file,
    JSON.stringify({ startedAt: new Date().toISOString(), loadAverageAtStart: load0, options: opts, results }, null, 2) + "\n",
  );
  log(`wrote ${path.relative(REPO, file)}`);
}

export function frontOptions(args: Args): FrontOptions {
  const only = args.string("only");
  return {
    builds: buildList(args, REPO),
    rounds: args.int("rounds", 1),
    records: args.int("records", 0),
    seed: args.int("seed", 1),
    idleSeconds: args.number("idle-seconds", 5),
    mcpInit: args.int("mcp-init", 30_000),
    mcpCalls: args.int("mcp-calls", 5_000),
    only: only === undefined ? [] : only.split(","),
  };
}
