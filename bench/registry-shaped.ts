// Registry-shaped golden copy: module and CLI.
//
//   node dist/bench/registry-shaped.js --records N --out FILE.zip [--seed S] [--queries FILE.json]
//
// The 6,147 real records of data/sample/real-sample.csv (CC0) at random positions among N - 6,147
// distractors made from their own words (see registry-corpus.ts): near-twin clusters of each real
// name, recombined names of the same shape and country, umbrella fund families and parish
// families of dozens of names that differ in one word. A distractor copies every column of its
// real template (country, city, legal form, status, category, jurisdiction, dates) except its
// names, and gets a new valid LEI. Rows stream through deflate in ~1 MiB chunks, so memory stays
// flat at 3.43M records; the query file is built from the real records afterwards.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Args, isMain } from "./args.js";
import { quote } from "./csv.js";
import { entryName } from "./generate.js";
import { leiCheckDigits } from "./lei.js";
import { mix32, Rng } from "./prng.js";
import { makePrefixQuery, queryTokens, typo, typoEligible } from "./queries.js";
import { PUBLISHED_MS } from "./records.js";
import {
  fold,
  isBody,
  loadSample,
  nearTwin,
  otherWidth,
  parishFamily,
  realUmbrellaFamily,
  recombined,
  umbrellaFamily,
  type Sample,
  type Template,
} from "./registry-corpus.js";
import { writeSingleEntryZip } from "./zip.js";
import { tokenize } from "../src/engine/text.js";

/** Bump when generated content changes, so cached files are not reused across versions. */
export const REGISTRY_GENERATOR_VERSION = 2;

type BlockKind = "twins" | "recombined" | "umbrella" | "real-umbrella" | "parish";

/** Share of distractor records per kind, and each kind's block size range. */
const KINDS: ReadonlyArray<{ kind: BlockKind; share: number; min: number; max: number }> = [
  { kind: "twins", share: 0.4, min: 2, max: 8 },
  { kind: "recombined", share: 0.33, min: 1, max: 1 },
  { kind: "umbrella", share: 0.09, min: 12, max: 60 },
  { kind: "real-umbrella", share: 0.09, min: 12, max: 60 },
  { kind: "parish", share: 0.09, min: 10, max: 40 },
];
/** Blocks open at once: their rows interleave, so a family is scattered over the file as in the real one (which is in LEI order). */
const ACTIVE_BLOCKS = 256;

export interface QueryItem {
  readonly q: string;
  /** The real record the query is about; absent for broad queries. */
  readonly lei?: string;
  readonly name?: string;
}

export interface RegistryQueries {
  readonly version: number;
  readonly records: number;
  readonly seed: number;
  /** Accuracy/latency classes, each sent once, sequentially. */
  readonly classes: Readonly<Record<QueryClass, readonly QueryItem[]>>;
  /** For load: names (with their LEIs) sampled over the whole corpus, and LEIs to look up. */
  readonly loadNames: ReadonlyArray<{ readonly name: string; readonly lei: string }>;
  readonly loadLeis: readonly string[];
  readonly corpus: CorpusStats;
}

/** A search answer's row as both the server and the baselines give it. */
export interface RankedRow {
  readonly lei: string;
  readonly legalName?: string | null;
}

/** A name as the engine compares whole names: its terms run together (see src/engine/name-key.ts). */
export const foldedName = (name: string): string => tokenize(name).join("");

/**
 * Where a targeted query's answer is among `rows` (0-based, -1 when absent): the target's LEI, or
 * another record whose legal name folds equal to the target's, which is as right an answer (the
 * sample holds real same-name twins).
 */
export function targetRank(item: QueryItem, rows: readonly RankedRow[]): number {
  const twin = item.name === undefined ? null : foldedName(item.name);
  return rows.findIndex(
    (x) => x.lei === item.lei || (twin !== null && typeof x.legalName === "string" && foldedName(x.legalName) === twin),
  );
}

/** Top-1, top-3 and top-10 over a class's targeted queries (a failed query counts as a miss). */
export class TopTally {
  private targeted = 0;
  private readonly hits = [0, 0, 0];

