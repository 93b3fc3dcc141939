// The registry-shaped corpus: the real records of data/sample/real-sample.csv (CC0) and the
// distractor names made from their own words. Issue 21: the real golden copy is full of
// near-twins (umbrella funds with dozens of sub-funds, "X Holding"/"X Holdings", parishes that
// differ in one word, the same words recombined across thousands of names), and the synthetic
// corpus of records.ts is kinder than that. Everything here is a pure function of its inputs and
// a seeded Rng, so a corpus and its queries are reproducible from (seed, N).

import { readFileSync } from "node:fs";
import { defaultSamplePath } from "./csv.js";
import { Rng } from "./prng.js";

/** One real record, parsed: its 338 values and what the name mutations need. */
export interface Template {
  readonly index: number;
  readonly values: readonly string[];
  readonly lei: string;
  readonly name: string;
  /** Country for vocabulary: legal address country, else the jurisdiction's country, else the script. */
  readonly vocabKey: string;
  readonly category: string;
  readonly kind: "fund" | "parish" | "plain";
}

export interface Sample {
  readonly header: readonly string[];
  readonly templates: readonly Template[];
  /** Body words (no legal forms, no connectors) per vocabulary key, with repeats: frequent words are picked more often. */
  readonly vocab: ReadonlyMap<string, readonly string[]>;
  /** Cities of the legal address per vocabulary key (parish families differ by a city). */
  readonly cities: ReadonlyMap<string, readonly string[]>;
  /** Words of real fund names, for sub-fund names. */
  readonly fundWords: readonly string[];
  /** fold() of every real name: a distractor may never fold equal to one (exact top-1 must stay well defined). */
  readonly realKeys: ReadonlySet<string>;
  /** Real names that fold equal to another real name: no exact-name query can single them out. */
  readonly ambiguousKeys: ReadonlySet<string>;
  readonly realLeis: ReadonlySet<string>;
}

/** Full RFC 4180 parse (quoted fields may hold commas, quotes and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
    i++;
  }
  if (field !== "" || row.length > 0) rows.push([...row, field]);
  return rows;
}

/**
 * The equality an exact-name query relies on: NFKC, case, diacritics, and every character that is
 * not a letter or digit removed. Two names with one key are indistinguishable to a user pasting
 * either, so a distractor never gets a real name's key.
 */
