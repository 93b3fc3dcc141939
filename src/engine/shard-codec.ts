// A batch of requests to a shard worker, and its answers, each in one flat binary buffer.
// Searches are the hot path: a generic encoder spends most of its time on object
// keys and per-value tags, and its decoder builds an object per hit on the front thread, the
// busiest one. Here a hit is a score, 20 LEI bytes and where its stored JSON lies. Rare parts
// (filters, facets, export pages, errors) ride along as msgpack.
//
// Layout, little-endian: u32 count, then per item a u8 kind and its body. A batch's answers may
// come in several parts: the count's top bit says more follow.
// Requests:
//   search: u8 flags (GUESS, DROP_TOKENS, HAS_MAX_TYPOS, HAS_PREFIX, PREFIX), u8 fields,
//           u32 window, u32 typoMask, u8 maxTypos, u32 length (NONE: no q) + q as UTF-8,
//           u32 length (0: none) + msgpack of {filters, facets, exclude?}
//   other:  u32 length, msgpack bytes of the whole request
// Answers:
//   search: answer, u8 hasGuess, [u32 typoMask, u8 maxTypos (0: the query's own), answer]
//   other:  u32 length, msgpack bytes of the whole response
//   answer: u32 found, u8 tokens, u8 required, u32 exactMask, u32 typoable, u32 wideTypos, u8 bestWhole,
//           u8 matched, u32 named, u32 hits, per hit (f64 score, 20 LEI bytes, u32 slice, f64 offset and
//           u32 length of its JSON in the slice's document file),
//           u32 facets length (0: none), msgpack bytes of the facets

import {
  decode,
  encode,
  type GuessedAnswer,
  type HitRef,
  type HitSource,
  type SearchAnswer,
  type ShardReply,
  type ShardRequest,
  type ShardResponse,
} from "./protocol.js";
import { SEARCH_FIELDS, type SearchField } from "./schema.js";
import type { EngineQuery } from "./wasm-slice.js";

const KIND_SEARCH = 1;
const KIND_OTHER = 2;
const NONE = 0xffffffff;
const LEI_BYTES = 20;
const EMPTY = new Uint8Array(0);
const FIELDS = Object.keys(SEARCH_FIELDS) as SearchField[];
const GUESS = 1,
  DROP_TOKENS = 2,
  HAS_MAX_TYPOS = 4,
  HAS_PREFIX = 8,
  PREFIX = 16,
  ALONE = 32;
/** An answer's flags byte: a guess follows; settled (protocol.ts Settled) */
const HAS_GUESS = 1,
  SETTLED_EXACT = 2,
  SETTLED_TYPO = 4;

type SearchRequest = Extract<ShardRequest, { kind: "search" }>;
type QueryExtras = Pick<EngineQuery, "filters" | "facets" | "exclude">;

export function encodeRequests(requests: ShardRequest[]): Uint8Array {
  const parts = requests.map((r) => {
    if (r.kind === "search") return [r.query.q === null ? EMPTY : Buffer.from(r.query.q), packExtras(r.query)];
    return [encode(r)];
  });
  let size = 4;
  requests.forEach((r, i) => {
    size += 1 + (r.kind === "search" ? 1 + 1 + 4 + 4 + 1 + 4 + 4 : 4);
    for (const p of parts[i]) size += p.length;
  });
  const w = new Writer(size);
  w.u32(requests.length);
  requests.forEach((r, i) => {
    if (r.kind === "search") {
      const q = r.query;
      w.u8(KIND_SEARCH);
      w.u8(
        (r.guess ? GUESS : 0) |
          (r.alone ? ALONE : 0) |
          (q.dropTokens ? DROP_TOKENS : 0) |
          (q.maxTypos !== undefined ? HAS_MAX_TYPOS : 0) |
          (q.prefix !== undefined ? HAS_PREFIX : 0) |
          (q.prefix ? PREFIX : 0),
      );
      w.u8(FIELDS.indexOf(q.fields));
      w.u32(q.window);
      w.u32(q.typoMask);
      w.u8(q.maxTypos ?? 0);
      if (q.q === null) w.u32(NONE);
      else w.bytes(parts[i][0]);
      w.bytes(parts[i][1]);
    } else {
      w.u8(KIND_OTHER);
      w.bytes(parts[i][0]);
    }
  });
  return w.buf;
}

