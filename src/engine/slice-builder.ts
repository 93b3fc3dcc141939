// Indexer: turns the records of one slice into the flat arrays the WASM engine reads. Records
// are analysed as they arrive (addBatch), so tokenising overlaps with the loader's parsing and no
// record objects are kept; a value is read as bytes, and made a string only when it is not ASCII
// or is a column value not seen before. finish() orders docs by LEI and lays out the arrays. Docs are
// numbered in LEI order. Term ids: the first nDocs ids are the docs' own LEIs (marker
// byte 0x01 + LEI, which sorts before every text term, and doc order is LEI order), then the text
// terms in UTF-8 byte order, so every prefix is one contiguous id range. An LEI term's one posting
// is implied, not stored. A legal name's word met
// a second time is also a term of its own, REPEAT_MARKER + word (see addRepeats). The stored documents,
// appended as records come, are written out in the order of their legal names (byLegalName).

import {
  COLUMNS,
  columnKey,
  PRESENCE_VALUES,
  ENTITY_FIELDS,
  FIELD_ADDRESS,
  FIELD_LEGAL_NAME,
  FIELD_OTHER_NAME,
  type LegalEntity,
} from "./schema.js";
import { AsciiTerms, tokenize } from "./text.js";
import { ENTITY_VALUES, RecordBatchReader } from "./record-batch.js";
import { TermTable } from "./term-table.js";
import { ChunkedArray, CodeChunks, grown } from "./chunked-array.js";
import { DocStoreWriter, type DocFileFacts } from "./doc-store.js";
import { NameKeyHasher } from "./name-key.js";
import { packIds, type IdArray } from "./packed-ids.js";

export const LEI_TERM_MARKER = "\u0001";
/** Marks the term of a word's second occurrence in a legal name; sorts before every word. */
export const REPEAT_MARKER = "\u0002";
const REPEAT_MARKER_BYTE = REPEAT_MARKER.charCodeAt(0);
const MAX_POSITION = 254;
const NO_POSITION = 255;

/** A column's per-doc codes, as narrow as its number of values allows (u8 up to 256 values). */
export type CodeArray = Uint8Array | Uint16Array | Uint32Array;

/** Where each doc's JSON starts in the document file: u32 while the file is under 4 GiB, else f64. */
export type DocStarts = Float64Array | Uint32Array;

export interface ColumnData {
  /** code -> display value; code 0 is "no value" */
  values: (string | null)[];
  codes: CodeArray;
  valOffs: Uint32Array;
  valDocs: Uint32Array;
}

export interface SliceData {
  nDocs: number;
  termBytes: Uint8Array;
  termOffs: Uint32Array;
  /**
   * where each text term's postings start (then the end), term nDocs + i at [i]: posting indices
   * count the nDocs implied ones of the docs' LEIs first (posting d is doc d), which no array holds
   */
  postOffs: Uint32Array;
  /** the text terms' postings' docs, posting p at [p - nDocs] (packed-ids.ts) */
  postDocs: IdArray;
  /** per text posting: its field bits, legal position and name length (postingMetaOf) */
  postMeta: Uint16Array;
  trie: Trie;
  /** each doc's text terms (its own LEI, term d, is implied; packed-ids.ts) */
  fwdOffs: Uint32Array;
  fwdTerms: IdArray;
  fwdMeta: Uint16Array;
  nameLen: Uint8Array;
  columns: ColumnData[];
  /**
   * Exact-name keys (name-key.ts) of every legal and other name, as (hi, lo, doc) triples sorted
   * by hi: the engine finds the docs whose name a query is, pasted, by binary search.
   */
  nameKeys: Uint32Array;
  /** stored documents: the JSON of doc d lies at docStart[d] in the document file, docLen[d] bytes */
  docFile: string;
  docFacts: DocFileFacts;
  docStart: DocStarts;
  docLen: Uint32Array;
}

const u32s = (): ChunkedArray<Uint32Array> => new ChunkedArray((n) => new Uint32Array(n));
const f64s = (): ChunkedArray<Float64Array> => new ChunkedArray((n) => new Float64Array(n));

// An LEI is 20 characters of [0-9A-Z] (the loader skips rows that are not): two base-36 halves,
// each below 36^10 < 2^53, so held exactly by a double, in the same order as the text.
const LEI_HALF = 10;
const LEI_CHARS = 2 * LEI_HALF;
function leiHalf(bytes: Uint8Array, start: number, end: number, from: number): number {
  if (end - start !== LEI_CHARS) throw notAnLei(bytes, start, end);
  let v = 0;
  for (let i = start + from; i < start + from + LEI_HALF; i++) {
    const c = bytes[i];
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 90 ? c - 55 : -1;
    if (digit < 0) throw notAnLei(bytes, start, end);
    v = v * 36 + digit;
  }
  return v;
}
const notAnLei = (bytes: Uint8Array, start: number, end: number): Error =>
  new Error(`not an LEI: ${JSON.stringify(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString())}`);
