// Query sets drawn from generated records: what a person types when looking for
// an entity they know, with realistic typing errors. Typos go only into tokens of
// four or more letters (the engines under test allow none below that) and never
// on the first letter, which people rarely get wrong.

import type { EntityRecord, RecordFactory } from "./records.js";
import { Rng } from "./prng.js";

export interface QueryEntry {
  readonly lei: string;
  readonly name: string;
  readonly country: string;
  readonly status: string;
  readonly registrationStatus: string;
  readonly category: string;
  /** A distinctive word of the name, for filtered searches. */
  readonly word: string;
  /** 1–3 words of the name with 1–2 typos. */
  readonly typoQuery: string;
  /** First 1–2 words of the name, the last one cut short (type-ahead). */
  readonly prefixQuery: string;
}

const STREAM_QUERIES = 11;

const QWERTY_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
const NEIGHBOURS = new Map<string, string>();
for (let r = 0; r < QWERTY_ROWS.length; r++) {
  const row = QWERTY_ROWS[r]!;
  for (let c = 0; c < row.length; c++) {
    let n = "";
    if (c > 0) n += row[c - 1];
    if (c < row.length - 1) n += row[c + 1];
    const above = QWERTY_ROWS[r - 1];
    const below = QWERTY_ROWS[r + 1];
    if (above !== undefined) n += above.slice(Math.max(0, c - 1), c + 1);
    if (below !== undefined) n += below.slice(Math.max(0, c - 1), c + 1);
    NEIGHBOURS.set(row[c]!, n);
  }
}

/** Scripts where a person types letter by letter and a letter-level typo is meaningful. */
const TYPABLE = /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}0-9'&.-]+$/u;

function letters(token: string): number {
  return (token.match(/\p{L}/gu) ?? []).length;
}

export function typoEligible(token: string): boolean {
  return letters(token) >= 4 && TYPABLE.test(token);
}

