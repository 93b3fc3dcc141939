// What a thread reads of the live collection: which generation queries go to, scatter/gather
// over its slices, and each slice's document file and LEI table. A query pins the generation it
// started on; a generation replaced by a swap is retired once no query here holds it. The slices
// answer where their hits' stored documents lie; only the merged page's are read, here. A lookup
// by LEI needs no shard: each slice's LEI table is read in its shared memory (lei-table.ts). A
// search round the engine estimates cheap is answered here too, by an engine instance of this
// thread on the slice's memory, within a budget of engine time per event-loop turn; the rest go
// to the shard workers.
// The main thread's Collection (collection.ts) builds and opens generations; each front thread
// has a view of its own, fed the generations the main thread serves (http/front-threads.ts).

import { DocStoreReader } from "./doc-store.js";
import { LeiTable, type LeiTableShare } from "./lei-table.js";
import type { DocRef, HitRef, HitSource, ShardReply, ShardRequest, ShardResponse, WireHit } from "./protocol.js";
import { sliceOf } from "./partition.js";
import type { FacetParam, FilterParam } from "./schema.js";
import { WasmSlice, type EngineQuery, type Removals, type SliceShare } from "./wasm-slice.js";
import { answerSearch } from "./slice-answer.js";
import { mergeByLei } from "./lei-order-merge.js";
import { mergeFacetValues, mergeSearchParts, mergeVariants, type MergedSearch } from "./merge.js";
import type { SearchRequest } from "./planner.js";
import { roundQuery, typoRounds } from "./search-rounds.js";
import { ScratchBytes } from "./scratch-bytes.js";
import type { FamilyData } from "../level2/family-data.js";
import type { SourceParts } from "../level2/layout.js";

export interface CollectionMeta {
  name: string;
  source: string;
  published: string | null;
  downloadSeconds: number | null;
  ingestSeconds: number | null;
  loadedAt: string;
  /** a stand-in (the bundled sample while the real source is unreachable) */
  fallback: boolean;
  /** GLEIF loads: the state of each separately fetched part (rr, repex, isin, bic) */
  parts?: SourceParts;
  /** what the change feed found against the generation it replaced (changes/feed.ts); null or absent: not compared */
  changes?: { detected: number; seconds: number } | null;
  /** the GLEIF delta this load applied, and what it cost; null or absent: a full load */
  delta?: DeltaCost | null;
}

/** One applied GLEIF delta (golden-copy/reloader.ts), as /v1/stats and /metrics report it. */
export interface DeltaCost {
  /** GLEIF's window: IntraDay, LastDay, LastWeek or LastMonth */
  window: string;
  /** the delta file's name */
  file: string;
  /** its data rows */
  rows: number;
  /** seconds the load's downloads took; null: nothing was downloaded */
  downloadSeconds: number | null;
  /** seconds from the start of the load until the collection was ready to go live, the downloads included */
  seconds: number;
}

export interface LiveGeneration extends CollectionMeta {
  gen: number;
  docs: number;
  sliceDocs: number[];
  /** its Level 2 data (relationships, exceptions, ISIN and BIC maps); null when it was loaded without */
  family: FamilyData | null;
}

export interface SearchOutcome {
  found: number;
  outOf: number;
  /** best first: the caller's window from the `from` given to searchWith() on */
  hits: WireHit[];
  facets: Partial<Record<FacetParam, [string, number][]>>;
  tookMs: number;
}

/** Where a thread asks a slice of a generation (query-router.ts). */
export interface ShardRequests {
  request(slice: number, gen: number, request: ShardRequest): Promise<ShardResponse>;
}

/** What a thread needs to read one slice of a served generation, and to search it on its own. */
export interface SliceFiles {
  docFile: string;
  leis: LeiTableShare;
  /** the slice's engine memory: with a search budget, the thread answers cheap queries itself */
  share?: SliceShare;
  /** docs the generation serves the slice without: those records replaced by an overlay slice */
  removals?: Removals;
  /**
   * a slice of records laid over the slices partitioned by LEI (a delta's new and changed
   * records): an LEI is looked for in it first. Overlays come after the partitioned slices.
   */
  overlay?: boolean;
}

