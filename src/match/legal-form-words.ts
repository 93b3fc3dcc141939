// The legal-form words of each country, from the ELF code list's abbreviations: every spelling a
// row gives of its form maps to one canonical spelling, the row's first abbreviation. Spellings
// are the row's abbreviations (local and transliterated), and its names where the abbreviation
// abbreviates them (its letters in order, the first first: "Gesellschaft mit beschränkter
// Haftung" for GmbH, "Aktiengesellschaft" for AG, but not "Bank", a North Carolina form whose
// abbreviations are "corp.; inc.; ..."). "GmbH" and "Gesellschaft mit beschränkter Haftung" are
// one form in Germany; "S.R.L." and "SRL" in Italy; "Ltd", "Ltd." and "Limited" in Britain. Words
// are compared as search analyses them (engine/text.ts), so "S.R.L." is already "srl" here.

import { tokenize } from "../engine/text.js";
import { typosAllowed, wordsAlike } from "./name-similarity.js";
import { BUNDLED_ELF_LIST, readElfList, type ElfList, type ElfRow } from "../legal-forms/elf-list.js";

/** One country's forms: phrases by their first word, longest first, and the canonical words. */
export class FormTable {
  /** first word → [the phrase's words, its canonical form], longest first */
  readonly phrases = new Map<string, [string[], string][]>();
  readonly forms = new Set<string>();
  /** first letter → the phrases whose words are all long enough to allow a typo, longest first */
  private readonly typoPhrases = new Map<string, [string[], string][]>();

  /**
   * A row's spellings map to its first abbreviation, or to what that abbreviation already maps to;
   * a spelling keeps the first form it was given (active rows come first). Forms are not joined
   * further: Louisiana lists "L.L.C." among the spellings of a corporation, and an LLC and an Inc
   * of the same name are two entities a match should tell apart.
   */
  add(rows: Iterable<ElfRow>): this {
    for (const row of rows) {
      const abbreviations = [...row.abbreviations, ...row.transliteratedAbbreviations].map(words).filter((w) => w.length > 0);
      if (abbreviations.length === 0) continue;
      const first = abbreviations[0].join(" ");
      const canonical = this.canonicalOf(abbreviations[0]) ?? first;
      this.forms.add(canonical);
      for (const spelling of abbreviations) this.map(spelling, canonical);
      for (const name of [words(row.localName), words(row.transliteratedName)]) if (abbreviates(first, name)) this.map(name, canonical);
    }
    for (const list of this.phrases.values()) {
      list.sort((a, b) => b[0].length - a[0].length);
      for (const entry of list) {
        if (!entry[0].some((w) => typosAllowed(w) > 0)) continue;
        const first = entry[0][0][0];
        this.typoPhrases.set(first, [...(this.typoPhrases.get(first) ?? []), entry]);
      }
    }
    for (const list of this.typoPhrases.values()) list.sort((a, b) => b[0].length - a[0].length);
    return this;
  }

  private canonicalOf(spelling: string[]): string | undefined {
    return this.phrases.get(spelling[0])?.find(([ws]) => ws.length === spelling.length && ws.every((w, k) => w === spelling[k]))?.[1];
  }

  private map(spelling: string[], canonical: string): void {
    if (spelling.length === 0 || this.canonicalOf(spelling) !== undefined) return;
    const list = this.phrases.get(spelling[0]);
    if (list) list.push([spelling, canonical]);
    else this.phrases.set(spelling[0], [[spelling, canonical]]);
  }

  /**
   * The words with each legal form in its canonical spelling (one element per form). A form's
   * words are recognised within a typo too, as the distinctive words are (name-similarity.ts),
   * its first letter right: "Spółka z ograniczoną odopwiedzialnością" is still sp. z o.o.
   */
  fold(ws: readonly string[]): string[] {
    const out: string[] = [];
    for (let i = 0; i < ws.length;) {
      const phrase =
        this.phrases.get(ws[i])?.find(([p]) => p.every((w, k) => ws[i + k] === w)) ??
        this.typoPhrases.get(ws[i][0])?.find(([p]) => p.every((w, k) => ws[i + k] !== undefined && wordsAlike(w, ws[i + k])));
      if (phrase) {
        out.push(phrase[1]);
        i += phrase[0].length;
      } else out.push(ws[i++]);
    }
    return out;
  }
}

