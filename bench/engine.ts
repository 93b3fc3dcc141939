// The engine bench (`npm run bench:engine`): the WASM engine's CPU per search, build against
// build, in one process on one copy of the index. Every build's engine is instantiated on the
// same shared memory (a slice of a collection a server loaded), and each query class runs in
// batches that alternate which build goes first, each query once on each build. No HTTP, no
// threads, no other process in the figure: a change of a few per cent in the engine shows,
// where server-level runs on a shared 2-core box swing by a third from one window to the next.
//
// What it measures is the engine's work for a search: one call to the slice as a server asks a
// collection of one slice, which runs every round the search needs (src/engine/slice-answer.ts
// settle: one typo a token first, then the full typo round, tokens dropped when nothing
// matched), then any round the front runs after it (src/engine/search-rounds.ts); not the
// front's other work (parsing, the merge, documents, HTTP).

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { HitSource, SearchAnswer } from "../src/engine/protocol.js";
import { answerSearch } from "../src/engine/slice-answer.js";
import { roundQuery, typoRounds, type ExactAnswer } from "../src/engine/search-rounds.js";
import { NAMED_PAGE, type SearchRequest } from "../src/engine/planner.js";
import { DEFAULT_LIMIT } from "../src/lei/search-params.js";
import { WasmSlice } from "../src/engine/wasm-slice.js";
import { Args, buildList, isMain } from "./args.js";
import { OUT } from "./paths.js";
import { runCli, startWatchdog } from "./proc.js";
import { Rng } from "./prng.js";
import { buildQuerySet } from "./queries.js";
import { RecordFactory } from "./records.js";
import { ensureRegistryZip } from "./registry-shaped.js";
import { CORPUS_NOTE, corpusOf, SEARCH_CLASS_NAMES, SEARCHES, type Corpus } from "./search-classes.js";
import { median, table } from "./table.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = existsSync(path.resolve(HERE, "../package.json")) ? path.resolve(HERE, "..") : path.resolve(HERE, "../..");

/** Queries each build answers before the measured ones, from names apart from theirs. */
const WARMUP = 600;
/** Measured queries whose answers are compared across the builds, a class. */
const CHECKED = 1_000;

interface Options {
  readonly dataDir: string;
  readonly corpus: Corpus;
  readonly records: number;
  readonly seed: number;
  readonly queries: number;
  readonly batch: number;
  readonly rounds: number;
}

interface Engine {
  readonly label: string;
  readonly slice: WasmSlice;
}

/** The first slice's segment of the collection live in a server's data directory. */
function liveSegment(dataDir: string): string {
  const current = path.join(dataDir, "collections", "current.json");
  if (!existsSync(current)) throw new Error(`${current}: no collection; load the corpus with a server first (bench/README.md)`);
  const { collection } = JSON.parse(readFileSync(current, "utf8")) as { collection: string };
  return path.join(dataDir, "collections", collection, "slice-0.seg");
}

/** A first page of the public API's default size, as `GET /v1/entities?q=` asks for it. */
const request = (q: string): SearchRequest => ({ q, fields: "all", filters: {}, facets: [], window: DEFAULT_LIMIT });

/**
 * A search's answer on one engine, as a server asks a collection of one slice: every round in
 * one call (slice-answer.ts settle), then any round the front would run after it.
 */
async function searchAll(slice: WasmSlice, q: string): Promise<SearchAnswer<HitSource>[]> {
  const req = request(q);
  const exact = answerSearch(slice, roundQuery(req, 0, false, undefined), true, 0, true);
  if (exact === null || exact.kind !== "search") throw new Error(`no search answer to ${JSON.stringify(q)}`);
  return typoRounds<HitSource>(req, [exact as ExactAnswer<HitSource>], (_, query) => slice.searchWithin(query, 0)!);
}

/** An answer as text: counts, plan and facets, and each hit's doc and score, read before the next search reuses them. */
function signature(parts: SearchAnswer<HitSource>[]): string {
  return parts
    .map((a) => {
      const hits: number[] = [];
      for (let i = 0; i < a.hits.count; i++) hits.push(a.hits.docAt(i), a.hits.score(i));
      // the planner reads the named matches up to a page (planner.ts): past it, a count tells it nothing
      const plan = { ...a.plan, named: Math.min(a.plan.named, NAMED_PAGE) };
      return JSON.stringify([a.found, plan, a.facets, hits]);
    })
    .join(" ");
}

/** µs of wall time the engine spent on `queries`, one after another, on this thread. */
async function timeQueries(engine: Engine, queries: readonly string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (const q of queries) await searchAll(engine.slice, q);
  return Number(process.hrtime.bigint() - t0) / 1000;
}

