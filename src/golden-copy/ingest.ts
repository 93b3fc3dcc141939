// One load of a golden copy into a fresh generation: the loader thread parses, the shards build,
// and the generation goes live only when every slice is built and the counts agree. A load that
// fails for any reason leaves the live collection as it was.

import { basename } from "node:path";
import { Worker } from "node:worker_threads";
import type { Collection } from "../engine/collection.js";
import { WORKER_YOUNG_GENERATION_MB } from "../engine/pool.js";
import { DOCUMENT_VERSION, MANIFEST_FORMAT, type CollectionFiles, type CollectionManifest } from "../store/collection-files.js";
import type { Announced, DeltaInput, DownloadPart, LoaderControl, LoaderInput, LoaderMessage } from "./load.js";
import type { UpstreamLimits } from "./upstream-limits.js";
import { isUrl } from "./source.js";
import { renameSync } from "node:fs";
import { FamilyData } from "../level2/family-data.js";
import type { Level2Input } from "../level2/build.js";
import type { Level2Files } from "../level2/layout.js";
import type { ElfRow } from "../legal-forms/elf-list.js";
import type { SourceParts } from "./source-parts.js";
import type { ChangeFeed, LoadChanges } from "../changes/feed.js";

export interface LoadRequest {
  /** a local CSV or zip, or an http(s) URL */
  source: string;
  /** GLEIF deltas read after it, oldest first: the last record of an LEI wins */
  deltas?: readonly DeltaInput[];
  /** the window of the delta this load applies (the last of `deltas`); absent: a full load */
  deltaWindow?: string;
  /** when the full file under `deltas` was loaded; absent: this load is the full load */
  fullLoadedAt?: string;
  dataDir: string;
  /** the publication, when known before reading the file (GLEIF's API tells) */
  published: string | null;
  /** human text for /v1/stats `source` */
  describe: string;
  /** data rows the file must hold (GLEIF's record_count), when known */
  expectedRows: number | null;
  /** distinct LEIs the collection must hold, when known: a load with deltas against the publication's record_count */
  expectedLeis?: number | null;
  /** fewer records than this is a broken file, not a smaller registry */
  minRecords: number;
  /** the bundled sample, standing in until a real source loads */
  fallback: boolean;
  /** the bundled sample, as the configured source or the fallback: the collection lei_sample */
  sample: boolean;
  /** the configured source this load serves, recorded so a restart with another one reloads */
  origin: string;
  files: CollectionFiles;
  log: (line: string) => void;
  /** the Level 2 files (paths or URLs), loaded with Level 1 and swapped with it */
  level2: Level2Input;
  /** what GLEIF's API announced of the files to download */
  announced?: Partial<Record<DownloadPart, Announced>>;
  limits: UpstreamLimits;
  /** the ELF code list the records' legal-form names come from: its file, its digest for the manifest, and its rows as read */
  legalForms: { file: string; digest: string; rows: readonly ElfRow[] };
  /** the states of the separately fetched parts (source-parts.ts), from what the loader reports; none: not recorded */
  parts?: (loaded: { failures: Done["partFailures"]; files: Level2Files; loadedAt: string }) => SourceParts | undefined;
  /** the change feed: compares the load with the live collection before it goes live */
  changes?: ChangeFeed;
  /**
   * a delta laid over the live generation `gen` instead of a rebuild: `deltas` (the whole chain)
   * become one overlay slice beside the partitioned slices of `base`, the full load `gen` serves
   * (engine/collection.ts finishOnto); `source` is that full load's file
   */
  onto?: { gen: number; base: { name: string; slices: number } };
}

export class LoadCheckError extends Error {}
/** The file holds fewer records than the load allows (a share of the last load's): a broken file, or a shrink not asked for. */
export class TooFewRecordsError extends LoadCheckError {}

/**
 * Loads, checks, persists and swaps. The new collection goes live only after every slice is
 * built and written, and its manifest and the alias are on disk: a crash before that point
 * leaves the previous collection as the one a restart serves.
 */
