// The Leidex benchmark: one command, peers side by side in the same run.
//
//   npm run bench -- [--records N] [--duration S] [--connections C] [--shards K]
//                    [--seed S] [--warmup S] [--query-count Q] [--load-queries L] [--recall R]
//                    [--skip-postgres] [--skip-uws] [--keep-data] [--slo-rate R]
//                    [--no-level2] [--skip-baseline]
//   npm run bench:front -- [options of bench/front.ts]   (the same as npm run bench -- --front)
//   npm run bench -- --deltas [options of bench/deltas.ts]: a GLEIF delta beside a full reload
//
// 1. Generates (or reuses from bench/out/) a synthetic golden-copy zip and query set, and the
//    Level 2 files of the same corpus (level2-generate.ts: RR, REPEX, ISIN and BIC).
// 2. Loads Level 1 alone first (the baseline: ready time, ingestSeconds, RSS; skipped with
//    --skip-baseline or --no-level2), then starts `node dist/src/main.js` on Level 1 and
//    Level 2 and, once it prints "listening on ...", drives the scenarios with the
//    child-process load generator: lookup, the Level 2 lookups (ISIN, family,
//    relationships), typo name search, filtered search, faceted search and a mixed profile,
//    each with thousands of distinct requests so that caches do not flatter the figures.
// 3. Runs the same load generator against a bare uWebSockets.js server (the HTTP
//    ceiling) and the same name searches against PostgreSQL + pg_trgm.
// 4. Prints one table and the target ratios; writes bench/out/results-<N>.json.

import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { runMatchBench } from "./match.js";
import { frontOptions, runFrontBench } from "./front.js";
import { deltaOptions, runDeltaBench } from "./deltas.js";
import os from "node:os";
import path from "node:path";
import { Args, isMain } from "./args.js";
import { startBareUws } from "./bare-uws.js";
import { ensureGoldenZip, GENERATOR_VERSION, writeQueryFile, type QueryFile } from "./generate.js";
import { describeLevel2, ensureLevel2, type CachedLevel2, type Level2Samples, type Level2Stats } from "./level2-generate.js";
import { runLoad, type LoadResult } from "./loadgen.js";
import { runPostgresBaseline, type PgBaselineResult } from "./postgres.js";
import { freePort, readMemory, removeDirLater, RssSampler, runCli, startWatchdog, startServer, type ServerProcess } from "./proc.js";
import { Rng } from "./prng.js";
import { buildQuerySet, type QueryEntry } from "./queries.js";
import { RecordFactory } from "./records.js";
import { table } from "./table.js";
import { OUT, REPO, SERVER_MAIN } from "./paths.js";

export interface RunOptions {
  readonly records: number;
  readonly seed: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  readonly shards: number | null;
  /** Queries for recall and sanity checks (the query file of the data set). */
  readonly queryCount: number;
  /** Records whose queries drive the search scenarios: more distinct requests than a run can send, so no answer cache can serve repeats. */
  readonly loadQueryCount: number;
  readonly recallCount: number;
  readonly skipPostgres: boolean;
  readonly skipUws: boolean;
  readonly keepData: boolean;
  /** The rate the name-search latency target is measured at, open loop. */
  readonly sloRate: number;
  /** Load the Level 2 files (RR, REPEX, ISIN, BIC) with the golden copy and run their scenarios. */
  readonly level2: boolean;
  /** With Level 2: load Level 1 alone first, for its ingest time and RSS beside Level 2's. */
  readonly level1Baseline: boolean;
}

interface Scenario {
  readonly name: string;
  readonly description: string;
  readonly paths: string[];
  /** open loop at this rate (latency from when each request was due); default closed loop */
  readonly ratePerS?: number;
}

interface ScenarioResult {
  readonly name: string;
  readonly description: string;
  readonly distinctPaths: number;
  readonly load: LoadResult;
  readonly peakRssBytes: number;
}

interface Dataset {
  readonly zip: string;
  /** Recall and sanity queries. */
  readonly queries: QueryEntry[];
  /** Queries for the load scenarios, from other records than `queries` as far as possible. */
  readonly loadQueries: QueryEntry[];
  readonly csvBytes: number;
  readonly zipBytes: number;
  readonly generatedSeconds: number | null;
  readonly level2: CachedLevel2 | null;
}

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

// ---------------------------------------------------------------- data set

async function dataset(opts: RunOptions, factory: RecordFactory): Promise<Dataset> {
  const { zip, csvBytes, zipBytes, generatedSeconds } = await ensureGoldenZip(OUT, opts.records, opts.seed, log);
  const qfile = path.join(OUT, `queries-${opts.records}-s${opts.seed}-v${GENERATOR_VERSION}-q${opts.queryCount}.json`);
  const queries = await querySet(factory, opts.queryCount, opts.seed, qfile);
  const loadCount = Math.min(opts.loadQueryCount, Math.floor(opts.records / 2));
  const lfile = path.join(OUT, `load-queries-${opts.records}-s${opts.seed}-v${GENERATOR_VERSION}-q${loadCount}.json`);
  const loadQueries = await querySet(factory, loadCount, opts.seed + LOAD_SEED_OFFSET, lfile);
  const level2 = opts.level2 ? await ensureLevel2(OUT, opts.records, opts.seed, log) : null;
  return { zip, queries, loadQueries, csvBytes, zipBytes, generatedSeconds, level2 };
}

