// One slice generation in a WASM engine instance. The thread that opens it reads its segment
// straight into a new shared memory (open); every other shard thread serves the same memory with
// an engine instance of its own (adopt), so the index is in memory once however many threads
// answer from it, and any of them answers a whole query. Queries allocate nothing beyond each
// instance's scratch. Stored documents stay in the slice's document file: a hit answers where its
// JSON lies, and only an export reads them here. The front looks up LEIs in the same memory
// (lei-table.ts). Never a JSON.stringify, never all documents in memory.

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { DocStoreReader } from "./doc-store.js";
import type { HitSource, SearchAnswer } from "./protocol.js";
import { buildLeiIndex, LeiTable, type LeiTableShare } from "./lei-table.js";
import { ARRAY_TYPES, docFileOf, padTo, readSegment, type ArrayPlacer } from "./segment.js";
import { columnIndex, columnKey, COLUMNS, SEARCH_FIELDS, type FacetParam, type FilterParam, type SearchField } from "./schema.js";
import { LEI_TERM_MARKER, REPEAT_MARKER, type CodeArray, type ColumnData, type SliceData } from "./slice-builder.js";
import { tokenize, typoBudget } from "./text.js";
import { nameKeyOf } from "./name-key.js";
import { NAMED_PAGE } from "./planner.js";
import { idBytes } from "./packed-ids.js";
import { columnCodes, type ColumnCodes } from "./column-codes.js";
import { ColumnValues, placeColumnValues, type ColumnValuesPlace } from "./column-values.js";

/**
 * The compiled engine, on a thread's first slice: a thread that never serves one (a front thread
 * of a server that answers no search itself, a tool that imports the types' module) compiles
 * nothing. Built code lives in dist/src/engine/, three levels below the checkout.
 */
let engineModule: WebAssembly.Module | null = null;
function compiledEngine(): WebAssembly.Module {
  engineModule ??= new WebAssembly.Module(readFileSync(new URL("../../../native/build/engine.wasm", import.meta.url)));
  return engineModule;
}

interface EngineExports {
  memory: WebAssembly.Memory;
  alloc(size: number): number;
  configure(desc: number): void;
  queryBuffer(): number;
  resultBuffer(): number;
  facetCounts(col: number): number;
  search(): void;
  refused(): number;
  removals(list: number, n: number): number;
}

export interface EngineQuery {
  q: string | null;
  fields: SearchField;
  filters: Partial<Record<FilterParam, string[]>>;
  facets: FacetParam[];
  /** how many top hits the caller needs (page * limit) */
  window: number;
  /** bit t: token t also gets typo candidates */
  typoMask: number;
  /** when nothing matches every token, require fewer */
  dropTokens: boolean;
  /** cap on typos per token (0–2); the budget by length applies under it. Default 2 */
  maxTypos?: number;
  /** whether the last token also matches as a prefix. Default true */
  prefix?: boolean;
  /** values a doc may not have, per field (docs without a value pass) */
  exclude?: Partial<Record<FilterParam, string[]>>;
}

export type SliceSearchResult = SearchAnswer<HitSource>;

/** What a slice learnt about the query, for the caller's decision on typos and dropped tokens. */
export interface QueryPlanFacts {
  tokens: number;
  /** tokens required of the hits */
  required: number;
  /** bit t: token t has exact (or prefix) candidates in this slice */
  exactMask: number;
  /** bit t: token t is long enough to take typos */
  typoable: number;
  /** bit t: token t is long enough to take two typos, under the query's cap */
  wideTypos: number;
  /** whole-token matches of the best match, ignoring filters */
  bestWhole: number;
  /** whether anything matched the required tokens, ignoring filters */
  matched: boolean;
  /** docs matching every token in a name at no typo cost, ignoring filters: at least NAMED_PAGE once that many exist */
  named: number;
}

const MAX_TOKENS = 16;
const MAX_TOKEN_BYTES = 60;
/** typos a token may take when the query sets no cap (EngineQuery.maxTypos) */
const MAX_TYPOS = 2;
const OUT_HEADER = 32;
/** Word 29 of the query descriptor: the work budget (native/assembly/query.ts). */
const QUERY_BUDGET = 116;
/** Word 30: the docs removed from the slice (native/assembly/removals.ts), 0 for none. */
const QUERY_REMOVALS = 120;
const LEI_TOKEN = /^[0-9a-z]{20}$/;
const NEWLINE = Buffer.from("\n");
/** Registration statuses of an LEI still in force: ranked before LAPSED, RETIRED and the rest. */
const CURRENT_REGISTRATIONS = ["ISSUED", "PENDING_TRANSFER", "PENDING_ARCHIVAL"] as const;

