// Messages between the front and the shard workers: tasks through Piscina, request batches
// through each worker's query channel. Payloads are bytes, transferred rather than
// structured-cloned; a stored document travels as where it lies in its slice's document file,
// which the front reads once the merged page is known.

import type { MessagePort } from "node:worker_threads";
import { Packr } from "msgpackr";
import type { FacetParam, FilterParam } from "./schema.js";
import type { EngineQuery, QueryPlanFacts, Removals, SliceShare } from "./wasm-slice.js";
import type { LeiTableShare } from "./lei-table.js";

export type ShardTask =
  /** scratchDir: where the build's document files grow until finish moves them beside the segment */
  | { op: "begin"; gen: number; scratchDir: string }
  /** payload: a record batch (record-batch.ts) of the slice */
  | { op: "add"; gen: number; slice: number; payload: Uint8Array }
  /** segment: where to persist the built slice */
  | { op: "finish"; gen: number; slice: number; segment: string }
  /** serve a slice of a generation from its persisted segment */
  | { op: "open"; gen: number; slice: number; segment: string }
  /** serve a slice another worker opened, from the same memory; with `removals`, less those docs */
  | { op: "adopt"; gen: number; slice: number; share: SliceShare; removals?: Removals }
  /** the docs of `leis` that slice `slice` of gen holds, removed: their descriptor (wasm-slice.ts Removals), for adopt */
  | { op: "removals"; gen: number; slice: number; leis: string[] }
  | { op: "drop"; gen: number }
  /** hand the C heap's free memory back to the system (native-heap.ts): process-wide, so any thread may */
  | { op: "trim" }
  /** the worker's end of its query channel (slice-channel.ts) */
  | { op: "attach"; port: MessagePort };

export type ShardRequest =
  /**
   * `guess`: with an exact query, also run the typo round this slice's own facts call for.
   * `alone`: the generation's only slice, whose facts are every slice's: it runs every round the
   * front would plan (search-rounds.ts) and answers the last, `settled`.
   */
  | { kind: "search"; query: EngineQuery; guess?: boolean; alone?: boolean }
  | { kind: "facet"; field: FacetParam }
  /** the stored documents from doc `from` on that pass the filters, as JSON lines */
  | { kind: "export"; filters: Partial<Record<FilterParam, string[]>>; exclude: Partial<Record<FilterParam, string[]>>; from: number };

/** Where a stored document lies in its slice's document file. */
export interface DocRef {
  at: number;
  length: number;
}

/** A hit as a slice answers it: its stored JSON stays on disk until the merged page is known. */
export type HitRef = [score: number, lei: string, slice: number, at: number, length: number];

/** A hit as the collection answers it: [score, lei, stored JSON bytes]. */
export type WireHit = [number, string, Uint8Array];

/**
 * A slice's hits as its shard writes them: read where they lie in the engine's memory while the
 * answer is encoded, so that on the shard no hit becomes an object and no LEI a string.
 */
export interface HitSource {
  readonly count: number;
  score(i: number): number;
  /** the hit's 20 LEI bytes, upper case, into `into` at `at` */
  copyLei(i: number, into: Uint8Array, at: number): void;
  docAt(i: number): number;
  docLength(i: number): number;
}

/** One slice's answer to one engine query: its hits as the front decodes them, or a HitSource on the shard. */
export interface SearchAnswer<Hits = HitRef[]> {
  found: number;
  hits: Hits;
  facets: Partial<Record<FacetParam, [string, number][]>>;
  plan: QueryPlanFacts;
}

/**
 * The answer to the typo round a slice guessed, all tokens required; typoMask and maxTypos (absent:
 * the query's own cap) say which round.
 */
export type GuessedAnswer<Hits = HitRef[]> = SearchAnswer<Hits> & { typoMask: number; maxTypos?: number };

/**
 * A lone slice's answer that needs no further round: the exact round's, or the last typo round's
 * (which, like any typo round's, counts only when it matched: keepBestRequired).
 */
export type Settled = "exact" | "typo";

export type ShardResponse<Hits = HitRef[]> =
  | ({ kind: "search"; guess?: GuessedAnswer<Hits>; settled?: Settled } & SearchAnswer<Hits>)
  | { kind: "facet"; values: [string, number][] }
  | { kind: "export"; lines: Uint8Array; next: number | null }
  | { kind: "error"; message: string };

/** A response as a shard writes it. */
export type ShardReply = ShardResponse<HitSource>;

/** A served slice: its docs, where the front finds them by LEI, and how other workers serve it too. */
export interface FinishResult {
  docs: number;
  leis: LeiTableShare;
  share: SliceShare;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/** Encodes into a fresh buffer of its own, safe to transfer. */
export function encode(value: unknown): Uint8Array {
  const packed = packr.pack(value);
  const own = new Uint8Array(packed.length);
  own.set(packed);
  return own;
}

export function decode<T>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}
