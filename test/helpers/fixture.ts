// Test data: the real bundled sample plus synthetic rows for what the sample lacks, written as a
// golden-copy CSV (same 338-column header, every field quoted), a shuffled-columns variant with
// an extra unknown column, and a single-entry zip. Also an independent model of the field
// mapping (CSV row -> LegalEntity JSON), so tests compare the server against the data itself.

import type { LegalEntity } from "../../src/engine/schema.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 as zlibCrc32, deflateRawSync } from "node:zlib";
import { SAMPLE_CSV } from "./server.js";

// ---------------------------------------------------------------- CSV

/** RFC 4180 parser (quoted fields, doubled quotes, CRLF or LF, newlines inside quotes). */
export function parseCsv(text: string): string[][] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const rows: string[][] = [];
  let row: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let field: string;
    if (text.charCodeAt(i) === 34) {
      // quoted
      let j = i + 1;
      let parts = "";
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) throw new Error(`unterminated quote in row ${rows.length + 1}`);
        if (text.charCodeAt(q + 1) === 34) {
          parts += text.slice(j, q + 1);
          j = q + 2;
          continue;
        }
        field = parts + text.slice(j, q);
        i = q + 1;
        break;
      }
    } else {
      let j = i;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === 44 || c === 10 || c === 13) break;
        j++;
      }
      field = text.slice(i, j);
      i = j;
    }
    row.push(field);
    const c = text.charCodeAt(i);
    if (c === 44) {
      i++;
      if (i === n) row.push("");
      continue;
    }
    if (c === 13) i++;
    if (text.charCodeAt(i) === 10) i++;
    rows.push(row);
    row = [];
  }
  if (row.length > 0) rows.push(row);
  return rows;
}

export const quoteCsv = (v: string): string => `"${v.replaceAll('"', '""')}"`;
export const csvLine = (fields: string[]): string => fields.map(quoteCsv).join(",");

// ---------------------------------------------------------------- LEI check digits

/** ISO 7064 MOD 97-10 remainder of an alphanumeric string (A=10 ... Z=35). */
export function mod97(code: string): number {
  let r = 0;
  for (const ch of code) {
    const v = parseInt(ch, 36);
    r = v >= 10 ? (r * 100 + v) % 97 : (r * 10 + v) % 97;
  }
  return r;
}

export const leiValid = (lei: string): boolean => /^[0-9A-Z]{18}[0-9]{2}$/.test(lei) && mod97(lei) === 1;

/** The LEI with correct check digits for an 18-character prefix. */
export function withCheckDigits(prefix18: string): string {
  if (!/^[0-9A-Z]{18}$/.test(prefix18)) throw new Error(`bad LEI prefix ${prefix18}`);
  const check = 98 - mod97(prefix18 + "00");
  return prefix18 + String(check).padStart(2, "0");
}

/** Same prefix, check digits that fail MOD 97-10. */
export function withBadCheckDigits(prefix18: string): string {
  const good = withCheckDigits(prefix18);
  const bad = prefix18 + String((Number(good.slice(18)) + 1) % 100).padStart(2, "0");
  if (leiValid(bad)) throw new Error("unexpectedly valid");
  return bad;
}

// ---------------------------------------------------------------- the field mapping (independent model)

/** The API's LegalEntity: the type is shared, the expected values below are computed here. */
export type Entity = LegalEntity;

/** The Level 2 fields, from the relationship records rather than a Level 1 column. */
export const PARENT_KEYS = ["directParent", "ultimateParent"] as const;
type ParentKey = (typeof PARENT_KEYS)[number];
/** The legal form's name and abbreviations, from the ELF code list rather than a column. */
export const FORM_KEYS = ["legalFormName", "legalFormAbbreviations"] as const;
type FormKey = (typeof FORM_KEYS)[number];

/** The successor LEIs, joined from five columns (SUCCESSOR_COLUMNS) rather than one. */
export const SUCCESSOR_KEY = "successorLeis" as const;
type SuccessorKey = typeof SUCCESSOR_KEY;
export const SUCCESSOR_COLUMNS = [1, 2, 3, 4, 5].map((i) => `Entity.SuccessorEntity.${i}.SuccessorLEI`);