export function fold(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** Legal-form tokens (lower case): never swapped as body words, swapped by LEGAL_SWAPS instead. */
const LEGAL = new Set([
  "limited",
  "ltd",
  "ltd.",
  "llc",
  "l.l.c.",
  "inc",
  "inc.",
  "incorporated",
  "corp",
  "corp.",
  "corporation",
  "co.",
  "co",
  "company",
  "plc",
  "p.l.c.",
  "gmbh",
  "ag",
  "kg",
  "ohg",
  "e.v.",
  "ev",
  "eg",
  "mbh",
  "ug",
  "se",
  "s.r.l.",
  "srl",
  "s.p.a.",
  "spa",
  "s.a.",
  "sa",
  "s.a.s.",
  "sas",
  "s.l.",
  "sl",
  "s.l.u.",
  "sarl",
  "s.à",
  "r.l.",
  "s.a.r.l.",
  "b.v.",
  "bv",
  "n.v.",
  "nv",
  "as",
  "a/s",
  "asa",
  "ab",
  "(publ)",
  "aps",
  "oy",
  "oyj",
  "a.s.",
  "s.r.o.",
  "spol.",
  "lp",
  "l.p.",
  "llp",
  "lllp",
  "pty",
  "pty.",
  "private",
  "pvt",
  "pvt.",
  "ltda",
  "ltda.",
  "kft",
  "kft.",
  "zrt",
  "zrt.",
  "sp.",
  "z",
  "o.o.",
  "spółka",
  "ograniczoną",
  "odpowiedzialnością",
  "sicav",
  "icav",
  "spc",
  "fcp",
  "sca",
  "s.c.a.",
  "scs",
  "snc",
  "se.",
  "ou",
  "oü",
  "as.",
  "d.o.o.",
  "ad",
  "a.d.",
  "jsc",
  "pjsc",
  "ooo",
  "kk",
  "k.k.",
  "gk",
]);
/** Connectors and punctuation tokens: kept in place by every mutation. */
const CONNECTORS = new Set([
  "-",
  "&",
  "+",
  "/",
  "the",
  "of",
  "and",
  "de",
  "di",
  "del",
  "della",
  "des",
  "du",
  "la",
  "le",
  "les",
  "el",
  "en",
  "for",
  "und",
  "e",
  "y",
  "et",
  "i",
  "a",
  "an",
  "zu",
  "am",
  "im",
  "der",
  "die",
  "das",
  "van",
  "von",
  "och",
  "og",
]);

/** Legal-form replacements that change letters, so the twin never folds equal to its template. */
const LEGAL_SWAPS: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/\bGmbH & Co\. KG$/u, ["GmbH", "KG", "AG & Co. KG"]],
  [/\bGmbH$/u, ["AG", "GmbH & Co. KG", "mbH", "UG (haftungsbeschränkt)"]],
  [/\bAG$/u, ["GmbH", "SE", "KGaA"]],
  [/\bLimited$/iu, ["Ltd", "PLC", "LLP", "Holdings Limited"]],
  [/\bLtd\.?$/iu, ["Limited", "PLC", "LLC"]],
  [/\bLLC$/iu, ["Inc.", "LP", "Corp.", "L.L.C. II"]],
  [/\bInc\.?$/iu, ["LLC", "Corp.", "Incorporated"]],
  [/\bL\.?P\.?$/iu, ["LLC", "LLP", "GP LLC"]],
  [/\bS\.A\.S\.?$/iu, ["S.A.", "SARL", "SASU"]],
  [/\bS\.A\.?$/u, ["S.A.S.", "S.L.", "S.p.A.", "Sociedad Anónima"]],
  [/\bSA$/u, ["SAS", "SARL", "SL"]],
  [/\bS\.r\.l\.?$/iu, ["S.p.A.", "S.r.l.s.", "S.a.s."]],
  [/\bS\.L\.?$/iu, ["S.A.", "S.L.U.", "SLL"]],
  [/\bB\.V\.?$/iu, ["N.V.", "Holding B.V.", "C.V."]],
  [/\bAB$/u, ["AB (publ)", "HB", "KB"]],
  [/\bApS$/u, ["A/S", "IVS", "P/S"]],
  [/\bA\/S$/u, ["ApS", "P/S"]],
  [/\bAS$/u, ["ASA", "ANS", "DA"]],
  [/\bOy$/u, ["Oyj", "Ab", "Ky"]],
  [/\bs\.r\.o\.$/iu, ["a.s.", "v.o.s.", "k.s."]],
  [/\bPrivate Limited$/iu, ["Limited", "Pvt Ltd", "Private Ltd"]],
];
/** Punctuation-only variants (fold-equal to the original): applied only together with another change. */
const LEGAL_PUNCT: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bS\.A\.$/u, "SA"],
  [/\bSA$/u, "S.A."],
  [/\bLtd$/u, "Ltd."],
  [/\bLtd\.$/u, "Ltd"],
  [/\bB\.V\.$/u, "BV"],
  [/\bBV$/u, "B.V."],
  [/\bInc\.$/u, "Inc"],
  [/\bInc$/u, "Inc."],
  [/\bS\.r\.l\.$/u, "Srl"],
  [/\bSrl$/u, "S.r.l."],
  [/\bL\.P\.$/u, "LP"],
  [/\bLP$/u, "L.P."],
];
const ADDED_WORDS = [
  "Holding",
  "Holdings",
  "Group",
  "International",
  "Services",
  "Capital",
  "Management",
  "Investments",
  "Europe",
  "Global",
  "Partners",
  "Trading",
  "II",
  "III",
  "2",
  "Nord",
  "Sud",
];
const SUB_FUND_WORDS = [
  "Balanced",
  "Equity",
  "Bond",
  "Growth",
  "Income",
  "Global",
  "Emerging",
  "Markets",
  "Europe",
  "Asia",
  "Dynamic",
  "Flexible",
  "Value",
  "Opportunities",
  "Credit",
  "Short",
  "Duration",
  "Sustainable",
  "Climate",
  "Dividend",
  "Small",
  "Cap",
  "Total",
  "Return",
  "Multi",
  "Asset",
  "Strategic",
  "Conservative",
  "Defensive",
  "Select",
  "Premium",
  "Japan",
  "China",
  "India",
  "America",
  "Euro",
  "Dollar",
  "Sterling",
  "Yield",
  "Infrastructure",
  "Technology",
  "Health",
  "Real",
  "Estate",
  "Absolute",
  "Alpha",
  "Quant",
  "Systematic",
  "Core",
  "Plus",
];
const SAINTS = [
  "Johannes",
  "Martin",
  "Michael",
  "Peter",
  "Paul",
  "Jakob",
  "Andreas",
  "Stephan",
  "Georg",
  "Nikolaus",
  "Laurentius",
  "Vitus",
  "Ulrich",
  "Korbinian",
  "Maria",
  "Anna",
  "Margareta",
  "Katharina",
  "Barbara",
  "Elisabeth",
  "Josef",
  "Leonhard",
  "Wolfgang",
  "Benedikt",
  "Florian",
  "Sebastian",
  "Valentin",
  "Bartholomäus",
  "Matthäus",
  "Thomas",
  "Mark",
  "Luke",
  "John",
  "James",
  "Mary",
  "Patrick",
  "Joseph",
  "Francis",
  "Anthony",
  "Giovanni",
  "Pietro",
  "Lorenzo",
  "Giuseppe",
  "Marco",
  "Pierre",
  "Jean",
  "Étienne",
  "Nicolas",
];
const PARISH =
  /\b(kirchen|pfarr|parish|church|paroisse|parrocchia|parroquia|chapel|kirche|gemeinde|stiftung|verein|association|foundation|fondation|fondazione|fundación|congregation|diocese|ministr)/iu;
