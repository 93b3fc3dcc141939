// The live collection as the main thread owns it: building a generation or opening it from its
// segments on the shard workers, having every worker serve it, the atomic swap, and dropping a
// generation once no thread's query holds it. Queries are CollectionView's (collection-view.ts);
// front threads have views of their own, which `followers` keeps up with every generation.

import { allSettledOrFirstError, type ShardPool } from "./pool.js";
import type { SlicePlan } from "./slice-count.js";
import type { FinishResult } from "./protocol.js";
import type { Removals } from "./wasm-slice.js";
import { docFileOf } from "./segment.js";
import { LeiTable } from "./lei-table.js";
import { CollectionView, type CollectionMeta, type SliceFiles } from "./collection-view.js";
import { releaseMemory } from "../os/release-memory.js";
import { discardPages } from "../os/native-heap.js";
import type { FamilyData } from "../level2/family-data.js";

export {
  NotReadyError,
  ShardFailedError,
  type CollectionMeta,
  type LiveGeneration,
  type SearchOutcome,
  type SliceFiles,
} from "./collection-view.js";

/** The other threads' views of the collection (the front threads'), kept up with every generation. */
export interface Followers {
  /** gen is served: each view opens its slices' files, before any swap to it */
  opened(gen: number, slices: SliceFiles[]): Promise<void>;
  /** resolves once no view holds gen any more (each has closed its files) */
  released(gen: number): Promise<void>;
}

/** A slice as a generation serves it: as its opening worker shared it, less the docs of `removals`. */
interface ServedSlice extends FinishResult {
  docFile: string;
  removals?: Removals;
  /** a slice laid over the partitioned ones (collection-view.ts SliceFiles) */
  overlay?: boolean;
}

export class Collection extends CollectionView {
  /** per generation, each served slice: what every serving worker serves */
  private readonly served = new Map<number, ServedSlice[]>();
  /** per generation, what a thread reads of its slices */
  private readonly files = new Map<number, SliceFiles[]>();
  /** per generation, its Level 2 data: closed with it */
  private readonly families = new Map<number, FamilyData>();
  /** generations begun or opened while another was live: the builder worker builds and opens their slices */
  private readonly onBuilder = new Set<number>();
  private nextGen = 1;
  followers: Followers | null = null;

  constructor(
    private readonly pool: ShardPool,
    /** how many slices a generation may have (slice-count.ts) */
    readonly slicePlan: SlicePlan,
    /** search rounds this thread answers itself (CollectionView) */
    searchBudget = 0,
  ) {
    super(pool, searchBudget);
    pool.adoptInto = (w) => this.adoptInto(w);
  }

  /**
   * The worker that builds and opens slice s of gen; every serving worker adopts it. While a
   * generation is live the builder does it, so that no request waits behind a slice's build;
   * with none live there are no requests yet, and the serving workers share the slices.
   */
  private workerOf(gen: number, slice: number): number {
    return this.onBuilder.has(gen) ? this.pool.builder : slice % this.pool.threads;
  }

  private nextGeneration(): number {
    const gen = this.nextGen++;
    if (this.live !== null) this.onBuilder.add(gen);
    return gen;
  }

  /** Every generation served now, with its slices' files: what a new view opens. */
  servedFiles(): [number, SliceFiles[]][] {
    return [...this.files];
  }

  /**
   * Starts building a new generation, its documents growing in scratchDir; returns its id. How
   * many slices it gets is the loader's to say, once it knows the source's size: each slice is
   * built by the worker workerOf() names, from the batches add() gives it.
   */
  async begin(scratchDir: string): Promise<number> {
    const gen = this.nextGeneration();
    await this.pool.broadcast({ op: "begin", gen, scratchDir });
    return gen;
  }

  add(gen: number, slice: number, payload: Uint8Array): Promise<void> {
    return this.pool.run(this.workerOf(gen, slice), { op: "add", gen, slice, payload }, [payload.buffer as ArrayBuffer]);
  }

  /**
   * Finishes slices 0 … slices-1 of gen, each persisted to segmentOf(slice), and has every
   * worker serve them; docs per slice. Finishing is a slice's memory peak, so a reload finishes
   * one slice at a time: the live collection holds its share of memory already, and a daily
   * reload is in no hurry.
   */
  async finish(gen: number, slices: number, segmentOf: (slice: number) => string): Promise<number[]> {
    const finishSlice = (s: number): Promise<ServedSlice> => this.finishSlice(gen, s, segmentOf);
    const served: ServedSlice[] = [];
    if (this.live !== null) {
      for (let s = 0; s < slices; s++) {
        served.push(await finishSlice(s));
        await this.returnFreedMemory(); // the finished slice's build memory, before the next slice needs its own
      }
    } else {
      served.push(...(await allSettledOrFirstError(Array.from({ length: slices }, (_, s) => finishSlice(s)))));
      await this.returnFreedMemory();
    }
    await this.shareWithEveryWorker(gen, served, (s) => this.workerOf(gen, s));
    await this.openFiles(gen, served);
    return served.map((r) => r.docs);
  }

