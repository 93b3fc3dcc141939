// Synthetic golden-copy generator: module and CLI.
//
//   node dist/bench/generate.js --records N --out FILE[.csv|.zip] [--seed S]
//        [--queries FILE.json] [--query-count K] [--level 0-9] [--zip64]
//
// Memory stays flat at any size: rows are rendered into ~1 MiB chunks pulled by the
// output stream (async generator → deflate → file), so nothing runs ahead of the disk.

import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Args, isMain } from "./args.js";
import { readHeader } from "./csv.js";
import { GoldenRowWriter } from "./golden-row.js";
import { buildQuerySet, type QueryEntry } from "./queries.js";
import { PUBLISHED_MS, RecordFactory } from "./records.js";
import { writeSingleEntryZip } from "./zip.js";

/** Bump when generated content changes, so cached files are not reused across versions. */
export const GENERATOR_VERSION = 4;

export interface GenerateOptions {
  readonly records: number;
  readonly out: string;
  readonly seed?: number;
  readonly queries?: string;
  readonly queryCount?: number;
  readonly level?: number;
  /** Write ZIP64 records even for a small file (to test readers on the ZIP64 path). */
  readonly forceZip64?: boolean;
  readonly samplePath?: string;
  readonly onProgress?: (rowsDone: number) => void;
}

export interface GenerateResult {
  readonly records: number;
  readonly seed: number;
  readonly csvBytes: number;
  readonly fileBytes: number;
  readonly zip64: boolean;
  readonly seconds: number;
  readonly queries: number;
}

/** Longest row we ever emit, with margin; bounds the uncompressed size to pick ZIP64 up front. */
const MAX_ROW_BYTES = 6144;
const CHUNK_BYTES = 1 << 20;

/** The entry name GLEIF uses inside the zip, dated like the synthetic publication. */
export function entryName(): string {
  const d = new Date(PUBLISHED_MS);
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}-gleif-goldencopy-lei2-golden-copy.csv`;
}

/** CSV bytes in chunks: header line, then one rendered row per record. */
export async function* csvChunks(
  factory: RecordFactory,
  headerLine: string,
  header: readonly string[],
  onRow?: (done: number) => void,
): AsyncGenerator<Buffer> {
  const writer = new GoldenRowWriter(header);
  // Rows are written as bytes into fresh chunk buffers (never reused: the consumer
  // may still hold the previous one), so no per-row string is ever built.
  const capacity = CHUNK_BYTES + 8 * MAX_ROW_BYTES;
  let buf = Buffer.allocUnsafe(capacity);
  let pos = buf.write(headerLine + "\n", 0, "utf8");
  for (let i = 0; i < factory.total; i++) {
    const rec = factory.recordAt(i);
    let end = writer.renderInto(rec, buf, pos);
    if (end < 0) {
      yield buf.subarray(0, pos);
      buf = Buffer.allocUnsafe(capacity);
      pos = 0;
      end = writer.renderInto(rec, buf, pos);
      if (end < 0) throw new Error(`row ${i} does not fit in ${capacity} bytes`);
    }
    if (end - pos > MAX_ROW_BYTES)
      throw new Error(`row ${i} is ${end - pos} bytes, above the ${MAX_ROW_BYTES}-byte bound used for ZIP64 decisions`);
    pos = end;
    if (pos >= CHUNK_BYTES) {
      yield buf.subarray(0, pos);
      buf = Buffer.allocUnsafe(capacity);
      pos = 0;
      onRow?.(i + 1);
    }
  }
  if (pos > 0) yield buf.subarray(0, pos);
  onRow?.(factory.total);
}

export async function generate(opts: GenerateOptions): Promise<GenerateResult> {
  const started = process.hrtime.bigint();
  const seed = (opts.seed ?? 1) >>> 0;
  const factory = new RecordFactory(seed, opts.records);
  const { line, names } = await readHeader(opts.samplePath);
  if (names.length !== 338) throw new Error(`expected 338 columns in the sample header, found ${names.length}`);

  let csvBytes = 0;
  let fileBytes = 0;
  let zip64 = false;
  const counted = async function* (): AsyncGenerator<Buffer> {
    for await (const c of csvChunks(factory, line, names, opts.onProgress)) {
      csvBytes += c.length;
      yield c;
    }
  };
  if (opts.out.endsWith(".zip")) {
    const z = await writeSingleEntryZip(counted(), opts.out, {
      entryName: entryName(),
      mtime: new Date(PUBLISHED_MS),
      level: opts.level ?? 6,
      zip64Local: opts.forceZip64 === true || (opts.records + 1) * MAX_ROW_BYTES >= 0xffffffff,
    });
    fileBytes = z.fileBytes;
    zip64 = z.zip64;
  } else {
    await pipeline(Readable.from(counted(), { objectMode: false }), createWriteStream(opts.out, { highWaterMark: 1 << 20 }));
    fileBytes = csvBytes;
  }

  let queries = 0;
  if (opts.queries !== undefined) {
    const set = buildQuerySet(factory, opts.queryCount ?? 5000, seed);
    await writeQueryFile(opts.queries, set, opts.records, seed);
    queries = set.length;
  }
  return { records: opts.records, seed, csvBytes, fileBytes, zip64, seconds: Number(process.hrtime.bigint() - started) / 1e9, queries };
}

export interface QueryFile {
  readonly generatorVersion: number;
  readonly records: number;
  readonly seed: number;
  readonly queries: readonly QueryEntry[];
}

export async function writeQueryFile(file: string, queries: readonly QueryEntry[], records: number, seed: number): Promise<void> {
  const body: QueryFile = { generatorVersion: GENERATOR_VERSION, records, seed, queries };
  await writeFile(file, JSON.stringify(body, null, 0) + "\n");
}

async function main(): Promise<void> {
  const args = new Args(process.argv.slice(2), ["zip64"]);
  const records = args.int("records", 0);
  if (records < 1)
    throw new Error(
      "usage: generate --records N --out FILE[.csv|.zip] [--seed S] [--queries FILE.json] [--query-count K] [--level 0-9] [--zip64]",
    );
  const out = path.resolve(args.requireString("out"));
  const queries = args.string("queries");
  let lastReport = Date.now();
  const res = await generate({
    records,
    out,
    seed: args.int("seed", 1),
    queries: queries === undefined ? undefined : path.resolve(queries),
    queryCount: args.int("query-count", 5000),
    level: args.int("level", 6),
    forceZip64: args.flag("zip64"),
    onProgress: (done) => {
      if (Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        process.stderr.write(
          `generate: ${done.toLocaleString("en-US")} / ${records.toLocaleString("en-US")} rows, rss ${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MiB\n`,
        );
      }
    },
  });
  process.stdout.write(
    `wrote ${out}: ${res.records.toLocaleString("en-US")} records, ${(res.csvBytes / 2 ** 20).toFixed(1)} MiB CSV, ` +
      `${(res.fileBytes / 2 ** 20).toFixed(1)} MiB file${res.zip64 ? " (ZIP64)" : ""}, ${res.seconds.toFixed(1)} s` +
      (res.queries > 0 ? `, ${res.queries} queries` : "") +
      "\n",
  );
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`generate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}