const LOAD_SEED_OFFSET = 7919;

async function querySet(factory: RecordFactory, count: number, seed: number, file: string): Promise<QueryEntry[]> {
  let queries: QueryEntry[];
  if (existsSync(file)) {
    queries = [...(JSON.parse(readFileSync(file, "utf8")) as QueryFile).queries];
  } else {
    queries = buildQuerySet(factory, count, seed);
    await writeQueryFile(file, queries, factory.total, seed);
  }
  log(`${queries.length.toLocaleString("en-US")} queries from ${path.relative(REPO, file)}`);
  return queries;
}

// ---------------------------------------------------------------- scenarios

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

const enc = encodeURIComponent;

export function buildScenarios(
  factory: RecordFactory,
  queries: readonly QueryEntry[],
  seed: number,
  level2: Level2Samples | null = null,
): Scenario[] {
  const rng = Rng.at(seed, 31, 0);
  const lookupCount = Math.min(factory.total, 100_000);
  const seen = new Set<number>();
  while (seen.size < lookupCount) seen.add(rng.int(factory.total));
  const lookups = [...seen].map((i) => `/v1/entities/${factory.leiAt(i)}`);

  const names = queries.map((q) => `/v1/entities?q=${enc(q.typoQuery)}`);
  const filters = queries.map((q, k) => {
    const base = `/v1/entities?q=${enc(q.word)}&country=${enc(q.country)}`;
    switch (k % 3) {
      case 0:
        return q.status === "ACTIVE" || q.status === "INACTIVE"
          ? `${base}&status=${q.status}`
          : `${base}&registrationStatus=${q.registrationStatus}`;
      case 1:
        return `${base}&registrationStatus=${q.registrationStatus}`;
      default:
        return `${base}&category=${q.category}`;
    }
  });
  const facets = queries.map(
    (q, k) => `/v1/entities?q=${enc(k % 2 === 0 ? q.prefixQuery : q.word)}&facets=country,registrationStatus,category`,
  );
  const mixed: string[] = [];
  for (let k = 0; k < 50_000; k++) {
    const r = rng.float();
    if (r < 0.5) mixed.push(rng.pick(lookups));
    else if (r < 0.8) mixed.push(rng.pick(names));
    else if (r < 0.9) mixed.push(rng.pick(filters));
    else mixed.push(rng.pick(facets));
  }
  return [
    { name: "lookup", description: "GET /v1/entities/{lei}, random known LEIs", paths: shuffle(lookups, rng) },
    ...(level2 === null ? [] : level2Scenarios(level2, seed)),
    { name: "name search", description: "q = 1-3 words with 1-2 typos", paths: shuffle(names, rng) },
    { name: "filtered search", description: "q = one word + country + status/registrationStatus/category", paths: shuffle(filters, rng) },
    { name: "faceted search", description: "q + facets=country,registrationStatus,category", paths: shuffle(facets, rng) },
    { name: "mixed", description: "50 % lookup, 30 % name, 10 % filtered, 10 % faceted", paths: mixed },
  ];
}

/** The Level 2 lookups' names, in the order they run (right after "lookup"). */
export const LEVEL2_SCENARIOS = ["isin lookup", "family", "relationships"] as const;

/**
 * The Level 2 lookups, from the generator's samples: distinct ISINs drawn uniformly from the pairs
 * (the heavy issuers' share included), LEIs of group members (the big groups by their weight) for
 * the family trees, LEIs that start or end a relationship record for the relationships. Their own
 * PRNG stream, so the other scenarios' requests stay those of earlier runs.
 */
function level2Scenarios(samples: Level2Samples, seed: number): Scenario[] {
  const rng = Rng.at(seed, 33, 0);
  return [
    {
      name: LEVEL2_SCENARIOS[0],
      description: "GET /v1/isin/{isin}, ISINs drawn from the generated pairs",
      paths: shuffle(
        samples.isins.map((isin) => `/v1/isin/${isin}`),
        rng,
      ),
    },
    {
      name: LEVEL2_SCENARIOS[1],
      description: "GET /v1/entities/{lei}/family?depth=3&limit=200, LEIs of group members",
      paths: shuffle(
        samples.familyLeis.map((lei) => `/v1/entities/${lei}/family?depth=3&limit=200`),
        rng,
      ),
    },
    {
      name: LEVEL2_SCENARIOS[2],
      description: "GET /v1/entities/{lei}/relationships, LEIs in relationship records",
      paths: shuffle(
        samples.relationshipLeis.map((lei) => `/v1/entities/${lei}/relationships`),
        rng,
      ),
    },
  ];
}