export async function loadInto(collection: Collection, req: LoadRequest): Promise<CollectionManifest> {
  const started = Date.now();
  // an overlay fits the generation it was planned on, live when the load was asked for
  if (req.onto !== undefined && collection.current?.gen !== req.onto.gen) {
    throw new LoadCheckError("the live collection changed while the delta waited for its turn");
  }
  // what a load killed midway left there goes first: its Level 2 files may be links of the live collection's, which this load must not write through
  req.files.clearScratch();
  const gen = await collection.begin(req.files.scratch);
  let name: string | null = null;
  try {
    const done = await runLoaderThread(collection, gen, req);
    if (done.records === 0) throw new LoadCheckError("golden copy holds no records");
    if (req.expectedRows !== null && done.rows !== req.expectedRows) {
      throw new LoadCheckError(`golden copy holds ${done.rows} rows, its publication announces ${req.expectedRows}`);
    }
    // twice: the records parsed fail early, before a build; the distinct LEIs built, which a
    // delta's repeated LEIs make fewer, once it is done
    if (req.onto === undefined && done.records < req.minRecords) {
      throw new TooFewRecordsError(
        `golden copy holds ${done.records} records, far below the ${req.minRecords} expected from the last load`,
      );
    }
    const buildStarted = Date.now();
    req.log(`parsed ${done.records} records in ${done.ingestSeconds.toFixed(1)} s; finishing ${done.slices} slice(s)`);
    const current = req.files.current();
    const collectionName = collectionNameOf(done.published, req.sample, [current?.name, current?.base?.name, req.onto?.base.name]);
    name = collectionName;
    req.files.prepare(collectionName);
    const segmentOf = (s: number): string => req.files.segment(collectionName, s);
    const sliceDocs =
      req.onto === undefined
        ? await collection.finish(gen, done.slices, segmentOf)
        : await collection.finishOnto(gen, req.onto.gen, done.slices, segmentOf);
    renameSync(req.files.scratchLevel2, req.files.level2(collectionName));
    const family = FamilyData.open(req.files.level2(collectionName));
    const built = sliceDocs.reduce((a, b) => a + b, 0);
    if (req.onto === undefined && built > done.records) {
      throw new LoadCheckError(`slices hold ${built} docs but ${done.records} records were parsed`);
    }
    if (req.expectedLeis !== undefined && req.expectedLeis !== null && built !== req.expectedLeis) {
      throw new LoadCheckError(`the golden copy and its deltas hold ${built} LEIs, the publication announces ${req.expectedLeis}`);
    }
    if (built < req.minRecords) {
      throw new TooFewRecordsError(`golden copy holds ${built} distinct LEIs, far below the ${req.minRecords} expected from the last load`);
    }
    const ingestSeconds = done.ingestSeconds + (Date.now() - buildStarted) / 1000;
    const loadedAt = new Date().toISOString();
    // the change feed, stored before the manifest and the swap: a kill -9 from here on loses none (changes/feed.ts)
    let changes: LoadChanges | null = null;
    try {
      const dir = req.files.level2(collectionName);
      // laid over the live records, only the LEIs of either overlay can differ
      const only = req.onto && [await collection.overlayLeis(gen), await collection.overlayLeis(req.onto.gen)];
      const load = {
        gen,
        dir,
        published: done.published,
        fallback: req.fallback,
        origin: req.origin,
        files: req.files,
        log: req.log,
        only: { leis: only, exceptionLeis: done.exceptionLeis ?? undefined },
      };
      changes = (await req.changes?.compare(load)) ?? null;
    } catch (err) {
      family.close();
      throw err;
    }
    const manifest: CollectionManifest = {
      format: MANIFEST_FORMAT,
      name: collectionName,
      source: req.describe,
      published: done.published,
      records: built,
      sliceDocs,
      downloadSeconds: done.downloadSeconds,
      ingestSeconds,
      loadedAt,
      download: done.file,
      fallback: req.fallback,
      origin: req.origin,
      level2: done.level2,
      legalForms: req.legalForms.digest,
      parts: req.parts?.({ failures: done.partFailures, files: done.level2.files, loadedAt }),
      documents: DOCUMENT_VERSION,
      changes,
      deltas: done.deltaFiles,
      fullLoadedAt: req.fullLoadedAt ?? loadedAt,
      base: req.onto?.base,
      delta:
        req.deltaWindow === undefined
          ? null
          : {
              window: req.deltaWindow,
              file: basename(done.deltaFiles[done.deltaFiles.length - 1] ?? ""),
              rows: done.lastDeltaRows,
              downloadSeconds: done.downloadSeconds,
              seconds: (Date.now() - started) / 1000,
            },
    };
    try {
      req.files.commit(manifest);
    } catch (err) {
      family.close();
      throw err;
    }
    collection.swap(gen, sliceDocs, manifest, family);
    if (req.onto !== undefined) {
      req.log(
        `laid ${done.records} records of the deltas${done.reparented > 0 ? ` (${done.reparented} of them for their new parents)` : ""} over the ${req.onto.base.slices} slice(s) of ${req.onto.base.name}`,
      );
    } else if (built !== done.records) {
      req.log(
        done.deltaFiles.length > 0
          ? `${done.records - built} records of the deltas replaced earlier ones of the same LEI`
          : `${done.records - built} duplicate LEI rows were folded into one record each`,
      );
    }
    if (done.skipped > 0) req.log(`${done.skipped} rows skipped: their LEI is not 20 upper-case letters or digits`);
    return manifest;
  } catch (err) {
    // the load's own error is the one to report: a cleanup that fails too is only logged
    await cleanUp(req, "its generation", () => collection.abandon(gen));
    if (name !== null) await cleanUp(req, "its partial files", () => req.files.removeAllBut(req.files.current()?.name ?? ""));
    throw err;
  } finally {
    await cleanUp(req, "its scratch files", () => req.files.clearScratch());
  }
}