  /**
   * Finishes gen as base's partitioned slices less the docs its overlays hold, and beside them
   * `overlays` slices built for gen (begin and add, slices numbered from the partitioned count
   * on) of the records that replace those docs or are new: no partitioned slice is rebuilt, and
   * base's own overlays are replaced, so the overlays hold a delta chain's records, whole. A GLEIF
   * delta applied so costs the build of its chain's records. Docs per slice.
   */
  async finishOnto(gen: number, base: number, overlays: number, segmentOf: (slice: number) => string): Promise<number[]> {
    const under = this.partitionedOf(base);
    const built: ServedSlice[] = [];
    for (let o = 0; o < overlays; o++) {
      built.push({ ...(await this.finishSlice(gen, under.length + o, segmentOf)), overlay: true });
      await this.returnFreedMemory();
    }
    return this.serveOnto(gen, base, under, built);
  }

  /**
   * A derived generation read from its segments (a restart): base, a generation opened of the
   * partitioned slices (not live, and dropped here), with the overlay segments beside them.
   */
  async openOnto(base: number, overlays: number, segmentOf: (slice: number) => string): Promise<{ gen: number; sliceDocs: number[] }> {
    const under = this.partitionedOf(base);
    const gen = this.nextGeneration();
    try {
      const opened = await allSettledOrFirstError(
        Array.from({ length: overlays }, (_, o) => this.openSlice(gen, under.length + o, segmentOf)),
      );
      const sliceDocs = await this.serveOnto(
        gen,
        base,
        under,
        opened.map((r) => ({ ...r, overlay: true })),
      );
      return { gen, sliceDocs };
    } catch (err) {
      await this.abandon(gen);
      throw err;
    } finally {
      await this.abandon(base);
    }
  }

  /** The files of gen's slices partitioned by LEI: the full load's under a derived generation. */
  partitionedFiles(gen: number): SliceFiles[] {
    return this.partitionedOf(gen);
  }

  /** The LEIs of gen's overlay slices; none for a generation built whole. */
  overlayLeis(gen: number): Promise<string[]> {
    return leisOf((this.served.get(gen) ?? []).filter((r) => r.overlay === true));
  }

  private partitionedOf(base: number): ServedSlice[] {
    const under = this.served.get(base)?.filter((r) => r.overlay !== true);
    if (!under) throw new Error(`generation ${base} is not served`);
    return under;
  }

  /** Serves gen as base's partitioned slices `under` less the LEIs of `overlays`, and the overlays; docs per slice. */
  private async serveOnto(gen: number, base: number, under: ServedSlice[], overlays: ServedSlice[]): Promise<number[]> {
    const leis = await leisOf(overlays);
    // on a serving worker, resting: the docs' terms are read from the slice's index
    const removed: ServedSlice[] = [];
    for (let s = 0; s < under.length; s++) {
      const removals = await this.pool.loads.restWhile(0, () => this.pool.run<Removals>(0, { op: "removals", gen: base, slice: s, leis }));
      removed.push({ ...under[s], removals });
    }
    const served = [...removed, ...overlays];
    await this.shareWithEveryWorker(gen, served, (s) => (s < under.length ? null : this.workerOf(gen, s)));
    await this.openFiles(gen, served);
    return served.map((r) => r.docs - (r.removals?.count ?? 0));
  }

  /** Slice s of gen finished and persisted to segmentOf(s) by the worker that built it. */
  private async finishSlice(gen: number, s: number, segmentOf: (slice: number) => string): Promise<ServedSlice> {
    const r = await this.pool.run<FinishResult>(this.workerOf(gen, s), { op: "finish", gen, slice: s, segment: segmentOf(s) });
    return { ...r, docFile: docFileOf(segmentOf(s)) };
  }

  /** Every serving worker serves each slice of gen, from the memory its opening worker (if any of them) filled. */
  private async shareWithEveryWorker(gen: number, served: ServedSlice[], openedBy: (slice: number) => number | null): Promise<void> {
    this.served.set(gen, served);
    const builder = this.pool.builder;
    await allSettledOrFirstError(
      served.map((r, s) =>
        this.pool.broadcast(
          { op: "adopt", gen, slice: s, share: r.share, removals: r.removals },
          new Set([openedBy(s) ?? builder, builder]),
        ),
      ),
    );
  }