export const COLUMN_OF: Record<Exclude<keyof Entity, ParentKey | FormKey | SuccessorKey>, string> = {
  lei: "LEI",
  legalName: "Entity.LegalName",
  entityStatus: "Entity.EntityStatus",
  entityCategory: "Entity.EntityCategory",
  registrationStatus: "Registration.RegistrationStatus",
  legalForm: "Entity.LegalForm.EntityLegalFormCode",
  jurisdiction: "Entity.LegalJurisdiction",
  country: "Entity.LegalAddress.Country",
  region: "Entity.LegalAddress.Region",
  city: "Entity.LegalAddress.City",
  postalCode: "Entity.LegalAddress.PostalCode",
  legalAddress: "Entity.LegalAddress.FirstAddressLine",
  hqAddress: "Entity.HeadquartersAddress.FirstAddressLine",
  managingLou: "Registration.ManagingLOU",
  registeredAt: "Registration.InitialRegistrationDate",
  lastUpdatedAt: "Registration.LastUpdateDate",
  nextRenewalDate: "Registration.NextRenewalDate",
};
const LEVEL1_KEYS = Object.keys(COLUMN_OF) as Exclude<keyof Entity, ParentKey | FormKey | SuccessorKey>[];
export const ENTITY_KEYS = [...LEVEL1_KEYS, SUCCESSOR_KEY, ...FORM_KEYS, ...PARENT_KEYS] as (keyof Entity)[];

/** The columns the legal form's name is chosen by, besides those COLUMN_OF maps. */
const FORM_COLUMNS = ["Entity.LegalName.xmllang", "Entity.LegalForm.OtherLegalForm"];

export const ELF_CSV = new URL("../../data/elf/2026-02-19-elf-code-list-v1.6.csv", import.meta.url);

interface ElfModelRow {
  code: string;
  country: string;
  subdivision: string;
  name: string;
  language: string;
  abbreviations: string;
  active: boolean;
}
let elfCache: Map<string, ElfModelRow[]> | null = null;
/** The bundled ELF list's named rows by code, read here independently of the server. */
function elfRows(): Map<string, ElfModelRow[]> {
  if (elfCache) return elfCache;
  const [header, ...rows] = parseCsv(readFileSync(ELF_CSV, "utf8"));
  const c = (name: string): number => header.indexOf(name);
  elfCache = new Map();
  for (const r of rows) {
    if (r.length < header.length || r[c("Entity Legal Form name Local name")] === "") continue;
    const row: ElfModelRow = {
      code: r[c("ELF Code")],
      country: r[c("Country Code (ISO 3166-1)")],
      subdivision: r[c("Country sub-division code (ISO 3166-2)")],
      name: r[c("Entity Legal Form name Local name")].trim(),
      language: r[c("Language Code (ISO 639-1)")],
      abbreviations: r[c("Abbreviations Local language")]
        .split(";")
        .map((a) => a.trim())
        .filter(Boolean)
        .join("; "),
      active: r[c("ELF Status ACTV/INAC")] === "ACTV",
    };
    elfCache.set(row.code, [...(elfCache.get(row.code) ?? []), row]);
  }
  return elfCache;
}

/**
 * The legal form's name as docs/public-api.md says it is chosen: 8888 reads OtherLegalForm; else
 * the code's rows for the jurisdiction's subdivision, else its country, in the legal name's
 * language, else the first active row.
 */