/** At most MAX_TOKENS: the first and the last half, since long names often differ at the tail. */
function capTokens(tokens: string[]): string[] {
  if (tokens.length <= MAX_TOKENS) return tokens;
  return [...tokens.slice(0, MAX_TOKENS / 2), ...tokens.slice(-MAX_TOKENS / 2)];
}

/**
 * The engine counts edits in UTF-8 bytes. A Cyrillic, Greek, Arabic or Hebrew letter is two
 * bytes, so one inserted or deleted letter is two byte edits: such tokens get twice the budget.
 */
function inBytes(token: string, chars: number): number {
  return Buffer.byteLength(token) > token.length ? chars * 2 : chars;
}

/** A query as written into the engine's buffer, with what a retry must rewrite or report. */
interface WrittenQuery {
  /** the query written, and the removals word of the view that wrote it: what a later round compares (sameWords) */
  source: EngineQuery;
  removalsAt: number;
  tokens: number;
  facets: FacetParam[];
  maxTypos: number;
  wideTypos: number;
  /** per probe that may take typos: where its budget word lies, its token, and its budget in characters */
  typoProbes: { at: number; token: string; chars: number }[];
}

/**
 * Completes the index the segment's arrays (at `at`) began, in the engine's memory: the LEI
 * table's hash index, each doc's rank, and the engine's descriptor. Done once per slice, by the
 * thread that opens it.
 */
function placeIndex(
  engine: EngineExports,
  memory: WebAssembly.Memory,
  data: SliceData,
  at: ReadonlyMap<string, number>,
  docFile: string,
): SliceShare {
  const ptr = (name: string): number => {
    const p = at.get(name);
    if (p === undefined) throw new Error(`the engine's array ${name} is not in its memory`);
    return p;
  };
  // the engine reads postings from bases set back by nDocs entries (native/assembly/slice.ts):
  // the term bytes, placed first, leave more than that below them
  for (const [name, width] of [
    ["postOffs", 4],
    ["postDocs", idBytes(data.postDocs)],
    ["postMeta", 2],
  ] as const)
    if (ptr(name) < data.nDocs * width) throw new Error(`the engine's array ${name} lies too low in its memory`);
  // term d < docs of the dictionary is doc d's LEI; none of it moves once placed
  const table = { docs: data.nDocs, termBytesAt: ptr("termBytes"), termOffsAt: ptr("termOffs") };
  const index = buildLeiIndex(
    table,
    (bytes) => engine.alloc(bytes),
    () => sharedBuffer(memory),
  );
  const leis: LeiTableShare = {
    memory: sharedBuffer(memory),
    ...table,
    docStartAt: ptr("docStart"),
    docStartBytes: data.docStart.BYTES_PER_ELEMENT === 4 ? 4 : 8,
    docLenAt: ptr("docLen"),
    ...index,
  };
  const words: number[] = [
    data.nDocs,
    data.termOffs.length - 1,
    ptr("termBytes"),
    ptr("termOffs"),
    ptr("postOffs"),
    ptr("postDocs"),
    ptr("fwdOffs"),
    ptr("fwdTerms"),
    ptr("fwdMeta"),
    ptr("nameLen"),
    ptr("postMeta"),
    data.trie.nodes,
    ptr("trie"),
    ptr("nameKeys"),
    data.nameKeys.length / 3,
    placeDocRanks(engine, memory, data),
    idBytes(data.postDocs),
    idBytes(data.fwdTerms),
    data.columns.length,
  ];
  data.columns.forEach((col, c) =>
    words.push(
      ptr(`col${c}.codes`),
      col.codes.BYTES_PER_ELEMENT,
      col.values.length,
      ptr(`col${c}.valOffs`),
      listedDocs(engine, memory, col, data.nDocs),
    ),
  );
  words.push(0, 0); // the engine's own words (native/assembly/slice.ts)
  const descriptor = Uint32Array.from(words);
  const descriptorAt = engine.alloc(descriptor.byteLength);
  new Uint32Array(sharedBuffer(memory), descriptorAt, descriptor.length).set(descriptor);
  const columns = data.columns.map((col, c) => ({
    values: placeColumnValues(
      col.values,
      (bytes) => engine.alloc(bytes),
      () => sharedBuffer(memory),
    ),
    codesAt: ptr(`col${c}.codes`),
    codeBytes: col.codes.BYTES_PER_ELEMENT,
    valOffsAt: ptr(`col${c}.valOffs`),
  }));
  return { key: randomUUID(), memory, descriptorAt, docs: data.nDocs, docFile, leis, columns };
}