  /** Worker w, new in place of one that died, serves every slice of every generation held. */
  private async adoptInto(w: number): Promise<void> {
    if (w === this.pool.builder) return;
    for (const [gen, served] of this.served)
      for (let s = 0; s < served.length; s++)
        await this.pool.run(w, { op: "adopt", gen, slice: s, share: served[s].share, removals: served[s].removals });
  }

  /** Once the shards have checked them and serve gen: each slice's document file and LEI table, here and in every view. */
  private async openFiles(gen: number, served: ServedSlice[]): Promise<void> {
    const files: SliceFiles[] = served.map((r) => ({
      docFile: r.docFile,
      leis: r.leis,
      share: r.share,
      removals: r.removals,
      overlay: r.overlay,
    }));
    this.files.set(gen, files);
    this.openReaders(gen, files);
    await this.followers?.opened(gen, files);
  }

  /** A new generation read from its persisted segments, one per slice; docs per slice. */
  async open(slices: number, segmentOf: (slice: number) => string): Promise<{ gen: number; sliceDocs: number[] }> {
    const gen = this.nextGeneration();
    try {
      const results = await allSettledOrFirstError(Array.from({ length: slices }, (_, s) => this.openSlice(gen, s, segmentOf)));
      await this.shareWithEveryWorker(gen, results, (s) => this.workerOf(gen, s));
      await this.openFiles(gen, results);
      return { gen, sliceDocs: results.map((r) => r.docs) };
    } catch (err) {
      await this.abandon(gen);
      throw err;
    }
  }

  /** Slice s of gen read from its segment, segmentOf(s), by the worker that opens it. */
  private async openSlice(gen: number, s: number, segmentOf: (slice: number) => string): Promise<ServedSlice> {
    const r = await this.pool.run<FinishResult>(this.workerOf(gen, s), { op: "open", gen, slice: s, segment: segmentOf(s) });
    return { ...r, docFile: docFileOf(segmentOf(s)) };
  }

  /**
   * Drops gen everywhere: the views' files first, then the shards' memory. The pages of its
   * slices' memories that no other generation serves go back at once, when every thread let go.
   */
  async abandon(gen: number): Promise<void> {
    const unshared = this.memoriesOnlyOf(gen);
    this.served.delete(gen);
    this.files.delete(gen);
    this.onBuilder.delete(gen);
    const held = this.closeReaders(gen);
    let everyThreadLetGo = await (this.followers?.released(gen) ?? Promise.resolve()).then(
      () => true,
      () => false,
    );
    this.families.get(gen)?.close();
    this.families.delete(gen);
    // one worker at a time, resting: a drop's collection holds its worker, and the others answer meanwhile
    for (let w = 0; w <= this.pool.builder; w++)
      await this.pool.loads.restWhile(w, () => this.pool.run(w, { op: "drop", gen })).catch(() => void (everyThreadLetGo = false));
    // a thread that could still read them keeps them whole, until the collectors free them
    const discarded = everyThreadLetGo ? unshared.filter(discardPages).length : 0;
    unshared.length = 0;
    // the slices' memories are freed once no thread refers to them: this one's LEI tables and
    // the discard's views did, and an idle thread collects only when told
    if (held || discarded > 0) releaseMemory();
    await this.returnFreedMemory();
  }

  /** The memories of gen's slices that no other generation served here shares (a derived one shares its base's). */
  private memoriesOnlyOf(gen: number): WebAssembly.Memory[] {
    const shared = new Set<string>();
    for (const [other, slices] of this.served) if (other !== gen) for (const s of slices) shared.add(s.share.key);
    return (this.served.get(gen) ?? []).filter((s) => !shared.has(s.share.key)).map((s) => s.share.memory);
  }

  /**
   * The C heap's free memory back to the system, trimmed on the builder: a trim after a large
   * build or drop takes tens of ms, which this thread spends answering requests instead.
   */
  private async returnFreedMemory(): Promise<void> {
    await this.pool.run(this.pool.builder, { op: "trim" }).catch(() => undefined);
  }

  /** Makes gen the live generation, with its Level 2 data. Queries already running finish on the old one. */
  override swap(gen: number, sliceDocs: number[], meta: CollectionMeta, family: FamilyData | null = null): void {
    if (family) this.families.set(gen, family);
    super.swap(gen, sliceDocs, meta, family);
  }

  protected override retire(gen: number): void {
    void this.abandon(gen);
  }
}

/** Every LEI the slices hold, in turns of the event loop: an overlay holds tens of thousands, read on the main thread. */
async function leisOf(slices: ServedSlice[]): Promise<string[]> {
  let out: string[] = [];
  for (const r of slices) out = out.concat(await new LeiTable(r.leis).all());
  return out;
}