export function legalFormModel(raw: Record<string, string>): Pick<Entity, FormKey> {
  const none = { legalFormName: null, legalFormAbbreviations: null };
  const code = raw["Entity.LegalForm.EntityLegalFormCode"] ?? "";
  if (code === "8888") return { legalFormName: raw["Entity.LegalForm.OtherLegalForm"]?.trim() || null, legalFormAbbreviations: null };
  const rows = elfRows().get(code) ?? [];
  if (rows.length === 0) return none;
  const jurisdiction = raw["Entity.LegalJurisdiction"] ?? "";
  const country = jurisdiction.slice(0, 2) || (raw["Entity.LegalAddress.Country"] ?? "");
  const language = (raw["Entity.LegalName.xmllang"] ?? "").toLowerCase().split("-")[0];
  const inSubdivision = rows.filter((r) => r.subdivision !== "" && r.subdivision === jurisdiction);
  const inCountry = rows.filter((r) => r.country === country);
  const place = inSubdivision.length ? inSubdivision : inCountry.length ? inCountry : rows;
  const row = place.find((r) => r.language === language) ?? place.find((r) => r.active) ?? place[0];
  return { legalFormName: row.name, legalFormAbbreviations: row.abbreviations || null };
}

/** Each entity's parents as the model sees them: by LEI, the direct and ultimate parent's LEI. */
export type ParentModel = Map<string, { directParent: string | null; ultimateParent: string | null }>;

/**
 * Parents from an RR CSV, read here independently of the server: for each start node, the end
 * node of its relationship of that type whose status is not INACTIVE (the smallest end LEI when
 * there are several).
 */
export function parentsFromRr(csvText: string): ParentModel {
  const [header, ...rows] = parseCsv(csvText);
  const col = (name: string): number => header.indexOf(name);
  const [start, end, type, status] = [
    col("Relationship.StartNode.NodeID"),
    col("Relationship.EndNode.NodeID"),
    col("Relationship.RelationshipType"),
    col("Relationship.RelationshipStatus"),
  ];
  const out: ParentModel = new Map();
  for (const r of rows) {
    if (r[status] === "INACTIVE") continue;
    const key =
      r[type] === "IS_DIRECTLY_CONSOLIDATED_BY" ? "directParent" : r[type] === "IS_ULTIMATELY_CONSOLIDATED_BY" ? "ultimateParent" : null;
    if (!key) continue;
    const entry = out.get(r[start]) ?? { directParent: null, ultimateParent: null };
    if (entry[key] === null || r[end] < entry[key]!) entry[key] = r[end];
    out.set(r[start], entry);
  }
  return out;
}

let sampleParentsCache: ParentModel | null = null;
/** The parents the bundled sample's Level 2 rows give (data/sample/level2/rr.csv). */
export function sampleParents(): ParentModel {
  sampleParentsCache ??= parentsFromRr(readFileSync(new URL("../../data/sample/level2/rr.csv", import.meta.url), "utf8"));
  return sampleParentsCache;
}

export interface ModelRecord {
  entity: Entity;
  /** other and transliterated names */
  otherNames: string[];
  /** the raw CSV values of the mapped and name columns, by column name */
  raw: Record<string, string>;
}

const OTHER_NAME_RE = /^Entity\.(OtherEntityNames\.OtherEntityName|TransliteratedOtherEntityNames\.TransliteratedOtherEntityName)\.\d+$/;
const MAPPED = new Set(Object.values(COLUMN_OF));

/** A golden-copy row as the model expects it served; its parents from `parents` (none: loaded without Level 2). */
export function mapRow(header: string[], row: string[], parents: ParentModel = new Map()): ModelRecord {
  // raw keeps the mapped and name columns only (all 338 for 6,000 rows is needlessly slow)
  const raw: Record<string, string> = {};
  header.forEach((h, i) => {
    if (MAPPED.has(h) || OTHER_NAME_RE.test(h) || FORM_COLUMNS.includes(h) || SUCCESSOR_COLUMNS.includes(h)) raw[h] = row[i] ?? "";
  });
  const entity = {} as Entity;
  for (const k of LEVEL1_KEYS) {
    const v = raw[COLUMN_OF[k]] ?? "";
    (entity as any)[k] = v === "" ? null : v;
    // in the API's order: the form's name and abbreviations follow its code
    if (k === "legalForm") Object.assign(entity, legalFormModel(raw));
    // the successors' LEIs follow the renewal date, joined as legalFormAbbreviations are
    if (k === "nextRenewalDate") {
      const successors = SUCCESSOR_COLUMNS.map((c) => raw[c] ?? "").filter((v) => v !== "");
      entity[SUCCESSOR_KEY] = successors.length > 0 ? successors.join("; ") : null;
    }
  }
  const family = parents.get(entity.lei);
  entity.directParent = family?.directParent ?? null;
  entity.ultimateParent = family?.ultimateParent ?? null;
  if (entity.entityStatus === "NULL") entity.entityStatus = null;
  if (entity.hqAddress !== null && entity.hqAddress === entity.legalAddress) entity.hqAddress = null;
  const otherNames: string[] = [];
  for (const h of header) {
    if (OTHER_NAME_RE.test(h) && raw[h]) {
      otherNames.push(raw[h]);
    }
  }
  return { entity, otherNames, raw };
}

