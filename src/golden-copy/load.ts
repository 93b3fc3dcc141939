// The loader: golden copy in, record batches per slice out. Runs on its own thread (see
// workers/loader.ts) so that parsing 5 GB of CSV never touches the front. Memory stays flat:
// the source is streamed, and at most WINDOW batches wait for the shards at any time.

import { basename, join } from "node:path";
import type { MessagePort } from "node:worker_threads";
import { RecordBatchWriter } from "../engine/record-batch.js";
import { CsvReader, type CsvRow } from "./csv.js";
import { OTHER_NAME_COLUMNS, rowEncoder, SUCCESSOR_COLUMNS, writeDocument, type RowEncoder } from "./record.js";
import { storedRecords, type BaseSlice } from "./moved-records.js";
import { TrackedRecordsWriter } from "../changes/tracked-records.js";
import { mergeOntoBase, parentsChangedSince } from "../changes/tracked-overlay.js";
import { expectedRecords, slicesFor, type SlicePlan } from "../engine/slice-count.js";
import { download, isUrl, openLocal, type OpenedSource } from "./source.js";
import { buildLevel2, type Level2Input } from "../level2/build.js";
import { RR_PARSED, type DeltaPart, type Level2Counts, type Level2Deltas, type Level2Files } from "../level2/layout.js";
import { sameFile } from "../os/same-file.js";
import type { UpstreamLimits } from "./upstream-limits.js";
import { ElfList, type ElfRow } from "../legal-forms/elf-list.js";

/** The files one load may download: Level 1 (lei2) and the four Level 2 parts. */
export type DownloadPart = "lei2" | keyof Level2Files;

/** What the API said of a file before it was fetched. */
export interface Announced {
  /** its name (the mapping API's fileName); null: the URL's basename */
  name: string | null;
  /** its bytes (the golden copy API's size) */
  size: number | null;
}

/** A GLEIF delta read after the golden copy: each of its records replaces the one of the same LEI. */
export interface DeltaInput {
  /** a local file or an http(s) URL */
  source: string;
  /** data rows the delta must hold (its record_count), when announced */
  expectedRows: number | null;
  /** its bytes, when announced */
  size: number | null;
}

export interface LoaderInput {
  source: string;
  /** deltas applied on top of `source`, oldest first; the last record of an LEI wins */
  deltas?: readonly DeltaInput[];
  dataDir: string;
  slicing: SlicePlan;
  /** the publication's record count, when the caller knows it (GLEIF's API); else the CSV's size tells */
  announcedRecords: number | null;
  /** the publication, when the caller knows it (from GLEIF's API); else read from the file name */
  published?: string | null;
  /** the Level 2 files (paths or URLs) and their checks; the tables go to `dir` */
  level2: Level2Input & { dir: string };
  /** what GLEIF's API announced of each file, when it did */
  announced?: Partial<Record<DownloadPart, Announced>>;
  limits: UpstreamLimits;
  /** the ELF code list (bundled, or --legal-forms) as the server read it */
  legalForms: { rows: readonly ElfRow[]; digest: string };
  /**
   * an overlay over a full load (engine/collection.ts finishOnto): the records of `deltas` go to
   * one slice, with the full load's records whose parents the new Level 2 changes (re-encoded
   * from its slices `baseSlices`), and the tracked records are made whole from the full load's
   * in `baseLevel2`
   */
  overlay?: { baseLevel2: string; baseSlices: BaseSlice[] };
}

export type LoaderMessage =
  | { type: "batch"; slice: number; payload: Uint8Array }
  | { type: "log"; message: string }
  | {
      type: "done";
      /** the slices the records went to: 0 … slices-1 */
      slices: number;
      rows: number;
      records: number;
      skipped: number;
      published: string | null;
      /** the local file that was read: the download, for a URL */
      file: string;
      /** the local files of the deltas read after it, in order */
      deltaFiles: string[];
      /** data rows of the last delta */
      lastDeltaRows: number;
      /** an overlay: records of the full file it carries because their parents changed */
      reparented: number;
      downloadSeconds: number | null;
      ingestSeconds: number;
      level2: Level2Counts;
      /** the Level 2 parts that failed (a partial load only: each carried or empty), and why */
      partFailures: Partial<Record<keyof Level2Files, string>>;
      /** the only LEIs whose exceptions can differ from the live collection's; null: any (level2/build.ts) */
      exceptionLeis: string[] | null;
    }
  | { type: "error"; message: string };