export function decodeRequests(bytes: Uint8Array): ShardRequest[] {
  const r = new Reader(bytes);
  const count = r.u32();
  const out: ShardRequest[] = [];
  for (let i = 0; i < count; i++) {
    const kind = r.u8();
    if (kind === KIND_SEARCH) out.push(r.search());
    else if (kind === KIND_OTHER) out.push(decode<ShardRequest>(r.bytesOrNull() ?? EMPTY));
    else throw new Error(`shard request of unknown kind ${kind}`);
  }
  return out;
}

function packExtras(q: EngineQuery): Uint8Array {
  const plain = Object.keys(q.filters).length === 0 && q.facets.length === 0 && q.exclude === undefined;
  return plain ? EMPTY : encode({ filters: q.filters, facets: q.facets, ...(q.exclude !== undefined ? { exclude: q.exclude } : {}) });
}

/** Set in an answer's count word when more answers to the same batch follow. */
const MORE_FOLLOW = 0x80000000;

/**
 * `slice`: the answering slice, written into each of its hits. `last`: false when these answer
 * only the batch's next requests, and more answers follow.
 */
export function encodeResponses(responses: ShardReply[], slice: number, last = true): Uint8Array {
  // Facets and rare answers are packed first, so that the size is known before writing.
  const packed = responses.map((r) => {
    if (r.kind === "search") return [packFacets(r), r.guess ? packFacets(r.guess) : EMPTY];
    return [encode(r)];
  });
  let size = 4;
  responses.forEach((r, i) => {
    size += 1;
    if (r.kind === "search") size += answerSize(r, packed[i][0]) + 1 + (r.guess ? 4 + 1 + answerSize(r.guess, packed[i][1]) : 0);
    else size += 4 + packed[i][0].length;
  });
  const w = new Writer(size);
  w.u32(last ? responses.length : (responses.length | MORE_FOLLOW) >>> 0);
  responses.forEach((r, i) => {
    if (r.kind === "search") {
      w.u8(KIND_SEARCH);
      w.answer(r, packed[i][0], slice);
      w.u8((r.guess ? HAS_GUESS : 0) | (r.settled === "exact" ? SETTLED_EXACT : r.settled === "typo" ? SETTLED_TYPO : 0));
      if (r.guess) {
        w.u32(r.guess.typoMask);
        w.u8(r.guess.maxTypos ?? 0);
        w.answer(r.guess, packed[i][1], slice);
      }
    } else {
      w.u8(KIND_OTHER);
      w.bytes(packed[i][0]);
    }
  });
  return w.buf;
}

/** Whether encoded answers are the last to their batch. */
export function isLastPart(bytes: Uint8Array): boolean {
  return (new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true) & MORE_FOLLOW) === 0;
}

export function decodeResponses(bytes: Uint8Array): ShardResponse[] {
  const r = new Reader(bytes);
  const count = r.u32() & ~MORE_FOLLOW;
  const out: ShardResponse[] = [];
  for (let i = 0; i < count; i++) {
    const kind = r.u8();
    if (kind === KIND_SEARCH) {
      const answer = r.answer();
      const flags = r.u8();
      const part: Extract<ShardResponse, { kind: "search" }> = { kind: "search", ...answer };
      if ((flags & HAS_GUESS) !== 0) part.guess = r.guess();
      if ((flags & SETTLED_EXACT) !== 0) part.settled = "exact";
      else if ((flags & SETTLED_TYPO) !== 0) part.settled = "typo";
      out.push(part);
    } else if (kind === KIND_OTHER) {
      out.push(decode<ShardResponse>(r.bytesOrNull() ?? EMPTY));
    } else {
      throw new Error(`shard answer of unknown kind ${kind}`);
    }
  }
  return out;
}

function packFacets(a: SearchAnswer<HitSource>): Uint8Array {
  return Object.keys(a.facets).length > 0 ? encode(a.facets) : EMPTY;
}

function answerSize(a: SearchAnswer<HitSource>, facets: Uint8Array): number {
  let size = 4 + 1 + 1 + 4 + 4 + 4 + 1 + 1 + 4 + 4 + 4 + facets.length;
  size += a.hits.count * (8 + LEI_BYTES + 4 + 8 + 4);
  return size;
}