/** A column's value lists in the segment: the engine keeps only the rare values' (listedDocs). */
const VALUE_DOCS = /^col\d+\.valDocs$/;

/**
 * The docs of a column's rare values, in the engine's memory: offsets (a u32 per code, and one
 * more), then the docs. A value held by more than a 64th of the docs lists none: a filter on it
 * that drives a query scans the column's codes instead, which costs less than considering those
 * docs does, and the lists of such values would be most of the memory the lists take.
 */
function listedDocs(engine: EngineExports, memory: WebAssembly.Memory, col: ColumnData, nDocs: number): number {
  const { valOffs, valDocs } = col;
  const codes = valOffs.length - 1;
  const most = Math.max(1, Math.floor(nDocs / 64));
  const listed = (code: number): boolean => valOffs[code + 1] - valOffs[code] <= most;
  let total = 0;
  for (let code = 0; code < codes; code++) if (listed(code)) total += valOffs[code + 1] - valOffs[code];
  const at = engine.alloc((codes + 1 + total) * 4);
  const offs = new Uint32Array(sharedBuffer(memory), at, codes + 1);
  const docs = new Uint32Array(sharedBuffer(memory), at + (codes + 1) * 4, total);
  let n = 0;
  for (let code = 0; code < codes; code++) {
    offs[code] = n;
    if (!listed(code)) continue;
    docs.set(valDocs.subarray(valOffs[code], valOffs[code + 1]), n);
    n += valOffs[code + 1] - valOffs[code];
  }
  offs[codes] = n;
  return at;
}

/**
 * Each doc's standing for ranking ties, in WASM memory: 2 when its registration is current
 * (ISSUED or pending a transfer or archival), 1 when the entity is ACTIVE.
 */
function placeDocRanks(engine: EngineExports, memory: WebAssembly.Memory, data: SliceData): number {
  const nDocs = data.nDocs;
  const at = engine.alloc(Math.max(nDocs, 1));
  const ranks = new Uint8Array(sharedBuffer(memory), at, nDocs);
  const standing = (param: FilterParam, good: readonly string[], weight: number): void => {
    const col = data.columns[columnIndex(param)];
    const codeWeight = col.values.map((v) => (v !== null && good.includes(v) ? weight : 0));
    for (let d = 0; d < nDocs; d++) ranks[d] |= codeWeight[col.codes[d]];
  };
  ranks.fill(0);
  standing("registrationStatus", CURRENT_REGISTRATIONS, 2);
  standing("status", ["ACTIVE"], 1);
  return at;
}

/**
 * What another shard thread needs to serve the same slice from the same memory: structured-
 * cloneable, and sent once per thread when a generation is served (shard.ts "adopt").
 */
export interface SliceShare {
  /** names the memory: threads tell by it that two generations serve the same slice */
  key: string;
  memory: WebAssembly.Memory;
  /** the engine's descriptor of the slice, in that memory */
  descriptorAt: number;
  docs: number;
  docFile: string;
  leis: LeiTableShare;
  /** per column: where its values, its per-doc codes and its value offsets lie in the memory */
  columns: { values: ColumnValuesPlace; codesAt: number; codeBytes: number; valOffsAt: number }[];
}

interface EngineColumn {
  values: ColumnValues;
  codes: CodeArray;
  valOffs: Uint32Array;
}

/**
 * Docs removed from a slice (native/assembly/removals.ts): where the engine's descriptor of them
 * lies in the slice's memory, and how many there are. Plain numbers, so that every thread's
 * instance on the same memory serves the slice less the same docs.
 */
export interface Removals {
  at: number;
  count: number;
}

