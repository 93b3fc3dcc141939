// PostgreSQL 15 + pg_trgm on the registry-shaped corpus: the same zip the builds load and the
// same targeted query classes, counted the same way (registry-shaped.ts targetRank), so the
// registry bench can print each class's top-1/3/10 beside pg_trgm's best mode.
//
// The zip's CSV is streamed into a names table, one row per name of a record (legal name, other
// names, transliterated other names) with the record's LEI and legal name, and searched on
// lower(name) in several pg_trgm modes, each with the index it needs: GIN gin_trgm_ops for the
// `%` and `<%` filters, GiST gist_trgm_ops for `<->` and `<<->` nearest-neighbour ordering. Only
// one of the two indexes exists at a time, so the planner cannot answer a GIN mode from the GiST
// index. Queries are sent one at a time on one connection, straight to the database (no HTTP, no
// JSON), each bounded by statement_timeout; a failed query counts as a miss.

import { rmSync } from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import type pg from "pg";
import { Histogram, type LatencySummary } from "./histogram.js";
import { pgClient, startCluster, writeCopyFile } from "./pg-cluster.js";
import { QUERY_CLASSES, targetRank, TopTally, type QueryClass, type RankedRow, type RegistryQueries } from "./registry-shaped.js";
import { CsvStreamParser, openZipEntry } from "./verify.js";

export const PG_MODES = ["knn", "similarity", "word-knn", "word-similarity"] as const;
export type PgModeName = (typeof PG_MODES)[number];

/** Rows fetched per query: a record with several names may fill more than one, and a page is 10 distinct records. */
const FETCH = 30;
const PAGE = 10;

interface PgMode {
  readonly name: PgModeName;
  readonly index: "gin" | "gist";
  readonly sql: string;
}

const SELECT = "SELECT lei, legal_name FROM names";
const MODES: readonly PgMode[] = [
  { name: "knn", index: "gist", sql: `${SELECT} ORDER BY lower(name) <-> lower($1) LIMIT ${FETCH}` },
  {
    name: "similarity",
    index: "gin",
    sql: `${SELECT} WHERE lower(name) % lower($1) ORDER BY similarity(lower(name), lower($1)) DESC LIMIT ${FETCH}`,
  },
  { name: "word-knn", index: "gist", sql: `${SELECT} ORDER BY lower($1) <<-> lower(name) LIMIT ${FETCH}` },
  {
    name: "word-similarity",
    index: "gin",
    sql: `${SELECT} WHERE lower($1) <% lower(name) ORDER BY word_similarity(lower($1), lower(name)) DESC LIMIT ${FETCH}`,
  },
];

/** The share a class is judged by (as in the registry report): the best mode of a class is the one with the highest. */
export const HEADLINE_TOP: Readonly<Partial<Record<QueryClass, "top1" | "top3" | "top10">>> = {
  exact: "top1",
  "exact-family": "top1",
  width: "top1",
  typo: "top3",
  prefix: "top3",
  "two-word": "top10",
};

export interface RegistryPgOptions {
  readonly zip: string;
  readonly queries: RegistryQueries;
  /** First N queries of each class; null for all. */
  readonly perClass: number | null;
  readonly modes: readonly PgModeName[];
  readonly statementTimeoutMs: number;
  readonly log: (line: string) => void;
}

export interface PgModeClassResult {
  readonly queries: number;
  /** Queries that failed (statement timeout), counted as misses. */
  readonly errors: number;
  readonly top1: number | null;
  readonly top3: number | null;
  readonly top10: number | null;
  readonly latency: LatencySummary;
  /** The first queries whose target was not first: its rank (0 = not among the first 10 records) and the name ranked first. */
  readonly misses: ReadonlyArray<{ readonly q: string; readonly rank: number; readonly first: string }>;
}

export interface PgClassResult {
  readonly best: PgModeName;
  readonly modes: Readonly<Partial<Record<PgModeName, PgModeClassResult>>>;
}

export interface RegistryPgResult {
  readonly records: number;
  readonly seed: number;
  readonly startedAt: string;
  readonly server: string;
  /** Rows of the names table: every non-empty legal, other and transliterated other name. */
  readonly names: number;
  readonly load: {
    /** Zip to COPY file (inflate, CSV parse, write). */
    readonly readSeconds: number;
    readonly copySeconds: number;
    readonly ginSeconds: number | null;
    readonly gistSeconds: number | null;
    /** Everything from the first byte of the zip to the last index built. */
    readonly totalSeconds: number;
  };
  readonly tableBytes: number;
  readonly ginBytes: number | null;
  readonly gistBytes: number | null;
  readonly similarityThreshold: number;
  readonly wordSimilarityThreshold: number;
  readonly statementTimeoutMs: number;
  readonly perClass: number | null;
  readonly modes: ReadonlyArray<{ readonly name: PgModeName; readonly index: "gin" | "gist"; readonly sql: string }>;
  readonly classes: Readonly<Partial<Record<QueryClass, PgClassResult>>>;
  readonly note: string;
}