/** Writes a half back as its 10 characters, in lower case; returns the position after them. */
function writeLeiHalf(v: number, out: Uint8Array, at: number): number {
  // as two int32 halves of 5 digits: % on a double is a call to fmod, on an int32 one instruction
  const high = Math.floor(v / LEI_QUARTER);
  writeBase36(high, out, at);
  writeBase36(v - high * LEI_QUARTER, out, at + LEI_HALF / 2);
  return at + LEI_HALF;
}
const LEI_QUARTER = 36 ** (LEI_HALF / 2);
function writeBase36(v: number, out: Uint8Array, at: number): void {
  for (let i = LEI_HALF / 2 - 1; i >= 0; i--) {
    const digit = (v % 36) | 0;
    v = (v / 36) | 0;
    out[at + i] = digit < 10 ? 48 + digit : 87 + digit;
  }
}
/** an LEI's term: the marker byte, then its 20 characters in lower case */
const LEI_TERM_BYTES = 1 + LEI_CHARS;

/** Where each LegalEntity field's value sits in a record of a batch. */
const VALUE_OF = Object.fromEntries(ENTITY_FIELDS.map((f, i) => [f, i])) as Record<keyof LegalEntity, number>;
const CITY_COLUMN = COLUMNS.findIndex((c) => c.field === "city");
const PRESENCE_COLUMN = COLUMNS.findIndex((c) => "presence" in c);
const PRESENT = 1,
  ABSENT = 2;
/** Each field's JSON key with what goes before it: `{"lei":`, `,"legalName":` and so on. */
const JSON_KEYS = ENTITY_FIELDS.map((f, i) => Buffer.from(`${i === 0 ? "{" : ","}${JSON.stringify(f)}:`));
const JSON_NULL = Buffer.from("null");
const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  CLOSE_BRACE = 0x7d;

export class SliceBuilder {
  private readonly terms = new TermTable();
  private readonly ascii = new AsciiTerms();
  private readonly entryTerm = u32s();
  private readonly entryMeta = new ChunkedArray((n) => new Uint16Array(n));
  private readonly entryOffs = u32s();
  private readonly nameLens = new ChunkedArray((n) => new Uint8Array(n));
  /** each doc's LEI as two base-36 halves: 16 bytes, where a string would take about 48 */
  private readonly leiHigh = f64s();
  private readonly leiLow = f64s();
  private readonly docs: DocStoreWriter;
  private readonly docStarts = f64s();
  private readonly docLens = u32s();
  private json = Buffer.allocUnsafe(4096);
  private readonly columnCoders = COLUMNS.map((c) =>
    "presence" in c ? new Map(PRESENCE_VALUES.map((v, code) => [v ?? "", code])) : new Map<string, number>(),
  );
  private readonly columnValues: (string | null)[][] = COLUMNS.map((c) => ("presence" in c ? [...PRESENCE_VALUES] : [null]));
  private readonly codes = COLUMNS.map(() => new CodeChunks());
  /** per column, each distinct value's bytes: most values come again, and are coded without a string */
  private readonly rawValues = COLUMNS.map(() => new TermTable(1 << 8));
  private readonly rawCodes: number[][] = COLUMNS.map(() => []);
  /** the doc's terms so far, in order of first sight, and their meta (field bits | legal position << 8) */
  private docTerms = new Uint32Array(256);
  private docMetas = new Uint16Array(256);
  private docTermCount = 0;
  /** per term id: 1 + the doc that saw it last, and where in docTerms it is for that doc */
  private termSeenBy = new Uint32Array(1 << 16);
  private termSlot = new Uint32Array(1 << 16);
  private textIds = new Uint32Array(64);
  /** per distinct city spelling: its term ids, at cityTermOffs[raw] to cityTermOffs[raw + 1] */
  private readonly cityTerms = u32s();
  private readonly cityTermOffs = u32s();
  private readonly keyHasher = new NameKeyHasher();
  /** (hi, lo, doc in the order added) of each name's exact-name key */
  private readonly keyTriples = u32s();

  /** Documents go to `docScratch` as they come; finish() moves the file to where it belongs. */
  constructor(docScratch: string) {
    this.docs = new DocStoreWriter(docScratch);
    this.entryOffs.push(0);
    this.cityTermOffs.push(0);
  }

  get size(): number {
    return this.leiHigh.length;
  }

