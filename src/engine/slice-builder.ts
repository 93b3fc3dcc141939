// Indexer: turns the records of one slice into the flat arrays the WASM engine reads.
// Docs are numbered in LEI order. Term ids: the first nDocs ids are the docs' own LEIs (marker
// byte 0x01 + LEI, which sorts before every text term, and doc order is LEI order), then the text
// terms in UTF-8 byte order, so every prefix is one contiguous id range.

import {
  COLUMNS, columnKey, FIELD_ADDRESS, FIELD_LEGAL_NAME, FIELD_LEI, FIELD_OTHER_NAME,
  type EntityRecord, type LegalEntity,
} from "./schema.js";
import { compareCodePoints, tokenize } from "./text.js";

export const LEI_TERM_MARKER = "\u0001";
const MAX_POSITION = 254;
const NO_POSITION = 255;

export interface ColumnData {
  /** code -> display value; code 0 is "no value" */
  values: (string | null)[];
  codes: Uint32Array;
  valOffs: Uint32Array;
  valDocs: Uint32Array;
}

export interface SliceData {
  nDocs: number;
  termBytes: Uint8Array;
  termOffs: Uint32Array;
  postOffs: Uint32Array;
  postDocs: Uint32Array;
  /** per posting: the forward entry's meta | legal name length << 16 */
  postMeta: Uint32Array;
  trie: Trie;
  fwdOffs: Uint32Array;
  fwdTerms: Uint32Array;
  fwdMeta: Uint16Array;
  nameLen: Uint8Array;
  columns: ColumnData[];
  docBytes: Uint8Array;
  docOffs: Uint32Array;
}

class GrowableU32 {
  data = new Uint32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  view(): Uint32Array { return this.data.subarray(0, this.length); }
}

const LEI_ENTRY = 0xffffffff;

export function buildSlice(input: EntityRecord[]): SliceData {
  let records = input;
  records = uniqueByLei(records);
  const nDocs = records.length;

  const termIds = new Map<string, number>();
  const entryTerm = new GrowableU32();
  const entryMeta = new GrowableU32();
  const fwdOffs = new Uint32Array(nDocs + 1);
  const nameLen = new Uint8Array(nDocs);
  const columnCoders = COLUMNS.map(() => new Map<string, number>());
  const columnValues: (string | null)[][] = COLUMNS.map(() => [null]);
  const codes = COLUMNS.map(() => new Uint32Array(nDocs));
  const docParts: Buffer[] = [];
  const docOffs = new Uint32Array(nDocs + 1);
  let docBytesTotal = 0;

  for (let d = 0; d < nDocs; d++) {
    const { entity, otherNames } = records[d];
    const json = Buffer.from(JSON.stringify(entity));
    docParts.push(json);
    docBytesTotal += json.length;
    docOffs[d + 1] = docBytesTotal;

    COLUMNS.forEach((col, c) => {
      const value = entity[col.field];
      if (value === null || value === "") return;
      const key = columnKey(col.param, value);
      let code = columnCoders[c].get(key);
      if (code === undefined) {
        code = columnValues[c].length;
        columnCoders[c].set(key, code);
        columnValues[c].push(col.param === "city" ? value : key);
      }
      codes[c][d] = code;
    });

    const entries = new Map<string, number>(); // term -> meta (field bits | legal position << 8)
    const add = (term: string, bits: number, position: number): void => {
      const prev = entries.get(term);
      if (prev === undefined) entries.set(term, bits | (position << 8));
      else {
        const prevPos = prev >> 8;
        entries.set(term, (prev & 0xff) | bits | (Math.min(prevPos, position) << 8));
      }
    };
    const legal = tokenize(entity.legalName ?? "");
    nameLen[d] = Math.min(legal.length, 255);
    legal.forEach((t, i) => add(t, FIELD_LEGAL_NAME, Math.min(i, MAX_POSITION)));
    for (const name of otherNames) for (const t of tokenize(name)) add(t, FIELD_OTHER_NAME, NO_POSITION);
    for (const text of addressTexts(entity)) for (const t of tokenize(text)) add(t, FIELD_ADDRESS, NO_POSITION);

    entryTerm.push(LEI_ENTRY);
    entryMeta.push(FIELD_LEI | (NO_POSITION << 8));
    for (const [term, meta] of entries) {
      let id = termIds.get(term);
      if (id === undefined) {
        id = termIds.size;
        termIds.set(term, id);
      }
      entryTerm.push(id);
      entryMeta.push(meta);
    }
    fwdOffs[d + 1] = entryTerm.length;
  }

  // final ids: LEIs first (id = doc), then text terms in byte order
  const textTerms = [...termIds.keys()].sort(compareCodePoints);
  const remap = new Uint32Array(textTerms.length);
  textTerms.forEach((term, rank) => { remap[termIds.get(term)!] = nDocs + rank; });
  termIds.clear();
  const nTerms = nDocs + textTerms.length;

  const fwdTerms = entryTerm.view();
  const fwdMeta = new Uint16Array(fwdTerms.length);
  const df = new Uint32Array(nTerms + 1);
  for (let d = 0; d < nDocs; d++) {
    for (let e = fwdOffs[d]; e < fwdOffs[d + 1]; e++) {
      const id = fwdTerms[e] === LEI_ENTRY ? d : remap[fwdTerms[e]];
      fwdTerms[e] = id;
      fwdMeta[e] = entryMeta.data[e];
      df[id + 1]++;
    }
  }
  const postOffs = df;
  for (let t = 0; t < nTerms; t++) postOffs[t + 1] += postOffs[t];
  const cursor = postOffs.slice(0, nTerms);
  const postDocs = new Uint32Array(fwdTerms.length);
  const postMeta = new Uint32Array(fwdTerms.length);
  for (let d = 0; d < nDocs; d++) {
    for (let e = fwdOffs[d]; e < fwdOffs[d + 1]; e++) {
      const at = cursor[fwdTerms[e]]++;
      postDocs[at] = d;
      postMeta[at] = fwdMeta[e] | (nameLen[d] << 16);
    }
  }

  const termParts: Buffer[] = [];
  const termOffs = new Uint32Array(nTerms + 1);
  let termTotal = 0;
  const pushTerm = (i: number, term: string): void => {
    const bytes = Buffer.from(term);
    termParts.push(bytes);
    termTotal += bytes.length;
    termOffs[i + 1] = termTotal;
  };
  for (let d = 0; d < nDocs; d++) pushTerm(d, LEI_TERM_MARKER + records[d].entity.lei.toLowerCase());
  textTerms.forEach((term, rank) => pushTerm(nDocs + rank, term));

  const columns: ColumnData[] = COLUMNS.map((_, c) => valueLists(codes[c], columnValues[c]));
  const termBytes = Buffer.concat(termParts, termTotal);
  return {
    nDocs,
    termBytes,
    trie: buildTrie(termBytes, termOffs, nDocs, nTerms),
    termOffs,
    postOffs,
    postDocs,
    postMeta,
    fwdOffs,
    fwdTerms: fwdTerms.slice(),
    fwdMeta,
    nameLen,
    columns,
    docBytes: Buffer.concat(docParts, docBytesTotal),
    docOffs,
  };
}

