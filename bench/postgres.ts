// PostgreSQL 15 + pg_trgm baseline, started and torn down by the bench itself:
// initdb into a temp dir (as the postgres user when we are root), a server on
// 127.0.0.1 with its unix socket in the temp dir, the same generated records
// loaded with COPY, a GIN gin_trgm_ops index on lower(legal_name), then the same
// typo name searches at the same concurrency through the `pg` driver.
//
// The queries go straight to the database: no HTTP layer, no JSON, no ranking
// beyond trigram similarity. That favours PostgreSQL and the report says so.
//
//   node dist/bench/postgres.js --records N [--seed S] [--duration S] [--connections C]

import { rmSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { Args, isMain } from "./args.js";
import { Histogram, type LatencySummary } from "./histogram.js";
import { buildQuerySet } from "./queries.js";
import { RecordFactory } from "./records.js";
import { pgClient as client, startCluster, writeCopyFile } from "./pg-cluster.js";

export const SEARCH_SQL =
  "SELECT lei, legal_name FROM entities WHERE lower(legal_name) % lower($1) " +
  "ORDER BY similarity(lower(legal_name), lower($1)) DESC LIMIT 20";

export interface PgBaselineOptions {
  readonly factory: RecordFactory;
  /** Name-search query strings used for the throughput run. */
  readonly queries: readonly string[];
  /** Typo queries with the LEI they were made from, for recall@3. */
  readonly recall: ReadonlyArray<{ readonly q: string; readonly lei: string }>;
  readonly connections: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly similarityThreshold?: number;
  readonly log?: (line: string) => void;
}

export interface PgBaselineResult {
  readonly records: number;
  readonly copySeconds: number;
  readonly indexSeconds: number;
  readonly indexBytes: number;
  readonly tableBytes: number;
  readonly similarityThreshold: number;
  readonly connections: number;
  readonly durationS: number;
  readonly queries: number;
  readonly qps: number;
  readonly latency: LatencySummary;
  readonly errors: number;
  readonly distinctQueries: number;
  /** Share of throughput queries that returned no row at all. */
  readonly emptyShare: number;
  readonly recallAt3: number;
  /** recall queries that failed (timed out), counted as misses */
  readonly recallErrors: number;
  readonly recallQueries: number;
  readonly note: string;
}

/** The factory's records as COPY rows of the entities table. */
function* entityRows(factory: RecordFactory): Generator<readonly string[]> {
  for (let i = 0; i < factory.total; i++) {
    const r = factory.recordAt(i);
    yield [r.lei, r.legalName, r.legalAddress.country, r.entityStatus, r.registrationStatus, r.category, r.legalAddress.city];
  }
}

export async function runPostgresBaseline(opts: PgBaselineOptions): Promise<PgBaselineResult> {
  const log = opts.log ?? ((l: string) => process.stderr.write(l + "\n"));
  const threshold = opts.similarityThreshold ?? 0.3;
  const cluster = await startCluster(opts.connections, log);
  const clients: pg.Client[] = [];
  try {
    const admin = client(cluster.port);
    clients.push(admin);
    await admin.connect();
    const copyFile = path.join(cluster.dir, "entities.tsv");
    log(`postgres: writing ${opts.factory.total.toLocaleString("en-US")} records for COPY`);
    await writeCopyFile(copyFile, entityRows(opts.factory));
    await admin.query("CREATE EXTENSION pg_trgm");
    await admin.query(
      "CREATE TABLE entities (lei char(20) NOT NULL, legal_name text NOT NULL, country text, entity_status text, registration_status text, category text, city text)",
    );
    let t = performance.now();
    await admin.query(`COPY entities FROM '${copyFile}'`);
    const copySeconds = (performance.now() - t) / 1000;
    rmSync(copyFile, { force: true });
    log(`postgres: COPY ${copySeconds.toFixed(1)} s; building the GIN trigram index`);
    t = performance.now();
    await admin.query("CREATE INDEX entities_name_trgm ON entities USING gin (lower(legal_name) gin_trgm_ops)");
    const indexSeconds = (performance.now() - t) / 1000;
    await admin.query("VACUUM ANALYZE entities");
    const sizes = await admin.query<{ t: string; i: string }>(
      "SELECT pg_table_size('entities') AS t, pg_relation_size('entities_name_trgm') AS i",
    );
    log(`postgres: index ${indexSeconds.toFixed(1)} s; running ${opts.durationS} s of searches on ${opts.connections} connections`);

    for (let k = 0; k < opts.connections; k++) {
      const c = client(cluster.port);
      clients.push(c);
      await c.connect();
      await c.query(`SET pg_trgm.similarity_threshold = ${threshold}`);
      // No single query may hold the bench hostage.
      await c.query("SET statement_timeout = '60s'");
    }
    const search = (c: pg.Client, q: string): Promise<pg.QueryResult<{ lei: string; legal_name: string }>> =>
      c.query<{ lei: string; legal_name: string }>({ name: "search", text: SEARCH_SQL, values: [q] });

    // Throughput: closed loop per connection over a shared cursor, like the HTTP load generator.
    const hist = new Histogram();
    let cursor = 0;
    let recording = false;
    let running = true;
    let done = 0;
    let empty = 0;
    let errors = 0;
    const worker = async (c: pg.Client): Promise<void> => {
      while (running) {
        const q = opts.queries[cursor]!;
        cursor = cursor + 1 === opts.queries.length ? 0 : cursor + 1;
        const t0 = performance.now();
        try {
          const r = await search(c, q);
          if (recording) {
            hist.record((performance.now() - t0) * 1000);
            done++;
            if (r.rowCount === 0) empty++;
          }
        } catch {
          if (recording) errors++;
        }
      }
    };
    const workers = clients.slice(1).map(worker);
    await new Promise((r) => setTimeout(r, opts.warmupS * 1000));
    recording = true;
    const w0 = performance.now();
    await new Promise((r) => setTimeout(r, opts.durationS * 1000));
    recording = false;
    const elapsed = (performance.now() - w0) / 1000;
    running = false;
    await Promise.all(workers);

    // Recall@3: is the LEI the query was made from among the first three rows?
    let hits = 0;
    let next = 0;
    // a query that fails (at 3.43M rows some pass the statement timeout) counts as a miss
    let recallErrors = 0;
    const recallWorker = async (c: pg.Client): Promise<void> => {
      while (next < opts.recall.length) {
        const item = opts.recall[next++]!;
        try {
          const r = await search(c, item.q);
          if (r.rows.slice(0, 3).some((row) => row.lei === item.lei)) hits++;
        } catch {
          recallErrors++;
        }
      }
    };
    await Promise.all(clients.slice(1).map(recallWorker));

    return {
      records: opts.factory.total,
      copySeconds,
      indexSeconds,
      indexBytes: Number(sizes.rows[0]!.i),
      tableBytes: Number(sizes.rows[0]!.t),
      similarityThreshold: threshold,
      connections: opts.connections,
      durationS: elapsed,
      queries: done,
      qps: done / elapsed,
      latency: hist.summary(),
      errors,
      distinctQueries: new Set(opts.queries).size,
      emptyShare: done === 0 ? 0 : empty / done,
      recallAt3: opts.recall.length === 0 ? 0 : hits / opts.recall.length,
      recallErrors,
      recallQueries: opts.recall.length,
      note: "PostgreSQL is queried directly through the pg driver (no HTTP, no JSON encoding): this favours PostgreSQL.",
    };
  } finally {
    await Promise.allSettled(clients.map((c) => c.end()));
    cluster.stop();
  }
}

async function main(): Promise<void> {
  const args = new Args(process.argv.slice(2));
  const records = args.int("records", 100_000);
  const seed = args.int("seed", 1);
  const factory = new RecordFactory(seed, records);
  const set = buildQuerySet(factory, args.int("query-count", 2000), seed);
  const res = await runPostgresBaseline({
    factory,
    queries: set.map((q) => q.typoQuery),
    recall: set.slice(0, args.int("recall", 500)).map((q) => ({ q: q.typoQuery, lei: q.lei })),
    connections: args.int("connections", 32),
    durationS: args.number("duration", 10),
    warmupS: args.number("warmup", 2),
    similarityThreshold: args.number("threshold", 0.3),
  });
  process.stdout.write(JSON.stringify(res, null, 2) + "\n");
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`postgres: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