/** Names of the corpus's entities to make queries from: the synthetic corpus's own, or the registry-shaped corpus's records sampled over its file. */
async function queryNames(opts: Options, count: number): Promise<string[]> {
  if (opts.corpus === "synthetic")
    return buildQuerySet(new RecordFactory(opts.seed, opts.records), count, opts.seed + 11).map((q) => q.name);
  const log = (line: string): void => void process.stderr.write(`[engine] ${line}\n`);
  const { loadNames } = (await ensureRegistryZip(OUT, opts.records, opts.seed, log)).queries;
  return loadNames.slice(0, count).map((n) => n.name);
}

async function main(): Promise<void> {
  startWatchdog("bench:engine", 3600_000);
  const args = new Args(process.argv.slice(2));
  const opts: Options = {
    dataDir: path.resolve(args.requireString("data-dir")),
    corpus: corpusOf(args.string("corpus")),
    records: args.int("records", 3_430_000),
    seed: args.int("seed", 1),
    queries: args.int("queries", 4_000),
    batch: args.int("batch", 50),
    rounds: args.int("rounds", 1),
  };
  const builds = buildList(args, REPO);
  const segment = liveSegment(opts.dataDir);
  process.stderr.write(`[engine] ${segment}\n`);
  // this checkout's engine reads the segment into shared memory; every build then gets an
  // instance of its own engine on that memory
  const opened = await WasmSlice.open(segment, false);
  const engines: Engine[] = builds.map((b) => ({
    label: b.label,
    slice: WasmSlice.adopt(opened.share, new WebAssembly.Module(readFileSync(path.join(b.dir, "native", "build", "engine.wasm")))),
  }));

  const perClass = WARMUP + opts.queries * opts.rounds;
  const names = await queryNames(opts, perClass * SEARCHES.length * 2);
  const rng = Rng.at(opts.seed, 47, 0);
  let next = 0;
  const rows: string[][] = [];
  const checked: string[] = [];
  for (const [key, make] of SEARCHES) {
    const cls = SEARCH_CLASS_NAMES[key];
    const seen = new Set<string>();
    const queries: string[] = [];
    while (queries.length < perClass && next < names.length) {
      const q = make(rng, names[next++]!);
      if (q !== null && !seen.has(q)) {
        seen.add(q);
        queries.push(q);
      }
    }
    for (const e of engines) await timeQueries(e, queries.slice(0, WARMUP));
    const perRound = engines.map((): number[] => []);
    for (let r = 0; r < opts.rounds; r++) {
      const measured = queries.slice(WARMUP + r * opts.queries, WARMUP + (r + 1) * opts.queries);
      const spent = engines.map(() => 0);
      for (let i = 0, k = 0; i < measured.length; i += opts.batch, k++) {
        const batch = measured.slice(i, i + opts.batch);
        // each batch runs on every build, the order turning round batch by batch: a build that
        // follows another finds the batch's postings in the caches
        for (let j = 0; j < engines.length; j++) {
          const e = (j + k) % engines.length;
          spent[e]! += await timeQueries(engines[e]!, batch);
        }
      }
      spent.forEach((us, e) => perRound[e]!.push(us / measured.length));
    }
    // the builds must answer alike: any difference in hits, counts or plan is printed
    let differ = 0;
    for (const q of queries.slice(WARMUP, WARMUP + CHECKED)) {
      const answers: string[] = [];
      for (const e of engines) answers.push(signature(await searchAll(e.slice, q)));
      if (answers.some((a) => a !== answers[0])) differ++;
    }
    checked.push(`${cls}: ${differ} of ${Math.min(CHECKED, queries.length - WARMUP)} differ`);
    const base = median(perRound[0]!);
    rows.push([
      cls,
      ...engines.flatMap((_, e) => {
        const us = median(perRound[e]!);
        return e === 0 ? [us.toFixed(1)] : [us.toFixed(1), `${(us / base).toFixed(3)}×`];
      }),
    ]);
    process.stderr.write(`[engine] ${cls}: ${rows[rows.length - 1]!.slice(1).join(" ")}\n`);
  }
  const head = ["class", ...engines.flatMap((e, i) => (i === 0 ? [`${e.label} µs`] : [`${e.label} µs`, `÷${engines[0]!.label}`]))];
  process.stdout.write(
    `\nEngine time per search (every round of it, on one thread, no HTTP), ${opts.queries.toLocaleString("en-US")} distinct queries a class and round, batches of ${opts.batch} alternating the builds; medians of ${opts.rounds} round(s); queries from the ${opts.records.toLocaleString("en-US")} records of the ${CORPUS_NOTE[opts.corpus]}, seed ${opts.seed}; ${segment}\n\n${table([head, ...rows])}\n\nAnswers compared with ${engines[0]!.label}'s (hits, scores, counts, plan): ${checked.join("; ")}\n`,
  );
}

if (isMain(import.meta.url)) runCli("bench:engine", main);