const OTHER_NAME = /^Entity\.(?:Transliterated)?OtherEntityNames\.(?:Transliterated)?OtherEntityName\.\d+$/;

/** The zip's records as names-table rows: [lei, legal name, name] for each non-empty name. */
async function* nameRows(zip: string): AsyncGenerator<readonly string[]> {
  const z = await openZipEntry(zip);
  const parser = new CsvStreamParser();
  const decoder = new StringDecoder("utf8");
  let columns: { lei: number; legal: number; others: number[] } | null = null;
  let batch: Array<readonly string[]> = [];
  const onRow = (row: string[]): void => {
    if (columns === null) {
      const lei = row.indexOf("LEI");
      const legal = row.indexOf("Entity.LegalName");
      if (lei < 0 || legal < 0) throw new Error(`${zip}: no LEI or Entity.LegalName column`);
      columns = { lei, legal, others: row.flatMap((n, k) => (OTHER_NAME.test(n) ? [k] : [])) };
      return;
    }
    const lei = row[columns.lei] ?? "";
    const legal = row[columns.legal] ?? "";
    if (legal !== "") batch.push([lei, legal, legal]);
    for (const k of columns.others) {
      const other = row[k] ?? "";
      if (other !== "") batch.push([lei, legal, other]);
    }
  };
  try {
    for await (const chunk of z.stream) {
      parser.feed(decoder.write(chunk as Buffer), onRow);
      yield* batch;
      batch = [];
    }
    parser.feed(decoder.end(), onRow);
    parser.end(onRow);
    yield* batch;
  } finally {
    z.close();
  }
}

/** The first PAGE distinct records of a result, in order. */
function page(rows: ReadonlyArray<{ lei: string; legal_name: string | null }>): RankedRow[] {
  const seen = new Set<string>();
  const out: RankedRow[] = [];
  for (const r of rows) {
    if (seen.has(r.lei)) continue;
    seen.add(r.lei);
    out.push({ lei: r.lei, legalName: r.legal_name });
    if (out.length === PAGE) break;
  }
  return out;
}

/** The mode with the highest headline share, then top-1, top-3, top-10; the earlier mode on a tie. */
export function bestMode(cls: QueryClass, modes: Readonly<Partial<Record<PgModeName, PgModeClassResult>>>): PgModeName {
  const head = HEADLINE_TOP[cls] ?? "top1";
  const key = (r: PgModeClassResult): number[] => [r[head] ?? 0, r.top1 ?? 0, r.top3 ?? 0, r.top10 ?? 0];
  let best: PgModeName | null = null;
  for (const name of PG_MODES) {
    const r = modes[name];
    if (r === undefined) continue;
    const b = best === null ? undefined : modes[best];
    if (b === undefined) {
      best = name;
      continue;
    }
    const [x, y] = [key(r), key(b)];
    const k = x.findIndex((v, i) => v !== y[i]);
    if (k >= 0 && x[k]! > y[k]!) best = name;
  }
  if (best === null) throw new Error(`no pg_trgm mode ran for ${cls}`);
  return best;
}

async function runMode(
  c: pg.Client,
  mode: PgMode,
  classes: readonly QueryClass[],
  opts: RegistryPgOptions,
): Promise<Map<QueryClass, PgModeClassResult>> {
  const out = new Map<QueryClass, PgModeClassResult>();
  for (const cls of classes) {
    const all = opts.queries.classes[cls];
    const items = opts.perClass === null ? all : all.slice(0, opts.perClass);
    const hist = new Histogram();
    const tally = new TopTally();
    const misses: Array<{ q: string; rank: number; first: string }> = [];
    let errors = 0;
    for (const item of items) {
      const t0 = performance.now();
      let rows: RankedRow[] | null = null;
      try {
        const r = await c.query<{ lei: string; legal_name: string | null }>({ name: mode.name, text: mode.sql, values: [item.q] });
        rows = page(r.rows);
      } catch {
        errors++;
      }
      // A timed-out query's time counts too: it is what a user of this mode would wait.
      hist.record((performance.now() - t0) * 1000);
      const rank = rows === null ? -1 : targetRank(item, rows);
      tally.add(rank);
      if (rank !== 0 && misses.length < 10) misses.push({ q: item.q, rank: rank + 1, first: rows?.[0]?.legalName ?? "" });
    }
    const res: PgModeClassResult = { queries: items.length, errors, ...tally.shares(), latency: hist.summary(), misses };
    out.set(cls, res);
    const p = (x: number | null): string => (x === null ? "-" : `${(x * 100).toFixed(1)} %`);
    opts.log(
      `  pg ${mode.name} ${cls}: ${items.length} queries, top-1 ${p(res.top1)}, top-3 ${p(res.top3)}, top-10 ${p(res.top10)}, p50 ${res.latency.p50Ms} ms, max ${res.latency.maxMs} ms${errors > 0 ? `, ${errors} errors` : ""}`,
    );
  }
  return out;
}