const FUND = /\b(funds?|fonds|sicav|icav|fcp|ucits|portfolio|etf|trust)\b/iu;

function scriptOf(name: string): string {
  if (/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u.test(name)) return "Han";
  if (/\p{Script=Cyrillic}/u.test(name)) return "Cyrillic";
  if (/\p{Script=Greek}/u.test(name)) return "Greek";
  if (/\p{Script=Arabic}/u.test(name)) return "Arabic";
  if (/\p{Script=Hangul}/u.test(name)) return "Hangul";
  if (/\p{Script=Thai}/u.test(name)) return "Thai";
  return "Latin";
}

export function isLegal(token: string): boolean {
  return LEGAL.has(token.toLowerCase().replace(/,$/, ""));
}

/** A word that a swap may replace: letters, not a legal form or connector, 3+ characters. */
export function isBody(token: string): boolean {
  const t = token.toLowerCase();
  return Array.from(t).length >= 3 && /\p{L}/u.test(t) && !LEGAL.has(t.replace(/,$/, "")) && !CONNECTORS.has(t);
}

export function loadSample(samplePath: string = defaultSamplePath()): Sample {
  const rows = parseCsv(readFileSync(samplePath, "utf8"));
  const header = rows[0]!;
  if (header.length !== 338) throw new Error(`expected 338 columns in ${samplePath}, found ${header.length}`);
  const col = (name: string): number => {
    const at = header.indexOf(name);
    if (at < 0) throw new Error(`no column ${name}`);
    return at;
  };
  const cLei = col("LEI");
  const cName = col("Entity.LegalName");
  const cCountry = col("Entity.LegalAddress.Country");
  const cJur = col("Entity.LegalJurisdiction");
  const cCity = col("Entity.LegalAddress.City");
  const cCat = col("Entity.EntityCategory");
  const templates: Template[] = [];
  const vocab = new Map<string, string[]>();
  const cities = new Map<string, string[]>();
  const fundWords: string[] = [];
  const keyCount = new Map<string, number>();
  for (let r = 1; r < rows.length; r++) {
    const v = rows[r]!;
    if (v.length !== header.length) throw new Error(`row ${r} has ${v.length} columns`);
    const name = v[cName]!;
    const script = scriptOf(name);
    const country = v[cCountry]! || v[cJur]!.slice(0, 2);
    // Non-Latin names take words from their script across countries: a country's few CJK names are too few to recombine.
    const vocabKey = script !== "Latin" ? script : country || "Latin";
    const kind = PARISH.test(name) ? "parish" : FUND.test(name) || v[cCat] === "FUND" ? "fund" : "plain";
    templates.push({ index: r - 1, values: v, lei: v[cLei]!, name, vocabKey, category: v[cCat]!, kind });
    const words = vocab.get(vocabKey) ?? [];
    const tokens = script === "Latin" || /\s/.test(name) ? name.split(/\s+/) : cjkChunks(name);
    for (const t of tokens) if (isBody(t) || script !== "Latin") words.push(t);
    vocab.set(vocabKey, words);
    if (v[cCity] !== "") {
      const list = cities.get(vocabKey) ?? [];
      list.push(v[cCity]!);
      cities.set(vocabKey, list);
    }
    if (kind === "fund") for (const t of name.split(/\s+/)) if (isBody(t) && !FUND.test(t)) fundWords.push(t);
    const k = fold(name);
    keyCount.set(k, (keyCount.get(k) ?? 0) + 1);
  }
  // Vocabularies under 40 words are pooled with their script's, so a swap always has choices.
  const latin: string[] = [];
  for (const words of vocab.values()) if (words.length < 40 && scriptOf(words.join(" ")) === "Latin") latin.push(...words);
  for (const [key, words] of vocab) if (words.length < 40 && scriptOf(words.join(" ")) === "Latin") vocab.set(key, [...words, ...latin]);
  const realKeys = new Set(keyCount.keys());
  const ambiguousKeys = new Set([...keyCount].filter(([, n]) => n > 1).map(([k]) => k));
  return { header, templates, vocab, cities, fundWords, realKeys, ambiguousKeys, realLeis: new Set(templates.map((t) => t.lei)) };
}