export type LoaderControl = { type: "ack" };

const BATCH_RECORDS = 2000;
const WINDOW = 16;

export async function runLoader(input: LoaderInput, port: MessagePort): Promise<void> {
  let outstanding = 0;
  let wake: (() => void) | null = null;
  port.on("message", (m: LoaderControl) => {
    if (m.type === "ack") {
      outstanding--;
      wake?.();
    }
  });
  const post = (m: LoaderMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

  const downloadStarted = Date.now();
  const carry = input.level2.carry ?? null;
  const localCopy = async (part: DownloadPart, source: string, announced = input.announced?.[part]): Promise<string> => {
    if (!isUrl(source)) return source;
    post({ type: "log", message: `downloading ${source}` });
    // a file fetched again under the name of the live copy must not replace that copy before it passed its checks
    const keptPath = part === "lei2" ? null : (carry?.[part] ?? null);
    const kept = keptPath === null ? null : basename(keptPath);
    return download(source, join(input.dataDir, "downloads"), {
      name: announced?.name ?? null,
      nameFor: (name) => (downloadName(part, name) === kept ? downloadName(part, `again-${name}`) : downloadName(part, name)),
      announced: announced?.size ?? null,
      limits: input.limits,
      onProgress: (p) => {
        const rate = p.bytes / Math.max(p.seconds, 0.001);
        const eta = p.total ? ` ETA ${Math.round((p.total - p.bytes) / rate)} s` : "";
        post({ type: "log", message: `downloaded ${(p.bytes / 1e6).toFixed(1)} MB at ${(rate / 1e6).toFixed(1)} MB/s${eta}` });
      },
    });
  };
  const path = await localCopy("lei2", input.source);
  const deltas = input.deltas ?? [];
  const deltaFiles: string[] = [];
  for (const delta of deltas) deltaFiles.push(await localCopy("lei2", delta.source, { name: null, size: delta.size }));
  const sources = input.level2.files;
  const level2Files: Level2Files = { rr: null, repex: null, isin: null, bic: null };
  const level2Deltas: Level2Deltas = {};
  const failed = { ...input.level2.failed };
  const fullSources = input.level2.fullSources ?? {};
  for (const part of ["rr", "repex", "isin", "bic"] as const) {
    const source = sources[part];
    if (source === null || failed[part] !== undefined) continue;
    try {
      level2Files[part] = await localCopy(part, source);
      const after = part === "rr" || part === "repex" ? (input.level2.deltas?.[part] ?? []) : [];
      const full = part === "rr" || part === "repex" ? fullSources[part] : undefined;
      try {
        const local: string[] = [];
        for (const delta of after) local.push(await localCopy(part, delta, { name: null, size: null }));
        if (local.length > 0) level2Deltas[part as DeltaPart] = local;
      } catch (err) {
        if (full === undefined) throw err;
        post({ type: "log", message: `Level 2 ${part}: a delta could not be fetched (${(err as Error).message}); loading its full file` });
        level2Files[part] = await localCopy(part, full);
      }
    } catch (err) {
      // in a partial load a part that cannot be downloaded is built from the live copy instead
      if (!input.level2.partial) throw err;
      failed[part] = (err as Error).message;
      post({ type: "log", message: `Level 2 ${part}: ${failed[part]}; the live copy stands in` });
    }
  }
  const fetched = [
    input.source,
    ...deltas.map((d) => d.source),
    ...Object.values(sources),
    ...Object.values(input.level2.deltas ?? {}).flat(),
  ].some((s) => s !== null && isUrl(s));
  const downloadSeconds = fetched ? (Date.now() - downloadStarted) / 1000 : null;

  const started = Date.now();
  const level2 = await buildLevel2(
    {
      ...input.level2,
      files: level2Files,
      failed,
      deltas: level2Deltas,
      fullFile: (part) => {
        const full = fullSources[part];
        return full === undefined ? Promise.reject(new Error(`no full ${part} file to fall back on`)) : localCopy(part, full);
      },
      log: (message) => post({ type: "log", message }),
    },
    input.level2.dir,
  );
  post({
    type: "log",
    message: `Level 2: ${level2.counts.relationships} relationship records, ${level2.counts.exceptions} reporting exceptions, ${level2.counts.isins} ISIN and ${level2.counts.bics} BIC pairs`,
  });
  for (const [part, reason] of Object.entries(level2.failures)) {
    const from = level2.counts.files[part as keyof Level2Files];
    post({
      type: "log",
      message: `Level 2 ${part} failed (${reason}); ${from === null ? "it is empty" : `built from the live copy ${basename(from)}`}`,
    });
  }
  const overlay = input.overlay ?? null;
  const opened = overlay === null ? await openLocal(path) : null;
  const expected = opened === null ? null : expectedRecords(input.announcedRecords, opened.size);
  const slices = overlay !== null ? 1 : slicesFor(input.slicing, expected);
  post({
    type: "log",
    message:
      overlay !== null
        ? "one overlay slice for the deltas' records"
        : `${slices} slice(s) for ${expected === null ? "an unknown number of" : `about ${expected}`} records`,
  });
  const pending = Array.from({ length: slices }, () => new RecordBatchWriter());
  const legalForms = new ElfList(input.legalForms.rows, input.legalForms.digest);
  // the change feed's fingerprint of each record, beside the Level 2 tables (changes/tracked-records.ts)
  const tracked = new TrackedRecordsWriter(input.level2.dir);
  let encoder: RowEncoder | null = null;
  let records = 0;
  let skipped = 0;
  const full: number[] = [];

  let header: string[] | null = null;
  let rows = 0;
  let lastDeltaRows = 0;
  /** an overlay's LEIs so far */
  const overlayLeis = new Set<string>();
  /**
   * Reads one file: the golden copy, then each delta, whose columns must be the golden copy's.
   * `only`: the LEIs to take from it, the others are passed over.
   */
  const readFile = async (
    file: string,
    delta: DeltaInput | null,
    opened: OpenedSource,
    only: ReadonlySet<string> | null = null,
  ): Promise<void> => {
    let first = true;
    const reader = new CsvReader((row: CsvRow) => {
      if (first) {
        first = false;
        const names = Array.from({ length: row.length }, (_, i) => row.field(i));
        if (header === null) {
          header = names;
          encoder = rowEncoder(names, level2.parents, legalForms);
          tracked.header(names, OTHER_NAME_COLUMNS, SUCCESSOR_COLUMNS);
        } else if (names.length !== header.length || names.some((n, i) => n !== header![i])) {
          throw new Error(`delta ${basename(file)}: its columns differ from the golden copy's`);
        }
        return;
      }
      const s = encoder!.sliceOf(row, slices);
      if (s < 0) {
        if (only === null) skipped++;
        return;
      }
      if (overlay !== null) {
        const lei = encoder!.leiOf(row);
        if (only !== null && !only.has(lei)) return;
        overlayLeis.add(lei);
      }
      records++;
      encoder!.write(row, pending[s]);
      tracked.add(row, level2.parents);
      if (pending[s].records === BATCH_RECORDS) full.push(s);
    });
    try {
      for await (const chunk of opened.stream) {
        reader.push(chunk as Buffer);
        while (full.length > 0) await flush(full.shift()!);
      }
      reader.end();
    } finally {
      opened.close();
    }
    if (first) throw new Error(`${delta === null ? "golden copy" : `delta ${basename(file)}`} is empty: no header row`);
    if (only !== null) return;
    const dataRows = reader.rows - 1;
    if (delta !== null && delta.expectedRows !== null && dataRows !== delta.expectedRows) {
      throw new Error(`delta ${basename(file)} holds ${dataRows} rows, its publication announces ${delta.expectedRows}`);
    }
    rows += dataRows;
    if (delta !== null) lastDeltaRows = dataRows;
  };

  const flush = async (s: number): Promise<void> => {
    if (pending[s].records === 0) return;
    while (outstanding >= WINDOW)
      await new Promise<void>((r) => {
        wake = r;
      });
    const payload = pending[s].finish();
    outstanding++;
    post({ type: "batch", slice: s, payload }, [payload.buffer as ArrayBuffer]);
  };

  let reparented = 0;
  try {
    if (opened !== null) await readFile(path, null, opened);
    for (let d = 0; d < deltas.length; d++) await readFile(deltaFiles[d], deltas[d], await openLocal(deltaFiles[d]));
    if (overlay !== null) {
      // records the new Level 2 moved that the deltas do not hold: re-encoded from the full load's
      // documents; the full file is read only for those that cannot be (moved-records.ts)
      // only the rr deltas' start nodes can have other parents, when their full file's rows are the base's
      const sameRows = sameFile(join(overlay.baseLevel2, RR_PARSED), join(input.level2.dir, RR_PARSED));
      const moved = parentsChangedSince(overlay.baseLevel2, level2.parents, overlayLeis, sameRows ? level2.parentLeis : null);
      const unresolved = new Set<string>();
      for (const r of storedRecords(moved, { level2Dir: overlay.baseLevel2, slices: overlay.baseSlices }, unresolved)) {
        overlayLeis.add(r.lei);
        records++;
        writeDocument(r.doc, r.otherNames, level2.parents, pending[0]);
        tracked.addTracked(r.tracked, 0, r.side, level2.parents);
        if (pending[0].records === BATCH_RECORDS) await flush(0);
      }
      if (moved.size > 0) {
        post({
          type: "log",
          message: `${moved.size} record(s) of the full load have new parents: ${moved.size - unresolved.size} re-encoded from its documents`,
        });
      }
      if (unresolved.size > 0) {
        post({ type: "log", message: `${unresolved.size} of them read from ${basename(path)}: their other names were kept joined` });
        await readFile(path, null, await openLocal(path), unresolved);
      }
      reparented = moved.size;
    }
  } catch (err) {
    tracked.abandon();
    throw err;
  }
  tracked.finish();
  if (overlay !== null) mergeOntoBase(input.level2.dir, overlay.baseLevel2);
  for (let s = 0; s < slices; s++) await flush(s);
  while (outstanding > 0)
    await new Promise<void>((r) => {
      wake = r;
    });
  post({
    type: "done",
    slices,
    rows,
    records,
    skipped,
    published: input.published ?? publishedFromName(basename(path)),
    file: path,
    deltaFiles,
    lastDeltaRows,
    reparented,
    downloadSeconds,
    ingestSeconds: (Date.now() - started) / 1000,
    level2: level2.counts,
    partFailures: level2.failures,
    exceptionLeis: level2.exceptionLeis,
  });
}

/**
 * The name a download is kept under: Level 1 keeps its own (`20260930-0800-gleif-goldencopy-lei2-golden-copy.csv.zip`),
 * each Level 2 file is `level2-<part>-<its name>`, so no two parts ever share a path, even when
 * GLEIF links both as `…/<uuid>/download`.
 */
export function downloadName(part: DownloadPart, name: string): string {
  if (part !== "lei2") return `level2-${part}-${name}`;
  return name.startsWith("level2-") ? `lei2-${name}` : name;
}

/** `20260930-0800-gleif-goldencopy-lei2-golden-copy.csv.zip` -> 2026-09-30T08:00:00Z */
export function publishedFromName(name: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})-gleif-goldencopy/.exec(name);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:00Z` : null;
}
