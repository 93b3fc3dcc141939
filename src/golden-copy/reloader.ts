// Keeps the right collection live: at start-up from the persisted segments (or a first load),
// then a reload every day at --reload-at, on SIGHUP, and after a failure with backoff. With GLEIF
// as the source, a publication already loaded is skipped; when GLEIF cannot be reached and nothing
// is on disk, the bundled sample stands in, says so, and is replaced as soon as a load succeeds.
// One load runs at a time; a load that fails leaves the live collection untouched. A GLEIF load
// needs Level 1 only: a Level 2 part that cannot be fetched keeps the live copy (source-parts.ts),
// and the load runs again with backoff until every part is fresh.

import { existsSync, readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Collection, LiveGeneration } from "../engine/collection.js";
import type { DeltaCost } from "../engine/collection-view.js";
import { servesSlices } from "../engine/slice-count.js";
import { FamilyData } from "../level2/family-data.js";
import type { Metrics } from "../http/metrics.js";
import { CollectionFiles, DOCUMENT_VERSION, type CollectionManifest } from "../store/collection-files.js";
import { uploadsInProgress } from "../store/uploads-in-progress.js";
import { isDiskFull } from "../store/disk-floor.js";
import { isoPublished, latestPublication, type Publication } from "./gleif-api.js";
import { deltaFor, deltaInputs, keptMappings, liveLevel1, liveLevel2, type ChosenDelta } from "./deltas.js";
import type { PartsPlan } from "./part-metadata.js";
import { fetchPartsMetadata } from "./part-metadata.js";
import { oneLineReason, partStates, SOURCE_PARTS, staleParts, type PartState, type SourcePart, type SourceParts } from "./source-parts.js";
import type { ElfRow } from "../legal-forms/elf-list.js";
import { loadInto, TooFewRecordsError, type LoadRequest } from "./ingest.js";
import { canCompare } from "../changes/detect.js";
import type { ChangeFeed } from "../changes/feed.js";
import type { Level2Input } from "../level2/build.js";
import { DELTA_PARTS, NO_LEVEL2_FILES, type DeltaPart, type Level2Deltas, type Level2Files } from "../level2/layout.js";
import type { UpstreamLimits } from "./upstream-limits.js";

export type SourceSetting =
  | { kind: "gleif"; api: string; mappingApi: string }
  | { kind: "sample"; path: string }
  | { kind: "given"; source: string; level2: Level2Files };

export interface ReloaderOptions {
  source: SourceSetting;
  bundledSample: string;
  /** the bundled sample's Level 2 files (data/sample/level2/) */
  bundledLevel2: Level2Files;
  dataDir: string;
  reloadAtMinutes: number;
  /** hours between checks for a new GLEIF publication between the daily full loads, applied from a delta; 0: none */
  deltaHours: number;
  retrySeconds: number;
  /** deadlines, size caps and the disk floor of GLEIF's APIs and downloads */
  limits: UpstreamLimits;
  /** the ELF code list the legal-form names come from (bundled, or --legal-forms) */
  legalForms: { file: string; digest: string; rows: readonly ElfRow[] };
  /** the change feed each load is compared and recorded by before it goes live */
  changes?: ChangeFeed;
  log: (line: string) => void;
}

/** A reload may shrink the registry a little; below this share of the last load it is a broken file. */
const MIN_SHARE_OF_LAST_LOAD = 0.9;
const MAX_RETRY_SECONDS = 3600;
const DAY_MS = 86_400_000;
/** loads that may try the same Level 2 file after it failed, before waiting for another file */
const REFUSED_FILE_TRIES = 3;

const LOAD_FAILURES = "leidex_load_failures_total";
const LOAD_FAILURES_HELP = "Loads that failed since start-up.";
const DELTAS_APPLIED = "leidex_delta_loads_total";
const DELTAS_APPLIED_HELP = "GLEIF deltas applied since start-up.";
const DELTA_FALLBACKS = "leidex_delta_fallbacks_total";
const DELTA_FALLBACKS_HELP =
  "GLEIF deltas that failed a check or could not be fetched, so that the full file was loaded instead, since start-up.";