/**
 * The name searches again, through the keyed engine API with a scoped search key (HMAC-derived
 * from a documents:search key): the cost of key checks is this scenario against "name search".
 */
async function scopedKeyScenario(base: string, adminKey: string, queries: readonly QueryEntry[], seed: number): Promise<Scenario> {
  const res = await fetch(`${base}/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-typesense-api-key": adminKey },
    body: JSON.stringify({ description: "bench search key", actions: ["documents:search"], collections: ["lei"] }),
  });
  if (res.status !== 201) throw new Error(`creating the bench search key failed: HTTP ${res.status} ${await res.text()}`);
  const parent = ((await res.json()) as { value: string }).value;
  const params = JSON.stringify({ per_page: 20 });
  const digest = createHmac("sha256", parent).update(params).digest("base64");
  const scoped = Buffer.from(`${digest}${parent.slice(0, 4)}${params}`).toString("base64");
  const paths = queries.map((q) => `/collections/lei/documents/search?q=${enc(q.typoQuery)}&x-typesense-api-key=${enc(scoped)}`);
  return {
    name: "scoped-key search",
    description: "the name searches via /collections/lei/documents/search with a scoped key",
    paths: shuffle(paths, Rng.at(seed, 32, 0)),
  };
}

/**
 * The name searches again at a fixed rate, open loop: the target is a rate with a latency bound,
 * and a closed loop with many connections measures its own queue instead (at 64 connections,
 * Little's law puts the mean latency at 64 ÷ throughput, whatever the server does).
 */
function fixedRateScenario(scenarios: readonly Scenario[], rate: number): Scenario {
  const names = scenarios.find((s) => s.name === "name search");
  if (names === undefined) throw new Error("no name search scenario to pace");
  return {
    name: `name search at ${fmtInt(rate)} req/s`,
    description: "the name searches, open loop at a fixed rate; latency counts from when each request was due",
    paths: names.paths,
    ratePerS: rate,
  };
}

// ---------------------------------------------------------------- Leidex

interface SearchPage {
  found: number;
  results: Array<{ lei: string; legalName?: string | null }>;
}

async function getJson(base: string, target: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + target, { signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Keep the raw text for the report.
  }
  return { status: res.status, body };
}

/** A few requests whose answers we know, so a broken server is reported rather than benchmarked blindly. */
async function sanityCheck(base: string, factory: RecordFactory, queries: readonly QueryEntry[]): Promise<string[]> {
  const issues: string[] = [];
  const rec = factory.recordAt(0);
  const one = await getJson(base, `/v1/entities/${rec.lei}`);
  if (one.status !== 200)
    issues.push(`GET /v1/entities/${rec.lei} (a loaded record) answered ${one.status}: ${JSON.stringify(one.body).slice(0, 200)}`);
  else if ((one.body as { lei?: string }).lei !== rec.lei)
    issues.push(`GET /v1/entities/${rec.lei} returned lei ${(one.body as { lei?: string }).lei}`);
  const q = queries[0];
  if (q !== undefined) {
    const exact = await getJson(base, `/v1/entities?q=${enc(q.name)}`);
    if (exact.status !== 200)
      issues.push(`search for an exact legal name answered ${exact.status}: ${JSON.stringify(exact.body).slice(0, 200)}`);
    else {
      const page = exact.body as SearchPage;
      if (!Array.isArray(page.results)) issues.push(`search answer has no results array: ${JSON.stringify(page).slice(0, 200)}`);
      else if (!page.results.slice(0, 3).some((r) => r.lei === q.lei))
        issues.push(`exact legal name "${q.name}" is not in the top 3 of its own search (found ${page.found})`);
    }
    const faceted = await getJson(base, `/v1/entities?q=${enc(q.word)}&facets=country,registrationStatus,category`);
    if (faceted.status !== 200 || !Array.isArray((faceted.body as { facets?: unknown }).facets))
      issues.push(`faceted search answered ${faceted.status} without a facets array`);
  }
  const bad = await getJson(base, "/v1/entities/5493001KJTIIGC8Y1R13");
  if (bad.status !== 400) issues.push(`an LEI with wrong check digits answered ${bad.status}, SPEC says 400`);
  return issues;
}

/**
 * Known Level 2 answers: an ISIN (a small and the heaviest issuer's), a BIC, the parents of a child
 * two levels down, the family of a member of the largest group, a parent outside Level 1. The
 * answers' shapes are the server's; a check only looks for the expected LEIs in the body.
 */
async function level2SanityCheck(base: string, samples: Level2Samples): Promise<string[]> {
  const issues: string[] = [];
  const expect = async (target: string, leis: readonly string[], what: string): Promise<void> => {
    const r = await getJson(base, target);
    const text = typeof r.body === "string" ? r.body : JSON.stringify(r.body);
    if (r.status !== 200) issues.push(`${what}: GET ${target} answered ${r.status}: ${text.slice(0, 200)}`);
    else for (const lei of leis) if (!text.includes(lei)) issues.push(`${what}: GET ${target} does not name ${lei}: ${text.slice(0, 200)}`);
  };
  const c = samples.checks;
  if (c.isin !== null) await expect(`/v1/isin/${c.isin.isin}`, [c.isin.lei], "ISIN lookup");
  if (c.heavyIsin !== null) await expect(`/v1/isin/${c.heavyIsin.isin}`, [c.heavyIsin.lei], `ISIN of an issuer of ${c.heavyIsin.isins}`);
  if (c.bic !== null) await expect(`/v1/bic/${c.bic.bic}`, [c.bic.lei], "BIC lookup");
  if (c.deepChild !== null)
    await expect(`/v1/entities/${c.deepChild.lei}/relationships`, [c.deepChild.directParent, c.deepChild.ultimateParent], "relationships");
  if (c.bigGroupMember !== null)
    await expect(`/v1/entities/${c.bigGroupMember.lei}/family?depth=3&limit=200`, [c.bigGroupMember.root], "family of the largest group");
  if (c.externalParentChild !== null)
    await expect(`/v1/entities/${c.externalParentChild.lei}/relationships`, [c.externalParentChild.parent], "parent outside Level 1");
  const unknown = await getJson(base, "/v1/isin/US0378331005");
  if (unknown.status !== 404) issues.push(`an ISIN not in the mapping answered ${unknown.status}, expected 404`);
  return issues;
}

interface LoadFigures {
  readySeconds: number;
  /** the server's own, from /v1/stats */
  ingestSeconds: number | null;
  rssAfterLoadBytes: number;
  /** VmHWM when ready: the load's peak */
  loadPeakRssBytes: number;
  stats: unknown;
}

async function loadFigures(server: ServerProcess): Promise<LoadFigures> {
  const mem = readMemory(server.pid);
  const stats = await getJson(`http://127.0.0.1:${server.port}`, "/v1/stats");
  const ingest = (stats.body as { ingestSeconds?: unknown }).ingestSeconds;
  return {
    readySeconds: server.readySeconds,
    ingestSeconds: typeof ingest === "number" ? ingest : null,
    rssAfterLoadBytes: mem?.rssBytes ?? 0,
    loadPeakRssBytes: mem?.hwmBytes ?? 0,
    stats: stats.body,
  };
}

/** Level 1 alone on the same golden copy: the load Level 2 is compared with. */
async function level1Baseline(opts: RunOptions, zip: string): Promise<LoadFigures> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "leidex-bench-l1-"));
  const removeData = removeDirLater(dataDir);
  const args = [
    SERVER_MAIN,
    "--host",
    "127.0.0.1",
    "--port",
    String(await freePort()),
    "--source",
    zip,
    "--data-dir",
    dataDir,
    "--rate-limit",
    "0",
  ];
  if (opts.shards !== null) args.push("--shards", String(opts.shards));
  log("baseline: Level 1 alone");
  let server: ServerProcess | null = null;
  try {
    server = await startServer({
      command: process.execPath,
      args,
      readyTimeoutMs: 10 * 60_000,
      logFile: path.join(OUT, `server-${opts.records}-level1.log`),
      cwd: REPO,
    });
    const f = await loadFigures(server);
    log(`  Level 1 alone ready in ${f.readySeconds.toFixed(1)} s (ingest ${f.ingestSeconds ?? "?"} s), RSS ${mib(f.rssAfterLoadBytes)}`);
    return f;
  } finally {
    await server?.stop();
    removeData();
  }
}

