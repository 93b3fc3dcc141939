// GLEIF's ISO 20275 Entity Legal Forms (ELF) code list: a code's name and abbreviations for a
// record (its country, jurisdiction and language), and each country's legal-form words for
// matching. The bundled copy is data/elf/; --legal-forms loads a newer file of the same layout,
// whose columns are found by GLEIF's header names.

import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
/** data/elf/ of the installation, whether this runs compiled (dist/src/legal-forms/) or from source */
export const BUNDLED_ELF_LIST = join(
  HERE,
  HERE.includes(`${sep}dist${sep}`) ? "../../.." : "../..",
  "data/elf/2026-02-19-elf-code-list-v1.6.csv",
);

/** The code whose form is given as free text, in Entity.LegalForm.OtherLegalForm. */
export const OTHER_LEGAL_FORM = "8888";

const COLUMNS = {
  code: "ELF Code",
  country: "Country Code (ISO 3166-1)",
  subdivision: "Country sub-division code (ISO 3166-2)",
  localName: "Entity Legal Form name Local name",
  language: "Language Code (ISO 639-1)",
  transliteratedName: "Entity Legal Form name Transliterated name (per ISO 01-140-10)",
  localAbbreviations: "Abbreviations Local language",
  transliteratedAbbreviations: "Abbreviations transliterated",
  status: "ELF Status ACTV/INAC",
} as const;

export interface ElfRow {
  code: string;
  country: string;
  subdivision: string;
  localName: string;
  language: string;
  transliteratedName: string;
  /** the local abbreviations, in the list's order */
  abbreviations: string[];
  transliteratedAbbreviations: string[];
  active: boolean;
}

/** What a record's legal form reads as. */
export interface LegalFormName {
  name: string;
  /** several joined by "; ", as GLEIF lists them; null where the list gives none */
  abbreviations: string | null;
}

/** What a record says that chooses among a code's rows. */
export interface RecordForm {
  code: string | null;
  jurisdiction: string | null;
  country: string | null;
  /** Entity.LegalName's xml:lang, e.g. de or fr-CH */
  language: string | null;
  otherLegalForm: string | null;
}

export class ElfListError extends Error {}

export class ElfList {
  private readonly byCode = new Map<string, ElfRow[]>();
  private readonly byCountry = new Map<string, ElfRow[]>();

  constructor(
    readonly rows: readonly ElfRow[],
    /** the file's SHA-256, hex: a collection built with another list is rebuilt */
    readonly digest: string,
  ) {
    for (const row of rows) {
      push(this.byCode, row.code, row);
      if (row.country !== "") push(this.byCountry, row.country, row);
    }
  }

  get codes(): number {
    return this.byCode.size;
  }

  /** The rows of one country (ISO 3166-1), in the list's order. */
  rowsOf(country: string): readonly ElfRow[] {
    return this.byCountry.get(country) ?? [];
  }

  countries(): string[] {
    return [...this.byCountry.keys()];
  }

  /** Whether the code names the same way wherever and in whatever language (one named row, or all alike). */
  namesOneWay(code: string): boolean {
    const rows = (this.byCode.get(code.trim().toUpperCase()) ?? []).filter((r) => r.localName !== "");
    return rows.every((r) => r.localName === rows[0].localName && r.abbreviations.join(";") === rows[0].abbreviations.join(";"));
  }