type SearchPart = Extract<ShardResponse, { kind: "search" }>;

/** A slice's answer computed on this thread, as a worker's would arrive: its hits as references. */
function searchPart(reply: ShardReply, slice: number): SearchPart {
  if (reply.kind !== "search") throw new ShardFailedError(`slice ${slice} answered a search with ${reply.kind}`);
  const part: SearchPart = { kind: "search", found: reply.found, hits: hitRefs(reply.hits, slice), facets: reply.facets, plan: reply.plan };
  if (reply.settled !== undefined) part.settled = reply.settled;
  const g = reply.guess;
  if (g !== undefined) {
    part.guess = {
      found: g.found,
      hits: hitRefs(g.hits, slice),
      facets: g.facets,
      plan: g.plan,
      typoMask: g.typoMask,
      maxTypos: g.maxTypos,
    };
  }
  return part;
}

const leiBytes = Buffer.alloc(20);
function hitRefs(source: HitSource, slice: number): HitRef[] {
  const hits = new Array<HitRef>(source.count);
  for (let i = 0; i < source.count; i++) {
    source.copyLei(i, leiBytes, 0);
    hits[i] = [source.score(i), leiBytes.toString("latin1", 0, 20), slice, source.docAt(i), source.docLength(i)];
  }
  return hits;
}

/** What the front reads of one slice of a generation. */
interface SliceReader {
  docs: DocStoreReader;
  leis: LeiTable;
}

/** A generation's readers: the slices partitioned by LEI first, then the overlays. */
interface GenerationReaders {
  slices: SliceReader[];
  partitioned: number;
}

/**
 * Engine time a thread spends on searches of its own in one event-loop turn: past it, the turn's
 * other searches go to the shard workers, so that a flood of searches holds up the thread's
 * other requests (lookups, health) for about this long, plus the round under way when it is reached.
 */
const INLINE_MS_PER_TURN = 2;

/** A generation's documents read whole for documentsIn, at most: a delta's overlay of some 100,000 records, not a full load's slice. */
const WHOLE_SLICE_BYTES = 64 << 20;

/** Hits whose documents lie at most this many bytes apart are read in one go (withDocs). */
const NEIGHBOUR_GAP = 4096;

export class NotReadyError extends Error {}
export class ShardFailedError extends Error {}

export class CollectionView {
  protected live: LiveGeneration | null = null;
  private readonly holds = new Map<number, number>();
  /** per generation, each slice's document file and LEI table */
  private readonly readers = new Map<number, GenerationReaders>();
  private readonly swapListeners: ((live: LiveGeneration) => void)[] = [];
  /** the documents of the search or lookup being answered (searchWith, lookupWith) */
  private readonly docScratch = new ScratchBytes();
  /** per generation, an engine instance of this thread on each slice's memory (searchBudget > 0) */
  private readonly engines = new Map<number, WasmSlice[]>();
  /** ms this event-loop turn spent answering searches here (INLINE_MS_PER_TURN) */
  private inlineMs = 0;
  private inlineTurnEnds = false;

  /**
   * `searchBudget`: a search round the engine estimates at no more postings than this is answered
   * on this thread, with no round trip to a shard worker; costlier rounds, exports and facet
   * listings go to the workers. 0: every search goes to the workers.
   */
  constructor(
    private readonly shards: ShardRequests,
    private readonly searchBudget = 0,
  ) {}

  get current(): LiveGeneration | null {
    return this.live;
  }

  /** Opens the document files and LEI tables of gen's slices, which the shards serve. */
  openReaders(gen: number, slices: SliceFiles[]): void {
    this.readers.set(gen, {
      slices: slices.map((s) => ({ docs: DocStoreReader.open(s.docFile), leis: new LeiTable(s.leis) })),
      partitioned: slices.filter((s) => s.overlay !== true).length,
    });
    if (this.searchBudget > 0 && slices.every((s) => s.share !== undefined)) {
      const held = [...this.engines.values()].flat();
      this.engines.set(
        gen,
        slices.map((s) => WasmSlice.adoptBeside(s.share!, s.removals ?? null, held)),
      );
    }
  }