/** What every view of one slice on this thread shares: one engine instance and its scratch. */
interface SliceCore {
  engine: EngineExports;
  share: SliceShare;
  /** each doc's LEI and where its stored JSON lies, read in the engine's memory (lei-table.ts) */
  leis: LeiTable;
  /** per column: its values, and its per-doc codes (a view of WASM memory, as narrow as stored) */
  columns: EngineColumn[];
  /** per column, its values' codes by key (filters) */
  codes: ColumnCodes[];
  scratch: number;
  bitmapAt: number[];
  /** what retryWithTypos() needs of the query last written into the engine's buffer */
  lastQuery: WrittenQuery | null;
  /** what LeiTable.warm() read: kept, so that its reads are not optimised away */
  warmed: number;
}

/** The removed docs' bitmap and per-column counts, as views of the slice's memory. */
class RemovedDocs {
  private readonly bits: Uint32Array;
  private readonly perColumn: Uint32Array[];
  constructor(
    readonly removals: Removals,
    share: SliceShare,
  ) {
    const buffer = sharedBuffer(share.memory);
    const words = new Uint32Array(buffer, removals.at, 3 + share.columns.length);
    this.bits = new Uint32Array(buffer, words[1], Math.ceil((share.docs + 1) / 32));
    this.perColumn = share.columns.map((col, c) => new Uint32Array(buffer, words[3 + c], col.values.count + 1));
  }
  has(doc: number): boolean {
    return (this.bits[doc >>> 5] & (1 << (doc & 31))) !== 0;
  }
  withCode(c: number, code: number): number {
    return this.perColumn[c][code];
  }
}

/** A new engine instance on `memory`: its own globals and scratch, the memory's index. */
function instantiate(memory: WebAssembly.Memory, engine: WebAssembly.Module = compiledEngine()): EngineExports {
  return new WebAssembly.Instance(engine, {
    env: {
      memory,
      abort: () => {
        throw new Error("engine abort");
      },
    },
  }).exports as unknown as EngineExports;
}

/** A new instance on the slice, configured: its own scratch, the slice's columns and LEI table. */
function configured(engine: EngineExports, share: SliceShare, columns: EngineColumn[]): SliceCore {
  const codes = columnCodes(columns.map((col, c) => ({ param: COLUMNS[c].param, values: col.values })));
  engine.configure(share.descriptorAt);
  // this instance's query scratch: token bytes, then one filter bitmap per column
  let size = MAX_TOKENS * 2 * 64;
  const bitmapOffsets = columns.map((col) => {
    const at = size;
    size += (Math.ceil(col.values.length / 32) + 1) * 4;
    return at;
  });
  const scratch = engine.alloc(size);
  return {
    engine,
    share,
    leis: new LeiTable(share.leis),
    columns,
    codes,
    scratch,
    bitmapAt: bitmapOffsets.map((o) => scratch + o),
    lastQuery: null,
    warmed: 0,
  };
}

function codeView(buffer: SharedArrayBuffer, bytes: number, at: number, docs: number): CodeArray {
  if (bytes === 1) return new Uint8Array(buffer, at, docs);
  return bytes === 2 ? new Uint16Array(buffer, at, docs) : new Uint32Array(buffer, at, docs);
}

function sharedBuffer(memory: WebAssembly.Memory): SharedArrayBuffer {
  const buffer = memory.buffer as unknown;
  if (!(buffer instanceof SharedArrayBuffer)) throw new Error("the engine's memory is not shared: native/asconfig.json must declare it so");
  return buffer;
}

export class WasmSlice {
  /** the docs served: the slice's, less those removed */
  readonly docs: number;
  /** how another thread serves this slice from the same memory */
  readonly share: SliceShare;
  private readonly core: SliceCore;
  /** the document file, opened on the first read: a front thread's instance only searches */
  private docStore: DocStoreReader | null;
  private closed = false;
  private readonly removed: RemovedDocs | null;