export class Reloader {
  private readonly files: CollectionFiles;
  private loading: Promise<void> | null = null;
  /** every load, the fallback and rebuilds included, runs after the one before it */
  private queue: Promise<unknown> = Promise.resolve();
  /** sources of the loads queued or running: their files are not to be cleaned away */
  private readonly queuedSources: string[] = [];
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private dailyTimer: NodeJS.Timeout | null = null;
  private deltaTimer: NodeJS.Timeout | null = null;
  /** the publication whose delta failed: loaded from its full file, never from that delta again */
  private refusedDelta: string | null = null;
  /** the last daily full load of a publication the deltas had built: field changes between the two */
  private lastDrift: { published: string; changes: number } | null = null;
  private stopped = false;
  private lastLoad: { seconds: number; recordsPerSecond: number; at: number } | null = null;
  /** retries in a row of a load that left a part stale or missing (the backoff's exponent) */
  private staleRetries = 0;
  /** per stale part, the file a load fetched and could not use: not fetched again while GLEIF announces it */
  private refusedFiles = new Map<SourcePart, { file: string; tries: number }>();

  constructor(
    private readonly collection: Collection,
    private readonly opts: ReloaderOptions,
    private readonly metrics: Metrics,
  ) {
    this.files = new CollectionFiles(opts.dataDir);
    metrics.gauge("leidex_load_duration_seconds", "Seconds the last successful load took (download and ingest)", () =>
      this.lastLoad ? [[{}, this.lastLoad.seconds]] : [],
    );
    metrics.gauge("leidex_load_records_per_second", "Records per second of the last successful ingest", () =>
      this.lastLoad ? [[{}, this.lastLoad.recordsPerSecond]] : [],
    );
    metrics.gauge("leidex_load_last_success_timestamp_seconds", "Unix time of the last successful load", () =>
      this.lastLoad ? [[{}, this.lastLoad.at]] : [],
    );
    metrics.increment(LOAD_FAILURES, LOAD_FAILURES_HELP, 0);
    metrics.increment(DELTAS_APPLIED, DELTAS_APPLIED_HELP, 0);
    metrics.increment(DELTA_FALLBACKS, DELTA_FALLBACKS_HELP, 0);
    const deltaGauge = (name: string, help: string, value: (delta: DeltaCost) => number): void =>
      metrics.gauge(
        name,
        help,
        () => {
          const delta = this.collection.current?.delta;
          return delta ? [[{ window: delta.window }, value(delta)]] : [];
        },
        ["window"],
      );
    deltaGauge(
      "leidex_delta_apply_seconds",
      "Seconds the live collection's delta load took, downloads included; none after a full load",
      (d) => d.seconds,
    );
    deltaGauge("leidex_delta_records", "Records of the delta the live collection applied; none after a full load", (d) => d.rows);
    metrics.gauge(
      "leidex_delta_drift_changes",
      "Field changes the last daily full load found against the collection the deltas had built of the same publication (0: none)",
      () => (this.lastDrift ? [[{}, this.lastDrift.changes]] : []),
    );
    const partGauge = (value: (state: PartState) => number | null) => (): [Record<string, string>, number][] => {
      const parts = this.collection.current?.parts;
      if (!parts) return [];
      return SOURCE_PARTS.flatMap((part) => {
        const v = parts[part] ? value(parts[part]) : null;
        return v === null ? [] : [[{ part }, v] as [Record<string, string>, number]];
      });
    };
    metrics.gauge(
      "leidex_source_part_stale",
      "1 when a part of the live collection (rr, repex, isin, bic) is an earlier load's copy or missing, 0 when fresh",
      partGauge((state) => (state.status === "fresh" ? 0 : 1)),
      ["part"],
    );
    metrics.gauge(
      "leidex_source_part_stale_since_timestamp_seconds",
      "Unix time since which a part is stale (its copy's load) or missing (its first failure)",
      partGauge((state) => (state.since === null ? null : Date.parse(state.since) / 1000)),
      ["part"],
    );
  }

  /**
   * Serves something: the persisted collection when it opens, else a first load. Rejects only
   * when an explicitly given source cannot be loaded and nothing is on disk.
   */
  async start(reloadNow: boolean): Promise<void> {
    const found = this.files.current();
    const onDisk = found && found.origin === originOf(this.opts.source) ? found : null;
    if (found && !onDisk) this.opts.log(`${found.name} on disk was loaded from ${found.origin}; loading the configured source instead`);
    if (onDisk && !reloadNow && (await this.openOrRebuild(onDisk))) {
      this.scheduleDaily();
      if (this.opts.source.kind === "gleif" || onDisk.fallback) this.reloadInBackground(false);
      return;
    }
    try {
      await this.loadSource(reloadNow);
    } catch (err) {
      this.failed(err);
      // a forced reload that fails still has the collection on disk to fall back on
      const served = this.collection.current !== null || (onDisk !== null && reloadNow && (await this.openOrRebuild(onDisk)));
      if (!served) {
        if (this.opts.source.kind !== "gleif") throw err;
        await this.serveFallback((err as Error).message);
      }
    }
    this.scheduleDaily();
  }