export async function runRegistryPostgres(opts: RegistryPgOptions): Promise<RegistryPgResult> {
  const log = opts.log;
  const startedAt = new Date().toISOString();
  const modes = MODES.filter((m) => opts.modes.includes(m.name));
  if (modes.length === 0) throw new Error(`no pg_trgm mode among ${opts.modes.join(",")}; modes: ${PG_MODES.join(",")}`);
  const classes = QUERY_CLASSES.filter((cls) => opts.queries.classes[cls].some((item) => item.lei !== undefined));
  const cluster = await startCluster(1, log);
  const c = pgClient(cluster.port);
  try {
    await c.connect();
    const t0 = performance.now();
    const copyFile = path.join(cluster.dir, "names.tsv");
    log(`postgres: reading ${opts.zip} for COPY`);
    const names = await writeCopyFile(copyFile, nameRows(opts.zip));
    const readSeconds = (performance.now() - t0) / 1000;
    await c.query("CREATE EXTENSION pg_trgm");
    await c.query("CREATE TABLE names (lei char(20) NOT NULL, legal_name text, name text NOT NULL)");
    let t = performance.now();
    await c.query(`COPY names FROM '${copyFile}'`);
    const copySeconds = (performance.now() - t) / 1000;
    rmSync(copyFile, { force: true });
    await c.query("VACUUM ANALYZE names");
    log(`postgres: ${names.toLocaleString("en-US")} names, read ${readSeconds.toFixed(1)} s, COPY ${copySeconds.toFixed(1)} s`);
    // Each query planned for its own value, as a one-off query would be, not a generic plan.
    await c.query("SET plan_cache_mode = 'force_custom_plan'");

    const perMode = new Map<PgModeName, Map<QueryClass, PgModeClassResult>>();
    const built: Record<"gin" | "gist", { seconds: number; bytes: number } | null> = { gin: null, gist: null };
    for (const index of ["gin", "gist"] as const) {
      const these = modes.filter((m) => m.index === index);
      if (these.length === 0) continue;
      log(`postgres: building the ${index.toUpperCase()} trigram index`);
      await c.query("SET statement_timeout = 0");
      t = performance.now();
      await c.query(`CREATE INDEX names_trgm ON names USING ${index} (lower(name) ${index}_trgm_ops)`);
      const seconds = (performance.now() - t) / 1000;
      await c.query("ANALYZE names");
      await c.query(`SET statement_timeout = ${Math.round(opts.statementTimeoutMs)}`);
      const size = await c.query<{ b: string }>("SELECT pg_relation_size('names_trgm') AS b");
      built[index] = { seconds, bytes: Number(size.rows[0]!.b) };
      log(`postgres: ${index.toUpperCase()} index ${seconds.toFixed(1)} s, ${(built[index].bytes / 2 ** 20).toFixed(0)} MiB`);
      for (const mode of these) perMode.set(mode.name, await runMode(c, mode, classes, opts));
      await c.query("DROP INDEX names_trgm");
    }
    const totalSeconds = readSeconds + copySeconds + (built.gin?.seconds ?? 0) + (built.gist?.seconds ?? 0);

    const byClass: Partial<Record<QueryClass, PgClassResult>> = {};
    for (const cls of classes) {
      const m: Partial<Record<PgModeName, PgModeClassResult>> = {};
      for (const [name, results] of perMode) m[name] = results.get(cls)!;
      byClass[cls] = { best: bestMode(cls, m), modes: m };
    }
    const settings = await c.query<{ v: string; s: string; w: string; tb: string }>(
      "SELECT version() AS v, current_setting('pg_trgm.similarity_threshold') AS s, current_setting('pg_trgm.word_similarity_threshold') AS w, pg_table_size('names') AS tb",
    );
    const row = settings.rows[0]!;
    return {
      records: opts.queries.records,
      seed: opts.queries.seed,
      startedAt,
      server: row.v,
      names,
      load: { readSeconds, copySeconds, ginSeconds: built.gin?.seconds ?? null, gistSeconds: built.gist?.seconds ?? null, totalSeconds },
      tableBytes: Number(row.tb),
      ginBytes: built.gin?.bytes ?? null,
      gistBytes: built.gist?.bytes ?? null,
      similarityThreshold: Number(row.s),
      wordSimilarityThreshold: Number(row.w),
      statementTimeoutMs: opts.statementTimeoutMs,
      perClass: opts.perClass,
      modes: modes.map((m) => ({ name: m.name, index: m.index, sql: m.sql })),
      classes: byClass,
      note: "PostgreSQL is queried directly through the pg driver, one query at a time on one connection (no HTTP, no JSON encoding).",
    };
  } finally {
    await c.end().catch(() => undefined);
    cluster.stop();
  }
}