  /** A generation no query here holds any more, after a swap: its readers are closed (Collection also drops it from the shards). */
  protected retire(gen: number): void {
    this.closeReaders(gen);
  }

  /** Closes gen's readers once it is not live and no query here holds it (a view asked to let go of it). */
  async release(gen: number): Promise<void> {
    while (this.live?.gen === gen || (this.holds.get(gen) ?? 0) > 0) await new Promise((r) => setTimeout(r, 50));
    this.closeReaders(gen);
  }

  /** Whether gen had readers. Its own frame: none of them may be on the stack of a collection. */
  protected closeReaders(gen: number): boolean {
    for (const engine of this.engines.get(gen) ?? []) engine.close();
    this.engines.delete(gen);
    const readers = this.readers.get(gen);
    if (!readers) return false;
    for (const reader of readers.slices) reader.docs.close();
    return this.readers.delete(gen);
  }

  private readersOf(gen: number): GenerationReaders {
    const readers = this.readers.get(gen);
    if (!readers) throw new ShardFailedError(`generation ${gen} has no document files open`);
    return readers;
  }

  /** The slice of gen that holds `lei` and where its document lies there; an overlay first. */
  private find(gen: number, lei: string): { reader: SliceReader; doc: DocRef } | null {
    const { slices, partitioned } = this.readersOf(gen);
    for (let s = partitioned; s < slices.length; s++) {
      const doc = slices[s].leis.find(lei);
      if (doc !== null) return { reader: slices[s], doc };
    }
    const reader = slices[sliceOf(lei, partitioned)];
    const doc = reader.leis.find(lei);
    return doc === null ? null : { reader, doc };
  }

  /**
   * The hits from `from` on with their stored JSON, read into the scratch: views valid until its
   * next use. A slice's document file is in name order (slice-builder.ts), so a page of names
   * alike lies mostly in neighbouring documents: hits within NEIGHBOUR_GAP bytes of each other
   * are read as one run, a read per run rather than per hit.
   */
  private withDocs(gen: number, hits: HitRef[], from: number): WireHit[] {
    const readers = this.readersOf(gen).slices;
    const page = from === 0 ? hits : hits.slice(from);
    const byPlace = page.map((_, i) => i).sort((a, b) => page[a][2] - page[b][2] || page[a][3] - page[b][3]);
    const runs: { slice: number; at: number; end: number; first: number; last: number }[] = [];
    let size = 0;
    for (let k = 0; k < byPlace.length; k++) {
      const [, , slice, at, length] = page[byPlace[k]];
      const run = runs[runs.length - 1];
      if (run !== undefined && run.slice === slice && at - run.end <= NEIGHBOUR_GAP) {
        size += Math.max(run.end, at + length) - run.end;
        run.end = Math.max(run.end, at + length);
        run.last = k;
      } else {
        runs.push({ slice, at, end: at + length, first: k, last: k });
        size += length;
      }
    }
    const into = this.docScratch.take(size);
    const out = new Array<WireHit>(page.length);
    let offset = 0;
    for (const run of runs) {
      readers[run.slice].docs.readInto(run.at, run.end - run.at, into, offset);
      for (let k = run.first; k <= run.last; k++) {
        const i = byPlace[k];
        const [score, lei, , at, length] = page[i];
        const start = offset + at - run.at;
        out[i] = [score, lei, into.subarray(start, start + length)];
      }
      offset += run.end - run.at;
    }
    return out;
  }

  /** Makes gen the live generation, with its Level 2 data. Queries already running finish on the old one. */
  swap(gen: number, sliceDocs: number[], meta: CollectionMeta, family: FamilyData | null = null): void {
    const old = this.live;
    const live: LiveGeneration = { ...meta, gen, sliceDocs, docs: sliceDocs.reduce((a, b) => a + b, 0), family };
    this.live = live;
    if (old) this.retireWhenIdle(old.gen);
    for (const listener of this.swapListeners) listener(live);
  }

  /** Calls `listener` with each generation that goes live. */
  onSwap(listener: (live: LiveGeneration) => void): void {
    this.swapListeners.push(listener);
  }