// ---------------------------------------------------------------- the real sample

export interface Sample {
  header: string[];
  rows: string[][];
  text: string;
}

let sampleCache: Sample | null = null;
export function readSample(): Sample {
  if (!sampleCache) {
    const text = readFileSync(SAMPLE_CSV, "utf8");
    const [header, ...rows] = parseCsv(text);
    sampleCache = { header, rows, text };
  }
  return sampleCache;
}

/** A minimal active, issued German entity row in the layout of `header` (the sample's, by default). */
export function entityRow(lei: string, name: string, header: string[] = readSample().header): string[] {
  const v: Record<string, string> = {
    LEI: lei,
    "Entity.LegalName": name,
    "Entity.EntityStatus": "ACTIVE",
    "Entity.EntityCategory": "GENERAL",
    "Registration.RegistrationStatus": "ISSUED",
    "Entity.LegalAddress.Country": "DE",
  };
  return header.map((h) => v[h] ?? "");
}

/** The bundled sample as `--source sample` serves it: with its Level 2 rows' parents. */
export function sampleModel(): ModelRecord[] {
  const { header, rows } = readSample();
  const parents = sampleParents();
  return rows.map((r) => mapRow(header, r, parents));
}

// ---------------------------------------------------------------- synthetic rows

/** The LOU every synthetic row names: a valid LEI not in the sample. Filter on it to isolate them. */
export const SYNTH_LOU = withCheckDigits("LEIDEXT0STL0U00000");
const synthLei = (n: number): string => withCheckDigits(`LEIDEXT0ST${String(n).padStart(8, "0")}`);

/** An LEI with failing check digits that is in the fixture data. */
export const BAD_CHECK_LEI = withBadCheckDigits("LEIDEXT0ST99999999");

export const REGISTRATION_STATUSES = [
  "ISSUED",
  "LAPSED",
  "RETIRED",
  "DUPLICATE",
  "ANNULLED",
  "PENDING_TRANSFER",
  "PENDING_ARCHIVAL",
  "MERGED",
] as const;

type SynthSpec = Partial<Record<string, string>> & { "Entity.LegalName": string };

function base(n: number, over: SynthSpec): Record<string, string> {
  return {
    LEI: synthLei(n),
    "Entity.EntityStatus": "ACTIVE",
    "Entity.EntityCategory": "GENERAL",
    "Registration.RegistrationStatus": "ISSUED",
    "Entity.LegalForm.EntityLegalFormCode": "8888",
    "Entity.LegalJurisdiction": "NL",
    "Entity.LegalAddress.Country": "NL",
    "Entity.LegalAddress.City": "Amsterdam",
    "Entity.LegalAddress.PostalCode": `10${String(n).padStart(2, "0")} AB`,
    "Entity.LegalAddress.FirstAddressLine": `Keizersgracht ${100 + n}`,
    "Entity.HeadquartersAddress.FirstAddressLine": "",
    "Registration.ManagingLOU": SYNTH_LOU,
    "Registration.InitialRegistrationDate": `2019-0${1 + (n % 9)}-1${n % 10}T09:00:00+01:00`,
    "Registration.LastUpdateDate": `2024-0${1 + (n % 9)}-2${n % 10}T10:30:00Z`,
    "Registration.NextRenewalDate": `2025-0${1 + (n % 9)}-2${n % 10}T10:30:00Z`,
    ...over,
  } as Record<string, string>;
}