  /**
   * A slice served from its segment, in a new shared memory. The engine's arrays are read
   * straight into it, so a slice never exists twice in memory, not even while it loads.
   */
  static async open(segment: string, docsJustWritten: boolean): Promise<WasmSlice> {
    const memory = new WebAssembly.Memory({ initial: 2, maximum: 65536, shared: true });
    const engine = instantiate(memory);
    const at = new Map<string, number>();
    const place: ArrayPlacer = (arrays) => {
      let size = 0;
      const offsets: [string, number][] = [];
      // a column's value lists stay out of the engine's memory: placeIndex() keeps the rare values' (listedDocs)
      for (const a of arrays) {
        if (VALUE_DOCS.test(a.name)) continue;
        offsets.push([a.name, size]);
        size += padTo(a.length * ARRAY_TYPES[a.kind].BYTES_PER_ELEMENT);
      }
      const base = engine.alloc(size);
      for (const [name, offset] of offsets) at.set(name, base + offset);
      return (a) =>
        VALUE_DOCS.test(a.name)
          ? new ARRAY_TYPES[a.kind](a.length)
          : new ARRAY_TYPES[a.kind](engine.memory.buffer, at.get(a.name)!, a.length);
    };
    const { data, docs } = await readSegment(segment, place, docsJustWritten);
    const share = placeIndex(engine, memory, data, at, docFileOf(segment));
    const buffer = sharedBuffer(memory);
    const columns = data.columns.map(({ codes, valOffs }, c) => ({
      values: new ColumnValues(buffer, share.columns[c].values),
      codes,
      valOffs,
    }));
    return new WasmSlice(configured(engine, share, columns), docs, null);
  }

  /**
   * The slice of `share` less `removals`, from the engine instance of one of `served` on the
   * same memory if there is one (a generation derived from another serves its slices), so that
   * a thread has one instance, and one scratch, per slice; else from a new instance.
   */
  static adoptBeside(share: SliceShare, removals: Removals | null, served: Iterable<WasmSlice>): WasmSlice {
    for (const slice of served) if (slice.share.key === share.key) return slice.view(removals);
    const adopted = WasmSlice.adopt(share);
    return removals === null ? adopted : adopted.view(removals);
  }

  /**
   * The slice another thread opened, served here from the same memory; by another build of the
   * engine when `engine` is given (one that reads the same layout: `npm run bench:engine`).
   */
  static adopt(share: SliceShare, engine?: WebAssembly.Module): WasmSlice {
    const instance = instantiate(share.memory, engine);
    const buffer = sharedBuffer(share.memory);
    const columns = share.columns.map((col) => ({
      values: new ColumnValues(buffer, col.values),
      codes: codeView(buffer, col.codeBytes, col.codesAt, share.docs),
      valOffs: new Uint32Array(buffer, col.valOffsAt, col.values.count + 1),
    }));
    return new WasmSlice(configured(instance, share, columns), null, null);
  }

  private constructor(core: SliceCore, docStore: DocStoreReader | null, removals: Removals | null) {
    this.core = core;
    this.share = core.share;
    this.docStore = docStore;
    this.removed = removals === null ? null : new RemovedDocs(removals, core.share);
    this.docs = core.share.docs - (removals?.count ?? 0);
  }

  /**
   * The docs of `leis` this slice holds, removed (native/assembly/removals.ts): their descriptor
   * is derived once, here, in the slice's memory; view() serves the slice less them, on
   * any thread. LEIs the slice lacks are passed over.
   */
  removalsOf(leis: Iterable<string>): Removals {
    const docs: number[] = [];
    for (const lei of leis) {
      const d = this.core.leis.docOf(lei);
      if (d >= 0) docs.push(d);
    }
    const { engine } = this.core;
    const list = engine.alloc(Math.max(docs.length, 1) * 4);
    new Uint32Array(engine.memory.buffer, list, docs.length).set(docs);
    const at = engine.removals(list, docs.length);
    return { at, count: new Uint32Array(engine.memory.buffer, at, 1)[0] };
  }

  /** The slice less the docs `removals` names (null: none), from the same engine instance: nothing of its own but a document file. */
  view(removals: Removals | null): WasmSlice {
    return new WasmSlice(this.core, null, removals);
  }

  /** The removed docs this view serves the slice without; null: none. */
  get removals(): Removals | null {
    return this.removed?.removals ?? null;
  }

  /** The LEI table, where the front finds the slice's docs by LEI. */
  get leiTable(): LeiTableShare {
    return this.share.leis;
  }

