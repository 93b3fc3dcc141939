// The slice: pointers to the immutable index arrays the host copied in, read from a descriptor of
// u32 words. Layout of the descriptor (word index):
//   0 nDocs, 1 nTerms, 2 termBytes, 3 termOffs[nTerms+1], 4 postOffs[nTerms-nDocs+1] (text
//   terms only, see postingStart), 5 postDocs, 6 fwdOffs[nDocs+1], 7 fwdTerms (u32: a doc's text
//   terms; its LEI is implied), 8 fwdMeta (u16), 9 nameLen (u8 per doc),
//   10 postMeta (u16 per text posting: field bits, position, name length; see postingMeta),
//   11 trie node count, 12 trie nodes (4 u32 each: lo, hi, first child | terminal bit, byte | children << 8),
//   13 nameKeys ((hi, lo, doc) u32 triples sorted by hi: exact-name keys, see name-key.ts), 14 their count,
//   15 docRank (u8 per doc: 2 registration issued, 1 entity active),
//   16 bytes a postDocs entry, 17 bytes a fwdTerms entry: 3 (little-endian, readable as a u32
//      whose top byte is masked off) when every id is below 2^24, else 4,
//   18 nCols, 19 + 5c: column c -> codes[nDocs], bytes a code (1, 2 or 4: as few as its values
//      allow), nCodes, valOffs[nCodes+1], listed: the rare values' docs, as offsets[nCodes+1]
//      then docs; a value whose offsets hold fewer docs than its valOffs (a frequent one) lists none
//   19 + 5 nCols, 20 + 5 nCols: 0 from the host; the engine writes there where it put what it
//      derives once per slice (dictionary.ts's node bytes, frequent.ts's table), for the
//      instances of other threads
// A term's postings are its docs by legal name length, then doc id; value lists are sorted doc
// ids. Docs are numbered in LEI order, so the doc id is also the deterministic tie-break.

export const MAX_COLS: i32 = 16;
/** the meta of a doc's own LEI term: field bit 8, no legal-name position */
export const LEI_META: u32 = 8 | (255 << 8);

export let nDocs: u32 = 0;
export let nTerms: u32 = 0;
export let termBytes: usize = 0;
export let termOffs: usize = 0;
export let postOffs: usize = 0;
export let postDocs: usize = 0;
export let fwdOffs: usize = 0;
export let fwdTerms: usize = 0;
export let fwdMeta: usize = 0;
export let nameLen: usize = 0;
export let postMeta: usize = 0;
export let postDocWidth: usize = 4; // bytes a postDocs / fwdTerms entry, and the mask of its bits
export let postDocMask: u32 = 0xffffffff;
let fwdTermWidth: usize = 4;
let fwdTermMask: u32 = 0xffffffff;
let postOffsBase: usize = 0; // postOffs, postDocs and postMeta less nDocs entries: indexed by term id or posting index
export let postDocsBase: usize = 0;
let postMetaBase: usize = 0;
export let trieNodes: u32 = 0;
export let trieBase: usize = 0;
export let nameKeys: usize = 0;
export let nameKeyCount: u32 = 0;
export let docRank: usize = 0;
export let nCols: i32 = 0;

export const colCodes = new StaticArray<usize>(MAX_COLS);
export const colCodeShift = new StaticArray<u32>(MAX_COLS); // log2 of a code's bytes
export const colNCodes = new StaticArray<u32>(MAX_COLS);
export const colValOffs = new StaticArray<usize>(MAX_COLS);
export const colListOffs = new StaticArray<usize>(MAX_COLS);
export const colListDocs = new StaticArray<usize>(MAX_COLS);