  /** Adds every record of a batch (see record-batch.ts). */
  addBatch(batch: Uint8Array): void {
    const records = new RecordBatchReader(batch);
    while (records.next()) this.add(records);
  }

  private add(r: RecordBatchReader): void {
    const stamp = this.leiHigh.length + 1;
    const bytes = r.bytes;
    const lei = VALUE_OF.lei;
    this.leiHigh.push(leiHalf(bytes, r.start[lei], r.end[lei], 0));
    this.leiLow.push(leiHalf(bytes, r.start[lei], r.end[lei], LEI_HALF));
    const length = this.writeJson(r);
    this.docStarts.push(this.docs.append(this.json, length));
    this.docLens.push(length);

    let cityRaw = -1;
    for (let c = 0; c < COLUMNS.length; c++) {
      if (c === PRESENCE_COLUMN) {
        const parent =
          r.end[VALUE_OF.directParent] > r.start[VALUE_OF.directParent] ||
          r.end[VALUE_OF.ultimateParent] > r.start[VALUE_OF.ultimateParent];
        this.codes[c].push(parent ? PRESENT : ABSENT);
        continue;
      }
      const v = VALUE_OF[COLUMNS[c].field];
      let code = 0;
      if (r.end[v] > r.start[v]) {
        const raw = this.rawValues[c].idOfBytes(bytes, r.start[v], r.end[v] - r.start[v]);
        code = raw < this.rawCodes[c].length ? this.rawCodes[c][raw] : this.newRawValue(c, r.text(v)!);
        if (c === CITY_COLUMN) cityRaw = raw;
      }
      this.codes[c].push(code);
    }

    this.docTermCount = 0;
    const legal = this.addText(r, VALUE_OF.legalName, FIELD_LEGAL_NAME, true, stamp);
    this.nameLens.push(Math.min(legal, 255));
    for (let v = ENTITY_VALUES; v < r.values; v++) this.addText(r, v, FIELD_OTHER_NAME, false, stamp);
    this.addText(r, VALUE_OF.legalAddress, FIELD_ADDRESS, false, stamp);
    this.addText(r, VALUE_OF.hqAddress, FIELD_ADDRESS, false, stamp);
    this.addCity(r, cityRaw, stamp);
    this.addText(r, VALUE_OF.postalCode, FIELD_ADDRESS, false, stamp);
    this.addJoinedPostalCode(r, stamp);
    for (let i = 0; i < this.docTermCount; i++) {
      this.entryTerm.push(this.docTerms[i]);
      this.entryMeta.push(this.docMetas[i]);
    }
    this.entryOffs.push(this.entryTerm.length);
  }

  /** The stored document: the entity as JSON, as JSON.stringify writes it, into this.json; its length. */
  private writeJson(r: RecordBatchReader): number {
    let need = 64 + JSON_KEYS.length * 24;
    for (let v = 0; v < ENTITY_VALUES; v++) need += 6 * (r.end[v] - r.start[v]);
    if (need > this.json.length) this.json = Buffer.allocUnsafe(need);
    const json = this.json,
      bytes = r.bytes;
    // byte loops, not Buffer.copy: the pieces are a few dozen bytes, and copy() costs more to call
    let o = 0;
    for (let v = 0; v < ENTITY_VALUES; v++) {
      o = put(JSON_KEYS[v], 0, JSON_KEYS[v].length, json, o);
      const start = r.start[v],
        end = r.end[v];
      if (start === end) o = put(JSON_NULL, 0, JSON_NULL.length, json, o);
      else if (jsonAsIs(bytes, start, end)) {
        json[o++] = QUOTE;
        o = put(bytes, start, end, json, o);
        json[o++] = QUOTE;
      } else o += json.write(JSON.stringify(r.text(v)), o);
    }
    json[o++] = CLOSE_BRACE;
    return o;
  }

  /** The code of a column value whose bytes come for the first time (the same key may have come before in another spelling). */
  private newRawValue(c: number, value: string): number {
    const col = COLUMNS[c];
    const key = columnKey(col.param, value);
    let code = this.columnCoders[c].get(key);
    if (code === undefined) {
      code = this.columnValues[c].length;
      this.columnCoders[c].set(key, code);
      this.columnValues[c].push(col.param === "city" ? value : key);
    }
    this.rawCodes[c].push(code);
    return code;
  }