  add(rank: number): void {
    this.targeted++;
    if (rank === 0) this.hits[0]!++;
    if (rank >= 0 && rank < 3) this.hits[1]!++;
    if (rank >= 0 && rank < 10) this.hits[2]!++;
  }

  /** Shares of the targeted queries; null when the class has no target. */
  shares(): { top1: number | null; top3: number | null; top10: number | null } {
    const share = (n: number): number | null => (this.targeted === 0 ? null : n / this.targeted);
    return { top1: share(this.hits[0]!), top3: share(this.hits[1]!), top10: share(this.hits[2]!) };
  }
}

export const QUERY_CLASSES = ["exact", "exact-family", "width", "typo", "prefix", "two-word", "one-word"] as const;
export type QueryClass = (typeof QUERY_CLASSES)[number];

export interface CorpusStats {
  readonly records: number;
  readonly real: number;
  readonly distractors: Readonly<Record<BlockKind, number>>;
  readonly blocks: Readonly<Record<BlockKind, number>>;
  readonly nearTwinChanges: Readonly<Record<string, number>>;
  readonly familySizes: { readonly min: number; readonly mean: number; readonly max: number };
  readonly csvBytes: number;
  readonly zipBytes: number;
  readonly seconds: number;
}

interface Block {
  readonly kind: BlockKind;
  readonly template: Template;
  readonly names: string[];
  next: number;
}

const MAX_ROW_BYTES = 16384;
const CHUNK_BYTES = 1 << 20;

/** Distractor i's LEI: the template's LOU prefix, "00", "R" and a bijective scramble of i (unique for i < 2^32). */
function distractorLei(prefix: string, i: number): string {
  const body = `${prefix}00R${mix32(i).toString(36).toUpperCase().padStart(11, "0")}`;
  return body + leiCheckDigits(body);
}

/** Columns a distractor leaves empty: the template's other and transliterated names would make it match the real name. */
function blankedColumn(name: string): boolean {
  return name.startsWith("Entity.OtherEntityNames.") || name.startsWith("Entity.TransliteratedOtherEntityNames.");
}

class Rows {
  private readonly tails = new Map<number, Buffer>();
  private readonly real = new Map<number, Buffer>();
  constructor(private readonly sample: Sample) {}

  /** A real record's row, byte for byte as rendered from its parsed values. */
  realRow(t: Template): Buffer {
    let b = this.real.get(t.index);
    if (b === undefined) {
      b = Buffer.from(t.values.map(quote).join(",") + "\n", "utf8");
      this.real.set(t.index, b);
    }
    return b;
  }

  /** Everything after LEI and legal name for the template's distractors: rendered once per template. */
  tail(t: Template): Buffer {
    let b = this.tails.get(t.index);
    if (b === undefined) {
      const h = this.sample.header;
      let s = "";
      for (let c = 2; c < h.length; c++) s += "," + quote(blankedColumn(h[c]!) ? "" : t.values[c]!);
      b = Buffer.from(s + "\n", "utf8");
      this.tails.set(t.index, b);
    }
    return b;
  }
}

export interface RegistryGenerateOptions {
  readonly records: number;
  readonly out: string;
  readonly seed: number;
  readonly queriesOut: string;
  readonly onProgress?: (rows: number) => void;
}