/** Splits a name into the words a person would type, dropping punctuation-only tokens. */
export function queryTokens(name: string): string[] {
  return name
    .split(/[\s,;:()"“”„（）]+/u)
    .map((t) => t.replace(/^[.\-'&/]+|[.\-'&/]+$/gu, ""))
    .filter((t) => /\p{L}|\p{N}/u.test(t));
}

function neighbour(rng: Rng, ch: string): string {
  const lower = ch.toLowerCase();
  const n = NEIGHBOURS.get(lower);
  if (n !== undefined) {
    const out = n[rng.int(n.length)]!;
    return ch === lower ? out : out.toUpperCase();
  }
  // Outside a-z: a nearby letter of the same alphabet.
  const code = ch.codePointAt(0)!;
  const delta = rng.chance(0.5) ? 1 : -1;
  const next = String.fromCodePoint(code + delta);
  return /\p{L}/u.test(next) ? next : String.fromCodePoint(code - delta);
}

/** Applies one typing error at a position >= 1 of the token. */
export function typo(rng: Rng, token: string): string {
  const chars = Array.from(token);
  const positions: number[] = [];
  for (let i = 1; i < chars.length; i++) if (/\p{L}/u.test(chars[i]!)) positions.push(i);
  if (positions.length === 0) return token;
  const i = rng.pick(positions);
  const op = rng.int(4);
  if (op === 0) {
    chars[i] = neighbour(rng, chars[i]!);
  } else if (op === 1 && i + 1 < chars.length && chars[i] !== chars[i + 1]) {
    [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
  } else if (op === 2 || op === 1) {
    chars.splice(i, 1);
  } else {
    chars.splice(i, 0, rng.chance(0.5) ? chars[i]! : neighbour(rng, chars[i]!));
  }
  return chars.join("");
}

/** 1–3 words of `name` with 1–2 typos, or null when no word is long enough to misspell. */
export function makeTypoQuery(rng: Rng, name: string): string | null {
  const tokens = queryTokens(name);
  if (tokens.length === 0) return null;
  const wanted = Math.min(tokens.length, rng.chance(0.2) ? 1 : rng.chance(0.56) ? 2 : 3);
  let words = tokens.slice(0, wanted);
  if (!words.some(typoEligible)) {
    // Take the first misspellable word and the words before it, up to three.
    const at = tokens.findIndex(typoEligible);
    if (at < 0) return null;
    words = tokens.slice(Math.max(0, at - 2), at + 1);
  }
  const eligible = words.map((w, k) => (typoEligible(w) ? k : -1)).filter((k) => k >= 0);
  const typos = rng.chance(0.35) ? 2 : 1;
  const first = rng.pick(eligible);
  words[first] = typo(rng, words[first]!);
  if (typos === 2) {
    const others = eligible.filter((k) => k !== first);
    if (others.length > 0) {
      const second = rng.pick(others);
      words[second] = typo(rng, words[second]!);
    } else if (letters(words[first]!) >= 8) {
      words[first] = typo(rng, words[first]!);
    }
  }
  let q = words.join(" ");
  if (q.toLowerCase() === tokens.slice(0, words.length).join(" ").toLowerCase()) return null;
  if (rng.chance(0.6)) q = q.toLowerCase();
  return q;
}

/** The first two words of a name with one typing error in a word of 4+ letters, or null when neither has one. */
export function firstWordsTypo(rng: Rng, name: string): string | null {
  const words = queryTokens(name).slice(0, 2);
  const eligible = words.map((w, k) => (typoEligible(w) ? k : -1)).filter((k) => k >= 0);
  if (words.length < 2 || eligible.length === 0) return null;
  const k = rng.pick(eligible);
  words[k] = typo(rng, words[k]!);
  return words.join(" ");
}

export function makePrefixQuery(rng: Rng, name: string): string | null {
  const tokens = queryTokens(name);
  if (tokens.length === 0) return null;
  const words = tokens.slice(0, Math.min(tokens.length, rng.chance(0.5) ? 1 : 2));
  const last = Array.from(words[words.length - 1]!);
  if (last.length >= 4) words[words.length - 1] = last.slice(0, rng.range(3, last.length - 1)).join("");
  const q = words.join(" ");
  return rng.chance(0.5) ? q.toLowerCase() : q;
}

function distinctiveWord(name: string): string | null {
  const tokens = queryTokens(name).filter((t) => letters(t) >= 4);
  if (tokens.length === 0) return null;
  return tokens.reduce((a, b) => (Array.from(b).length > Array.from(a).length ? b : a));
}

export function queryFor(rng: Rng, rec: EntityRecord): QueryEntry | null {
  const typoQuery = makeTypoQuery(rng, rec.nameCore);
  const prefixQuery = makePrefixQuery(rng, rec.nameCore);
  const word = distinctiveWord(rec.nameCore);
  if (typoQuery === null || prefixQuery === null || word === null) return null;
  return {
    lei: rec.lei,
    name: rec.legalName,
    country: rec.legalAddress.country,
    status: rec.entityStatus,
    registrationStatus: rec.registrationStatus,
    category: rec.category,
    word,
    typoQuery,
    prefixQuery,
  };
}

/**
 * `count` queries from distinct records picked uniformly at random; records whose
 * name has nothing to misspell (short or CJK/Thai/Hangul names) are passed over.
 */
export function buildQuerySet(factory: RecordFactory, count: number, seed: number): QueryEntry[] {
  const rng = Rng.at(seed, STREAM_QUERIES, 0);
  const target = Math.min(count, factory.total);
  const seen = new Set<number>();
  const out: QueryEntry[] = [];
  let attempts = 0;
  while (out.length < target && attempts < target * 20 && seen.size < factory.total) {
    attempts++;
    const i = rng.int(factory.total);
    if (seen.has(i)) continue;
    seen.add(i);
    const q = queryFor(rng, factory.recordAt(i));
    if (q !== null) out.push(q);
  }
  return out;
}