/** Made-up but realistic names; each distinctive so a search finds exactly that row. */
const STATUS_NAMES: Record<string, string> = {
  ISSUED: "Vorlandia Kraftwerk Gesellschaft mbH",
  LAPSED: "Quellmoor Logistik AG",
  RETIRED: "Brantwick Shipping Limited",
  DUPLICATE: "Ostravelle Holding B.V.",
  ANNULLED: "Dravenhall Capital Partners LLP",
  PENDING_TRANSFER: "Kestrelmoor Verzekeringen N.V.",
  PENDING_ARCHIVAL: "Fenwaldt Maschinenbau GmbH",
  MERGED: "Hollowmere Trust Company",
};

export function syntheticRows(): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  REGISTRATION_STATUSES.forEach((status, i) => {
    rows.push(
      base(i + 1, {
        "Entity.LegalName": STATUS_NAMES[status],
        "Registration.RegistrationStatus": status,
        // an entity may be ACTIVE while its registration is LAPSED; RETIRED/MERGED/ANNULLED ones are INACTIVE
        "Entity.EntityStatus": ["RETIRED", "MERGED", "ANNULLED"].includes(status) ? "INACTIVE" : "ACTIVE",
        // the ISSUED one: HQ line differs from the legal line, region set, DE jurisdiction
        ...(status === "ISSUED"
          ? {
              "Entity.LegalJurisdiction": "DE",
              "Entity.LegalAddress.Country": "DE",
              "Entity.LegalAddress.Region": "DE-BY",
              "Entity.LegalAddress.City": "München",
              "Entity.LegalAddress.PostalCode": "80331",
              "Entity.LegalAddress.FirstAddressLine": "Marienplatz 1",
              "Entity.HeadquartersAddress.FirstAddressLine": "Leopoldstraße 99",
              "Entity.LegalForm.EntityLegalFormCode": "2HBR",
            }
          : {}),
      }),
    );
  });
  rows.push(
    base(20, {
      "Entity.LegalName": "Corvanta Bank Luxembourg Branch",
      "Entity.EntityCategory": "BRANCH",
      "Entity.LegalJurisdiction": "LU",
      "Entity.LegalAddress.Country": "LU",
      "Entity.LegalAddress.City": "Luxembourg",
      "Entity.LegalAddress.PostalCode": "L-1855",
      "Entity.LegalAddress.FirstAddressLine": "46A Avenue John F. Kennedy",
    }),
  );
  rows.push(
    base(21, {
      "Entity.LegalName": "International Zeltrane Commodities Organization",
      "Entity.EntityCategory": "INTERNATIONAL_ORGANIZATION",
      "Entity.LegalJurisdiction": "CH",
      "Entity.LegalAddress.Country": "CH",
      "Entity.LegalAddress.Region": "CH-GE",
      "Entity.LegalAddress.City": "Genève",
      "Entity.LegalAddress.PostalCode": "1211",
      "Entity.LegalAddress.FirstAddressLine": "Rue de Lausanne 154",
      "Entity.LegalForm.EntityLegalFormCode": "",
    }),
  );
  rows.push(
    base(22, {
      "Entity.LegalName": "Nullstatus Verwaltungs KG",
      "Entity.EntityStatus": "NULL",
    }),
  );
  rows.push({
    ...base(23, { "Entity.LegalName": "Checkdigit Misfit Holdings Ltd" }),
    LEI: BAD_CHECK_LEI,
  });
  rows.push(
    base(24, {
      "Entity.LegalName": "Samehouse Properties S.A.",
      "Entity.LegalAddress.FirstAddressLine": "Rue du Marché 7",
      "Entity.HeadquartersAddress.FirstAddressLine": "Rue du Marché 7",
      "Entity.LegalJurisdiction": "BE",
      "Entity.LegalAddress.Country": "BE",
      "Entity.LegalAddress.City": "Bruxelles",
    }),
  );
  rows.push(
    base(25, {
      "Entity.LegalName": "Общество с ограниченной ответственностью «Снежнария»",
      "Entity.LegalName.xmllang": "ru",
      "Entity.OtherEntityNames.OtherEntityName.1": "Snowlandia Trading LLC",
      "Entity.OtherEntityNames.OtherEntityName.1.xmllang": "en",
      "Entity.OtherEntityNames.OtherEntityName.1.type": "ALTERNATIVE_LANGUAGE_LEGAL_NAME",
      "Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName.1": "Obshchestvo s ogranichennoy otvetstvennostyu Snezhnariya",
      "Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName.1.xmllang": "ru-Latn",
      "Entity.TransliteratedOtherEntityNames.TransliteratedOtherEntityName.1.type": "PREFERRED_ASCII_TRANSLITERATED_LEGAL_NAME",
      "Entity.LegalJurisdiction": "RU",
      "Entity.LegalAddress.Country": "RU",
      "Entity.LegalAddress.Region": "RU-MOW",
      "Entity.LegalAddress.City": "Москва",
      "Entity.LegalAddress.PostalCode": "125009",
      "Entity.LegalAddress.FirstAddressLine": "ул. Тверская, д. 7",
    }),
  );
  rows.push(
    base(26, {
      "Entity.LegalName": 'Qwerty "Quoted", Comma & Sons Ltd',
      "Entity.LegalAddress.FirstAddressLine": 'Unit 5, "The Old Mill"\nSecond line after a newline',
      "Entity.LegalJurisdiction": "CH",
      "Entity.LegalAddress.Country": "CH",
      "Entity.LegalAddress.City": "Zürich",
    }),
  );
  rows.push(
    base(27, {
      "Entity.LegalName": "Zurichsee Lakeside Verwaltung AG",
      "Entity.LegalJurisdiction": "CH",
      "Entity.LegalAddress.Country": "CH",
      "Entity.LegalAddress.City": "ZURICH",
    }),
  );
  rows.push(
    base(28, {
      "Entity.LegalName": "Delaware Sandbar Ventures LLC",
      "Entity.LegalJurisdiction": "US-DE",
      "Entity.LegalAddress.Country": "US",
      "Entity.LegalAddress.Region": "US-DE",
      "Entity.LegalAddress.City": "Wilmington",
      "Entity.LegalAddress.PostalCode": "19801",
      "Entity.LegalAddress.FirstAddressLine": "1209 Orange Street",
    }),
  );
  rows.push(
    base(29, {
      "Entity.LegalName": "Fundalia Global Equity Fund",
      "Entity.EntityCategory": "FUND",
      "Entity.EntityStatus": "INACTIVE",
      "Registration.RegistrationStatus": "LAPSED",
    }),
  );
  return rows;
}

