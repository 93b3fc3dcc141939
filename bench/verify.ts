// Checks a generated (or real) golden-copy file: opens the zip with yauzl (or reads
// the CSV), streams every record through an RFC 4180 parser, and reports row and
// column counts, LEI check digits and uniqueness, and the value mixes that the
// generator is meant to reproduce.
//
//   node dist/bench/verify.js FILE[.zip|.csv] [--sample data/sample/real-sample.csv]

import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import yauzl from "yauzl";
import { Args, isMain } from "./args.js";
import { readHeader } from "./csv.js";
import { isValidLei } from "./lei.js";
import { hash32 } from "./prng.js";

export interface VerifyReport {
  readonly entryName: string | null;
  readonly zip64: boolean | null;
  readonly rows: number;
  readonly headerMatches: boolean;
  readonly badColumnCounts: number;
  readonly invalidLeis: number;
  readonly duplicateLeis: number;
  /** Non-empty ManagingLOU or SuccessorLEI values that fail the check digits. */
  readonly invalidReferencedLeis: number;
  readonly mixes: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly nonAsciiNames: number;
  readonly distinctNameTokens: number;
}

/** Incremental RFC 4180 parser: feed text, get complete records (quoted line breaks allowed). */
export class CsvStreamParser {
  private field = "";
  private row: string[] = [];
  private inQuotes = false;
  private quotePending = false;

  feed(text: string, onRow: (row: string[]) => void): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.quotePending) {
        this.quotePending = false;
        if (c === 0x22) {
          // Doubled quote inside a quoted field.
          this.field += '"';
          start = i + 1;
          continue;
        }
        this.inQuotes = false;
      }
      if (this.inQuotes) {
        if (c === 0x22) {
          this.field += text.slice(start, i);
          this.quotePending = true;
          start = i + 1;
        }
        continue;
      }
      if (c === 0x22) {
        this.inQuotes = true;
        start = i + 1;
      } else if (c === 0x2c) {
        this.field += text.slice(start, i);
        this.row.push(this.field);
        this.field = "";
        start = i + 1;
      } else if (c === 0x0a) {
        this.field += text.slice(start, i).replace(/\r$/, "");
        this.row.push(this.field);
        onRow(this.row);
        this.row = [];
        this.field = "";
        start = i + 1;
      }
    }
    this.field += text.slice(start);
    if (this.inQuotes && this.quotePending) {
      // A quote at the very end of a chunk: decided by the next chunk.
    }
  }

  end(onRow: (row: string[]) => void): void {
    if (this.field !== "" || this.row.length > 0) {
      this.row.push(this.field);
      onRow(this.row);
    }
  }
}

export function openZipEntry(file: string): Promise<{ stream: Readable; name: string; zip64: boolean; close: () => void }> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error("yauzl: no zip"));
      if (zip.entryCount !== 1) return reject(new Error(`expected exactly one entry, found ${zip.entryCount}`));
      zip.once("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e2, stream) => {
          if (e2 || !stream) return reject(e2 ?? new Error("yauzl: no stream"));
          const zip64 =
            entry.uncompressedSize >= 0xffffffff ||
            entry.compressedSize >= 0xffffffff ||
            (entry.extraFields ?? []).some((f) => f.id === 0x0001);
          resolve({ stream, name: entry.fileName, zip64, close: () => zip.close() });
        });
      });
      zip.once("error", reject);
      zip.readEntry();
    });
  });
}