  /**
   * Checks the source now (SIGHUP, the delta checks): a publication already live is skipped, a
   * new one is applied from a delta where one covers it. `full`: the daily full load.
   */
  reloadInBackground(force: boolean, full = false): void {
    if (this.stopped) return;
    void this.loadSource(force, full).catch((err: Error) => this.failed(err));
  }

  /**
   * An uploaded golden copy (the keyed API's import) becomes the live collection, checked like
   * a reload: unless `allowShrink`, it must hold at least 90 % of the live collection's records
   * (when that is not the fallback). The next reload of the configured source replaces it. A
   * refusal is logged once with its full reason and rejects with ImportRefused, whose message
   * names no server path.
   */
  async importFile(path: string, opts: { allowShrink: boolean }): Promise<CollectionManifest> {
    try {
      // not a fallback load, so run() always yields its manifest
      // an import replaces Level 1 only: the live collection's Level 2 files come along
      const live = this.files.current();
      return (await this.run({
        source: path,
        published: null,
        expectedRows: null,
        level2: { ...this.level2Input(live?.level2.files ?? NO_LEVEL2_FILES, null, null, !opts.allowShrink), deltas: live?.level2.deltas },
        minRecords: opts.allowShrink ? 1 : this.minRecords(),
        fallback: false,
        sample: false,
        describe: `GLEIF Level 1 golden copy imported through the keyed API at ${new Date().toISOString()}; the next reload of the configured source replaces it`,
        parts: () => live?.parts,
      }))!;
    } catch (err) {
      rmSync(path, { force: true });
      const reason = (err as Error).message;
      const live = this.collection.current;
      this.opts.log(`import refused: ${reason}; ${live ? `${live.name} stays live` : "nothing is live yet"}`);
      throw new ImportRefused(withoutServerPaths(reason, path, this.opts.dataDir), err instanceof TooFewRecordsError, diskFull(err));
    } finally {
      uploadsInProgress.release(path); // kept as the live download now, or gone
    }
  }

  /**
   * What a load reads for Level 2, and the least it must hold: with `checked`, a share of the live
   * collection's counts (as for Level 1), else nothing.
   */
  private level2Input(files: Level2Files, rr: number | null, repex: number | null, checked: boolean): Level2Input {
    const counts = checked ? this.realLive()?.family?.counts : undefined;
    const share = (n: number | undefined): number => Math.floor((n ?? 0) * MIN_SHARE_OF_LAST_LOAD);
    return {
      files,
      expectedRows: { rr, repex },
      minimum: {
        relationships: share(counts?.relationships),
        exceptions: share(counts?.exceptions),
        isins: share(counts?.isins),
        bics: share(counts?.bics),
      },
    };
  }

  /** The live collection, unless it is the fallback: what a load's counts are checked against. */
  private realLive(): LiveGeneration | null {
    const live = this.collection.current;
    return live && !live.fallback ? live : null;
  }