  private doc(d: number): Uint8Array {
    if (this.closed) throw new Error("document file is closed");
    this.docStore ??= DocStoreReader.open(this.share.docFile);
    return this.docStore.read(this.core.leis.docAt(d), this.core.leis.docLength(d));
  }

  /** Closes the document file: the generation is gone. Other views of the slice keep theirs. */
  close(): void {
    this.docStore?.close();
    this.docStore = null;
    this.closed = true;
  }

  /** Every value of a facet column with its doc count. */
  facetValues(param: FacetParam): [string, number][] {
    const c = columnIndex(param);
    const { values, valOffs } = this.core.columns[c];
    const out: [string, number][] = [];
    for (let code = 1; code < values.length; code++) {
      const n = valOffs[code + 1] - valOffs[code] - (this.removed?.withCode(c, code) ?? 0);
      if (n > 0) out.push([values.at(code)!, n]);
    }
    return out;
  }

  search(query: EngineQuery): SliceSearchResult {
    this.core.lastQuery = this.writeQuery(query);
    return this.run(this.core.lastQuery)!;
  }

  /**
   * search() within a work budget (postings, as the engine estimates them: native/assembly/query.ts
   * workEstimate): null, with no work done past the query's analysis, when it promises more.
   */
  searchWithin(query: EngineQuery, budget: number): SliceSearchResult | null {
    const last = this.core.lastQuery;
    // a later round of the query in the buffer (the front asks each round apart): only its typo settings are rewritten
    if (last !== null && this.sameWords(last, query))
      return this.retryWithTyposWithin(query.typoMask, query.maxTypos ?? MAX_TYPOS, budget, query.dropTokens);
    this.core.lastQuery = this.writeQuery(query);
    return this.run(this.core.lastQuery, budget);
  }

  /**
   * Whether `query` differs from the one written in the buffer in its typo settings at most, and
   * asks no more typos than were written: the same objects of the same request (roundQuery()
   * hands every round the request's own), through the same view.
   */
  private sameWords(last: WrittenQuery, query: EngineQuery): boolean {
    const was = last.source;
    return (
      was.q === query.q &&
      was.fields === query.fields &&
      was.filters === query.filters &&
      was.facets === query.facets &&
      was.window === query.window &&
      was.prefix === query.prefix &&
      was.exclude === query.exclude &&
      last.removalsAt === (this.removed?.removals.at ?? 0) &&
      (query.maxTypos ?? MAX_TYPOS) <= last.maxTypos
    );
  }

  /**
   * The query of the last search() again, with typo candidates for the tokens of typoMask, at
   * most maxTypos each (default: the query's own cap), and no dropped tokens. The query is still
   * in the engine's buffer, so it is not analysed again: only the typo settings are rewritten.
   */
  retryWithTypos(typoMask: number, maxTypos?: number): SliceSearchResult {
    return this.retryWithTyposWithin(typoMask, maxTypos, 0)!;
  }

  /** retryWithTypos() within a work budget, as searchWithin(); 0: none. `dropTokens`: fewer tokens may be required when all match nothing. */
  retryWithTyposWithin(typoMask: number, maxTypos: number | undefined, budget: number, dropTokens = false): SliceSearchResult | null {
    const last = this.core.lastQuery;
    if (!last) throw new Error("retryWithTypos() before any search()");
    const mem = new DataView(this.core.engine.memory.buffer);
    const qb = this.core.engine.queryBuffer();
    const cap = maxTypos ?? last.maxTypos;
    for (const p of last.typoProbes) mem.setUint32(p.at, inBytes(p.token, Math.min(p.chars, cap)), true);
    mem.setUint32(qb + 20, typoMask, true);
    mem.setUint32(qb + 24, dropTokens ? 2 : 0, true);
    return this.run(last, budget);
  }