// ---------------------------------------------------------------- writing

export interface Fixture {
  dir: string;
  /** sample header + sample rows + synthetic rows */
  csv: string;
  /** same data, columns shuffled (LegalName first), an extra unknown column, BOM and CRLF */
  shuffledCsv: string;
  /** the CSV as the single entry of a zip, named like a real golden copy */
  zip: string;
  /** the published timestamp the zip's name implies */
  zipPublished: string;
  header: string[];
  model: ModelRecord[];
  synthetic: ModelRecord[];
  byLei: Map<string, ModelRecord>;
}

export const EXTRA_COLUMN = "Leidex.Test.UnknownColumn";

export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(items: T[], rnd: () => number): T[] {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export function writeFixture(dir: string): Fixture {
  const { header, rows, text } = readSample();
  const synth = syntheticRows();
  for (const s of synth) for (const k of Object.keys(s)) if (!header.includes(k)) throw new Error(`unknown column ${k}`);
  const synthRows = synth.map((s) => header.map((h) => s[h] ?? ""));

  const csvText = (text.endsWith("\n") ? text : text + "\n") + synthRows.map(csvLine).join("\n") + "\n";
  const csv = join(dir, "fixture.csv");
  writeFileSync(csv, csvText);

  // shuffled: Entity.LegalName first (so a BOM not stripped would break a required column), rest shuffled
  const rnd = seededRandom(17442);
  const rest = shuffle(
    header.map((_, i) => i).filter((i) => header[i] !== "Entity.LegalName"),
    rnd,
  );
  const order = [header.indexOf("Entity.LegalName"), ...rest];
  const extraAt = 5;
  const shuffledLine = (fields: string[], extra: string): string => {
    const out = order.map((i) => fields[i] ?? "");
    out.splice(extraAt, 0, extra);
    return csvLine(out);
  };
  const allRows = [...rows, ...synthRows];
  const shuffledText =
    "\uFEFF" +
    [shuffledLine(header, EXTRA_COLUMN), ...allRows.map((r, i) => shuffledLine(r, i % 3 === 0 ? `junk, "${i}"` : ""))].join("\r\n") +
    "\r\n";
  const shuffledCsv = join(dir, "shuffled.csv");
  writeFileSync(shuffledCsv, shuffledText);

  const zipName = "20240505-0800-gleif-goldencopy-lei2-golden-copy.csv";
  const zip = join(dir, `${zipName}.zip`);
  writeFileSync(zip, zipSingle(zipName, Buffer.from(csvText, "utf8")));

  const model = allRows.map((r) => mapRow(header, r));
  const synthetic = model.slice(rows.length);
  const byLei = new Map(model.map((m) => [m.entity.lei, m]));
  if (byLei.size !== model.length) throw new Error("fixture LEIs are not unique");
  return { dir, csv, shuffledCsv, zip, zipPublished: "2024-05-05T08:00:00Z", header, model, synthetic, byLei };
}

// ---------------------------------------------------------------- zip (single deflated entry)

function crc32(buf: Buffer): number {
  if (typeof zlibCrc32 === "function") return zlibCrc32(buf) >>> 0;
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/**
 * A PKZIP archive holding one deflated file (no ZIP64: fine for a few MB). Level 0 makes the
 * deflate stream stored blocks, so the file's bytes appear verbatim in the zip.
 */
export function zipSingle(name: string, data: Buffer, level = 6): Buffer {
  const nameBytes = Buffer.from(name, "utf8");
  const compressed = deflateRawSync(data, { level });
  const crc = crc32(data);
  const dosTime = (8 << 11) | (0 << 5); // 08:00:00
  const dosDate = ((2024 - 1980) << 9) | (5 << 5) | 5; // 2024-05-05

  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(0x0800, 6); // flags: UTF-8 name
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt16LE(dosTime, 10);
  local.writeUInt16LE(dosDate, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(compressed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  local.writeUInt16LE(0, 28);

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4); // version made by
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0x0800, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt16LE(dosTime, 12);
  central.writeUInt16LE(dosDate, 14);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(compressed.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt16LE(0, 30); // extra
  central.writeUInt16LE(0, 32); // comment
  central.writeUInt16LE(0, 34); // disk
  central.writeUInt16LE(0, 36); // internal attrs
  central.writeUInt32LE(0, 38); // external attrs
  central.writeUInt32LE(0, 42); // local header offset

  const centralOffset = local.length + nameBytes.length + compressed.length;
  const centralSize = central.length + nameBytes.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0, 4);
  end.writeUInt16LE(0, 6);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralOffset, 16);
  end.writeUInt16LE(0, 20);
  return Buffer.concat([local, nameBytes, compressed, central, nameBytes, end]);
}

// ---------------------------------------------------------------- model queries

/** Folding used by tests to reason about cities: case and diacritics ignored. */
export const foldCity = (s: string): string => s.normalize("NFKD").replace(/\p{M}/gu, "").toUpperCase().trim();

export function countBy(model: ModelRecord[], key: keyof Entity): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of model) {
    const v = r.entity[key];
    if (v === null) continue;
    m.set(v, (m.get(v) ?? 0) + 1);
  }
  return m;
}

/** The value most of `values` have (the first of them on a tie). */
export function mostCommon(values: readonly string[]): string {
  return [...values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>())].sort((a, b) => b[1] - a[1])[0][0];
}

/** The columns of other names and transliterations under `header`: tests empty them, so that a doc's name words are its legal name's alone. */
export function otherNameColumns(header: readonly string[]): number[] {
  return header.flatMap((h, i) => (/^Entity\.(Transliterated)?OtherEntityNames\..*\d$/.test(h) ? [i] : []));
}
