// The collections on disk, under <data-dir>/collections/:
//   <name>/manifest.json   what was loaded (name, publication, counts, the kept download)
//   <name>/slice-<s>.seg   one immutable segment per slice (see engine/segment.ts)
//   <name>/slice-<s>.docs  its stored documents (see engine/doc-store.ts)
//   <name>/level2/         its Level 2 tables (see level2/layout.ts)
//   .building/             document files of a load in progress, moved beside their segments
//   current.json           the alias: which collection `lei` points at
// Every file is written to a temporary name, synced and renamed, so a crash at any moment leaves
// the previous alias and its collection whole.

import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomically } from "./durable-file.js";
import { LEVEL2_DIR, type Level2Counts } from "../level2/layout.js";
import type { SourceParts } from "../level2/layout.js";
import type { DeltaCost } from "../engine/collection-view.js";

export const MANIFEST_FORMAT = 2;

export interface CollectionManifest {
  format: number;
  name: string;
  /** /v1/stats `source` */
  source: string;
  published: string | null;
  records: number;
  sliceDocs: number[];
  downloadSeconds: number | null;
  ingestSeconds: number | null;
  loadedAt: string;
  /** the golden copy file it was built from, kept to rebuild a broken segment */
  download: string | null;
  /** true for the bundled sample: a real source replaces it as soon as one loads */
  fallback: boolean;
  /** the configured source it was loaded for */
  origin: string;
  /** what its Level 2 tables hold, and the files they were built from */
  level2: Level2Counts;
  /**
   * the SHA-256 of the ELF code list its legal-form names come from: another list (or none, in a
   * manifest written before the names) rebuilds it from its kept download
   */
  legalForms?: string;
  /** GLEIF loads: the state of each separately fetched part (fresh, stale or missing, since when, why) */
  parts?: SourceParts;
  /**
   * DOCUMENT_VERSION when it was built: an older one (or none) lacks document fields or the
   * change feed's tracked records, and is rebuilt from its kept download while it serves
   */
  documents?: number;
  /** what the change feed found comparing this load with the collection it replaced; null: not compared */
  changes?: { detected: number; seconds: number } | null;
  /** GLEIF deltas applied on top of `download`, oldest first, each a kept file; none or empty: a full load */
  deltas?: string[];
  /** when the full file under the deltas was loaded (a full load: loadedAt) */
  fullLoadedAt?: string;
  /** the delta this load applied, and what it cost; null: a full load */
  delta?: DeltaCost | null;
  /**
   * a collection derived from a full load: `name`'s segments serve its slices 0 … slices-1 less
   * the LEIs of its own overlay segment, slice-<slices>.seg, which holds the deltas' records
   * (engine/collection.ts finishOnto); absent: its own segments are all of it
   */
  base?: { name: string; slices: number };
}

/** Bumped when the stored document or the files a load writes beside it change (2: nextRenewalDate, successorLeis, tracked records). */
export const DOCUMENT_VERSION = 2;

export class CollectionFiles {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, "collections");
  }

  dir(name: string): string {
    return join(this.root, name);
  }

  segment(name: string, slice: number): string {
    return join(this.dir(name), `slice-${slice}.seg`);
  }

  level2(name: string): string {
    return join(this.dir(name), LEVEL2_DIR);
  }

  /** Where a load in progress builds its Level 2 tables until its collection has a name. */
  get scratchLevel2(): string {
    return join(this.scratch, LEVEL2_DIR);
  }

  /** Where a load in progress keeps its document files until its collection has a name. */
  get scratch(): string {
    return join(this.root, ".building");
  }

  /** Once a load has finished or failed, its scratch directory goes, whatever is left in it. */
  clearScratch(): void {
    rmSync(this.scratch, { recursive: true, force: true });
  }

  /** The manifest the alias points at, or null when there is none or it cannot be read. */
  current(): CollectionManifest | null {
    try {
      const { collection } = JSON.parse(readFileSync(join(this.root, "current.json"), "utf8")) as { collection: string };
      return this.manifest(collection);
    } catch {
      return null;
    }
  }

  /** Records a collection whose segments are all written, then points the alias at it. */
  commit(manifest: CollectionManifest): void {
    writeDurably(join(this.dir(manifest.name), "manifest.json"), JSON.stringify(manifest, null, 2));
    writeDurably(join(this.root, "current.json"), JSON.stringify({ collection: manifest.name }));
  }

  /** The manifest of collection `name`, or null when it has none that can be read. */
  manifest(name: string): CollectionManifest | null {
    try {
      const manifest = JSON.parse(readFileSync(join(this.dir(name), "manifest.json"), "utf8")) as CollectionManifest;
      return manifest.format === MANIFEST_FORMAT && manifest.name === name ? manifest : null;
    } catch {
      return null;
    }
  }

  /**
   * Removes every collection but `keep` and the one it is derived from (and anything
   * half-written by an earlier run).
   */
  async removeAllBut(keep: string): Promise<void> {
    let entries: string[] = [];
    try {
      entries = readdirSync(this.root);
    } catch {
      return;
    }
    const base = this.manifest(keep)?.base?.name;
    // off the thread: unlinking a replaced collection's GB of segments takes the kernel a while
    for (const entry of entries) {
      if (entry !== keep && entry !== base && entry !== "current.json") await rm(join(this.root, entry), { recursive: true, force: true });
    }
  }

  /** A fresh, empty directory for a collection about to be built. */
  prepare(name: string): void {
    rmSync(this.dir(name), { recursive: true, force: true });
    mkdirSync(this.dir(name), { recursive: true });
  }
}

/** Readable like the segments beside them (the umask applies). */
const writeDurably = (path: string, text: string): void => writeFileAtomically(path, text, 0o666);