  /** The terms of value v, with field bits; a legal name's terms keep their positions. Returns how many. */
  private addText(r: RecordBatchReader, v: number, bits: number, positions: boolean, stamp: number): number {
    const keyed = (bits & (FIELD_LEGAL_NAME | FIELD_OTHER_NAME)) !== 0;
    if (keyed) this.keyHasher.reset();
    const n = this.textTerms(r, v, keyed);
    if (keyed && n > 0) {
      const key = this.keyHasher.key();
      this.keyTriples.push(key.hi);
      this.keyTriples.push(key.lo);
      this.keyTriples.push(stamp - 1);
    }
    const distinctBefore = this.docTermCount;
    for (let i = 0; i < n; i++) this.addTerm(this.textIds[i], bits, positions ? Math.min(i, MAX_POSITION) : NO_POSITION, stamp);
    // fewer new terms than words: some word came again (or came before, in an earlier field)
    if (positions && this.docTermCount - distinctBefore < n) this.addRepeats(n, bits, stamp);
    return n;
  }

  /**
   * A word met a second time in the value is also REPEAT_MARKER + word, at its second position:
   * a query that repeats a word ("X funds SICAV - X balanced fund") matches the repeat at no cost
   * only in names that repeat it too (the query side is in wasm-slice.ts).
   */
  private addRepeats(n: number, bits: number, stamp: number): void {
    const ids = this.textIds;
    for (let i = 1; i < Math.min(n, MAX_POSITION); i++) {
      let before = 0;
      for (let j = 0; j < i && before < 2; j++) if (ids[j] === ids[i]) before++;
      if (before === 1) this.addTerm(this.terms.markedIdOf(REPEAT_MARKER_BYTE, ids[i]), bits, i, stamp);
    }
  }

  /** The term ids of value v, in order, into this.textIds; how many. `keyed`: its terms also feed keyHasher. */
  private textTerms(r: RecordBatchReader, v: number, keyed = false): number {
    const start = r.start[v],
      end = r.end[v];
    if (start === end) return 0;
    const ascii = this.ascii;
    const n = ascii.terms(r.bytes, start, end);
    if (n < 0) return this.stringTerms(r.text(v)!, keyed);
    if (n > this.textIds.length) this.textIds = grown(this.textIds, n);
    // the terms lie back to back in ascii.out
    if (keyed && n > 0) this.keyHasher.bytes(ascii.out, 0, ascii.termStart[n - 1] + ascii.termLength[n - 1]);
    for (let i = 0; i < n; i++) this.textIds[i] = this.terms.idOfBytes(ascii.out, ascii.termStart[i], ascii.termLength[i]);
    return n;
  }

  /** textTerms() for text that is not all ASCII: through tokenize(), as the query side does. */
  private stringTerms(text: string, keyed = false): number {
    const words = tokenize(text);
    if (words.length > this.textIds.length) this.textIds = grown(this.textIds, words.length);
    for (let i = 0; i < words.length; i++) {
      this.textIds[i] = this.terms.idOf(words[i]);
      if (keyed) this.keyHasher.text(words[i]);
    }
    return words.length;
  }

  /**
   * A city's terms, worked out once for each spelling (`raw`, its id among the column's values;
   * -1 for none): cities repeat across a slice, and one in eight is not ASCII.
   */
  private addCity(r: RecordBatchReader, raw: number, stamp: number): void {
    if (raw < 0) return;
    if (raw === this.cityTermOffs.length - 1) {
      // the first doc in this city
      const n = this.textTerms(r, VALUE_OF.city);
      for (let i = 0; i < n; i++) this.cityTerms.push(this.textIds[i]);
      this.cityTermOffs.push(this.cityTerms.length);
    }
    for (let x = this.cityTermOffs.get(raw), end = this.cityTermOffs.get(raw + 1); x < end; x++) {
      this.addTerm(this.cityTerms.get(x), FIELD_ADDRESS, NO_POSITION, stamp);
    }
  }

  /** A postal code with spaces or dashes is also found written without them (SW1A 1AA as sw1a1aa). */
  private addJoinedPostalCode(r: RecordBatchReader, stamp: number): void {
    const v = VALUE_OF.postalCode;
    const start = r.start[v],
      end = r.end[v];
    if (start === end) return;
    const n = this.ascii.joined(r.bytes, start, end);
    if (n >= 0) {
      if (n > 0 && n < end - start) this.addTerm(this.terms.idOfBytes(this.ascii.out, 0, n), FIELD_ADDRESS, NO_POSITION, stamp);
      return;
    }
    const code = r.text(v)!;
    const joined = code.replace(/[^\p{L}\p{N}]/gu, "");
    if (joined === code) return;
    for (let i = 0, terms = this.stringTerms(joined); i < terms; i++) this.addTerm(this.textIds[i], FIELD_ADDRESS, NO_POSITION, stamp);
  }