function addressTexts(e: LegalEntity): string[] {
  const texts: string[] = [];
  for (const t of [e.legalAddress, e.hqAddress, e.city]) if (t) texts.push(t);
  if (e.postalCode) {
    texts.push(e.postalCode);
    const joined = e.postalCode.replace(/[^\p{L}\p{N}]/gu, "");
    if (joined !== e.postalCode) texts.push(joined);
  }
  return texts;
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
  return { values, codes, valOffs, valDocs };
}

/** Sorted by LEI; of rows repeating an LEI, the last one in the file wins. */
function uniqueByLei(records: EntityRecord[]): EntityRecord[] {
  const order = records.map((_, i) => i);
  order.sort((a, b) => {
    const x = records[a].entity.lei, y = records[b].entity.lei;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  const out: EntityRecord[] = [];
  for (const i of order) {
    const r = records[i];
    if (out.length > 0 && out[out.length - 1].entity.lei === r.entity.lei) out[out.length - 1] = r;
    else out.push(r);
  }
  return out;
}

/** Byte trie over terms [from, to), nodes in preorder; see native/assembly/slice.ts. */
export interface Trie {
  nodeByte: Uint8Array;
  nodeLo: Uint32Array;
  nodeHi: Uint32Array;
  /** next sibling, top bit set when the node's own path is a term */
  nodeNext: Uint32Array;
}

const TERMINAL = 0x80000000;

function buildTrie(bytes: Uint8Array, offs: Uint32Array, from: number, to: number): Trie {
  // upper bound on nodes: one per byte of every term, plus the root
  const capacity = offs[to] - offs[from] + 1;
  const nodeByte = new Uint8Array(capacity);
  const nodeLo = new Uint32Array(capacity);
  const nodeHi = new Uint32Array(capacity);
  const nodeNext = new Uint32Array(capacity);
  const open: number[] = [0]; // open[d] = node at depth d on the current path
  const lastChild: number[] = [-1]; // lastChild[d] = last node created at depth d under open[d-1]
  nodeLo[0] = from;
  nodeHi[0] = to;
  let count = 1;
  let prevStart = 0, prevLen = 0;
  for (let t = from; t < to; t++) {
    const start = offs[t], len = offs[t + 1] - start;
    let lcp = 0;
    if (t > from) while (lcp < len && lcp < prevLen && bytes[start + lcp] === bytes[prevStart + lcp]) lcp++;
    for (let d = open.length - 1; d > lcp; d--) nodeHi[open.pop()!] = t;
    for (let d = lcp + 1; d <= len; d++) {
      const node = count++;
      nodeByte[node] = bytes[start + d - 1];
      nodeLo[node] = t;
      const sibling = lastChild[d] ?? -1;
      if (sibling >= 0) nodeNext[sibling] = (nodeNext[sibling] & TERMINAL) | node;
      lastChild[d] = node;
      lastChild[d + 1] = -1;
      open.push(node);
    }
    if (len === open.length - 1 && len > 0) nodeNext[open[len]] |= TERMINAL;
    prevStart = start;
    prevLen = len;
  }
  while (open.length > 1) nodeHi[open.pop()!] = to;
  return {
    nodeByte: nodeByte.slice(0, count),
    nodeLo: nodeLo.slice(0, count),
    nodeHi: nodeHi.slice(0, count),
    nodeNext: nodeNext.slice(0, count),
  };
}