  /** Writes the query descriptor (see native/assembly/query.ts). */
  private writeQuery(query: EngineQuery): WrittenQuery {
    const e = this.core.engine;
    const mem = new DataView(e.memory.buffer);
    const qb = e.queryBuffer();
    const bytes = Buffer.from(e.memory.buffer);
    bytes.fill(0, qb, qb + 128 + MAX_TOKENS * 32);
    const terms = query.q ? tokenize(query.q) : [];
    const tokens = capTokens(terms);
    const fieldMask = SEARCH_FIELDS[query.fields];
    const key = (fieldMask & SEARCH_FIELDS.name) !== 0 ? nameKeyOf(terms) : null;
    if (key) {
      mem.setUint32(qb + 96, key.hi, true);
      mem.setUint32(qb + 100, key.lo, true);
      mem.setUint32(qb + 108, 1, true);
    }
    mem.setUint32(qb + 104, terms.length, true);
    let n = 0;
    let cursor = this.core.scratch;
    const maxTypos = query.maxTypos ?? MAX_TYPOS;
    let wideTypos = 0;
    const typoProbes: WrittenQuery["typoProbes"] = [];
    const writeProbe = (t: number, p: number, text: string, chars: number, prefix: boolean, cost = 0): void => {
      // in place; a token longer than its slot is cut at the byte (write() stops at a whole character)
      let len = bytes.write(text, cursor, MAX_TOKEN_BYTES, "utf8");
      if (Buffer.byteLength(text) > len) {
        const encoded = Buffer.from(text);
        len = Math.min(encoded.length, MAX_TOKEN_BYTES);
        bytes.set(encoded.subarray(0, len), cursor);
      }
      const base = qb + 128 + t * 32 + p * 16;
      mem.setUint32(base, cursor, true);
      mem.setUint32(base + 4, len, true);
      mem.setUint32(base + 8, inBytes(text, chars), true);
      mem.setUint32(base + 12, (prefix ? 1 : 0) | (cost << 8), true);
      cursor += 64;
      if (chars === 0) return;
      typoProbes.push({ at: base + 8, token: text, chars });
      if (chars > 1) wideTypos |= 1 << t;
    };
    tokens.forEach((token, i) => {
      const last = i === tokens.length - 1 && query.prefix !== false;
      const lei = query.fields === "lei" || (query.fields === "all" && LEI_TOKEN.test(token));
      // a word the query repeats: a name that repeats it matches at no cost, any other at one
      const repeat = !lei && !last && tokens.indexOf(token) < i;
      if (lei) writeProbe(n, 0, LEI_TERM_MARKER + token, 0, query.fields === "lei" && last);
      else if (repeat) writeProbe(n, 0, REPEAT_MARKER + token, 0, false);
      if (query.fields !== "lei") writeProbe(n, 1, token, Math.min(typoBudget(token), maxTypos), last, repeat ? 1 : 0);
      n++;
    });

    let filterMask = 0;
    for (const { c, allowed } of this.allowedCodes(query.filters, query.exclude ?? {})) {
      filterMask |= 1 << c;
      const at = this.core.bitmapAt[c];
      const words = Math.ceil(this.core.columns[c].values.length / 32) + 1;
      for (let w = 0; w < words; w++) mem.setUint32(at + w * 4, 0, true);
      for (const code of allowed) {
        const wordAt = at + (code >> 5) * 4;
        mem.setUint32(wordAt, mem.getUint32(wordAt, true) | (1 << (code & 31)), true);
      }
      mem.setUint32(qb + 32 + c * 4, at, true);
    }
    let facetMask = 0;
    for (const f of query.facets) facetMask |= 1 << columnIndex(f);

    mem.setUint32(qb, n, true);
    mem.setUint32(qb + 4, fieldMask, true);
    mem.setUint32(qb + 8, query.window, true);
    mem.setUint32(qb + 12, facetMask, true);
    mem.setUint32(qb + 16, filterMask, true);
    mem.setUint32(qb + 20, query.typoMask, true);
    mem.setUint32(qb + 24, query.dropTokens ? 2 : 0, true);
    mem.setUint32(qb + 112, NAMED_PAGE, true);
    mem.setUint32(qb + QUERY_REMOVALS, this.removed?.removals.at ?? 0, true);
    return { source: query, removalsAt: this.removed?.removals.at ?? 0, tokens: n, facets: query.facets, maxTypos, wideTypos, typoProbes };
  }