  /** Records term id for the doc being added; a term met again in the doc merges its fields and keeps its first position. */
  private addTerm(id: number, bits: number, position: number, stamp: number): void {
    if (id >= this.termSeenBy.length) {
      this.termSeenBy = grown(this.termSeenBy, id + 1);
      this.termSlot = grown(this.termSlot, id + 1);
    }
    if (this.termSeenBy[id] === stamp) {
      const slot = this.termSlot[id];
      const prev = this.docMetas[slot];
      this.docMetas[slot] = (prev & 0xff) | bits | (Math.min(prev >> 8, position) << 8);
      return;
    }
    if (this.docTermCount === this.docTerms.length) {
      this.docTerms = grown(this.docTerms, this.docTermCount + 1);
      this.docMetas = grown(this.docMetas, this.docTermCount + 1);
    }
    this.termSeenBy[id] = stamp;
    this.termSlot[id] = this.docTermCount;
    this.docTerms[this.docTermCount] = id;
    this.docMetas[this.docTermCount++] = bits | (position << 8);
  }

  /** A build that will not be finished: its document file goes. */
  abandon(): void {
    this.docs.abandon();
  }

  /** The slice's arrays; its document file, complete and synced, is written to `docFile` in the order of the legal names. */
  finish(docFile: string): SliceData {
    const leiHigh = this.leiHigh.toArray(),
      leiLow = this.leiLow.toArray();
    const order = uniqueByLei(leiHigh, leiLow);
    const nDocs = order.length;

    // final term ids: LEIs first (id = doc), then text terms in byte order
    const textOrder = this.terms.sortedIds();
    const remap = new Uint32Array(this.terms.size);
    textOrder.forEach((temp, rank) => {
      remap[temp] = nDocs + rank;
    });
    const nTerms = nDocs + this.terms.size;

    // A doc's own LEI (term d) is in neither index: its one posting, doc d, is implied (see
    // native/assembly/slice.ts), which saves 18 bytes a doc. Only text terms are stored.
    let entries = 0;
    // flat copies of the small per-doc arrays: the loop below reads them in LEI order, not as added
    const entryOffs = this.entryOffs.toArray(),
      nameLens = this.nameLens.toArray();
    for (const old of order) entries += entryOffs[old + 1] - entryOffs[old];
    const fwdOffs = new Uint32Array(nDocs + 1);
    const fwdTerms = new Uint32Array(entries);
    const fwdMeta = new Uint16Array(entries);
    const nameLen = new Uint8Array(nDocs);
    const textTerms = this.terms.size;
    // df[1 + text rank]: a text term's doc count
    const df = new Uint32Array(textTerms + 1);
    let e = 0;
    for (let d = 0; d < nDocs; d++) {
      const old = order[d];
      nameLen[d] = nameLens[old];
      for (let x = entryOffs[old], end = entryOffs[old + 1]; x < end; x++) {
        const id = remap[this.entryTerm.get(x)];
        fwdTerms[e] = id;
        fwdMeta[e++] = this.entryMeta.get(x);
        df[id - nDocs + 1]++;
      }
      fwdOffs[d + 1] = e;
    }
    // the forward index holds it all now: the rest of finish() may reuse this memory
    for (const chunks of [this.entryTerm, this.entryMeta]) chunks.release();
    this.termSeenBy = new Uint32Array(0);
    this.termSlot = new Uint32Array(0);
    for (const raw of this.rawValues) raw.release();
    this.cityTerms.release();
    this.cityTermOffs.release();

    // postOffs[rank]: where text term nDocs + rank's postings start, counting the nDocs implied
    // LEI postings first; postDocs and postMeta hold the text postings only
    const postOffs = df;
    postOffs[0] = nDocs;
    for (let t = 0; t < textTerms; t++) postOffs[t + 1] += postOffs[t];
    const cursor = postOffs.slice(0, textTerms);
    const postDocs = new Uint32Array(entries);
    const postMeta = new Uint16Array(entries);
    // each term's docs by legal name length, then doc id: a one-word query meets the short names
    // (its best hits) first, and stops ranking once the page is full (see driveSinglePass)
    for (const d of byNameLength(nameLen)) {
      for (let x = fwdOffs[d]; x < fwdOffs[d + 1]; x++) {
        const at = cursor[fwdTerms[x] - nDocs]++ - nDocs;
        postDocs[at] = d;
        postMeta[at] = postingMetaOf(fwdMeta[x], nameLen[d]);
      }
    }

    // every term's size is known by now: the dictionary is allocated once, at its exact size
    const termBytes = Buffer.alloc(nDocs * LEI_TERM_BYTES + this.terms.byteLength);
    const termOffs = new Uint32Array(nTerms + 1);
    let used = 0;
    for (let d = 0; d < nDocs; d++) {
      termBytes[used++] = LEI_TERM_MARKER.charCodeAt(0);
      used = writeLeiHalf(leiLow[order[d]], termBytes, writeLeiHalf(leiHigh[order[d]], termBytes, used));
      termOffs[d + 1] = used;
    }
    textOrder.forEach((temp, rank) => {
      const bytes = this.terms.bytesOf(temp);
      termBytes.set(bytes, used);
      used += bytes.length;
      termOffs[nDocs + rank + 1] = used;
    });
    this.terms.release();

    const nameKeys = sortedNameKeys(this.keyTriples.toArray(), order, this.size);
    this.keyTriples.release();
    const docStart = inOrder(this.docStarts.toArray(), order, new Float64Array(nDocs));
    const docLen = inOrder(this.docLens.toArray(), order, new Uint32Array(nDocs));
    const docFacts = this.docs.finishInOrder(docFile, byLegalName(fwdOffs, fwdTerms, fwdMeta), docStart, docLen);
    // a column's chunks differ in width; read through one flat copy, not chunk by chunk
    const columns = COLUMNS.map((_, c) =>
      valueLists(inOrder(this.codes[c].toArray(), order, new Uint32Array(nDocs)), this.columnValues[c]),
    );
    return {
      nDocs,
      termBytes,
      termOffs,
      postOffs,
      postDocs: packIds(postDocs, nDocs),
      postMeta,
      trie: buildTrie(termBytes, termOffs, nDocs, nTerms),
      fwdOffs,
      fwdTerms: packIds(fwdTerms, nTerms),
      fwdMeta,
      nameLen,
      nameKeys,
      columns,
      docFile,
      docFacts,
      docStart: narrowStarts(docStart, docFacts.bytes),
      docLen,
    };
  }
}