export async function generateRegistry(opts: RegistryGenerateOptions): Promise<CorpusStats> {
  const started = performance.now();
  const sample = loadSample();
  const real = sample.templates;
  if (opts.records < real.length) throw new Error(`--records must be at least ${real.length} (the real records)`);
  const rng = Rng.at(opts.seed, 101, 0);
  const rows = new Rows(sample);
  const funds = real.filter((t) => t.kind === "fund");
  const parishes = real.filter((t) => t.kind === "parish");
  const realOrder = real.map((t) => t);
  for (let i = realOrder.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [realOrder[i], realOrder[j]] = [realOrder[j]!, realOrder[i]!];
  }
  // Block kinds are drawn with weights share/mean size, so the record shares come out as KINDS says.
  const weights = KINDS.map((k) => k.share / ((k.min + k.max) / 2));
  const wsum = weights.reduce((a, b) => a + b, 0);
  const distractors: Record<BlockKind, number> = { twins: 0, recombined: 0, umbrella: 0, "real-umbrella": 0, parish: 0 };
  const blocks: Record<BlockKind, number> = { twins: 0, recombined: 0, umbrella: 0, "real-umbrella": 0, parish: 0 };
  const changes: Record<string, number> = {};
  const family = { min: Infinity, sum: 0, n: 0, max: 0 };

  const newBlock = (): Block => {
    for (;;) {
      let x = rng.float() * wsum;
      let k = 0;
      while (x >= weights[k]! && k < weights.length - 1) x -= weights[k++]!;
      const spec = KINDS[k]!;
      const size = rng.range(spec.min, spec.max);
      let names: string[] = [];
      let template: Template;
      if (spec.kind === "twins" || spec.kind === "recombined") {
        template = rng.pick(real);
        for (let n = 0; n < size; n++) {
          if (spec.kind === "twins") {
            const tw = nearTwin(rng, sample, template);
            if (tw !== null) {
              names.push(tw.name);
              changes[tw.change] = (changes[tw.change] ?? 0) + 1;
            }
          } else {
            const r = recombined(rng, sample, template);
            if (r !== null) names.push(r);
          }
        }
      } else {
        template = rng.pick(spec.kind === "parish" ? parishes : funds);
        const f =
          spec.kind === "umbrella"
            ? umbrellaFamily(rng, sample, template, size)
            : spec.kind === "real-umbrella"
              ? realUmbrellaFamily(rng, sample, template, size)
              : parishFamily(rng, sample, template, size);
        names = [...f.names];
        if (names.length > 0) {
          family.min = Math.min(family.min, names.length);
          family.max = Math.max(family.max, names.length);
          family.sum += names.length;
          family.n++;
        }
      }
      if (names.length === 0) continue;
      blocks[spec.kind]++;
      return { kind: spec.kind, template, names, next: 0 };
    }
  };

  // Word frequencies over every emitted name: the broad one-word queries are the most frequent words.
  const wordFreq = new Map<string, number>();
  const countWords = (name: string): void => {
    for (const w of queryTokens(name)) {
      const k = w.toLowerCase();
      wordFreq.set(k, (wordFreq.get(k) ?? 0) + 1);
    }
  };
  // enough distinct names for bench:cores' closed loops: each class runs seconds at thousands a second
  const loadEvery = Math.max(1, Math.floor(opts.records / 250_000));
  const leiEvery = Math.max(1, Math.floor(opts.records / 100_000));
  const loadNames: Array<{ name: string; lei: string }> = [];
  const loadLeis: string[] = [];

  async function* chunks(): AsyncGenerator<Buffer> {
    const header = Buffer.from(sample.header.map(quote).join(",") + "\n", "utf8");
    let buf = Buffer.allocUnsafe(CHUNK_BYTES + 4 * MAX_ROW_BYTES);
    let pos = header.copy(buf, 0);
    const active: Block[] = [];
    let realLeft = real.length;
    let realNext = 0;
    let distractorNo = 0;
    for (let row = 0; row < opts.records; row++) {
      const rowsLeft = opts.records - row;
      // Selection sampling: every position is equally likely to hold a real record.
      let lei: string;
      let name: string;
      if (rng.float() * rowsLeft < realLeft) {
        const t = realOrder[realNext++]!;
        realLeft--;
        const line = rows.realRow(t);
        if (line.length > MAX_ROW_BYTES) throw new Error(`real row ${t.index} is ${line.length} bytes`);
        pos += line.copy(buf, pos);
        lei = t.lei;
        name = t.name;
      } else {
        while (active.length < ACTIVE_BLOCKS) active.push(newBlock());
        const at = rng.int(active.length);
        const b = active[at]!;
        name = b.names[b.next++]!;
        if (b.next >= b.names.length) {
          active[at] = active[active.length - 1]!;
          active.pop();
        }
        distractors[b.kind]++;
        lei = distractorLei(b.template.lei.slice(0, 4), distractorNo++);
        if (sample.realLeis.has(lei)) throw new Error(`distractor LEI ${lei} equals a real one`);
        const tail = rows.tail(b.template);
        // The chunk buffer has 4 × MAX_ROW_BYTES of room past CHUNK_BYTES; a longer row would overrun it.
        if (tail.length + 6 * name.length + 32 > MAX_ROW_BYTES) throw new Error(`row ${row} is too long`);
        pos += buf.write(`"${lei}",${quote(name)}`, pos, "utf8");
        pos += tail.copy(buf, pos);
        if (row % loadEvery === 0) loadNames.push({ name, lei });
      }
      if (row % leiEvery === 0) loadLeis.push(lei);
      countWords(name);
      if (pos >= CHUNK_BYTES) {
        yield buf.subarray(0, pos);
        buf = Buffer.allocUnsafe(CHUNK_BYTES + 4 * MAX_ROW_BYTES);
        pos = 0;
        opts.onProgress?.(row + 1);
      }
    }
    if (pos > 0) yield buf.subarray(0, pos);
  }

  let csvBytes = 0;
  const counted = async function* (): AsyncGenerator<Buffer> {
    for await (const c of chunks()) {
      csvBytes += c.length;
      yield c;
    }
  };
  const z = await writeSingleEntryZip(counted(), opts.out, {
    entryName: entryName(),
    mtime: new Date(PUBLISHED_MS),
    level: 6,
    zip64Local: opts.records * 2048 >= 0xffffffff,
  });
  const stats: CorpusStats = {
    records: opts.records,
    real: real.length,
    distractors,
    blocks,
    nearTwinChanges: changes,
    familySizes: { min: family.min, mean: family.n === 0 ? 0 : family.sum / family.n, max: family.max },
    csvBytes,
    zipBytes: z.fileBytes,
    seconds: (performance.now() - started) / 1000,
  };
  const classes = buildQueries(sample, Rng.at(opts.seed, 102, 0), wordFreq);
  const body: RegistryQueries = {
    version: REGISTRY_GENERATOR_VERSION,
    records: opts.records,
    seed: opts.seed,
    classes,
    loadNames,
    loadLeis,
    corpus: stats,
  };
  writeFileSync(opts.queriesOut, JSON.stringify(body) + "\n");
  return stats;
}