class Writer {
  readonly buf: Buffer;
  private readonly view: DataView;
  private at = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafeSlow(size);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, size);
  }

  u8(v: number): void {
    this.view.setUint8(this.at, v);
    this.at += 1;
  }
  u32(v: number): void {
    this.view.setUint32(this.at, v, true);
    this.at += 4;
  }
  f64(v: number): void {
    this.view.setFloat64(this.at, v, true);
    this.at += 8;
  }

  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  answer(a: SearchAnswer<HitSource>, facets: Uint8Array, slice: number): void {
    const p = a.plan;
    this.u32(a.found);
    this.u8(p.tokens);
    this.u8(p.required);
    this.u32(p.exactMask);
    this.u32(p.typoable);
    this.u32(p.wideTypos);
    this.u8(p.bestWhole);
    this.u8(p.matched ? 1 : 0);
    this.u32(p.named);
    const hits = a.hits;
    this.u32(hits.count);
    for (let i = 0; i < hits.count; i++) {
      this.f64(hits.score(i));
      hits.copyLei(i, this.buf, this.at);
      this.at += LEI_BYTES;
      this.u32(slice);
      this.f64(hits.docAt(i));
      this.u32(hits.docLength(i));
    }
    this.bytes(facets);
  }
}

class Reader {
  private readonly buf: Buffer;
  private readonly view: DataView;
  private at = 0;

  constructor(bytes: Uint8Array) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  u8(): number {
    return this.view.getUint8(this.at++);
  }
  u32(): number {
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  f64(): number {
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }

  string(encoding: "utf8" | "latin1"): string | null {
    const n = this.u32();
    if (n === NONE) return null;
    const s = this.buf.toString(encoding, this.at, this.at + n);
    this.at += n;
    return s;
  }

  search(): SearchRequest {
    const flags = this.u8();
    const fields = FIELDS[this.u8()];
    if (fields === undefined) throw new Error("shard search request with unknown fields");
    const window = this.u32(),
      typoMask = this.u32(),
      maxTypos = this.u8();
    const q = this.string("utf8");
    const extraBytes = this.bytesOrNull() ?? EMPTY;
    const extras: QueryExtras = extraBytes.length > 0 ? decode<QueryExtras>(extraBytes) : { filters: {}, facets: [] };
    const query: EngineQuery = {
      q,
      fields,
      filters: extras.filters,
      facets: extras.facets,
      window,
      typoMask,
      dropTokens: (flags & DROP_TOKENS) !== 0,
    };
    if (extras.exclude !== undefined) query.exclude = extras.exclude;
    if ((flags & HAS_MAX_TYPOS) !== 0) query.maxTypos = maxTypos;
    if ((flags & HAS_PREFIX) !== 0) query.prefix = (flags & PREFIX) !== 0;
    const request: SearchRequest = { kind: "search", query, guess: (flags & GUESS) !== 0 };
    if ((flags & ALONE) !== 0) request.alone = true;
    return request;
  }

  bytesOrNull(): Uint8Array | null {
    const n = this.u32();
    if (n === NONE) return null;
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }

  guess(): GuessedAnswer {
    const typoMask = this.u32(),
      maxTypos = this.u8();
    return { typoMask, maxTypos: maxTypos === 0 ? undefined : maxTypos, ...this.answer() };
  }

  answer(): SearchAnswer {
    const found = this.u32();
    const tokens = this.u8(),
      required = this.u8(),
      exactMask = this.u32(),
      typoable = this.u32(),
      wideTypos = this.u32();
    const bestWhole = this.u8(),
      matched = this.u8() === 1,
      named = this.u32();
    const n = this.u32();
    const hits: HitRef[] = new Array<HitRef>(n);
    for (let i = 0; i < n; i++) {
      const score = this.f64();
      const lei = this.buf.toString("latin1", this.at, this.at + LEI_BYTES);
      this.at += LEI_BYTES;
      const slice = this.u32(),
        at = this.f64(),
        length = this.u32();
      hits[i] = [score, lei, slice, at, length];
    }
    const facetBytes = this.bytesOrNull() ?? EMPTY;
    const facets = facetBytes.length > 0 ? decode<SearchAnswer["facets"]>(facetBytes) : {};
    return { found, hits, facets, plan: { tokens, required, exactMask, typoable, wideTypos, bestWhole, matched, named } };
  }
}