/** Legal-name positions a posting tells apart: from POSTING_POSITIONS on (and none) they read alike. */
const POSTING_POSITIONS = 31;
/**
 * A posting's 16 bits (native/assembly/slice.ts postingMeta): text field bits 0-2, the legal
 * position 3-7, capped at POSTING_POSITIONS, the legal name's length 8-15.
 */
function postingMetaOf(fwdMeta: number, nameLength: number): number {
  return (fwdMeta & 7) | (Math.min(fwdMeta >> 8, POSTING_POSITIONS) << 3) | (nameLength << 8);
}

/** How many of a legal name's first words order the document file. */
const NAME_ORDER_WORDS = 3;

/**
 * The docs by the first words of their legal names (term ids follow the terms' byte order), for
 * the document file: the hits of a query are names alike, so a page of them lies mostly in
 * neighbouring documents, which the front reads together (collection.ts).
 */
function byLegalName(fwdOffs: Uint32Array, fwdTerms: Uint32Array, fwdMeta: Uint16Array): Uint32Array {
  const nDocs = fwdOffs.length - 1;
  const keys = new Uint32Array(nDocs * NAME_ORDER_WORDS).fill(0xffffffff);
  for (let d = 0; d < nDocs; d++) {
    let k = 0;
    // a legal name's terms come first, in their order
    for (let x = fwdOffs[d]; x < fwdOffs[d + 1] && k < NAME_ORDER_WORDS; x++) {
      if ((fwdMeta[x] & FIELD_LEGAL_NAME) !== 0) keys[d * NAME_ORDER_WORDS + k++] = fwdTerms[x];
    }
  }
  const order = Array.from({ length: nDocs }, (_, d) => d);
  order.sort((a, b) => {
    for (let k = 0; k < NAME_ORDER_WORDS; k++) {
      const diff = keys[a * NAME_ORDER_WORDS + k] - keys[b * NAME_ORDER_WORDS + k];
      if (diff !== 0) return diff;
    }
    return a - b;
  });
  return Uint32Array.from(order);
}

/**
 * The (hi, lo, doc) key triples with docs renumbered from the order added to LEI order (a doc
 * that lost to a later copy of its LEI drops out), sorted by hi: a stable radix sort, 16 bits a pass.
 */
function sortedNameKeys(triples: Uint32Array, order: Uint32Array, added: number): Uint32Array {
  const newDoc = new Int32Array(added).fill(-1);
  order.forEach((old, d) => {
    newDoc[old] = d;
  });
  let idx = new Uint32Array(triples.length / 3);
  let n = 0;
  for (let i = 0; i < idx.length; i++) if (newDoc[triples[i * 3 + 2]] >= 0) idx[n++] = i;
  idx = idx.subarray(0, n);
  let next = new Uint32Array(n);
  const counts = new Uint32Array(1 << 16);
  for (const shift of [0, 16]) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(triples[idx[i] * 3] >>> shift) & 0xffff]++;
    for (let b = 0, sum = 0; b < counts.length; b++) {
      const c = counts[b];
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const x = idx[i];
      next[counts[(triples[x * 3] >>> shift) & 0xffff]++] = x;
    }
    [idx, next] = [next, idx];
  }
  const out = new Uint32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const x = idx[i];
    out[i * 3] = triples[x * 3];
    out[i * 3 + 1] = triples[x * 3 + 1];
    out[i * 3 + 2] = newDoc[triples[x * 3 + 2]];
  }
  return out;
}