/** Share of typo queries whose source LEI is among the first three results. */
async function leidexRecall(base: string, items: ReadonlyArray<{ q: string; lei: string }>): Promise<{ recall: number; errors: number }> {
  let hits = 0;
  let errors = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        const r = await getJson(base, `/v1/entities?q=${enc(item.q)}`);
        if (r.status !== 200) errors++;
        else if ((r.body as SearchPage).results?.slice(0, 3).some((x) => x.lei === item.lei)) hits++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { recall: items.length === 0 ? 0 : hits / items.length, errors };
}

// ---------------------------------------------------------------- report

const fmtInt = (n: number): string => Math.round(n).toLocaleString("en-US");
const fmtMs = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`;

const signed = (n: number, digits: number): string => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(digits)}`;

/** Each Level 2 lookup beside the plain LEI lookup of the same run. */
function level2Lines(results: readonly ScenarioResult[], lookup: ScenarioResult | undefined): string[] {
  const target: Record<string, string> = {
    "isin lookup": "GET /v1/isin/{isin}",
    family: "GET /v1/entities/{lei}/family",
    relationships: "GET /v1/entities/{lei}/relationships",
  };
  return LEVEL2_SCENARIOS.flatMap((n) => {
    const r = results.find((x) => x.name === n);
    if (r === undefined) return [];
    const vs =
      lookup === undefined || lookup.load.rps === 0
        ? ""
        : ` = ${(r.load.rps / lookup.load.rps).toFixed(2)}× the LEI lookup's ${fmtInt(lookup.load.rps)} req/s (p50 ${fmtMs(lookup.load.latency.p50Ms)} ms, p99 ${fmtMs(lookup.load.latency.p99Ms)} ms)`;
    const kib = (x: ScenarioResult): string => (x.load.requests === 0 ? "?" : (x.load.bytesReceived / x.load.requests / 1024).toFixed(1));
    const size = `; ${kib(r)} KiB an answer${lookup !== undefined ? ` (lookup ${kib(lookup)})` : ""}`;
    return [
      `${target[n]}: ${fmtInt(r.load.rps)} req/s, p50 ${fmtMs(r.load.latency.p50Ms)} ms, p99 ${fmtMs(r.load.latency.p99Ms)} ms${vs}${size}${r.load.non2xx > 0 ? `; ${fmtInt(r.load.non2xx)} non-2xx` : ""}`,
    ];
  });
}