  /** Records a load of the configured source (or an import) must hold: a share of the live collection's. */
  private minRecords(): number {
    return Math.max(1, Math.floor((this.realLive()?.docs ?? 0) * MIN_SHARE_OF_LAST_LOAD));
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.dailyTimer) clearTimeout(this.dailyTimer);
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
  }

  /**
   * Opens the persisted collection; a broken or mismatched one is rebuilt from its kept download.
   * One whose legal-form names come from another ELF list is served, and rebuilt meanwhile.
   */
  private async openOrRebuild(manifest: CollectionManifest): Promise<boolean> {
    const started = Date.now();
    if (servesSlices(this.collection.slicePlan, manifest.base?.slices ?? manifest.sliceDocs.length)) {
      try {
        const family = FamilyData.open(this.files.level2(manifest.name));
        const { gen, sliceDocs } = await this.openSegments(manifest).catch((err: unknown) => {
          family.close();
          throw err;
        });
        if (sliceDocs.some((n, s) => n !== manifest.sliceDocs[s])) {
          family.close();
          await this.collection.abandon(gen);
          throw new Error("segment document counts differ from the manifest");
        }
        this.collection.swap(gen, sliceDocs, manifest, family);
        this.opts.log(
          `serving ${manifest.name} (${manifest.records} records) from its segments in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
        const outdated =
          manifest.legalForms !== this.opts.legalForms.digest
            ? "with another legal-form list"
            : manifest.documents !== DOCUMENT_VERSION
              ? "with older document fields"
              : null;
        if (outdated !== null && manifest.download && existsSync(manifest.download)) {
          this.opts.log(`${manifest.name} was built ${outdated}: rebuilding it from ${manifest.download}`);
          void this.run(this.rebuildOf(manifest, manifest.download)).catch((err: unknown) => this.failed(err));
        }
        return true;
      } catch (err) {
        this.opts.log(`segments of ${manifest.name} cannot be served: ${(err as Error).message}`);
      }
    } else {
      this.opts.log(
        `${manifest.name} was built for ${manifest.base?.slices ?? manifest.sliceDocs.length} slices, --shards asks for ${this.collection.slicePlan.fixed}`,
      );
    }
    const kept = [manifest.download, ...(manifest.deltas ?? []), ...Object.values(manifest.level2.deltas ?? {}).flat()];
    if (!manifest.download || !kept.every((f) => f !== null && existsSync(f))) {
      this.opts.log(`the download ${manifest.name} was built from is gone; loading the source again`);
      return false;
    }
    this.opts.log(`rebuilding ${manifest.name} from ${manifest.download}`);
    try {
      await this.run(this.rebuildOf(manifest, manifest.download));
      return true;
    } catch (err) {
      this.failed(err);
      return false;
    }
  }

  /** A persisted collection's generation, opened from its segments (and those of the full load it is derived from). */
  private async openSegments(manifest: CollectionManifest): Promise<{ gen: number; sliceDocs: number[] }> {
    const base = manifest.base;
    if (base === undefined) return this.collection.open(manifest.sliceDocs.length, (s) => this.files.segment(manifest.name, s));
    const under = await this.collection.open(base.slices, (s) => this.files.segment(base.name, s));
    return this.collection.openOnto(under.gen, manifest.sliceDocs.length - base.slices, (s) => this.files.segment(manifest.name, s));
  }

  /** A load of the download a persisted collection was built from, as it was loaded. */
  private rebuildOf(manifest: CollectionManifest, download: string): Parameters<Reloader["run"]>[0] {
    return {
      source: download,
      deltas: (manifest.deltas ?? []).map((source) => ({ source, expectedRows: null, size: null })),
      fullLoadedAt: manifest.fullLoadedAt,
      published: manifest.published,
      describe: manifest.source,
      expectedRows: null,
      level2: { ...this.level2Input(manifest.level2.files, null, null, false), deltas: manifest.level2.deltas },
      minRecords: 1,
      fallback: manifest.fallback,
      sample: manifest.name === "lei_sample",
      parts: () => manifest.parts,
    };
  }

  /** One load of the configured source. */
  private loadSource(force: boolean, full = force): Promise<void> {
    this.loading ??= this.loadSourceOnce(force, full).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async loadSourceOnce(force: boolean, full: boolean): Promise<void> {
    const minRecords = this.minRecords();
    const source = this.opts.source;
    if (source.kind === "gleif") {
      await this.loadGleif(source, force, minRecords, full);
    } else if (source.kind === "sample") {
      await this.run({
        source: source.path,
        published: null,
        expectedRows: null,
        level2: this.level2Input(this.opts.bundledLevel2, null, null, false),
        minRecords: 1,
        fallback: false,
        sample: true,
        describe:
          "GLEIF Level 1 golden copy: the bundled real sample of 6,147 records (data/sample/real-sample.csv), not the full registry",
      });
    } else {
      await this.run({
        source: source.source,
        published: null,
        expectedRows: null,
        level2: this.level2Input(source.level2, null, null, true),
        minRecords,
        fallback: false,
        sample: false,
        describe: `GLEIF Level 1 golden copy (LEI-CDF 3.1 CSV) loaded from ${source.source}`,
      });
    }
  }

  /**
   * One GLEIF load: Level 1 must be fetched, or nothing loads; each other part that cannot be
   * fetched (its metadata call, download, reading or checks failing) is carried from the live
   * collection, or empty on a first start, and recorded as stale or missing. With the live
   * publication still the latest, a load runs only when a stale part can be fetched again: from
   * the kept Level 1 download, so only the Level 2 files are downloaded anew.
   */
  private async loadGleif(
    source: Extract<SourceSetting, { kind: "gleif" }>,
    force: boolean,
    minRecords: number,
    full: boolean,
  ): Promise<void> {
    const live = this.collection.current;
    const seconds = this.opts.limits.apiSeconds;
    const pub = await latestPublication(source.api, "lei2", seconds);
    const published = isoPublished(pub.publishDate);
    const liveManifest = this.liveManifest();
    const stale = staleParts(liveManifest?.parts);
    const isLive = !force && live !== null && live.published === published && !live.fallback;
    const chain = liveManifest?.deltas ?? [];
    // the daily full load of a publication the deltas built: loaded again from its full file, and
    // what the change feed finds between the two is the deltas' drift
    const driftCheck = full && isLive && chain.length > 0;
    const delta =
      !isLive && !force && this.opts.deltaHours > 0 && this.refusedDelta !== published
        ? deltaFor(pub, published, liveLevel1(liveManifest))
        : null;
    if (full && typeof delta === "object" && delta !== null) {
      // a new publication at the daily full load: its delta first, then its full file against it
      await this.loadGleif(source, false, minRecords, false);
      if (this.collection.current?.published === published) return this.loadGleif(source, false, this.minRecords(), true);
      return;
    }
    if (isLive && stale.length === 0 && !driftCheck) {
      this.opts.log(`GLEIF publication ${pub.publishDate} is already loaded`);
      this.succeeded();
      return;
    }
    const keptLevel1 =
      isLive && !driftCheck && liveManifest?.download && [liveManifest.download, ...chain].every((f) => existsSync(f))
        ? liveManifest.download
        : null;
    const plan = await fetchPartsMetadata(source, seconds);
    // the same file tried REFUSED_FILE_TRIES times is not fetched again (each try loads the whole
    // publication again) until GLEIF announces another; a download that merely broke gets its tries
    const given = (part: SourcePart): boolean => {
      const refused = this.refusedFiles.get(part);
      return refused !== undefined && refused.file === plan.fetched[part] && refused.tries >= REFUSED_FILE_TRIES;
    };
    const unchanged = (part: SourcePart): boolean => plan.failed[part] !== undefined || given(part);
    if (isLive && !driftCheck && stale.every((p) => unchanged(p.part))) {
      this.opts.log(
        `GLEIF publication ${pub.publishDate} is already loaded; ${stale.map((p) => (plan.failed[p.part] !== undefined ? `${p.part} still cannot be fetched (${plan.failed[p.part]})` : `${p.part} still cannot be used (${plan.fetched[p.part]} failed ${REFUSED_FILE_TRIES} times)`)).join("; ")}`,
      );
      this.succeeded();
      this.retryStaleParts(liveManifest?.parts);
      return;
    }
    if (keptLevel1 !== null) {
      this.opts.log(
        `GLEIF publication ${pub.publishDate} is already loaded, with ${stale.map((p) => p.part).join(", ")} not fresh: loading it again from its kept download ${keptLevel1}`,
      );
    } else {
      this.opts.log(`GLEIF publication ${pub.publishDate}: ${pub.recordCount ?? "?"} records, ${pub.size ?? "?"} bytes at ${pub.url}`);
    }
    this.opts.log(`GLEIF Level 2: ${plan.summary}`);
    const level2 = this.level2Input(plan.files, plan.expectedRows.rr, plan.expectedRows.repex, true);
    const carry = liveManifest?.level2.files ?? NO_LEVEL2_FILES;
    const liveParts = liveManifest?.parts ?? null;
    const dataDir = this.opts.dataDir;
    const request = {
      source: keptLevel1 ?? pub.url,
      published,
      expectedRows: pub.recordCount,
      level2: { ...level2, partial: true, carry, carryDeltas: liveManifest?.level2.deltas, failed: plan.failed },
      announced: { ...plan.announced, lei2: { name: null, size: pub.size } },
      minRecords,
      fallback: false,
      sample: false,
      describe: `GLEIF Level 1 golden copy (LEI-CDF 3.1 CSV), publication ${pub.publishDate} UTC, downloaded from ${pub.url}`,
      parts: ({ failures, files, loadedAt }: Parameters<NonNullable<LoadRequest["parts"]>>[0]) =>
        partStates(liveParts, { fetched: plan.fetched, failures, files, loadedAt }, (reason) => oneLineReason(reason, dataDir)),
      // a reload of the live publication from its kept files keeps the deltas it was built with
      ...(keptLevel1 === null
        ? {}
        : {
            deltas: chain.map((f) => ({ source: f, expectedRows: null, size: null })),
            expectedRows: null,
            fullLoadedAt: liveManifest?.fullLoadedAt,
          }),
    };
    let manifest: CollectionManifest | null = null;
    if (typeof delta === "object" && delta !== null && keptLevel1 === null) {
      manifest = await this.runDelta(pub, delta, plan, request);
    } else if (typeof delta === "string" && keptLevel1 === null && liveManifest !== null) {
      this.opts.log(`no delta for publication ${pub.publishDate}: ${delta}; loading the full file`);
    }
    manifest ??= await this.run(request);
    if (driftCheck) {
      const changes = manifest?.changes?.detected ?? null;
      if (changes !== null) {
        this.lastDrift = { published, changes };
        this.opts.log(
          changes === 0
            ? `the full file of publication ${pub.publishDate} agrees with the collection its deltas built`
            : `drift: the full file of publication ${pub.publishDate} differs from the collection its deltas built in ${changes} field changes (recorded in the change feed)`,
        );
      }
    }
    const refused = new Map<SourcePart, { file: string; tries: number }>();
    for (const p of staleParts(manifest?.parts)) {
      this.opts.log(`Level 2 ${p.part} is ${p.status}${p.since ? ` since ${p.since}` : ""}: ${p.reason ?? "not fetched"}`);
      const file = plan.fetched[p.part];
      const before = this.refusedFiles.get(p.part);
      if (file !== undefined) refused.set(p.part, { file, tries: before?.file === file ? before.tries + 1 : 1 });
    }
    this.refusedFiles = refused;
    this.retryStaleParts(manifest?.parts);
  }

  /**
   * A load of `pub` as the live collection's files with `delta` on top; null when the delta could
   * not be fetched or failed a check (logged, counted, and never tried again for this
   * publication): the caller loads the full file instead.
   */
  private async runDelta(
    pub: Publication,
    delta: ChosenDelta,
    plan: PartsPlan,
    request: Parameters<Reloader["run"]>[0],
  ): Promise<CollectionManifest | null> {
    const live = this.liveManifest()!;
    this.opts.log(
      `GLEIF publication ${pub.publishDate}: applying its ${delta.window} delta (${delta.file.recordCount ?? "?"} records, ${delta.file.size ?? "?"} bytes) to ${live.name}`,
    );
    // rr and repex from their own deltas where one covers the gap; else their full files, as a full load
    const files = { ...request.level2.files };
    const deltas: Level2Deltas = {};
    const fullSources: Partial<Record<DeltaPart, string>> = {};
    for (const part of DELTA_PARTS) {
      const published = plan.fetched[part];
      const partPub = plan.publications[part];
      const full = files[part];
      if (published === undefined || partPub === undefined || full === null) continue;
      const chosen = deltaFor(partPub, published, liveLevel2(live, part));
      if (typeof chosen === "string") {
        this.opts.log(`Level 2 ${part}: no delta (${chosen}); loading its full file`);
        continue;
      }
      this.opts.log(`Level 2 ${part}: applying its ${chosen.window} delta (${chosen.file.recordCount ?? "?"} records)`);
      files[part] = chosen.base;
      deltas[part] = [...chosen.chain, chosen.file.url];
      fullSources[part] = full;
    }
    // the ISIN and BIC files of the live collection, when GLEIF's latest are the same: its tables kept
    const liveDir = this.files.level2(live.name);
    const mappings = keptMappings(live, plan.fetched, liveDir);
    Object.assign(files, mappings.files);
    const onto = this.ontoLive(live);
    if (onto === null)
      this.opts.log(
        `${live.name} cannot take an overlay (built by an older version, with another legal-form list or slice count): rebuilding it with the delta`,
      );
    try {
      const manifest = await this.run({
        ...request,
        ...(onto === null ? {} : { onto }),
        source: delta.base,
        deltas: deltaInputs(delta),
        deltaWindow: delta.window,
        fullLoadedAt: live.fullLoadedAt ?? live.loadedAt,
        expectedRows: null,
        expectedLeis: pub.recordCount,
        announced: request.announced === undefined ? undefined : { ...request.announced, lei2: undefined },
        level2: { ...request.level2, files, deltas, fullSources, reuse: mappings.reuse, liveDir, liveDeltas: live.level2.deltas ?? {} },
        describe: `GLEIF Level 1 golden copy (LEI-CDF 3.1 CSV), publication ${pub.publishDate} UTC: the full file of ${live.published} with ${delta.chain.length + 1} delta(s) applied, the last ${delta.file.url}`,
      });
      this.metrics.increment(DELTAS_APPLIED, DELTAS_APPLIED_HELP);
      return manifest;
    } catch (err) {
      if (this.stopped || diskFull(err)) throw err;
      this.refusedDelta = isoPublished(pub.publishDate);
      this.metrics.increment(DELTA_FALLBACKS, DELTA_FALLBACKS_HELP);
      this.opts.log(
        `the ${delta.window} delta of publication ${pub.publishDate} failed (${(err as Error).message}); loading the full file`,
      );
      return null;
    }
  }

  /**
   * What a delta is laid over (ingest.ts LoadRequest onto): the live generation and the full load
   * it serves; null when the live collection is not one an overlay fits, built with older
   * documents or another legal-form list, or without tracked records.
   */
  private ontoLive(live: CollectionManifest): LoadRequest["onto"] | null {
    const gen = this.collection.current;
    if (gen === null || gen.name !== live.name) return null;
    const base = live.base ?? { name: live.name, slices: live.sliceDocs.length };
    const fits =
      live.documents === DOCUMENT_VERSION &&
      live.legalForms === this.opts.legalForms.digest &&
      canCompare(this.files.level2(base.name)) &&
      servesSlices(this.collection.slicePlan, base.slices);
    return fits ? { gen: gen.gen, base } : null;
  }

  /** The live collection's manifest, unless the fallback is live: what a load carries parts from. */
  private liveManifest(): CollectionManifest | null {
    const live = this.realLive();
    const manifest = live ? this.files.current() : null;
    return manifest && manifest.name === live!.name ? manifest : null;
  }

  /** With a part stale or missing, the load runs again after --retry-seconds, doubling up to an hour, until it is fresh. */
  private retryStaleParts(parts: SourceParts | undefined): void {
    const stale = staleParts(parts);
    if (stale.length === 0) {
      this.staleRetries = 0;
      return;
    }
    if (this.stopped || this.retryTimer) return;
    const wait = this.retryIn(this.staleRetries++);
    this.opts.log(`fetching ${stale.map((p) => p.part).join(", ")} again in ${wait} s`);
  }

  /** Schedules a load after --retry-seconds doubled `doublings` times, at most an hour; returns the wait in seconds. */
  private retryIn(doublings: number): number {
    const wait = Math.min(MAX_RETRY_SECONDS, this.opts.retrySeconds * 2 ** doublings);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.reloadInBackground(false);
    }, wait * 1000);
    this.retryTimer.unref();
    return wait;
  }

  private async serveFallback(reason: string): Promise<void> {
    this.opts.log(
      `OFFLINE: the GLEIF golden copy could not be loaded (${reason}); serving the bundled real sample of 6,147 records until it can`,
    );
    await this.run({
      source: this.opts.bundledSample,
      published: null,
      expectedRows: null,
      level2: this.level2Input(this.opts.bundledLevel2, null, null, false),
      minRecords: 1,
      fallback: true,
      sample: true,
      describe: `OFFLINE FALLBACK: the bundled real sample of 6,147 GLEIF records (data/sample/real-sample.csv), not the full registry; the GLEIF golden copy could not be loaded (${reason}) and is being retried`,
    });
  }

  /** The loaded collection's manifest; null when a fallback load found a real one live already. */
  private run(
    req: Omit<LoadRequest, "origin" | "dataDir" | "files" | "log" | "limits" | "legalForms">,
  ): Promise<CollectionManifest | null> {
    this.queuedSources.push(req.source);
    const next = this.queue
      .then(() => this.runNow(req))
      .finally(() => {
        this.queuedSources.splice(this.queuedSources.indexOf(req.source), 1);
      });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(
    req: Omit<LoadRequest, "origin" | "dataDir" | "files" | "log" | "limits" | "legalForms">,
  ): Promise<CollectionManifest | null> {
    if (req.fallback && this.collection.current && !this.collection.current.fallback) return null; // a real load won meanwhile
    const started = Date.now();
    this.opts.log(`loading ${req.source}`);
    const manifest = await loadInto(this.collection, {
      ...req,
      origin: originOf(this.opts.source),
      dataDir: this.opts.dataDir,
      files: this.files,
      log: this.opts.log,
      limits: this.opts.limits,
      legalForms: this.opts.legalForms,
      changes: this.opts.changes,
    });
    if (!manifest.fallback) {
      // the fallback keeps what is on disk: a real collection there may serve again after a restart
      await this.files.removeAllBut(manifest.name);
      await this.removeOtherDownloads([
        manifest.download,
        ...(manifest.deltas ?? []),
        ...Object.values(manifest.level2.files),
        ...Object.values(manifest.level2.deltas ?? {}).flat(),
      ]);
    }
    const seconds = (Date.now() - started) / 1000;
    this.lastLoad = {
      seconds,
      recordsPerSecond: manifest.records / Math.max(manifest.ingestSeconds ?? seconds, 0.001),
      at: Date.now() / 1000,
    };
    this.opts.log(`loaded ${manifest.records} records as ${manifest.name} in ${seconds.toFixed(1)} s`);
    if (!manifest.fallback) this.succeeded();
    return manifest;
  }

  /**
   * The golden copy just loaded is kept (to rebuild a broken segment), and so is any waiting
   * for its turn to load, and any upload still arriving (known to this process, not judged by
   * its mtime: a clock step made a live one look a day old); older ones go, and so does an
   * upload an earlier run left half-written.
   */
  private async removeOtherDownloads(keep: (string | null)[]): Promise<void> {
    const dir = join(this.opts.dataDir, "downloads");
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (keep.includes(path) || this.queuedSources.some((source) => resolve(source) === resolve(path))) continue;
      if (uploadsInProgress.has(path)) continue;
      await rm(path, { force: true });
    }
  }

  private succeeded(): void {
    this.failures = 0;
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
  }

  private failed(err: unknown): void {
    this.metrics.increment(LOAD_FAILURES, LOAD_FAILURES_HELP);
    this.failures++;
    const live = this.collection.current;
    const kept = live ? `${live.name} stays live` : "nothing is live yet";
    if (this.stopped) {
      this.opts.log(`load failed: ${(err as Error).message}; ${kept}`);
      return;
    }
    const wait = this.retryIn(this.failures - 1);
    this.opts.log(`load failed: ${(err as Error).message}; ${kept}; retrying in ${wait} s`);
  }

  private scheduleDaily(): void {
    if (this.stopped || this.opts.source.kind === "sample") return;
    const now = new Date();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 0, this.opts.reloadAtMinutes));
    if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
    if (this.dailyTimer) clearTimeout(this.dailyTimer);
    this.dailyTimer = setTimeout(() => {
      this.opts.log("daily reload");
      this.reloadInBackground(false, true);
      this.scheduleDaily();
    }, next.getTime() - now.getTime());
    this.dailyTimer.unref();
    this.scheduleDeltaCheck();
  }

  /**
   * Between the daily full loads, GLEIF is checked every --delta-hours, counted from the daily
   * time (08:45, 16:45 and 00:45 by default: each after one of GLEIF's three publications).
   */
  private scheduleDeltaCheck(): void {
    const every = this.opts.deltaHours * 3_600_000;
    if (this.stopped || this.opts.source.kind !== "gleif" || every <= 0 || every >= DAY_MS) return;
    const now = Date.now();
    const today = new Date(now);
    const daily = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 0, this.opts.reloadAtMinutes);
    let next = Infinity;
    for (const day of [daily - DAY_MS, daily]) {
      for (let at = day + every; at - day < DAY_MS; at += every) if (at > now && at < next) next = at;
    }
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
    this.deltaTimer = setTimeout(() => {
      this.deltaTimer = null;
      this.reloadInBackground(false);
      this.scheduleDeltaCheck();
    }, next - now);
    this.deltaTimer.unref();
  }
}

/**
 * An import the checks refused; `tooFew`: it would shrink the live collection below the share a
 * reload may; `diskFull`: the server's disk took no more while loading it (not the file's fault).
 */
export class ImportRefused extends Error {
  constructor(
    message: string,
    readonly tooFew: boolean,
    readonly diskFull = false,
  ) {
    super(message);
  }
}

/** A load's failure that was the disk's: its errno, or its text when it crossed a thread as a message. */
function diskFull(err: unknown): boolean {
  return isDiskFull(err) || /\b(ENOSPC|EDQUOT)\b|no space left on device/i.test((err as Error).message ?? "");
}

/** A refusal as a client may read it: the upload, and any other file of the data dir, named without a path. */
function withoutServerPaths(message: string, upload: string, dataDir: string): string {
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const under = (dir: string): RegExp => new RegExp(`${escaped(dir)}[^\\s'":,)]*`, "g");
  return message
    .split(resolve(upload))
    .join("the upload")
    .split(upload)
    .join("the upload")
    .replace(under(resolve(dataDir)), "a file of the server");
}

export function sourceSetting(
  source: string | null,
  gleif: { api: string; mappingApi: string },
  bundledSample: string,
  level2: Level2Files = NO_LEVEL2_FILES,
): SourceSetting {
  if (source === null) return { kind: "gleif", api: gleif.api, mappingApi: gleif.mappingApi };
  if (source === "sample") return { kind: "sample", path: bundledSample };
  return { kind: "given", source, level2 };
}

/** What a collection on disk was loaded for: a restart with another source loads that instead. */
function originOf(source: SourceSetting): string {
  if (source.kind === "gleif") return `gleif ${source.api}`;
  if (source.kind === "sample") return "sample";
  const level2 = Object.values(source.level2).some((f) => f !== null) ? ` level2 ${JSON.stringify(source.level2)}` : "";
  return `source ${source.source}${level2}`;
}