  /** Runs the query in the engine's buffer and reads its results. */
  private run(query: WrittenQuery, budget = 0): SliceSearchResult | null {
    const e = this.core.engine;
    const leis = this.core.leis;
    const mem = new DataView(e.memory.buffer);
    mem.setUint32(e.queryBuffer() + QUERY_BUDGET, budget, true);
    e.search();
    if (budget > 0 && e.refused() === 1) return null;

    const out = e.resultBuffer();
    const found = mem.getUint32(out, true);
    const nHits = mem.getUint32(out + 4, true);
    // copied: the next run (a guessed typo round) writes over the result buffer
    const hitWords = new Uint32Array(e.memory.buffer, out + OUT_HEADER, nHits * 3).slice();
    this.core.warmed = leis.warm(hitWords); // the answer's encoding reads them next
    const hits: HitSource = {
      count: nHits,
      score: (i) => hitWords[i * 3 + 1] * 2 ** 32 + hitWords[i * 3 + 2],
      copyLei: (i, into, at) => leis.copyLei(hitWords[i * 3], into, at),
      docAt: (i) => leis.docAt(hitWords[i * 3]),
      docLength: (i) => leis.docLength(hitWords[i * 3]),
    };
    const facets: Partial<Record<FacetParam, [string, number][]>> = {};
    for (const f of query.facets) {
      const c = columnIndex(f);
      const at = e.facetCounts(c);
      const values = this.core.columns[c].values;
      const list: [string, number][] = [];
      for (let code = 1; code < values.length; code++) {
        const count = mem.getUint32(at + code * 4, true);
        if (count > 0) list.push([values.at(code)!, count]);
      }
      facets[f] = list;
    }
    const plan: QueryPlanFacts = {
      tokens: query.tokens,
      required: mem.getUint32(out + 8, true),
      exactMask: mem.getUint32(out + 12, true),
      typoable: mem.getUint32(out + 16, true),
      wideTypos: query.wideTypos,
      bestWhole: mem.getUint32(out + 20, true),
      matched: mem.getUint32(out + 24, true) !== 0,
      named: mem.getUint32(out + 28, true),
    };
    return { found, hits, facets, plan };
  }

  /**
   * Stored documents from doc `from` on that pass the filters, one JSON per line, until about
   * maxBytes; `next` is where to go on, null at the end. For bulk export in constant memory.
   */
  exportLines(
    filters: Partial<Record<FilterParam, string[]>>,
    exclude: Partial<Record<FilterParam, string[]>>,
    from: number,
    maxBytes: number,
  ): { lines: Uint8Array; next: number | null } {
    const tests = this.allowedCodes(filters, exclude).map(({ c, allowed }) => ({
      codes: this.core.columns[c].codes,
      allowed: new Set(allowed),
    }));
    const parts: Uint8Array[] = [];
    let bytes = 0;
    let d = from;
    const slice = this.share.docs;
    for (; d < slice && bytes < maxBytes; d++) {
      if (this.removed?.has(d) === true || !tests.every((t) => t.allowed.has(t.codes[d]))) continue;
      const doc = this.doc(d);
      parts.push(doc, NEWLINE);
      bytes += doc.length + 1;
    }
    return { lines: Buffer.concat(parts, bytes), next: d < slice ? d : null };
  }

  /** Per filtered column, the codes that pass: the allowed values' (or all), less the excluded. */
  private allowedCodes(
    filters: Partial<Record<FilterParam, string[]>>,
    exclude: Partial<Record<FilterParam, string[]>>,
  ): { c: number; allowed: number[] }[] {
    const params = new Set([...Object.keys(filters), ...Object.keys(exclude)] as FilterParam[]);
    return [...params].map((param) => {
      const c = columnIndex(param);
      const include = filters[param];
      let allowed = include
        ? this.codesFor(c, param, include)
        : Array.from({ length: this.core.columns[c].values.length }, (_, code) => code);
      const excluded = exclude[param];
      if (excluded) {
        const out = new Set(this.codesFor(c, param, excluded));
        allowed = allowed.filter((code) => !out.has(code));
      }
      return { c, allowed };
    });
  }

  /** Codes a filter's values select. A two-letter jurisdiction also selects its subdivisions. */
  private codesFor(c: number, param: FilterParam, values: string[]): number[] {
    const codes: number[] = [];
    for (const v of values) {
      const key = columnKey(param, v);
      const code = this.core.codes[c].code(key);
      if (code !== undefined) codes.push(code);
      if (param === "jurisdiction" && /^[A-Z]{2}$/.test(key)) {
        codes.push(...this.core.columns[c].values.codesWhere((value) => value?.startsWith(key + "-") === true));
      }
    }
    return codes;
  }
}