export interface CachedZip {
  readonly zip: string;
  readonly csvBytes: number;
  readonly zipBytes: number;
  /** null when the zip was already there */
  readonly generatedSeconds: number | null;
}

/**
 * The synthetic golden copy of `records` rows in `outDir`, generated once and reused by every
 * later bench run. A meta file is written last, so a zip without one is an interrupted run.
 */
export async function ensureGoldenZip(outDir: string, records: number, seed: number, log: (line: string) => void): Promise<CachedZip> {
  mkdirSync(outDir, { recursive: true });
  const stem = `golden-${records}-s${seed}-v${GENERATOR_VERSION}`;
  const zip = path.join(outDir, `${stem}.zip`);
  const meta = path.join(outDir, `${stem}.meta.json`);
  if (existsSync(zip) && existsSync(meta)) {
    const m = JSON.parse(readFileSync(meta, "utf8")) as {
      records: number;
      seed: number;
      version: number;
      csvBytes: number;
      fileBytes: number;
    };
    if (m.records === records && m.seed === seed && m.version === GENERATOR_VERSION) {
      log(`reusing ${zip} (${(m.fileBytes / 2 ** 20).toFixed(1)} MiB)`);
      return { zip, csvBytes: m.csvBytes, zipBytes: m.fileBytes, generatedSeconds: null };
    }
  }
  log(`generating ${records.toLocaleString("en-US")} records into ${zip}`);
  let last = Date.now();
  const res = await generate({
    records,
    out: zip,
    seed,
    onProgress: (done) => {
      if (Date.now() - last > 10_000) {
        last = Date.now();
        log(`  ${done.toLocaleString("en-US")} rows`);
      }
    },
  });
  writeFileSync(
    meta,
    JSON.stringify({ records, seed, version: GENERATOR_VERSION, csvBytes: res.csvBytes, fileBytes: res.fileBytes, seconds: res.seconds }) +
      "\n",
  );
  log(
    `generated in ${res.seconds.toFixed(1)} s: ${(res.csvBytes / 2 ** 20).toFixed(0)} MiB CSV, ${(res.fileBytes / 2 ** 20).toFixed(1)} MiB zip`,
  );
  return { zip, csvBytes: res.csvBytes, zipBytes: res.fileBytes, generatedSeconds: res.seconds };
}