/** Whether JSON.stringify writes these ASCII bytes as they are: no quote, backslash, control character or non-ASCII byte. */
function jsonAsIs(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b < 0x20 || b >= 0x80 || b === QUOTE || b === BACKSLASH) return false;
  }
  return true;
}

/** `starts` as u32 when every start fits (a slice of up to about 6M registry records): half the bytes. */
function narrowStarts(starts: Float64Array, bodyBytes: number): DocStarts {
  return bodyBytes <= 2 ** 32 ? Uint32Array.from(starts) : starts;
}

/** out[d] = values[order[d]]: a per-doc array, from the order docs were added to LEI order. */
function inOrder<T extends Float64Array | Uint32Array>(values: ArrayLike<number>, order: Uint32Array, out: T): T {
  for (let d = 0; d < order.length; d++) out[d] = values[order[d]];
  return out;
}

/** Copies from[start, end) to out at `at`; returns the position after. */
function put(from: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  for (let i = start; i < end; i++) out[at++] = from[i];
  return at;
}

/** Doc ids by name length, then doc id (a counting sort: lengths are bytes). */
function byNameLength(nameLen: Uint8Array): Uint32Array {
  const starts = new Uint32Array(257);
  for (let d = 0; d < nameLen.length; d++) starts[nameLen[d] + 1]++;
  for (let l = 0; l < 256; l++) starts[l + 1] += starts[l];
  const docs = new Uint32Array(nameLen.length);
  for (let d = 0; d < nameLen.length; d++) docs[starts[nameLen[d]]++] = d;
  return docs;
}

/** Per-value doc lists (counting sort by code), doc ids ascending within each value. */
function valueLists(codes: Uint32Array, values: (string | null)[]): ColumnData {
  const nCodes = values.length;
  const valOffs = new Uint32Array(nCodes + 1);
  for (const code of codes) valOffs[code + 1]++;
  for (let i = 0; i < nCodes; i++) valOffs[i + 1] += valOffs[i];
  const cursor = valOffs.slice(0, nCodes);
  const valDocs = new Uint32Array(codes.length);
  for (let d = 0; d < codes.length; d++) valDocs[cursor[codes[d]]++] = d;
  return { values, codes: narrowest(codes, nCodes), valOffs, valDocs };
}

/** Insertion indices in LEI order; of indices repeating an LEI, the last added wins. */
function uniqueByLei(high: Float64Array, low: Float64Array): Uint32Array {
  // An LSD radix sort, 13 bits a pass over each 52-bit half, low half first: several times faster
  // than a comparison sort of 1.7M indices, and stable, so equal LEIs stay in the order added.
  const n = high.length;
  let order = new Uint32Array(n),
    next = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const counts = new Uint32Array(RADIX);
  for (const half of [low, high]) {
    for (let pass = 0; pass < 4; pass++) {
      counts.fill(0);
      for (let i = 0; i < n; i++) counts[digit(half[i], pass)]++;
      for (let b = 0, sum = 0; b < RADIX; b++) {
        const c = counts[b];
        counts[b] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) {
        const x = order[i];
        next[counts[digit(half[x], pass)]++] = x;
      }
      [order, next] = [next, order];
    }
  }
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const x = order[i];
    if (kept > 0 && high[next[kept - 1]] === high[x] && low[next[kept - 1]] === low[x]) next[kept - 1] = x;
    else next[kept++] = x;
  }
  return next.subarray(0, kept);
}

const RADIX_BITS = 13;
const RADIX = 1 << RADIX_BITS;
const TWO_26 = 2 ** 26;
/** Digit `pass` (0 lowest) of a 52-bit half, as four 13-bit digits of its two 26-bit int halves. */
function digit(v: number, pass: number): number {
  const upper = Math.floor(v / TWO_26);
  const part = pass < 2 ? v - upper * TWO_26 : upper;
  return (pass & 1 ? part >> RADIX_BITS : part) & (RADIX - 1);
}

/**
 * Byte trie over terms [from, to), four u32 words a node: term range lo, hi, first child (top bit
 * set when the node's own path is a term), and the byte leading to it | child count << 8.
 * Nodes are laid out breadth first, so a node's children sit side by side: the typo walk visits
 * every child of a node it enters, and siblings scattered across the trie cost a cache miss each.
 */