function level2Shape(s: Level2Stats): string {
  return `${fmtInt(s.groups.count)} groups, the largest with ${s.groups.topChildren.slice(0, 3).map(fmtInt).join(", ")} children, trees up to ${s.groups.maxDepth} levels; ${fmtInt(s.isin.issuers)} ISIN issuers, the largest with ${s.isin.topIssuerCounts.slice(0, 3).map(fmtInt).join(", ")}`;
}

// ---------------------------------------------------------------- main

export async function runBench(opts: RunOptions): Promise<void> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`${path.relative(REPO, SERVER_MAIN)} not found: run \`npm run build\` first`);
  const startedAt = new Date().toISOString();
  const load0 = os.loadavg();
  const factory = new RecordFactory(opts.seed, opts.records);
  const data = await dataset(opts, factory);
  const scenarios = buildScenarios(factory, data.loadQueries, opts.seed, data.level2?.samples ?? null);
  const recallItems = data.queries.slice(0, opts.recallCount).map((q) => ({ q: q.typoQuery, lei: q.lei }));

  const baseline = data.level2 !== null && opts.level1Baseline ? await level1Baseline(opts, data.zip) : null;

  // Leidex.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "leidex-bench-data-"));
  const removeData = opts.keepData ? () => log(`kept Leidex data dir ${dataDir}`) : removeDirLater(dataDir);
  const port = await freePort();
  const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
  const serverArgs = [
    SERVER_MAIN,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--source",
    data.zip,
    "--data-dir",
    dataDir,
    "--rate-limit",
    "0",
    "--api-key",
    adminKey,
  ];
  if (opts.shards !== null) serverArgs.push("--shards", String(opts.shards));
  if (data.level2 !== null) {
    const l2 = data.level2.paths;
    serverArgs.push("--rr-source", l2.rr, "--repex-source", l2.repex, "--isin-source", l2.isin, "--bic-source", l2.bic);
  }
  log(`starting Leidex: node ${serverArgs.map((a) => (path.isAbsolute(a) && a.startsWith(REPO) ? path.relative(REPO, a) : a)).join(" ")}`);
  const serverLog = path.join(OUT, `server-${opts.records}.log`);
  let server: ServerProcess | null = null;
  const results: ScenarioResult[] = [];
  let rssAfterLoad = 0;
  let hwm = 0;
  let loaded: LoadFigures | null = null;
  let sanity: string[] = [];
  let leidexRecallRes = { recall: 0, errors: 0 };
  try {
    server = await startServer({ command: process.execPath, args: serverArgs, readyTimeoutMs: 10 * 60_000, logFile: serverLog, cwd: REPO });
    const base = `http://127.0.0.1:${server.port}`;
    loaded = await loadFigures(server);
    rssAfterLoad = loaded.rssAfterLoadBytes;
    log(
      `Leidex ready in ${server.readySeconds.toFixed(1)} s (ingest ${loaded.ingestSeconds ?? "?"} s${data.level2 !== null ? ", with Level 2" : ""}), RSS ${mib(rssAfterLoad)}`,
    );
    sanity = await sanityCheck(base, factory, data.queries);
    if (data.level2 !== null) sanity.push(...(await level2SanityCheck(base, data.level2.samples)));
    for (const s of sanity) log(`sanity: ${s}`);
    log(`recall@3 on ${recallItems.length} typo queries`);
    leidexRecallRes = await leidexRecall(base, recallItems);
    scenarios.push(await scopedKeyScenario(base, adminKey, data.loadQueries, opts.seed));
    scenarios.push(fixedRateScenario(scenarios, opts.sloRate));
    for (const sc of scenarios) {
      log(
        `${sc.name}: ${opts.durationS} s, ${opts.connections} connections${sc.ratePerS !== undefined ? `, open loop at ${fmtInt(sc.ratePerS)} req/s` : ""}, ${new Set(sc.paths).size.toLocaleString("en-US")} distinct requests`,
      );
      const sampler = new RssSampler(server.pid);
      const load = await runLoad({
        host: "127.0.0.1",
        port: server.port,
        paths: sc.paths,
        connections: opts.connections,
        durationS: opts.durationS,
        warmupS: opts.warmupS,
        seed: opts.seed,
        ...(sc.ratePerS !== undefined ? { ratePerS: sc.ratePerS } : {}),
      });
      const peak = sampler.stop();
      results.push({ name: sc.name, description: sc.description, distinctPaths: new Set(sc.paths).size, load, peakRssBytes: peak });
      log(
        `  ${fmtInt(load.rps)} req/s, p50 ${fmtMs(load.latency.p50Ms)} ms, p99 ${fmtMs(load.latency.p99Ms)} ms, non-2xx ${load.non2xx}, errors ${load.errors}`,
      );
      if (server.child.exitCode !== null) throw new Error(`Leidex exited during "${sc.name}"; last output:\n${server.tail()}`);
    }
    hwm = readMemory(server.pid)?.hwmBytes ?? 0;
  } finally {
    await server?.stop();
    removeData();
  }

  // HTTP ceiling.
  let bare: LoadResult | null = null;
  if (!opts.skipUws) {
    const uws = await startBareUws(await freePort());
    try {
      log(`bare uWebSockets.js: ${opts.durationS} s, ${opts.connections} connections`);
      bare = await runLoad({
        host: "127.0.0.1",
        port: uws.port,
        paths: scenarios[0]!.paths.slice(0, 10_000),
        connections: opts.connections,
        durationS: opts.durationS,
        warmupS: opts.warmupS,
        seed: opts.seed,
      });
      log(`  ${fmtInt(bare.rps)} req/s, p50 ${fmtMs(bare.latency.p50Ms)} ms, p99 ${fmtMs(bare.latency.p99Ms)} ms`);
    } finally {
      await uws.stop();
    }
  }

  // PostgreSQL + pg_trgm.
  let pgRes: PgBaselineResult | null = null;
  if (!opts.skipPostgres) {
    pgRes = await runPostgresBaseline({
      factory,
      queries: data.loadQueries.map((q) => q.typoQuery),
      recall: recallItems,
      connections: opts.connections,
      durationS: opts.durationS,
      warmupS: opts.warmupS,
      log,
    });
    log(
      `  PostgreSQL ${fmtInt(pgRes.qps)} q/s, p50 ${fmtMs(pgRes.latency.p50Ms)} ms, p99 ${fmtMs(pgRes.latency.p99Ms)} ms, recall@3 ${(pgRes.recallAt3 * 100).toFixed(1)} %`,
    );
  }

  // Report.
  const rows: string[][] = [
    ["scenario", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "requests", "distinct", "client CPU", "peak RSS"],
  ];
  for (const r of results) {
    rows.push([
      `Leidex ${r.name}`,
      fmtInt(r.load.rps),
      fmtMs(r.load.latency.p50Ms),
      fmtMs(r.load.latency.p99Ms),
      fmtInt(r.load.non2xx),
      fmtInt(r.load.errors),
      fmtInt(r.load.requests),
      fmtInt(r.distinctPaths),
      `${r.load.clientCpuPct.toFixed(0)} %`,
      mib(r.peakRssBytes),
    ]);
  }
  if (bare !== null)
    rows.push([
      "bare uWS (fixed JSON)",
      fmtInt(bare.rps),
      fmtMs(bare.latency.p50Ms),
      fmtMs(bare.latency.p99Ms),
      fmtInt(bare.non2xx),
      fmtInt(bare.errors),
      fmtInt(bare.requests),
      "1",
      `${bare.clientCpuPct.toFixed(0)} %`,
      "",
    ]);
  if (pgRes !== null)
    rows.push([
      "PostgreSQL pg_trgm name search*",
      fmtInt(pgRes.qps),
      fmtMs(pgRes.latency.p50Ms),
      fmtMs(pgRes.latency.p99Ms),
      "",
      fmtInt(pgRes.errors),
      fmtInt(pgRes.queries),
      fmtInt(pgRes.distinctQueries),
      "",
      "",
    ]);

  const byName = (n: string): ScenarioResult | undefined => results.find((r) => r.name === n);
  const lookup = byName("lookup");
  const nameSearch = byName("name search");
  const paced = results.find((r) => r.load.offeredRps !== null);
  // kept up: answered at the offered rate (1 % slack for the window's edges), with no backlog left
  const pacedKeptUp = paced !== undefined && paced.load.rps >= 0.99 * opts.sloRate && paced.load.backlog <= opts.sloRate / 100;
  const ratios = {
    lookupOverBareUws: lookup !== undefined && bare !== null && bare.rps > 0 ? lookup.load.rps / bare.rps : null,
    nameSearchRps: nameSearch?.load.rps ?? null,
    nameSearchP99Ms: nameSearch?.load.latency.p99Ms ?? null,
    nameSearchAtRate:
      paced === undefined
        ? null
        : {
            offeredRps: opts.sloRate,
            answeredRps: paced.load.rps,
            p99Ms: paced.load.latency.p99Ms,
            backlog: paced.load.backlog,
            keptUp: pacedKeptUp,
          },
    nameSearchOverPostgres: nameSearch !== undefined && pgRes !== null && pgRes.qps > 0 ? nameSearch.load.rps / pgRes.qps : null,
    scopedOverPublicSearch:
      nameSearch !== undefined && byName("scoped-key search") !== undefined && nameSearch.load.rps > 0
        ? byName("scoped-key search")!.load.rps / nameSearch.load.rps
        : null,
    recallAt3Leidex: leidexRecallRes.recall,
    recallAt3Postgres: pgRes?.recallAt3 ?? null,
    level2OverLookup: Object.fromEntries(
      LEVEL2_SCENARIOS.flatMap((n) => {
        const r = byName(n);
        return r === undefined || lookup === undefined || lookup.load.rps === 0 ? [] : [[n, r.load.rps / lookup.load.rps]];
      }),
    ) as Record<string, number>,
  };
  const verdict = (ok: boolean | null): string => (ok === null ? "n/a" : ok ? "MET" : "NOT MET");
  const ratioLines = [
    `lookup req/s ÷ bare uWS req/s: ${ratios.lookupOverBareUws?.toFixed(2) ?? "n/a"} (target ≥ 0.40: ${verdict(ratios.lookupOverBareUws === null ? null : ratios.lookupOverBareUws >= 0.4)})`,
    `name search, closed loop at ${opts.connections} connections: ${ratios.nameSearchRps === null ? "n/a" : fmtInt(ratios.nameSearchRps)} req/s at p99 ${ratios.nameSearchP99Ms === null ? "n/a" : fmtMs(ratios.nameSearchP99Ms)} ms (the peak rate; its p99 is the connections' own queue)`,
    `name search, open loop at ${fmtInt(opts.sloRate)} req/s: ${ratios.nameSearchAtRate === null ? "n/a" : `${fmtInt(ratios.nameSearchAtRate.answeredRps)} req/s answered, p99 ${fmtMs(ratios.nameSearchAtRate.p99Ms)} ms, ${fmtInt(ratios.nameSearchAtRate.backlog)} left unsent`} (target ≥ 3,000 req/s at p99 ≤ 20 ms: ${verdict(ratios.nameSearchAtRate === null || opts.sloRate < 3000 ? null : ratios.nameSearchAtRate.keptUp && ratios.nameSearchAtRate.p99Ms <= 20)})`,
    `Leidex name search ÷ PostgreSQL pg_trgm: ${ratios.nameSearchOverPostgres?.toFixed(1) ?? "n/a"}× (target ≥ 20×: ${verdict(ratios.nameSearchOverPostgres === null ? null : ratios.nameSearchOverPostgres >= 20)})`,
    `scoped-key search ÷ public name search: ${ratios.scopedOverPublicSearch?.toFixed(2) ?? "n/a"} (target: key checks add no measurable cost, ≈ 1.00)`,
    ...level2Lines(results, lookup),
    `recall@3 of ${recallItems.length} typo queries: Leidex ${(ratios.recallAt3Leidex * 100).toFixed(1)} %${leidexRecallRes.errors > 0 ? ` (${leidexRecallRes.errors} failed requests)` : ""}, PostgreSQL ${ratios.recallAt3Postgres === null ? "n/a" : `${(ratios.recallAt3Postgres * 100).toFixed(1)} %`}${pgRes !== null && pgRes.recallErrors > 0 ? ` (${pgRes.recallErrors} PostgreSQL queries timed out, counted as misses)` : ""}`,
  ];
  const notes = [
    `${opts.records.toLocaleString("en-US")} synthetic records (seed ${opts.seed}, ${mib(data.csvBytes)} CSV, ${mib(data.zipBytes)} zip); ${opts.connections} keep-alive connections; ${opts.durationS} s per scenario after ${opts.warmupS} s warm-up; closed-loop load (latency excludes queueing before send) except the fixed-rate run, whose latency counts from when each request was due.`,
    `Leidex: ready in ${server?.readySeconds.toFixed(1) ?? "?"} s (ingestSeconds ${loaded?.ingestSeconds ?? "?"}${data.level2 !== null ? ", Level 1 and Level 2" : ", Level 1 only"}); RSS after load ${mib(rssAfterLoad)}, load peak (VmHWM at ready) ${mib(loaded?.loadPeakRssBytes ?? 0)}; peak RSS during scenarios ${mib(Math.max(0, ...results.map((r) => r.peakRssBytes)))}; lifetime peak (VmHWM) ${mib(hwm)}.`,
    ...(data.level2 !== null ? [`Level 2 (${describeLevel2(data.level2.stats)}): ${level2Shape(data.level2.stats)}.`] : []),
    ...(baseline !== null && loaded !== null
      ? [
          `Level 1 alone (same golden copy, fresh data dir): ready in ${baseline.readySeconds.toFixed(1)} s (ingestSeconds ${baseline.ingestSeconds ?? "?"}), RSS after load ${mib(baseline.rssAfterLoadBytes)}, load peak ${mib(baseline.loadPeakRssBytes)}; Level 2 adds ${signed(loaded.readySeconds - baseline.readySeconds, 1)} s to ready, ${baseline.ingestSeconds !== null && loaded.ingestSeconds !== null ? `${signed(loaded.ingestSeconds - baseline.ingestSeconds, 1)} s to ingestSeconds, ` : ""}${signed((loaded.rssAfterLoadBytes - baseline.rssAfterLoadBytes) / 2 ** 20, 0)} MiB to RSS after load, ${signed((loaded.loadPeakRssBytes - baseline.loadPeakRssBytes) / 2 ** 20, 0)} MiB to the load peak.`,
        ]
      : []),
    ...(pgRes !== null
      ? [
          `* ${pgRes.note} similarity_threshold ${pgRes.similarityThreshold}; ${(pgRes.emptyShare * 100).toFixed(1)} % of queries returned no row; COPY ${pgRes.copySeconds.toFixed(1)} s, GIN index ${pgRes.indexSeconds.toFixed(1)} s (${mib(pgRes.indexBytes)}).`,
        ]
      : []),
    `machine: ${os.availableParallelism()} cores shared by server, load generator and peers; load average at start ${load0.map((l) => l.toFixed(2)).join(" ")}. "client CPU" near 100 % means the load generator, not the server, set the pace.`,
    ...sanity.map((s) => `sanity issue: ${s}`),
  ];
  process.stdout.write(`\n${table(rows)}\n\n${ratioLines.join("\n")}\n\n${notes.join("\n")}\n`);

  const json = {
    startedAt,
    node: process.version,
    cores: os.availableParallelism(),
    loadAverageAtStart: load0,
    options: opts,
    dataset: {
      records: opts.records,
      seed: opts.seed,
      generatorVersion: GENERATOR_VERSION,
      csvBytes: data.csvBytes,
      zipBytes: data.zipBytes,
      generatedSeconds: data.generatedSeconds,
      queries: data.queries.length,
      loadQueries: data.loadQueries.length,
      level2: data.level2 === null ? null : { ...data.level2.stats, generatedSeconds: data.level2.generatedSeconds },
    },
    leidex: {
      level2: data.level2 !== null,
      readySeconds: server?.readySeconds ?? null,
      ingestSeconds: loaded?.ingestSeconds ?? null,
      loadPeakRssBytes: loaded?.loadPeakRssBytes ?? null,
      stats: loaded?.stats ?? null,
      rssAfterLoadBytes: rssAfterLoad,
      peakRssDuringScenariosBytes: Math.max(0, ...results.map((r) => r.peakRssBytes)),
      lifetimePeakRssBytes: hwm,
      recallAt3: leidexRecallRes.recall,
      recallErrors: leidexRecallRes.errors,
      sanityIssues: sanity,
      scenarios: results,
    },
    level1Baseline: baseline,
    bareUws: bare,
    postgres: pgRes,
    ratios,
  };
  const file = path.join(OUT, `results-${opts.records}.json`);
  writeFileSync(file, JSON.stringify(json, null, 2) + "\n");
  log(`wrote ${path.relative(REPO, file)}`);
}