export async function verifyFile(file: string, samplePath?: string): Promise<VerifyReport> {
  const { names: expected } = await readHeader(samplePath);
  let stream: Readable;
  let entryName: string | null = null;
  let zip64: boolean | null = null;
  let close = (): void => {};
  if (file.endsWith(".zip")) {
    const z = await openZipEntry(file);
    stream = z.stream;
    entryName = z.name;
    zip64 = z.zip64;
    close = z.close;
  } else {
    stream = createReadStream(file, { highWaterMark: 1 << 20 });
  }

  const col = (n: string): number => expected.indexOf(n);
  const tracked = [
    "Entity.EntityCategory",
    "Registration.RegistrationStatus",
    "Entity.EntityStatus",
    "Entity.LegalAddress.Country",
    "Entity.LegalName.xmllang",
    "Registration.ManagingLOU",
  ];
  const trackedAt = tracked.map(col);
  const elfAt = col("Entity.LegalForm.EntityLegalFormCode");
  const jurAt = col("Entity.LegalJurisdiction");
  const nameAt = col("Entity.LegalName");
  const louAt = col("Registration.ManagingLOU");
  const successorAt = col("Entity.SuccessorEntity.1.SuccessorLEI");
  let invalidReferencedLeis = 0;
  const mixes: Record<string, Record<string, number>> = {};
  for (const t of [...tracked, "ELF 8888", "Jurisdiction level", "Legal name script"]) mixes[t] = {};
  const bump = (k: string, v: string): void => {
    const m = mixes[k]!;
    m[v] = (m[v] ?? 0) + 1;
  };

  // LEIs are kept as two exact base-36 numbers (10 characters each, below 2^53) in
  // growable typed arrays and checked for duplicates by sorting at the end: a Set of
  // strings sliced from multi-megabyte chunks would keep every chunk alive.
  let hi = new Float64Array(1 << 20);
  let lo = new Float64Array(1 << 20);
  // Distinct name tokens are counted by 32-bit hash, for the same reason.
  const tokens = new Set<number>();
  let rows = 0;
  let headerMatches = false;
  let badColumnCounts = 0;
  let invalidLeis = 0;
  let duplicateLeis = 0;
  let nonAsciiNames = 0;
  let first = true;
  const onRow = (row: string[]): void => {
    if (first) {
      first = false;
      headerMatches = row.length === expected.length && row.every((n, k) => n === expected[k]);
      return;
    }
    rows++;
    if (row.length !== expected.length) badColumnCounts++;
    const lei = row[0] ?? "";
    if (!isValidLei(lei)) invalidLeis++;
    for (const at of [louAt, successorAt]) {
      const ref = row[at] ?? "";
      if (ref !== "" && !isValidLei(ref)) invalidReferencedLeis++;
    }
    if (rows > hi.length) {
      const h2 = new Float64Array(hi.length * 2);
      h2.set(hi);
      hi = h2;
      const l2 = new Float64Array(lo.length * 2);
      l2.set(lo);
      lo = l2;
    }
    hi[rows - 1] = base36(lei, 0);
    lo[rows - 1] = base36(lei, 10);
    trackedAt.forEach((at, k) => bump(tracked[k]!, row[at] ?? ""));
    bump("ELF 8888", row[elfAt] === "8888" ? "8888" : "other");
    bump("Jurisdiction level", (row[jurAt] ?? "").includes("-") ? "subdivision" : row[jurAt] === "" ? "none" : "country");
    const name = row[nameAt] ?? "";
    if (/[^\x00-\x7f]/.test(name)) nonAsciiNames++;
    bump("Legal name script", scriptOf(name));
    if (tokens.size < 20_000_000) for (const t of name.toLowerCase().split(/[\s,.()"]+/)) if (t.length > 0) tokens.add(hash32(t));
  };

  const parser = new CsvStreamParser();
  const decoder = new StringDecoder("utf8");
  try {
    for await (const chunk of stream) parser.feed(decoder.write(chunk as Buffer), onRow);
    parser.feed(decoder.end(), onRow);
    parser.end(onRow);
  } finally {
    close();
  }
  duplicateLeis = countDuplicates(hi.subarray(0, rows), lo.subarray(0, rows));
  return {
    entryName,
    zip64,
    rows,
    headerMatches,
    badColumnCounts,
    invalidLeis,
    duplicateLeis,
    invalidReferencedLeis,
    mixes,
    nonAsciiNames,
    distinctNameTokens: tokens.size,
  };
}

function base36(text: string, from: number): number {
  let n = 0;
  for (let i = from; i < from + 10 && i < text.length; i++) {
    const c = text.charCodeAt(i);
    n = n * 36 + (c <= 57 ? c - 48 : c - 55);
  }
  return n;
}

function countDuplicates(hi: Float64Array, lo: Float64Array): number {
  const order = new Uint32Array(hi.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => hi[a]! - hi[b]! || lo[a]! - lo[b]!);
  let dups = 0;
  for (let k = 1; k < order.length; k++) {
    if (hi[order[k]!] === hi[order[k - 1]!] && lo[order[k]!] === lo[order[k - 1]!]) dups++;
  }
  return dups;
}

function scriptOf(name: string): string {
  if (/\p{Script=Han}/u.test(name)) return /[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(name) ? "Japanese" : "Han";
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(name)) return "Japanese";
  for (const s of ["Cyrillic", "Greek", "Arabic", "Hebrew", "Hangul", "Thai"]) if (new RegExp(`\\p{Script=${s}}`, "u").test(name)) return s;
  return /[^\x00-\x7f]/.test(name) ? "Latin+diacritics" : "ASCII";
}

function formatMix(mix: Readonly<Record<string, number>>, rows: number, top = 12): string {
  return Object.entries(mix)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `${k === "" ? "(empty)" : k} ${((v / rows) * 100).toFixed(2)}%`)
    .join(", ");
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (file === undefined || file.startsWith("--")) throw new Error("usage: verify FILE[.zip|.csv] [--sample PATH]");
  const args = new Args(process.argv.slice(3));
  const r = await verifyFile(file, args.string("sample"));
  const lines = [
    `file: ${file}${r.entryName !== null ? ` (entry ${r.entryName}${r.zip64 ? ", ZIP64" : ""})` : ""}`,
    `rows: ${r.rows.toLocaleString("en-US")}; header matches sample: ${r.headerMatches}; rows with wrong column count: ${r.badColumnCounts}`,
    `LEIs failing ISO 17442: ${r.invalidLeis}; duplicate LEIs: ${r.duplicateLeis}; ManagingLOU/SuccessorLEI values failing ISO 17442: ${r.invalidReferencedLeis}`,
    `names with non-ASCII characters: ${((r.nonAsciiNames / Math.max(1, r.rows)) * 100).toFixed(1)}%; distinct lower-cased name tokens (by 32-bit hash): ${r.distinctNameTokens.toLocaleString("en-US")}`,
    ...Object.entries(r.mixes).map(([k, m]) => `${k}: ${formatMix(m, r.rows)}`),
  ];
  process.stdout.write(lines.join("\n") + "\n");
  const ok = r.headerMatches && r.badColumnCounts === 0 && r.invalidLeis === 0 && r.duplicateLeis === 0;
  process.stdout.write(ok ? "verify: OK\n" : "verify: FAILED\n");
  if (!ok) process.exitCode = 1;
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`verify: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