export interface Trie {
  nodes: number;
  words: Uint32Array;
}

const TERMINAL = 0x80000000;

function buildTrie(bytes: Uint8Array, offs: Uint32Array, from: number, to: number): Trie {
  return breadthFirst(preorderTrie(bytes, offs, from, to));
}

/** The trie with nodes in preorder, linked by next sibling in word 2: simple to build in one pass. */
function preorderTrie(bytes: Uint8Array, offs: Uint32Array, from: number, to: number): Trie {
  const nodes = countTrieNodes(bytes, offs, from, to);
  const words = new Uint32Array(nodes * 4);
  const open: number[] = [0]; // open[d] = node at depth d on the current path
  const lastChild: number[] = [-1]; // lastChild[d] = last node created at depth d under open[d-1]
  words[0] = from;
  words[1] = to;
  let count = 1;
  for (let t = from; t < to; t++) {
    const start = offs[t],
      len = offs[t + 1] - start;
    const lcp = t > from ? commonPrefix(bytes, offs, t - 1, t) : 0;
    for (let d = open.length - 1; d > lcp; d--) words[open.pop()! * 4 + 1] = t;
    for (let d = lcp + 1; d <= len; d++) {
      const node = count++;
      words[node * 4] = t;
      words[node * 4 + 3] = bytes[start + d - 1];
      const sibling = lastChild[d] ?? -1;
      if (sibling >= 0) words[sibling * 4 + 2] = ((words[sibling * 4 + 2] & TERMINAL) | node) >>> 0;
      lastChild[d] = node;
      lastChild[d + 1] = -1;
      open.push(node);
    }
    if (len === open.length - 1 && len > 0) words[open[len] * 4 + 2] = (words[open[len] * 4 + 2] | TERMINAL) >>> 0;
  }
  while (open.length > 1) words[open.pop()! * 4 + 1] = to;
  return { nodes: count, words };
}

/** Bytes terms a and b start with in common. */
function commonPrefix(bytes: Uint8Array, offs: Uint32Array, a: number, b: number): number {
  const aStart = offs[a],
    bStart = offs[b];
  const n = Math.min(offs[a + 1] - aStart, offs[b + 1] - bStart);
  let lcp = 0;
  while (lcp < n && bytes[aStart + lcp] === bytes[bStart + lcp]) lcp++;
  return lcp;
}

/**
 * The trie's exact size, so it is allocated once: the root, plus each sorted term's bytes past
 * what it shares with the term before it. One node per byte of every term, the bound used before,
 * is about three times too large (the bench's 1M records: 3.1M bytes of text terms per slice,
 * 1.0M nodes), and the trie is built at a reload's peak.
 */
function countTrieNodes(bytes: Uint8Array, offs: Uint32Array, from: number, to: number): number {
  let nodes = 1;
  for (let t = from; t < to; t++) nodes += offs[t + 1] - offs[t] - (t > from ? commonPrefix(bytes, offs, t - 1, t) : 0);
  return nodes;
}

/** Renumbers a preorder trie breadth first; a node's first child is node + 1 when it has any. */
function breadthFirst(pre: Trie): Trie {
  const src = pre.words;
  const words = new Uint32Array(pre.nodes * 4);
  const queue = new Uint32Array(pre.nodes); // old ids in new order
  let next = 1; // new ids handed out so far
  for (let at = 0; at < pre.nodes; at++) {
    const old = queue[at];
    const lo = src[old * 4],
      hi = src[old * 4 + 1],
      terminal = src[old * 4 + 2] & TERMINAL;
    const firstChild = next;
    let children = 0;
    // a node has children when its range holds more than its own term
    if (hi - lo > (terminal !== 0 ? 1 : 0)) {
      for (let child = old + 1; child !== 0; child = src[child * 4 + 2] & ~TERMINAL) {
        queue[next++] = child;
        children++;
      }
    }
    words[at * 4] = lo;
    words[at * 4 + 1] = hi;
    words[at * 4 + 2] = ((children > 0 ? firstChild : 0) | terminal) >>> 0;
    words[at * 4 + 3] = (src[old * 4 + 3] | (children << 8)) >>> 0;
  }
  return { nodes: pre.nodes, words };
}

/** The codes in the narrowest array that holds nCodes values: facets and filters read less memory. */
function narrowest(codes: Uint32Array, nCodes: number): CodeArray {
  if (nCodes > 0x10000) return codes;
  return nCodes > 0x100 ? Uint16Array.from(codes) : Uint8Array.from(codes);
}