/** Whatever hangs, the bench ends: generous for 3.4 M records on 2 busy cores. */
const WATCHDOG_MS = 3 * 3600_000;

async function main(): Promise<void> {
  startWatchdog("bench", WATCHDOG_MS);
  const args = new Args(process.argv.slice(2), ["skip-postgres", "skip-uws", "keep-data", "no-level2", "skip-baseline", "front", "deltas"]);
  // the front under bulk and MCP floods, builds side by side (bench/front.ts)
  if (args.flag("front")) return runFrontBench(frontOptions(args));
  // a GLEIF delta beside a full reload (bench/deltas.ts)
  if (args.flag("deltas")) return runDeltaBench(deltaOptions(args));
  const shards = args.string("shards");
  await runBench({
    records: args.int("records", 1_000_000),
    seed: args.int("seed", 1),
    durationS: args.number("duration", 10),
    warmupS: args.number("warmup", 2),
    connections: args.int("connections", 64),
    shards: shards === undefined ? null : args.int("shards", 1),
    queryCount: args.int("query-count", 10_000),
    loadQueryCount: args.int("load-queries", 100_000),
    recallCount: args.int("recall", 1000),
    skipPostgres: args.flag("skip-postgres"),
    skipUws: args.flag("skip-uws"),
    keepData: args.flag("keep-data"),
    sloRate: args.int("slo-rate", 3000),
    level2: !args.flag("no-level2"),
    level1Baseline: !args.flag("skip-baseline"),
  });
  // bulk partners' matching and batch lookups, on the real sample (bench/match.ts)
  await runMatchBench(args.int("seed", 1));
}

if (isMain(import.meta.url)) runCli("bench", main);