async function cleanUp(req: LoadRequest, what: string, work: () => unknown): Promise<void> {
  try {
    await work();
  } catch (err) {
    req.log(`a failed load could not remove ${what}: ${(err as Error).message}`);
  }
}

/**
 * `lei_<publication>`, e.g. lei_20260930-0800; files without a stamp are named by load time.
 * Reloading the collection on disk gets a second name, so the live one (and the one it is
 * derived from) is never overwritten.
 */
function collectionNameOf(published: string | null, sample: boolean, taken: (string | undefined)[]): string {
  const m = published ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(published) : null;
  const name = sample
    ? "lei_sample"
    : m
      ? `lei_${m[1]}${m[2]}${m[3]}-${m[4]}${m[5]}`
      : `lei_loaded-${new Date()
          .toISOString()
          .replace(/[^0-9]/g, "")
          .slice(0, 14)}`;
  return taken.includes(name) ? `${name}_b` : name;
}

type Done = Extract<LoaderMessage, { type: "done" }>;

function runLoaderThread(collection: Collection, gen: number, req: LoadRequest): Promise<Done> {
  const input: LoaderInput = {
    source: req.source,
    deltas: req.deltas,
    dataDir: req.dataDir,
    slicing: collection.slicePlan,
    announcedRecords: req.expectedRows,
    published: req.published,
    level2: { ...req.level2, dir: req.files.scratchLevel2 },
    announced: req.announced,
    limits: req.limits,
    // the rows the digest was taken of, not the file read again: it may have changed since
    legalForms: { rows: req.legalForms.rows, digest: req.legalForms.digest },
    overlay: req.onto && {
      baseLevel2: req.files.level2(req.onto.base.name),
      baseSlices: collection.partitionedFiles(req.onto.gen).map((f) => ({ docFile: f.docFile, leis: f.leis })),
    },
  };
  // an overlay's slices are numbered after the partitioned ones
  const first = req.onto?.base.slices ?? 0;
  const worker = new Worker(new URL("../../workers/loader.js", import.meta.url), {
    workerData: input,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  const label = isUrl(req.source) ? req.source : basename(req.source);
  // The loader posts "done" only once every batch was acknowledged, that is, added to its slice.
  return new Promise<Done>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, done?: Done): void => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      if (err) reject(err);
      else resolve(done!);
    };
    worker.on("message", (m: LoaderMessage) => {
      switch (m.type) {
        case "batch": {
          collection.add(gen, first + m.slice, m.payload).then(
            () => {
              const ack: LoaderControl = { type: "ack" };
              if (!settled) worker.postMessage(ack);
            },
            (e: Error) => finish(e),
          );
          break;
        }
        case "log":
          req.log(`load ${label}: ${m.message}`);
          break;
        case "done":
          finish(null, m);
          break;
        case "error":
          finish(new Error(m.message));
          break;
      }
    });
    worker.on("error", (e) => finish(e));
    worker.on("exit", (code) => finish(new Error(`loader thread exited with code ${code}`)));
  });
}