const words = (text: string): string[] => tokenize(text);

/** Whether `abbreviation`'s letters come in order in the name, its first letter first. */
function abbreviates(abbreviation: string, name: string[]): boolean {
  const letters = abbreviation.replace(/ /g, "");
  const text = name.join("");
  if (letters === "" || text[0] !== letters[0]) return false;
  let at = 0;
  for (const ch of letters) {
    at = text.indexOf(ch, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

/** A spelling given as an abbreviation in this many countries is a legal form everywhere. */
const COMMON_IN_COUNTRIES = 3;

/**
 * Form tables per country, built on first use. The list is not complete for every country (India
 * lists "Ltd" but not "Limited", the Czech s.r.o. has no abbreviation), so a country's table
 * reads, after its own rows: the rows of other countries in its languages (English "Limited",
 * "Co." in India), then the spellings the list gives as abbreviations in at least
 * COMMON_IN_COUNTRIES countries ("Ltd", "SA", "GmbH", "SARL", ...). A spelling keeps the form
 * of the first tier that gives it. A name of no known country is read with every country's forms.
 */
export class LegalFormWords {
  private readonly tables = new Map<string, FormTable>();
  private everywhere: FormTable | null = null;
  private common: ElfRow[] | null = null;

  constructor(private readonly list: ElfList) {}

  private static bundledWords: LegalFormWords | null = null;
  /** The forms of the bundled list (data/elf/), for callers given no list. */
  static bundled(): LegalFormWords {
    LegalFormWords.bundledWords ??= new LegalFormWords(readElfList(BUNDLED_ELF_LIST));
    return LegalFormWords.bundledWords;
  }

  /** The forms of a country (ISO 3166-1, or a jurisdiction such as US-DE: its country's); null or unknown: every country's. */
  of(country: string | null): FormTable {
    const code = country?.trim().slice(0, 2).toUpperCase() ?? "";
    const rows = this.list.rowsOf(code);
    if (rows.length === 0) {
      this.everywhere ??= new FormTable().add(byStatus(this.list.rows));
      return this.everywhere;
    }
    let table = this.tables.get(code);
    if (!table) {
      const languages = new Set(rows.map((r) => r.language).filter((l) => l !== ""));
      const sameLanguage = this.list.rows.filter((r) => r.country !== code && languages.has(r.language));
      table = new FormTable().add([...byStatus(rows), ...byStatus(sameLanguage), ...this.commonRows()]);
      this.tables.set(code, table);
    }
    return table;
  }

  /** Every row with only its abbreviations that COMMON_IN_COUNTRIES countries or more give, and no names. */
  private commonRows(): ElfRow[] {
    if (this.common) return this.common;
    const countries = new Map<string, Set<string>>();
    const key = (a: string): string => words(a).join(" ");
    for (const r of this.list.rows)
      for (const a of [...r.abbreviations, ...r.transliteratedAbbreviations]) {
        const k = key(a);
        if (k !== "") countries.set(k, (countries.get(k) ?? new Set()).add(r.country));
      }
    const common = (a: string): boolean => (countries.get(key(a))?.size ?? 0) >= COMMON_IN_COUNTRIES;
    this.common = byStatus(this.list.rows)
      .map((r) => ({
        ...r,
        localName: "",
        transliteratedName: "",
        abbreviations: r.abbreviations.filter(common),
        transliteratedAbbreviations: r.transliteratedAbbreviations.filter(common),
      }))
      .filter((r) => r.abbreviations.length + r.transliteratedAbbreviations.length > 0);
    return this.common;
  }
}

/** Active rows first, each group in the list's order: a current form's spelling wins a clash. */
const byStatus = (rows: readonly ElfRow[]): ElfRow[] => [...rows.filter((r) => r.active), ...rows.filter((r) => !r.active)];