export function readDescriptor(desc: usize): void {
  nDocs = load<u32>(desc);
  nTerms = load<u32>(desc + 4);
  termBytes = load<u32>(desc + 8);
  termOffs = load<u32>(desc + 12);
  postOffs = load<u32>(desc + 16);
  postDocs = load<u32>(desc + 20);
  fwdOffs = load<u32>(desc + 24);
  fwdTerms = load<u32>(desc + 28);
  fwdMeta = load<u32>(desc + 32);
  nameLen = load<u32>(desc + 36);
  postMeta = load<u32>(desc + 40);
  postDocWidth = load<u32>(desc + 64);
  postDocMask = postDocWidth == 3 ? 0xffffff : 0xffffffff;
  fwdTermWidth = load<u32>(desc + 68);
  fwdTermMask = fwdTermWidth == 3 ? 0xffffff : 0xffffffff;
  postOffsBase = postOffs - (<usize>nDocs << 2);
  postDocsBase = postDocs - <usize>nDocs * postDocWidth;
  postMetaBase = postMeta - (<usize>nDocs << 1);
  trieNodes = load<u32>(desc + 44);
  trieBase = load<u32>(desc + 48);
  nameKeys = load<u32>(desc + 52);
  nameKeyCount = load<u32>(desc + 56);
  docRank = load<u32>(desc + 60);
  nCols = <i32>load<u32>(desc + 72);
  for (let c = 0; c < nCols; c++) {
    const base = desc + 76 + <usize>c * 20;
    colCodes[c] = load<u32>(base);
    const bytes = load<u32>(base + 4);
    colCodeShift[c] = bytes == 1 ? 0 : bytes == 2 ? 1 : 2;
    colNCodes[c] = load<u32>(base + 8);
    colValOffs[c] = load<u32>(base + 12);
    colListOffs[c] = load<u32>(base + 16);
    colListDocs[c] = colListOffs[c] + ((<usize>colNCodes[c] + 1) << 2);
  }
}

export function sharedSlot(desc: usize): usize { return desc + 76 + <usize>nCols * 20; }

@inline export function termStart(t: u32): u32 { return load<u32>(termOffs + (<usize>t << 2)); }
@inline export function termLength(t: u32): u32 { return load<u32>(termOffs + (<usize>(t + 1) << 2)) - termStart(t); }
@inline export function termByte(t: u32, i: u32): u32 { return load<u8>(termBytes + <usize>termStart(t) + <usize>i); }
// Term d < nDocs is doc d's LEI, whose one posting is implied: posting d is doc d, with
// LEI_META. Text postings follow from index nDocs on; their arrays hold only them.
// The arrays' bases are set back by nDocs entries (the host places each array past at least
// that much memory), so a posting's stored word is read without a branch, and select() keeps
// the implied one for an LEI's.
@inline export function postingStart(t: u32): u32 { return t < nDocs ? t : load<u32>(postOffsBase + (<usize>t << 2)); }
@inline export function postingEnd(t: u32): u32 { return postingStart(t + 1); }
@inline export function postingDoc(i: u32): u32 {
  return select<u32>(i, load<u32>(postDocsBase + <usize>i * postDocWidth) & postDocMask, i < nDocs);
}
/** Forward entry e's term. */
@inline export function fwdTerm(e: u32): u32 { return load<u32>(fwdTerms + <usize>e * fwdTermWidth) & fwdTermMask; }
/**
 * A posting's meta as the forward index has it (field bits | legal position << 8), with the legal
 * name's length << 16. Stored in 16 bits: field bits 0-2, position 3-7 (31: 31 or more, or none;
 * the postings' readers tell no position from 31 on apart), length 8-15.
 */
@inline export function postingMeta(i: u32): u32 {
  const v = <u32>load<u16>(postMetaBase + (<usize>i << 1));
  const lei = LEI_META | (<u32>load<u8>(nameLen + <usize>min(i, nDocs)) << 16);
  return select<u32>(lei, (v & 7) | (((v >> 3) & 31) << 8) | ((v >> 8) << 16), i < nDocs);
}
@inline export function docCode(c: i32, doc: u32): u32 { return codeAt(unchecked(colCodes[c]), unchecked(colCodeShift[c]), doc); }
@inline export function codeAt(codes: usize, shift: u32, doc: u32): u32 {
  const at = codes + (<usize>doc << shift);
  return shift == 0 ? <u32>load<u8>(at) : shift == 1 ? <u32>load<u16>(at) : load<u32>(at);
}