  private retireWhenIdle(gen: number): void {
    if ((this.holds.get(gen) ?? 0) > 0) {
      setTimeout(() => this.retireWhenIdle(gen), 50);
      return;
    }
    this.retire(gen);
  }

  private hold(gen: number, delta: 1 | -1): void {
    const n = (this.holds.get(gen) ?? 0) + delta;
    if (n === 0) this.holds.delete(gen);
    else this.holds.set(gen, n);
  }

  private async pinned<T>(work: (live: LiveGeneration) => Promise<T>): Promise<T> {
    const live = this.live;
    if (!live) throw new NotReadyError("no collection is loaded yet");
    this.hold(live.gen, 1);
    try {
      return await work(live);
    } finally {
      this.hold(live.gen, -1);
    }
  }

  private async ask(slice: number, gen: number, request: ShardRequest): Promise<ShardResponse> {
    const response = await this.shards.request(slice, gen, request);
    if (response.kind === "error") throw new ShardFailedError(response.message);
    return response;
  }

  /**
   * Exact terms first, on every slice. Only when that finds nothing, or only prefix matches,
   * comes a typo round (and, when nothing matched, fewer required tokens): decided here, over
   * all slices, so the answer does not depend on how the data is sliced. Each slice guesses the
   * typo round alongside the exact one; only slices that guessed wrong are asked again.
   *
   * The outcome goes to `use` while its generation is pinned. Its hits are the window's from
   * `from` on (a page's first hit: the ones before it are ranked and counted, their documents
   * never read), and their stored JSON are views into scratch memory the next search or lookup
   * reuses (scratch-bytes.ts says why): valid during `use` only.
   */
  searchWith<T>(request: SearchRequest, from: number, use: (outcome: SearchOutcome) => T): Promise<T> {
    return this.pinned(async (live) => {
      const started = performance.now();
      return use(this.outcomeOf(live, await this.searchRefs(live, request), from, started));
    });
  }

  /**
   * A query's synonym variants (one window), as searchWith() for one: each is ranked on the same
   * pinned generation, their hits are merged (merge.ts), and only then are the documents of the
   * page, from `from` on, read. No variant's window of documents is ever read.
   */
  searchVariantsWith<T>(requests: SearchRequest[], from: number, use: (outcome: SearchOutcome) => T): Promise<T> {
    return this.pinned(async (live) => {
      const started = performance.now();
      const window = Math.max(...requests.map((r) => r.window));
      const parts: MergedSearch[] = await Promise.all(requests.map((request) => this.searchRefs(live, request)));
      return use(this.outcomeOf(live, mergeVariants(parts, window), from, started));
    });
  }

  /** The merged hits as an outcome: the documents of those from `from` on read into the scratch. */
  private outcomeOf(live: LiveGeneration, merged: MergedSearch, from: number, started: number): SearchOutcome {
    return {
      found: merged.found,
      outOf: live.docs,
      hits: this.withDocs(live.gen, merged.hits, from),
      facets: merged.facets,
      tookMs: performance.now() - started,
    };
  }

  /** The slices' answers to one request, merged: hit references only, no document read. */
  private async searchRefs(live: LiveGeneration, request: SearchRequest): Promise<MergedSearch> {
    const alone = live.sliceDocs.length === 1;
    const exact = await Promise.all(
      live.sliceDocs.map((_, s) => this.askSearch(s, live.gen, roundQuery(request, 0, false, request.maxTypos), true, alone)),
    );
    return mergeSearchParts(
      await typoRounds(request, exact, (s, query) => this.askSearch(s, live.gen, query, false, false)),
      request.window,
    );
  }

  /**
   * One promise hop, not two async layers: every search asks each slice at least once. A round
   * within the search budget is answered here, at once: the same engine code as a worker's, on
   * the same memory, so the same answer.
   */
  private askSearch(slice: number, gen: number, query: EngineQuery, guess: boolean, alone: boolean): Promise<SearchPart> {
    const local = this.inlineMs < INLINE_MS_PER_TURN ? this.engines.get(gen)?.[slice] : undefined;
    if (local !== undefined) {
      const started = performance.now();
      let reply: ShardReply | null = null;
      try {
        reply = answerSearch(local, query, guess, this.searchBudget, alone);
      } catch {
        // the engine failed here (it traps on memory it cannot grow): a worker answers, or says why
      }
      this.spentInline(performance.now() - started);
      if (reply !== null) return Promise.resolve(searchPart(reply, slice));
    }
    return this.shards.request(slice, gen, { kind: "search", query, guess, alone }).then((response) => {
      if (response.kind === "error") throw new ShardFailedError(response.message);
      if (response.kind !== "search") throw new ShardFailedError(`slice ${slice} answered a search with ${response.kind}`);
      return response;
    });
  }