/** A CJK name without spaces, cut into 2-character pieces (the swap unit for such names). */
function cjkChunks(name: string): string[] {
  const chars = Array.from(name);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += 2) out.push(chars.slice(i, i + 2).join(""));
  return out;
}

/** Matches the case style of `like`: all caps, Title case or as is. */
function caseLike(word: string, like: string): string {
  if (like === like.toUpperCase() && like !== like.toLowerCase()) return word.toUpperCase();
  if (like[0] === like[0]?.toUpperCase() && like.slice(1) === like.slice(1).toLowerCase())
    return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
  return word;
}

function isCjk(name: string): boolean {
  return !/\s/.test(name) && scriptOf(name) !== "Latin";
}

function tokensOf(name: string): string[] {
  return isCjk(name) ? cjkChunks(name) : name.split(/\s+/);
}

function joinTokens(name: string, tokens: readonly string[]): string {
  return isCjk(name) ? tokens.join("") : tokens.join(" ");
}

function pickWord(rng: Rng, sample: Sample, key: string, not: string): string {
  const words = sample.vocab.get(key)!;
  for (let tries = 0; tries < 8; tries++) {
    const w = rng.pick(words);
    if (w.toLowerCase() !== not.toLowerCase()) return w;
  }
  return rng.pick(ADDED_WORDS);
}

/** One body word swapped for another of the same country's (or script's) vocabulary. */
export function swapWord(rng: Rng, sample: Sample, t: Template, name: string = t.name): string | null {
  const tokens = tokensOf(name);
  const slots = tokens.map((w, k) => (isBody(w) || isCjk(name) ? k : -1)).filter((k) => k >= 0);
  if (slots.length === 0) return null;
  const k = rng.pick(slots);
  tokens[k] = caseLike(pickWord(rng, sample, t.vocabKey, tokens[k]!), tokens[k]!);
  return joinTokens(name, tokens);
}