  /**
   * The record's legal form as a name: code 8888 reads its OtherLegalForm; otherwise the code's
   * row for the record's subdivision, else its country, in the record's language, else the first
   * (the list gives the local language first). Null for an unknown code, 9999 and empty names.
   */
  nameOf(record: RecordForm): LegalFormName | null {
    const code = record.code?.trim().toUpperCase() ?? "";
    if (code === OTHER_LEGAL_FORM) {
      const other = record.otherLegalForm?.trim() ?? "";
      return other === "" ? null : { name: other, abbreviations: null };
    }
    const rows = (this.byCode.get(code) ?? []).filter((r) => r.localName !== "");
    if (rows.length === 0) return null;
    const jurisdiction = record.jurisdiction?.trim().toUpperCase() ?? "";
    const country = jurisdiction.slice(0, 2) || (record.country?.trim().toUpperCase() ?? "");
    const language = (record.language?.trim().toLowerCase() ?? "").split(/[-_]/)[0];
    const bySubdivision = rows.filter((r) => r.subdivision !== "" && r.subdivision === jurisdiction);
    const byCountry = rows.filter((r) => r.country === country);
    const place = bySubdivision.length > 0 ? bySubdivision : byCountry.length > 0 ? byCountry : rows;
    const row = place.find((r) => r.language === language) ?? place.find((r) => r.active) ?? place[0];
    return { name: row.localName, abbreviations: row.abbreviations.length > 0 ? row.abbreviations.join("; ") : null };
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Reads an ELF list; every fault is an ElfListError naming the file and, where it can, the line. */
export function readElfList(file: string): ElfList {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new ElfListError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseElfList(bytes, file);
}

export function parseElfList(bytes: Buffer, file: string): ElfList {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes).replace(/^\uFEFF/, "");
  if (text.includes("\uFFFD")) throw new ElfListError(`${file} is not UTF-8 text`);
  const records = parseCsv(text, file);
  if (records.length === 0) throw new ElfListError(`${file} is empty`);
  const header = records[0].fields.map((h) => h.trim());
  const missing = Object.values(COLUMNS).filter((c) => !header.includes(c));
  if (missing.length > 0)
    throw new ElfListError(`${file} is not an ELF code list: its header lacks ${missing.map((c) => `"${c}"`).join(", ")}`);
  const at = Object.fromEntries(Object.entries(COLUMNS).map(([k, c]) => [k, header.indexOf(c)])) as Record<keyof typeof COLUMNS, number>;
  const rows: ElfRow[] = [];
  for (const { line, fields } of records.slice(1)) {
    if (fields.length === 1 && fields[0] === "") continue;
    if (fields.length !== header.length)
      throw new ElfListError(`${file} line ${line}: ${fields.length} fields where the header has ${header.length}`);
    const get = (k: keyof typeof COLUMNS): string => fields[at[k]].trim();
    const code = get("code").toUpperCase();
    if (!/^[A-Z0-9]{4}$/.test(code))
      throw new ElfListError(`${file} line ${line}: "${get("code")}" is not an ELF code (4 letters or digits)`);
    const status = get("status").toUpperCase();
    if (status !== "ACTV" && status !== "INAC")
      throw new ElfListError(`${file} line ${line}: status "${get("status")}" is neither ACTV nor INAC`);
    rows.push({
      code,
      country: get("country").toUpperCase(),
      subdivision: get("subdivision").toUpperCase(),
      localName: get("localName"),
      language: get("language").toLowerCase(),
      transliteratedName: get("transliteratedName"),
      abbreviations: splitAbbreviations(get("localAbbreviations")),
      transliteratedAbbreviations: splitAbbreviations(get("transliteratedAbbreviations")),
      active: status === "ACTV",
    });
  }
  if (rows.length === 0) throw new ElfListError(`${file} has a header but no codes`);
  return new ElfList(rows, createHash("sha256").update(bytes).digest("hex"));
}

const splitAbbreviations = (s: string): string[] =>
  s
    .split(";")
    .map((a) => a.trim())
    .filter((a) => a !== "");

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks; LF or CRLF. */
function parseCsv(text: string, file: string): { line: number; fields: string[] }[] {
  const out: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let start = 1;
  let i = 0;
  const endRecord = (): void => {
    fields.push(field);
    out.push({ line: start, fields });
    fields = [];
    field = "";
  };
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"' && field === "") {
      const opened = line;
      i++;
      for (;;) {
        if (i >= text.length) throw new ElfListError(`${file} line ${opened}: a quoted field is never closed`);
        const c = text[i];
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === "\n") line++;
        field += c;
        i++;
      }
      const next = text[i];
      if (next !== undefined && next !== "," && next !== "\n" && next !== "\r")
        throw new ElfListError(`${file} line ${line}: text after a closing quote`);
      continue;
    }
    if (ch === ",") {
      fields.push(field);
      field = "";
    } else if (ch === "\n") {
      endRecord();
      line++;
      start = line;
    } else if (ch !== "\r") field += ch;
    i++;
  }
  if (field !== "" || fields.length > 0) endRecord();
  return out;
}
