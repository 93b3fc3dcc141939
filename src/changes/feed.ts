// The change feed's place in a load: before a new generation goes live (ingest.ts), it is
// compared with the live one and what changed is stored; then the store's retention. A load
// whose changes cannot be stored fails, and the live collection stays: swapping without them
// would lose them for good, since the next load compares with the new generation.

import type { CollectionView } from "../engine/collection-view.js";
import type { CollectionFiles } from "../store/collection-files.js";
import { canCompare, detectChanges, type ComparedOnly } from "./detect.js";
import type { ChangeStore } from "./model.js";

/** What a load found: recorded in its manifest, shown in /v1/stats and /metrics. */
export interface LoadChanges {
  /** changes found (a load run again after a crash stores each of them once) */
  detected: number;
  /** seconds the comparison took, storing included */
  seconds: number;
}

/** A load about to go live, as ingest.ts hands it over. */
export interface ComparedLoad {
  /** the new generation, finished, its files open */
  gen: number;
  /** its Level 2 directory (tracked records and tables) */
  dir: string;
  /** its publication; null: the source has none, the load time stands in */
  published: string | null;
  /** the bundled sample standing in: never compared */
  fallback: boolean;
  /** the configured source it serves */
  origin: string;
  files: CollectionFiles;
  log: (line: string) => void;
  /** a delta: the only LEIs whose records can differ from the live collection's (changes/detect.ts) */
  only?: ComparedOnly;
}

const DAY_MS = 86_400_000;

export class ChangeFeed {
  private store: ChangeStore | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;

  constructor(private readonly collection: CollectionView) {}

  /** The store, once state.db or the shared database is open (before any load runs). */
  use(store: ChangeStore): void {
    this.store = store;
  }

  get changes(): ChangeStore | null {
    return this.store;
  }

  /**
   * Compares the load with the live generation and stores the changes; null when there is
   * nothing real to compare with: no live generation, the fallback sample on either side, a live
   * collection of another source, or one built before the feed (no tracked records).
   */
  async compare(load: ComparedLoad): Promise<LoadChanges | null> {
    const live = this.collection.current;
    const store = this.store;
    if (store === null || live === null || live.fallback || load.fallback) return null;
    const liveManifest = load.files.current();
    if (liveManifest === null || liveManifest.name !== live.name || liveManifest.origin !== load.origin) return null;
    const liveDir = load.files.level2(live.name);
    if (!canCompare(liveDir) || !canCompare(load.dir)) {
      load.log(`changes: ${live.name} has no tracked records (built before the change feed); this load's changes are not recorded`);
      return null;
    }
    const published = load.published ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    let storing = 0;
    const found = await detectChanges(
      { dir: liveDir, document: await this.collection.documentsIn(live.gen) },
      { dir: load.dir, document: await this.collection.documentsIn(load.gen) },
      { publication: published, detectedAt: new Date().toISOString() },
      async (batch) => {
        const started = Date.now();
        await store.append(batch);
        storing += Date.now() - started;
      },
      load.only,
    );
    load.log(
      `changes: ${found.changes} field change(s) against ${live.name} in ${found.seconds.toFixed(1)} s (storing them ${(storing / 1000).toFixed(1)} s)`,
    );
    return { detected: found.changes, seconds: Math.round(found.seconds * 1000) / 1000 };
  }

  /** Drops changes older than `days`, now and then once a day. */
  startRetention(days: number, log: (line: string) => void): void {
    const prune = (): void => {
      const store = this.store;
      if (store === null) return;
      store.prune(new Date(Date.now() - days * DAY_MS)).then(
        (n) => {
          if (n > 0) log(`changes: pruned ${n} change(s) detected more than ${days} days ago`);
        },
        (err: Error) => log(`changes: pruning failed: ${err.message}`),
      );
    };
    prune();
    this.pruneTimer = setInterval(prune, DAY_MS);
    this.pruneTimer.unref();
  }

  stop(): void {
    if (this.pruneTimer) clearInterval(this.pruneTimer);
  }
}