function sampleOf<T>(rng: Rng, items: readonly T[], count: number): T[] {
  const copy = [...items];
  const n = Math.min(count, copy.length);
  for (let i = 0; i < n; i++) {
    const j = i + rng.int(copy.length - i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

/** A pasted full name with 1–2 typing errors in words of 4+ letters. */
export function fullNameTypo(rng: Rng, name: string): string | null {
  const tokens = name.split(" ");
  const eligible = tokens.map((w, k) => (typoEligible(w) ? k : -1)).filter((k) => k >= 0);
  if (eligible.length === 0) return null;
  const first = rng.pick(eligible);
  tokens[first] = typo(rng, tokens[first]!);
  if (rng.chance(0.35)) {
    const second = rng.pick(eligible);
    tokens[second] = typo(rng, tokens[second]!);
  }
  const q = tokens.join(" ");
  return q === name ? null : q;
}

/** 1–3 words of a name as typed, the last cut short ("as typed": what a type-ahead box sends). */
export function typedPrefix(rng: Rng, name: string): string | null {
  const tokens = queryTokens(name);
  if (tokens.length === 0) return null;
  const words = tokens.slice(0, rng.range(1, Math.min(3, tokens.length)));
  const last = Array.from(words[words.length - 1]!);
  if (last.length >= 4) words[words.length - 1] = last.slice(0, rng.range(3, last.length - 1)).join("");
  const q = words.join(" ");
  return rng.chance(0.5) ? q.toLowerCase() : q;
}

function buildQueries(sample: Sample, rng: Rng, wordFreq: ReadonlyMap<string, number>): Record<QueryClass, QueryItem[]> {
  const usable = sample.templates.filter((t) => !sample.ambiguousKeys.has(fold(t.name)) && t.name.trim() !== "");
  const item = (t: Template, q: string): QueryItem => ({ q, lei: t.lei, name: t.name });
  const exact = sampleOf(rng, usable, 1000).map((t) => item(t, t.name));
  const exactFamily = sampleOf(
    rng,
    usable.filter((t) => t.kind !== "plain"),
    300,
  ).map((t) => item(t, t.name));
  // Every real name stored with compatibility characters (full-width brackets, letters) is asked in its NFKC form; the rest in full width.
  const compat = usable.filter((t) => t.name.normalize("NFKC") !== t.name);
  const width = [
    ...compat,
    ...sampleOf(
      rng,
      usable.filter((t) => t.name.normalize("NFKC") === t.name),
      500 - compat.length,
    ),
  ].map((t) => item(t, otherWidth(t.name)));
  const typo: QueryItem[] = [];
  for (const t of sampleOf(rng, usable, 3000)) {
    if (typo.length >= 1000) break;
    const q = fullNameTypo(rng, t.name);
    if (q !== null) typo.push(item(t, q));
  }
  const prefix: QueryItem[] = [];
  for (const t of sampleOf(rng, usable, 2000)) {
    if (prefix.length >= 500) break;
    const q = typedPrefix(rng, t.name) ?? makePrefixQuery(rng, t.name);
    if (q !== null) prefix.push(item(t, q));
  }
  const twoWord: QueryItem[] = [];
  for (const t of sampleOf(rng, usable, 2000)) {
    if (twoWord.length >= 300) break;
    const body = [...new Set(queryTokens(t.name).filter(isBody))];
    if (body.length < 2) continue;
    const [a, b] = sampleOf(rng, body, 2);
    twoWord.push(item(t, `${a} ${b}`));
  }
  const oneWord = [...wordFreq]
    .filter(([w]) => /\p{L}/u.test(w) && Array.from(w).length >= 2)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 200)
    .map(([w]) => ({ q: w }));
  return { exact, "exact-family": exactFamily, width, typo, prefix, "two-word": twoWord, "one-word": oneWord };
}

export interface RegistryData {
  readonly zip: string;
  readonly queries: RegistryQueries;
}

/** The registry-shaped zip and its query file in `outDir`, generated once and reused (the query file is written last). */
export async function ensureRegistryZip(outDir: string, records: number, seed: number, log: (line: string) => void): Promise<RegistryData> {
  mkdirSync(outDir, { recursive: true });
  const stem = `registry-${records}-s${seed}-v${REGISTRY_GENERATOR_VERSION}`;
  const zip = path.join(outDir, `${stem}.zip`);
  const qfile = path.join(outDir, `${stem}.queries.json`);
  if (existsSync(zip) && existsSync(qfile)) {
    log(`reusing ${zip}`);
    return { zip, queries: JSON.parse(readFileSync(qfile, "utf8")) as RegistryQueries };
  }
  log(`generating ${records.toLocaleString("en-US")} registry-shaped records into ${zip}`);
  let last = Date.now();
  const stats = await generateRegistry({
    records,
    out: zip,
    seed,
    queriesOut: qfile,
    onProgress: (n) => {
      if (Date.now() - last > 10_000) {
        last = Date.now();
        log(`  ${n.toLocaleString("en-US")} rows`);
      }
    },
  });
  log(
    `generated in ${stats.seconds.toFixed(1)} s: ${(stats.csvBytes / 2 ** 20).toFixed(0)} MiB CSV, ${(stats.zipBytes / 2 ** 20).toFixed(1)} MiB zip`,
  );
  return { zip, queries: JSON.parse(readFileSync(qfile, "utf8")) as RegistryQueries };
}

async function main(): Promise<void> {
  const args = new Args(process.argv.slice(2));
  const records = args.int("records", 0);
  if (records < 1) throw new Error("usage: registry-shaped --records N --out FILE.zip [--seed S] [--queries FILE.json]");
  const out = path.resolve(args.requireString("out"));
  const queriesOut = path.resolve(args.string("queries") ?? out.replace(/\.zip$/, "") + ".queries.json");
  const stats = await generateRegistry({
    records,
    out,
    seed: args.int("seed", 1),
    queriesOut,
    onProgress: (n) => {
      if (n % 200_000 < 1000) process.stderr.write(`registry-shaped: ${n.toLocaleString("en-US")} rows\n`);
    },
  });
  process.stdout.write(JSON.stringify(stats, null, 2) + "\n");
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`registry-shaped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