  /** Counts engine time spent here in this event-loop turn; the count restarts with the next turn. */
  private spentInline(ms: number): void {
    this.inlineMs += ms;
    if (this.inlineTurnEnds) return;
    this.inlineTurnEnds = true;
    setImmediate(() => {
      this.inlineMs = 0;
      this.inlineTurnEnds = false;
    });
  }

  /**
   * The hottest path, on this thread: the LEI's slice, its LEI table, its document file. The
   * stored JSON goes to `use` as scratch (scratch-bytes.ts), valid during `use` only. Nothing
   * waits, so the generation needs no pin.
   */
  lookupWith<T>(lei: string, use: (doc: Uint8Array | null) => T): T {
    const found = this.find(this.liveGen(), lei);
    if (found === null) return use(null);
    const { reader, doc } = found;
    const into = this.docScratch.take(doc.length);
    reader.docs.readInto(doc.at, doc.length, into, 0);
    return use(into.subarray(0, doc.length));
  }

  /** Whether the live collection holds the LEI: its LEI tables only, no document read. */
  hasLei(lei: string): boolean {
    return this.find(this.liveGen(), lei) !== null;
  }

  /**
   * The stored JSON of an LEI in generation `gen`, live or finished and not yet swapped in (the
   * change feed compares the two); null when gen does not hold the LEI. For a pass over many
   * LEIs: slices whose documents take at most WHOLE_SLICE_BYTES together (a delta's overlay)
   * are read whole first, off this thread, the others a document at a time. What was read whole
   * is let go with the function.
   */
  async documentsIn(gen: number): Promise<(lei: string) => Buffer | null> {
    const wholes = new Map<SliceReader, Buffer | null>();
    let budget = WHOLE_SLICE_BYTES; // for the generation: many small slices are not all held at once
    for (const reader of this.readersOf(gen).slices) {
      const body = await reader.docs.whole(budget);
      wholes.set(reader, body);
      if (body !== null) budget -= body.length;
    }
    return (lei) => {
      const found = this.find(gen, lei);
      if (found === null) return null;
      const { reader, doc } = found;
      const body = wholes.get(reader) ?? null;
      return body === null ? reader.docs.read(doc.at, doc.length) : body.subarray(doc.at, doc.at + doc.length);
    };
  }

  private liveGen(): number {
    const live = this.live;
    if (!live) throw new NotReadyError("no collection is loaded yet");
    return live.gen;
  }

  /**
   * Every stored document passing the filters, as JSON lines in LEI order across the slices
   * (lei-order-merge.ts: a page per slice at a time), handed to `sink` chunk by chunk; a sink
   * answering false stops it. The generation stays pinned throughout.
   */
  exportLines(
    filters: Partial<Record<FilterParam, string[]>>,
    exclude: Partial<Record<FilterParam, string[]>>,
    sink: (chunk: Uint8Array) => Promise<boolean>,
  ): Promise<void> {
    return this.pinned((live) =>
      mergeByLei(
        live.sliceDocs.length,
        async (slice, from) => {
          const page = await this.ask(slice, live.gen, { kind: "export", filters, exclude, from });
          if (page.kind !== "export") throw new ShardFailedError(`slice ${slice} answered an export with ${page.kind}`);
          return page;
        },
        sink,
      ),
    );
  }

  facetValues(field: FacetParam): Promise<[string, number][]> {
    return this.pinned(async (live) => {
      const parts = await Promise.all(live.sliceDocs.map((_, s) => this.ask(s, live.gen, { kind: "facet", field })));
      return mergeFacetValues(parts.flatMap((p) => (p.kind === "facet" ? [p.values] : [])));
    });
  }
}