function holdingToggle(rng: Rng, name: string): string | null {
  if (/\bHoldings\b/iu.test(name)) return name.replace(/\b(Holding)s\b/iu, "$1");
  if (/\bHolding\b/iu.test(name)) return name.replace(/\b(Holding)\b/iu, "$1s");
  if (isCjk(name)) return null;
  const tokens = name.split(/\s+/);
  const at = tokens.findIndex((w, k) => k > 0 && isLegal(w));
  const word = caseLike(rng.chance(0.5) ? "Holding" : "Holdings", tokens[0]!);
  if (at < 0) tokens.push(word);
  else tokens.splice(at, 0, word);
  return tokens.join(" ");
}

function legalSwap(rng: Rng, name: string): string | null {
  for (const [re, alts] of LEGAL_SWAPS) if (re.test(name)) return name.replace(re, rng.pick(alts));
  return null;
}

function legalPunct(name: string): string {
  for (const [re, alt] of LEGAL_PUNCT) if (re.test(name)) return name.replace(re, alt);
  return name;
}

function addWord(rng: Rng, sample: Sample, t: Template, name: string): string {
  if (isCjk(name)) return name + pickWord(rng, sample, t.vocabKey, "");
  const tokens = name.split(/\s+/);
  const at = tokens.findIndex((w, k) => k > 0 && isLegal(w));
  const word = caseLike(rng.chance(0.6) ? rng.pick(ADDED_WORDS) : pickWord(rng, sample, t.vocabKey, ""), tokens[0]!);
  if (at < 0) tokens.push(word);
  else tokens.splice(at, 0, word);
  return tokens.join(" ");
}

function removeWord(rng: Rng, name: string): string | null {
  const tokens = tokensOf(name);
  const slots = tokens.map((w, k) => (isBody(w) || isCjk(name) ? k : -1)).filter((k) => k >= 0);
  if (slots.length < 2) return null;
  tokens.splice(rng.pick(slots), 1);
  return joinTokens(name, tokens);
}

/** A near-twin of a real name: one small change (sometimes two), never fold-equal to any real name. */
export function nearTwin(rng: Rng, sample: Sample, t: Template): { name: string; change: string } | null {
  for (let tries = 0; tries < 6; tries++) {
    const op = rng.int(10);
    let name: string | null;
    let change: string;
    if (op < 4) [name, change] = [swapWord(rng, sample, t), "word swap"];
    else if (op < 6) [name, change] = [holdingToggle(rng, t.name), "Holding/Holdings"];
    else if (op < 8) [name, change] = [legalSwap(rng, t.name), "legal form"];
    else if (op < 9) [name, change] = [addWord(rng, sample, t, t.name), "added word"];
    else [name, change] = [removeWord(rng, t.name), "removed word"];
    if (name === null) continue;
    // Ltd/Ltd., S.A./SA: a punctuation-only legal-form variant, on top of the change above.
    if (rng.chance(0.2)) name = legalPunct(name);
    if (!sample.realKeys.has(fold(name))) return { name, change };
  }
  return null;
}

/** The template's shape (legal form, connectors, length) with most body words taken from its country's vocabulary. */
export function recombined(rng: Rng, sample: Sample, t: Template): string | null {
  const tokens = tokensOf(t.name);
  let changed = false;
  for (let k = 0; k < tokens.length; k++) {
    if ((isBody(tokens[k]!) || isCjk(t.name)) && rng.chance(0.7)) {
      tokens[k] = caseLike(pickWord(rng, sample, t.vocabKey, tokens[k]!), tokens[k]!);
      changed = true;
    }
  }
  if (!changed) return null;
  const name = joinTokens(t.name, tokens);
  return sample.realKeys.has(fold(name)) ? null : name;
}

/** A family of names sharing all words but one: an umbrella's sub-funds or parishes; its rows copy `template`'s columns. */
export interface Family {
  readonly template: Template;
  readonly kind: "umbrella" | "real-umbrella" | "parish";
  readonly names: readonly string[];
}

/**
 * Sub-funds of an invented umbrella named after a word X of a real fund's name, in the shape
 * "<X> FUNDS SICAV - <X> <word> FUND" (the query repeats X: the case issue 21 saw fail).
 */
export function umbrellaFamily(rng: Rng, sample: Sample, t: Template, size: number): Family {
  const heads = t.name.split(/\s+/).filter((w) => isBody(w) && !FUND.test(w));
  const x = heads.length > 0 ? rng.pick(heads) : pickWord(rng, sample, t.vocabKey, "");
  const upper = rng.chance(0.5);
  const shape = rng.int(3);
  const names = new Set<string>();
  for (let tries = 0; names.size < size && tries < size * 4; tries++) {
    const w = rng.chance(0.7) ? rng.pick(SUB_FUND_WORDS) : rng.pick(sample.fundWords);
    let n =
      shape === 0
        ? `${x} Funds SICAV - ${x} ${w} Fund`
        : shape === 1
          ? `${x} ICAV - ${x} ${w} Fund`
          : `${x} Investment Funds - ${x} ${w} Portfolio`;
    if (upper) n = n.toUpperCase();
    if (!sample.realKeys.has(fold(n))) names.add(n);
  }
  return { template: t, kind: "umbrella", names: [...names] };
}

/**
 * Siblings of a real fund name: for an umbrella name "A - B C D" one word of the sub-fund part is
 * swapped; for any other fund name one body word. The real name hides among its own sub-funds.
 */
export function realUmbrellaFamily(rng: Rng, sample: Sample, t: Template, size: number): Family {
  const dash = t.name.indexOf(" - ");
  const head = dash > 0 ? t.name.slice(0, dash + 3) : "";
  const tail = dash > 0 ? t.name.slice(dash + 3) : t.name;
  const tokens = tail.split(/\s+/);
  const slots = tokens.map((w, k) => (isBody(w) ? k : -1)).filter((k) => k >= 0);
  const names = new Set<string>();
  if (slots.length > 0 && !isCjk(t.name)) {
    // One slot for the whole family: its names share all words but that one.
    const k = rng.pick(slots);
    for (let tries = 0; names.size < size && tries < size * 4; tries++) {
      const copy = [...tokens];
      copy[k] = caseLike(rng.chance(0.6) ? rng.pick(SUB_FUND_WORDS) : rng.pick(sample.fundWords), tokens[k]!);
      const n = head + copy.join(" ");
      if (!sample.realKeys.has(fold(n))) names.add(n);
    }
  }
  return { template: t, kind: "real-umbrella", names: [...names] };
}

/** Parishes/associations: a real parish-like name with its city or saint word replaced. */
export function parishFamily(rng: Rng, sample: Sample, t: Template, size: number): Family {
  const tokens = t.name.split(/\s+/);
  const slots = tokens.map((w, k) => (isBody(w) && !PARISH.test(w) ? k : -1)).filter((k) => k >= 0);
  const names = new Set<string>();
  if (slots.length > 0 && !isCjk(t.name)) {
    const k = slots[slots.length - 1]!;
    const saint = k > 0 && /^(st\.?|sankt|saint|san|santa|sainte|ss\.?)$/iu.test(tokens[k - 1]!);
    const cities = sample.cities.get(t.vocabKey) ?? sample.cities.get("DE")!;
    for (let tries = 0; names.size < size && tries < size * 4; tries++) {
      const copy = [...tokens];
      copy[k] = caseLike(saint || rng.chance(0.3) ? rng.pick(SAINTS) : rng.pick(cities), tokens[k]!);
      const n = copy.join(" ");
      if (!sample.realKeys.has(fold(n))) names.add(n);
    }
  }
  return { template: t, kind: "parish", names: [...names] };
}

/** Full-width form (U+FF01..FF5E, U+3000) of the ASCII in a name: NFKC maps it back. */
export function fullWidth(name: string): string {
  let out = "";
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    out += c === 0x20 ? "\u3000" : c > 0x20 && c < 0x7f ? String.fromCodePoint(c + 0xfee0) : ch;
  }
  return out;
}

/** The other width of a name: its NFKC form when it holds full-width or other compatibility characters, else its full-width form. */
export function otherWidth(name: string): string {
  const nfkc = name.normalize("NFKC");
  return nfkc !== name ? nfkc : fullWidth(name);
}
