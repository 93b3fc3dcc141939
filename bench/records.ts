// Synthetic LEI records. Record i is a pure function of (seed, i): every record has
// its own PRNG stream, so a query set, a PostgreSQL load or a spot check can rebuild
// any record without replaying the records before it, and a 3.4 M-row file never
// needs more than one record in memory.

import { isValidLei, leiCheckDigits } from "./lei.js";
import {
  ACTIVITY_EN_FUND,
  CARE_OF,
  CATEGORY_COUNTRY_BOOST,
  COUNTRIES,
  EVENT_TYPES,
  FUND_UMBRELLAS,
  GOVERNMENT_PATTERNS,
  INTERNATIONAL_ORGS,
  LOUS,
  SUBCATEGORIES,
  VALIDATION_DOCUMENTS,
  type City,
  type Country,
  type LangPack,
  type LegalForm,
  type Word,
} from "./pools.js";
import { Rng, Weighted, hash32 } from "./prng.js";

export interface OtherName {
  readonly name: string;
  readonly lang: string;
  readonly type: string;
}

export interface Address {
  readonly lang: string;
  readonly type: string; // only for OtherAddress / TransliteratedOtherAddress
  readonly firstLine: string;
  readonly additional1: string;
  readonly additional2: string;
  readonly city: string;
  readonly region: string;
  readonly country: string;
  readonly postalCode: string;
}

export interface LegalEntityEvent {
  readonly type: string;
  readonly status: string;
  readonly effective: string;
  readonly recorded: string;
  readonly documents: string;
  readonly reference: string;
}

export interface EntityRecord {
  readonly index: number;
  readonly lei: string;
  readonly legalName: string;
  readonly legalNameLang: string;
  /** The distinctive part of the legal name, without the legal form (not a CSV column). */
  readonly nameCore: string;
  readonly otherNames: readonly OtherName[];
  readonly transliteratedNames: readonly OtherName[];
  readonly legalAddress: Address;
  readonly hqAddress: Address;
  readonly otherAddresses: readonly Address[];
  readonly transliteratedAddresses: readonly Address[];
  readonly raId: string;
  readonly raOtherId: string;
  readonly raEntityId: string;
  readonly jurisdiction: string;
  readonly category: string;
  readonly subCategory: string;
  readonly elfCode: string;
  readonly otherLegalForm: string;
  readonly entityStatus: string;
  readonly creationDate: string;
  readonly successorLei: string;
  readonly successorName: string;
  readonly events: readonly LegalEntityEvent[];
  readonly initialRegistrationDate: string;
  readonly lastUpdateDate: string;
  readonly registrationStatus: string;
  readonly nextRenewalDate: string;
  readonly managingLou: string;
  readonly validationSources: string;
  readonly validationAuthorityId: string;
  readonly validationAuthorityEntityId: string;
  readonly otherValidationAuthorityIds: readonly string[];
  readonly conformityFlag: string;
}

/** The identity part of a record (see RecordFactory.identityAt). */
export interface EntityIdentity {
  readonly lei: string;
  readonly category: string;
  readonly country: string;
  /** The country's UTC offset for local-time dates, e.g. '+02:00'. */
  readonly offset: string;
  /** The LEI of the LOU that issued the record. */
  readonly louLei: string;
  readonly dateStyle: DateStyle;
}

// Distinct PRNG streams, so that adding draws to one part never shifts another.
const STREAM_LEI = 1;
const STREAM_RECORD = 2;
const STREAM_FAMILY = 3;
const STREAM_LOU = 4;

/** Publication instant of the synthetic file: dates are drawn relative to it. */
export const PUBLISHED_MS = Date.UTC(2026, 8, 30, 8, 0, 0);
const FIRST_LEI_MS = Date.UTC(2012, 5, 1);
const YEAR_MS = 365.25 * 86400_000;

/** The index-encoding part of an LEI is 7 base-36 digits: at most 36^7 records, and i*A must stay exact. */
export const MAX_RECORDS = 8_000_000;
const PERM_MOD = 36 ** 7;
const PERM_MUL = 1_000_000_007; // odd and not a multiple of 3, so coprime with 36^7: a bijection

const CATEGORY = new Weighted<string>([
  ["GENERAL", 88.76],
  ["FUND", 7.26],
  ["SOLE_PROPRIETOR", 3.71],
  ["RESIDENT_GOVERNMENT_ENTITY", 0.203],
  ["BRANCH", 0.056],
  ["INTERNATIONAL_ORGANIZATION", 0.0025],
]);

const REGISTRATION_STATUS = new Weighted<string>([
  ["ISSUED", 57.43],
  ["LAPSED", 34.94],
  ["RETIRED", 7.36],
  ["DUPLICATE", 0.19],
  ["ANNULLED", 0.05],
  ["PENDING_TRANSFER", 0.02],
  ["PENDING_ARCHIVAL", 0.01],
]);

const VALIDATION_SOURCES = new Weighted<string>([
  ["FULLY_CORROBORATED", 85],
  ["ENTITY_SUPPLIED_ONLY", 7.5],
  ["PARTIALLY_CORROBORATED", 7],
  ["PENDING", 0.5],
]);

const CONFORMITY = new Weighted<string>([
  ["CONFORMING", 72],
  ["NON_CONFORMING", 26],
  ["NOT_APPLICABLE", 0.5],
  ["", 1.5],
]);

export type DateStyle = "msZ" | "offset" | "Z" | "msOffset";
const DATE_STYLE = new Weighted<DateStyle>([
  ["msZ", 38],
  ["offset", 48],
  ["Z", 10],
  ["msOffset", 4],
]);

const BASE36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
// Where the 7 index digits (x) and the 5 random characters (r) sit in the 12-char entity part.
const INTERLEAVE = "rxxrxxrxrxxr";

interface Lou {
  readonly prefix: string;
  readonly lei: string;
  readonly useZeros: boolean;
  readonly dateStyle: DateStyle;
}

interface NameParts {
  native: string;
  latin: string;
  english: string;
}

interface Skeleton {
  readonly lei: string;
  readonly issuer: Lou;
  readonly category: string;
  readonly country: Country;
  readonly family: Family | null;
}

interface Family {
  readonly id: number;
  readonly kind: "group" | "spv" | "series" | "umbrella" | "account";
  readonly home: Country;
  readonly brand: Word;
  readonly brand2: Word | null;
  readonly activity: Word;
}

function isNonLatin(text: string): boolean {
  // Anything beyond Latin Extended-B, General Punctuation and full-width forms counts as another script.
  return /[\u0370-\u1FFF\u2E80-\uFE4F\uFF66-\uFFEF]/.test(text);
}

/** Fold Latin diacritics to ASCII, as the golden copy's AUTO_ASCII transliterations do. */
export function foldAscii(text: string): string {
  if (ASCII.test(text)) return text;
  return text
    .replace(/[ßøØłŁđĐæÆœŒıİþÞ]/g, (ch) => FOLD_SPECIAL[ch] ?? ch)
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "");
}

const ASCII = /^[\x00-\x7f]*$/;

const FOLD_SPECIAL: Record<string, string> = {
  ß: "ss",
  ø: "o",
  Ø: "O",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
  æ: "ae",
  Æ: "AE",
  œ: "oe",
  Œ: "OE",
  ı: "i",
  İ: "I",
  þ: "th",
  Þ: "TH",
};

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}

function word(native: string, latin?: string, english?: string): Word {
  return { native, latin: latin ?? native, english: english ?? latin ?? native };
}

function roman(n: number): string {
  const table: ReadonlyArray<readonly [number, string]> = [
    [10, "X"],
    [9, "IX"],
    [5, "V"],
    [4, "IV"],
    [1, "I"],
  ];
  let out = "";
  for (const [v, s] of table)
    while (n >= v) {
      out += s;
      n -= v;
    }
  return out;
}

function pattern(rng: Rng, spec: string): string {
  let out = "";
  for (let i = 0; i < spec.length; i++) {
    const ch = spec[i]!;
    if (ch === "#") out += String.fromCharCode(48 + rng.int(10));
    else if (ch === "@") out += String.fromCharCode(65 + rng.int(26));
    else out += ch;
  }
  return out;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function offsetMinutes(offset: string): number {
  const sign = offset[0] === "-" ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
}

/** Golden-copy timestamp formats: `…000Z`, `…+02:00`, `…Z` and `….554+02:00`. */
export function formatDate(ms: number, style: DateStyle, offset: string): string {
  const local = style === "offset" || style === "msOffset";
  const shifted = local ? ms + offsetMinutes(offset) * 60_000 : ms;
  const d = new Date(shifted);
  const base = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
  const millis = String(d.getUTCMilliseconds()).padStart(3, "0");
  switch (style) {
    case "msZ":
      return `${base}.${millis}Z`;
    case "Z":
      return `${base}Z`;
    case "offset":
      return `${base}${offset}`;
    case "msOffset":
      return `${base}.${millis}${offset}`;
  }
}

export class RecordFactory {
  readonly seed: number;
  readonly total: number;
  private readonly lous: Lou[];
  private readonly louByPrefix = new Map<string, Lou>();
  private readonly louPick: Weighted<Lou>;
  private readonly countryByCategory = new Map<string, Weighted<Country>>();
  private readonly countryByCode = new Map<string, Country>();
  private readonly companyFamilies: number;
  private readonly fundFamilies: number;
  private readonly permOffset: number;

  constructor(seed: number, total: number) {
    if (!Number.isInteger(total) || total < 1 || total > MAX_RECORDS) {
      throw new Error(`records must be an integer in [1, ${MAX_RECORDS}], got ${total}`);
    }
    this.seed = seed >>> 0;
    this.total = total;
    this.lous = LOUS.map((l, k) => {
      const rng = Rng.at(this.seed, STREAM_LOU, k);
      let lei = l.lei;
      if (lei !== null && !isValidLei(lei)) throw new Error(`LOU LEI fails ISO 17442: ${lei}`);
      if (lei === null) {
        let body = l.prefix + "00";
        while (body.length < 18) body += BASE36[rng.int(36)];
        lei = body + leiCheckDigits(body);
      }
      const lou: Lou = { prefix: l.prefix, lei, useZeros: hash32(l.prefix) % 10 !== 0, dateStyle: DATE_STYLE.pick(rng) };
      this.louByPrefix.set(l.prefix, lou);
      return lou;
    });
    this.louPick = new Weighted(this.lous.map((l, k) => [l, LOUS[k]!.weight] as const));
    for (const country of COUNTRIES) this.countryByCode.set(country.code, country);
    for (const category of ["GENERAL", "FUND", "SOLE_PROPRIETOR", "RESIDENT_GOVERNMENT_ENTITY", "BRANCH", "INTERNATIONAL_ORGANIZATION"]) {
      const boost = CATEGORY_COUNTRY_BOOST[category] ?? {};
      this.countryByCategory.set(category, new Weighted(COUNTRIES.map((c) => [c, c.weight * (boost[c.code] ?? 1)] as const)));
    }
    // About six members per family on average, so a name search meets several
    // records sharing its words, as in the real file.
    this.companyFamilies = Math.max(20, Math.floor((total * 0.3) / 6));
    this.fundFamilies = Math.max(10, Math.floor((total * 0.073 * 0.7) / 8));
    this.permOffset = Rng.at(this.seed, STREAM_LEI, -1).int(PERM_MOD);
  }

  /** The LEI of record i, without building the rest of the record. */
  leiAt(index: number): string {
    return this.skeleton(index).lei;
  }

  /**
   * Who record i is (LEI, category, country, issuing LOU and its date style), without building
   * the rest of the record: what the Level 2 generator needs for each of millions of records.
   * Indexes at or above `total` give valid LEIs that no record of this corpus has.
   */
  identityAt(index: number): EntityIdentity {
    const s = this.skeleton(index);
    return {
      lei: s.lei,
      category: s.category,
      country: s.country.code,
      offset: s.country.offset,
      louLei: s.issuer.lei,
      dateStyle: s.issuer.dateStyle,
    };
  }

  /**
   * The draws that decide who the entity is (category, country, family, issuing
   * LOU, LEI) come from their own stream, so leiAt stays cheap and the LOU can
   * follow the country as it does upstream.
   */
  private skeleton(index: number): Skeleton {
    const rng = Rng.at(this.seed, STREAM_LEI, index);
    const category = CATEGORY.pick(rng);
    let country = this.countryByCategory.get(category)!.pick(rng);
    let family: Family | null = null;
    if ((category === "GENERAL" && rng.chance(0.3)) || (category === "FUND" && rng.chance(0.7))) {
      family = this.family(category === "FUND", rng);
      if (rng.chance(0.75)) country = family.home;
    }
    const local = rng.chance(0.85) ? this.louByPrefix.get(rng.pick(country.lous)) : undefined;
    const issuer = local ?? this.louPick.pick(rng);
    // The 7 index digits make every LEI unique; the random characters hide the sequence.
    let x = (index * PERM_MUL + this.permOffset) % PERM_MOD;
    const digits: string[] = [];
    for (let k = 0; k < 7; k++) {
      digits.push(BASE36[x % 36]!);
      x = Math.floor(x / 36);
    }
    let entity = "";
    let d = 0;
    for (let k = 0; k < 12; k++) {
      entity += INTERLEAVE[k] === "x" ? digits[d++] : BASE36[rng.int(36)];
    }
    const reserved = issuer.useZeros ? "00" : BASE36[rng.int(36)]! + BASE36[rng.int(36)]!;
    const body = issuer.prefix + reserved + entity;
    return { lei: body + leiCheckDigits(body), issuer, category, country, family };
  }

  recordAt(index: number): EntityRecord {
    return this.build(index, true);
  }

  private build(index: number, withSuccessor: boolean): EntityRecord {
    const { lei, issuer, category, country, family } = this.skeleton(index);
    const rng = Rng.at(this.seed, STREAM_RECORD, index);
    // Cross-border members of a group keep the brand in its Latin form.
    const english =
      country.lang.script === "latin"
        ? country.english >= 1
        : rng.chance(country.english) || (family !== null && family.home !== country && family.home.lang.script !== country.lang.script);
    const lang = english && country.lang.script !== "latin" ? ENGLISH_ONLY : country.lang;

    const forms = category === "FUND" && country.fundForms.length > 0 ? country.fundForms : country.forms;
    const form = pickForm(rng, forms, category);
    const name = this.name(rng, category, country, lang, form, family);

    let legalName = name.full.native;
    let core = name.core.native;
    const upper = rng.chance(country.upper);
    if (upper) {
      legalName = legalName.toUpperCase();
      core = core.toUpperCase();
    } else if (rng.chance(0.004)) {
      legalName = legalName.toLowerCase();
      core = core.toLowerCase();
    }
    if (rng.chance(0.003)) legalName = `"${legalName}"`;
    const latinName = upper ? name.full.latin.toUpperCase() : name.full.latin;
    const nameLang = this.langTag(rng, lang, english);

    // Statuses: entity status follows the registration status the way it does upstream.
    const registrationStatus = REGISTRATION_STATUS.pick(rng);
    let entityStatus = entityStatusFor(rng, registrationStatus);
    if (rng.chance(0.0026)) entityStatus = "NULL";

    // Places.
    const jurisdictionCity = pickCity(rng, country);
    let jurisdiction = country.code;
    if (country.subdivisionJurisdiction) {
      const r = rng.float();
      jurisdiction = r < 0.1 ? country.code : country.code === "US" && r < 0.5 ? "US-DE" : jurisdictionCity.region;
    } else if (rng.chance(0.00001)) {
      jurisdiction = "";
    }
    const nativeAddress = country.lang.script !== "latin" && !english && rng.chance(0.45);
    const legal = this.address(
      rng,
      country,
      jurisdiction === "US-DE" ? pickUsDelawareCity(rng, country) : jurisdictionCity,
      nativeAddress,
      jurisdiction === "US-DE" || country.code in CARE_OF,
    );
    let hq = legal.address;
    let hqLatin = legal.latin;
    if (rng.chance(0.25)) {
      const offshore = ["KY", "VG", "BM", "LU", "IE"].includes(country.code) || jurisdiction === "US-DE";
      const hqCountry =
        offshore && rng.chance(0.6) ? this.countryByCode.get(rng.pick(["US", "GB", "CH", "HK", "DE", "FR", "SG"]))! : country;
      const other = this.address(rng, hqCountry, pickCity(rng, hqCountry), nativeAddress && hqCountry === country, false);
      hq = other.address;
      hqLatin = other.latin;
    }
    const otherAddresses: Address[] = [];
    const transliteratedAddresses: Address[] = [];
    if (nativeAddress && rng.chance(0.5)) {
      transliteratedAddresses.push({
        ...legal.latin,
        lang: "en",
        type: rng.chance(0.7) ? "AUTO_ASCII_TRANSLITERATED_LEGAL_ADDRESS" : "PREFERRED_ASCII_TRANSLITERATED_LEGAL_ADDRESS",
      });
      if (hq !== legal.address)
        transliteratedAddresses.push({ ...hqLatin, lang: "en", type: "AUTO_ASCII_TRANSLITERATED_HEADQUARTERS_ADDRESS" });
    } else if (!nativeAddress && country.lang.script !== "latin" && rng.chance(0.08)) {
      const alt = this.address(rng, country, jurisdictionCity, true, false);
      otherAddresses.push({
        ...alt.address,
        type: rng.chance(0.8) ? "ALTERNATIVE_LANGUAGE_HEADQUARTERS_ADDRESS" : "ALTERNATIVE_LANGUAGE_LEGAL_ADDRESS",
      });
    }

    // Other names: previous and trading names, alternative-language and transliterated names.
    const otherNames: OtherName[] = [];
    const transliteratedNames: OtherName[] = [];
    if (rng.chance(0.065)) {
      const previous = rng.chance(0.5)
        ? this.name(rng, category, country, lang, pickForm(rng, forms, category), null).full.native
        : `${name.core.native} ${pickVariant(rng, pickForm(rng, forms, category), lang.script === "latin").trim()}`.trim();
      otherNames.push({ name: upper ? previous.toUpperCase() : previous, lang: nameLang, type: "PREVIOUS_LEGAL_NAME" });
    }
    if (rng.chance(0.045)) {
      otherNames.push({
        name: upper ? name.core.native.toUpperCase() : name.core.native,
        lang: nameLang,
        type: "TRADING_OR_OPERATING_NAME",
      });
    }
    if (isNonLatin(legalName)) {
      if (rng.chance(0.45)) otherNames.push({ name: name.full.english, lang: "en", type: "ALTERNATIVE_LANGUAGE_LEGAL_NAME" });
      if (rng.chance(0.5))
        transliteratedNames.push({
          name: latinName,
          lang: "en",
          type: rng.chance(0.6) ? "AUTO_ASCII_TRANSLITERATED_LEGAL_NAME" : "PREFERRED_ASCII_TRANSLITERATED_LEGAL_NAME",
        });
    } else {
      const folded = foldAscii(legalName);
      if (folded !== legalName && rng.chance(0.6)) {
        transliteratedNames.push({
          name: folded,
          lang: nameLang === "" ? "" : "en",
          type: rng.chance(0.5) ? "AUTO_ASCII_TRANSLITERATED_LEGAL_NAME" : "PREFERRED_ASCII_TRANSLITERATED_LEGAL_NAME",
        });
      }
    }

    // Registration authority.
    let raId = rng.chance(0.078) ? "RA999999" : rng.chance(0.01) ? "RA888888" : rng.pick(country.ra);
    if (rng.chance(0.005)) raId = "";
    const raOtherId =
      raId === "RA888888" ? rng.pick(["Companies Registry", "Registrar of Companies", "Trade Register", "Ministry of Commerce"]) : "";
    const raEntityId = raId === "RA999999" || raId === "" ? "" : pattern(rng, country.raEntity);

    // Legal form code: 8888 (no ELF code) on about 9.6 % of the full file.
    let elfCode = form.elf;
    let otherLegalForm = form.other ?? "";
    if (elfCode !== "8888" && rng.chance(0.035)) {
      elfCode = "8888";
      otherLegalForm = pickVariant(rng, form, true).replace(/^[,\s]+/, "") || "LIMITED";
    }
    if (elfCode === "8888" && otherLegalForm === "") otherLegalForm = "LIMITED";

    // Dates.
    const offset = country.offset;
    const style = (): DateStyle => (rng.chance(0.7) ? issuer.dateStyle : DATE_STYLE.pick(rng));
    const initialMs = FIRST_LEI_MS + (PUBLISHED_MS - 7 * 86400_000 - FIRST_LEI_MS) * Math.sqrt(rng.float());
    let lastUpdateMs: number;
    let renewalMs: number;
    if (registrationStatus === "ISSUED" || registrationStatus.startsWith("PENDING")) {
      lastUpdateMs = Math.max(initialMs, PUBLISHED_MS - rng.float() * YEAR_MS * 0.98);
      renewalMs = Math.max(PUBLISHED_MS + 86400_000, lastUpdateMs + YEAR_MS * (0.9 + rng.float() * 0.1));
    } else {
      lastUpdateMs = initialMs + (PUBLISHED_MS - initialMs) * rng.float();
      renewalMs = Math.min(
        PUBLISHED_MS - 86400_000,
        initialMs + YEAR_MS * (1 + Math.floor(((lastUpdateMs - initialMs) / YEAR_MS) * rng.float())),
      );
      renewalMs = Math.max(renewalMs, initialMs + YEAR_MS * 0.5);
    }
    const creationMs = rng.chance(0.67) ? initialMs - YEAR_MS * 60 * rng.float() ** 2 : NaN;
    const creationDate = Number.isNaN(creationMs)
      ? ""
      : formatDate(Math.floor(creationMs / 86400_000) * 86400_000 - offsetMinutes(offset) * 60_000, "offset", offset);

    // Successors: DUPLICATE records point at the surviving LEI; some retirements are mergers.
    let successorLei = "";
    let successorName = "";
    const events: LegalEntityEvent[] = [];
    const merged =
      registrationStatus === "DUPLICATE" || (registrationStatus === "RETIRED" && entityStatus === "INACTIVE" && rng.chance(0.3));
    if (merged && this.total > 1) {
      let j = rng.int(this.total - 1);
      if (j >= index) j++;
      successorLei = this.leiAt(j);
      successorName = withSuccessor ? this.build(j, false).legalName : "";
    }
    const eventDate = (): number => initialMs + (lastUpdateMs - initialMs) * rng.float();
    const addEvent = (type: string): void => {
      const eff = eventDate();
      events.push({
        type,
        status: rng.chance(0.98) ? "COMPLETED" : "IN_PROGRESS",
        effective: formatDate(eff, style(), offset),
        recorded: formatDate(Math.min(lastUpdateMs, eff + rng.float() * 30 * 86400_000), style(), offset),
        documents: rng.pick(VALIDATION_DOCUMENTS),
        reference: rng.chance(0.1) ? pattern(rng, "REF-######") : "",
      });
    };
    if (otherNames.some((n) => n.type === "PREVIOUS_LEGAL_NAME") && rng.chance(0.5)) addEvent("CHANGE_LEGAL_NAME");
    if (merged && successorLei !== "") addEvent("MERGERS_AND_ACQUISITIONS");
    else if (entityStatus === "INACTIVE" && rng.chance(0.3)) addEvent(rng.chance(0.8) ? "DISSOLUTION" : "INSOLVENCY");
    if (rng.chance(0.09)) addEvent(rng.pick(EVENT_TYPES.slice(1, 4)));
    if (rng.chance(0.03)) addEvent(rng.pick(EVENT_TYPES.slice(1, 4)));

    const managing = rng.chance(0.85) ? issuer : this.louPick.pick(rng);
    const validationAuthorityId = raId !== "" && rng.chance(0.92) ? raId : "";
    const otherValidationAuthorityIds = rng.chance(0.02) ? [rng.pick(country.ra)] : [];

    return {
      index,
      lei,
      legalName,
      legalNameLang: nameLang,
      nameCore: core,
      otherNames,
      transliteratedNames,
      legalAddress: legal.address,
      hqAddress: hq,
      otherAddresses,
      transliteratedAddresses,
      raId,
      raOtherId,
      raEntityId,
      jurisdiction,
      category,
      subCategory: category === "RESIDENT_GOVERNMENT_ENTITY" ? rng.pick(SUBCATEGORIES) : "",
      elfCode,
      otherLegalForm,
      entityStatus,
      creationDate,
      successorLei,
      successorName,
      events,
      initialRegistrationDate: formatDate(initialMs, style(), offset),
      lastUpdateDate: formatDate(lastUpdateMs, style(), offset),
      registrationStatus,
      nextRenewalDate: formatDate(renewalMs, style(), offset),
      managingLou: managing.lei,
      validationSources: VALIDATION_SOURCES.pick(rng),
      validationAuthorityId,
      validationAuthorityEntityId: validationAuthorityId === "" ? "" : raEntityId,
      otherValidationAuthorityIds,
      conformityFlag: CONFORMITY.pick(rng),
    };
  }

  private family(fund: boolean, rng: Rng): Family {
    const count = fund ? this.fundFamilies : this.companyFamilies;
    // Skewed membership (P(id < k) = sqrt(k / count)): a few large groups, many small ones.
    const id = Math.floor(count * rng.float() ** 2);
    const frng = Rng.at(this.seed, STREAM_FAMILY, id * 2 + (fund ? 1 : 0));
    const home = this.countryByCategory.get(fund ? "FUND" : "GENERAL")!.pick(frng);
    const lang = home.lang.script !== "latin" && frng.chance(home.english) ? ENGLISH_ONLY : home.lang;
    let kind: Family["kind"];
    if (fund) kind = home.code === "JP" && frng.chance(0.4) ? "account" : "umbrella";
    else kind = frng.chance(0.6) ? "group" : home.code === "US" && frng.chance(0.5) ? "spv" : "series";
    let brand: Word;
    if (kind === "account") brand = frng.pick(TRUST_BANKS);
    else if (fund && frng.chance(0.35)) brand = frng.pick(FUND_UMBRELLAS);
    else brand = frng.chance(0.6) ? coin(frng, lang) : frng.pick(lang.stems);
    const brand2 = frng.chance(0.3) ? (kind === "spv" ? word(frng.pick(["II", "III", "IV", "V"])) : coin(frng, lang)) : null;
    return { id, kind, home, brand, brand2, activity: frng.pick(lang.activities) };
  }

  private langTag(rng: Rng, lang: LangPack, english: boolean): string {
    if (english && lang !== ENGLISH_ONLY) return rng.chance(0.7) ? "" : "en";
    return tagTable(lang).pick(rng);
  }

  private name(
    rng: Rng,
    category: string,
    country: Country,
    lang: LangPack,
    form: LegalForm,
    family: Family | null,
  ): { full: NameParts; core: NameParts } {
    const parts: Word[] = [];
    const latinScript = lang.script === "latin";
    switch (category) {
      case "SOLE_PROPRIETOR": {
        parts.push(rng.pick(lang.givenNames), rng.pick(lang.surnames));
        if (rng.chance(0.5)) parts.reverse();
        if (rng.chance(0.3)) parts.push(rng.pick(lang.activities));
        break;
      }
      case "RESIDENT_GOVERNMENT_ENTITY": {
        const city = pickCity(rng, country);
        const key = langKey(lang);
        const templates = GOVERNMENT_PATTERNS[key] ?? GOVERNMENT_PATTERNS["other"]!;
        const text = rng.pick(templates).replace("{city}", city.name.latin).replace("{region}", city.region);
        const parts2 = { native: text, latin: foldAscii(text), english: foldAscii(text) };
        return { full: parts2, core: parts2 };
      }
      case "INTERNATIONAL_ORGANIZATION": {
        const text = rng.pick(INTERNATIONAL_ORGS);
        const p = { native: text, latin: text, english: text };
        return { full: p, core: p };
      }
      case "BRANCH": {
        const parent = this.name(rng, "GENERAL", country, lang, form, null).full;
        const city = pickCity(rng, country).name.latin;
        const suffix = rng.pick([
          `, ${city} Branch`,
          ` Zweigniederlassung ${city}`,
          ` Succursale de ${city}`,
          ` Niederlassung Deutschland`,
          ` London Branch`,
          ` Sucursal en España`,
          ` Filial Sverige`,
        ]);
        const p = { native: parent.native + suffix, latin: parent.latin + foldAscii(suffix), english: parent.english + foldAscii(suffix) };
        return { full: p, core: p };
      }
      default:
        break;
    }
    if (parts.length === 0) {
      if (family !== null) this.familyParts(rng, family, country, lang, parts);
      else if (category === "FUND") this.fundParts(rng, lang, parts);
      else this.companyParts(rng, country, lang, parts);
    }
    const core = join(parts, lang.joined);
    if (rng.chance(0.002) && country.code === "IT") {
      // Italian cooperatives list their abbreviations inside the legal name (up to 259 characters).
      const tail = ` SOCIETA' COOPERATIVA LA SOCIETA' POTRA' ESSERE IDENTIFICATA ANCHE CON LE SEGUENTI SIGLE ${core.latin.slice(0, 12).toUpperCase()} S.C. O ${core.latin.split(" ")[0]!.toUpperCase()} SOC. COOP.`;
      core.native += tail;
      core.latin += tail;
      core.english += tail;
    }
    return { full: applyForm(rng, core, form, latinScript, lang.joined), core };
  }

  private companyParts(rng: Rng, country: Country, lang: LangPack, parts: Word[]): void {
    const r = rng.float();
    if (r < 0.38) {
      parts.push(coin(rng, lang));
      if (rng.chance(0.6)) parts.push(rng.pick(lang.activities));
    } else if (r < 0.58) {
      parts.push(rng.pick(lang.stems));
      if (rng.chance(0.5)) parts.push(coin(rng, lang));
      parts.push(rng.pick(lang.activities));
    } else if (r < 0.74) {
      if (rng.chance(0.4)) parts.push(rng.pick(lang.givenNames));
      parts.push(rng.pick(lang.surnames));
      if (rng.chance(0.3)) parts.push(word("&"), rng.pick(lang.surnames));
      parts.push(rng.pick(lang.activities));
    } else if (r < 0.84) {
      parts.push(rng.pick(lang.stems), coin(rng, lang));
    } else if (r < 0.93 && lang.script === "latin") {
      // Property companies named after their address: "6111 Horner Street, LLC", "MARKEVEIEN 4A AS".
      const street = streetName(rng, lang);
      const num = String(rng.range(1, 9999));
      parts.push(
        lang.streetFormat === "numLast"
          ? word(`${street} ${num}`, foldAscii(`${street} ${num}`))
          : word(`${num} ${street}`, foldAscii(`${num} ${street}`)),
      );
      if (country.code === "US" && rng.chance(0.4)) parts.push(word(rng.pick(["Owner", "OWNER", "Holdings", "Partners", "Associates"])));
    } else {
      // Initialisms: "M.P.C.", "I.G.F.", "H2M".
      const n = rng.range(2, 4);
      let text = "";
      const dotted = rng.chance(0.5);
      for (let k = 0; k < n; k++) text += String.fromCharCode(65 + rng.int(26)) + (dotted ? "." : "");
      parts.push(word(text));
      if (rng.chance(0.5)) parts.push(rng.pick(lang.activities));
    }
  }

  private fundParts(rng: Rng, lang: LangPack, parts: Word[]): void {
    parts.push(rng.chance(0.5) ? coin(rng, lang) : rng.pick(lang.stems));
    const strategy = rng.pick(ACTIVITY_EN_FUND);
    parts.push(lang.script === "latin" ? strategy : word(strategy.english, strategy.latin, strategy.english));
    if (rng.chance(0.3)) parts.push(word(roman(rng.range(1, 12))));
  }

  private familyParts(rng: Rng, family: Family, country: Country, lang: LangPack, parts: Word[]): void {
    const brand = lang === family.home.lang ? family.brand : latinOf(family.brand);
    const brand2 = family.brand2 === null ? null : lang === family.home.lang ? family.brand2 : latinOf(family.brand2);
    switch (family.kind) {
      case "group": {
        parts.push(brand);
        if (brand2 !== null && rng.chance(0.7)) parts.push(brand2);
        if (country !== family.home || rng.chance(0.15)) {
          const marker = COUNTRY_MARKERS[country.code] ?? country.code;
          parts.push(rng.chance(0.5) ? word(`(${marker})`) : word(marker));
        }
        parts.push(rng.chance(0.6) ? rng.pick(lang.activities) : lang === family.home.lang ? family.activity : rng.pick(lang.activities));
        break;
      }
      case "spv": {
        parts.push(brand);
        if (brand2 !== null) parts.push(brand2);
        parts.push(rng.chance(0.5) ? rng.pick(lang.stems) : word(streetName(rng, lang)));
        if (rng.chance(0.6)) parts.push(word(rng.pick(["Owner", "OWNER", "Holdings", "Investors", "Venture", "Property"])));
        break;
      }
      case "series": {
        parts.push(brand);
        if (brand2 !== null) parts.push(brand2);
        parts.push(lang === family.home.lang ? family.activity : word(family.activity.english));
        const n = rng.range(1, 25);
        parts.push(
          word(rng.chance(0.5) ? roman(Math.min(n, 39)) : rng.chance(0.5) ? String(n) : `${2015 + rng.int(12)}-${rng.range(1, 4)}`),
        );
        break;
      }
      case "umbrella": {
        parts.push(brand);
        if (brand2 !== null) parts.push(brand2);
        const strategy = rng.pick(ACTIVITY_EN_FUND);
        if (rng.chance(0.5)) parts.push(word("-"));
        parts.push(lang.script === "latin" ? strategy : word(strategy.english));
        if (rng.chance(0.25)) parts.push(word(roman(rng.range(1, 9))));
        break;
      }
      case "account": {
        // Japanese trust-bank fund accounts: identical names but for the account number.
        parts.push(word(`${family.brand.native}/${pattern(rng, "@#########")}`, `${family.brand.latin}/`, `${family.brand.english}/`));
        break;
      }
    }
  }

  private address(rng: Rng, country: Country, city: City, native: boolean, careOf: boolean): { address: Address; latin: Address } {
    const lang = country.lang;
    const num = rng.chance(0.1)
      ? `${rng.range(1, 200)}${String.fromCharCode(65 + rng.int(6))}`
      : String(rng.range(1, rng.chance(0.7) ? 120 : 3000));
    let nativeLine: string;
    let latinLine: string;
    const careOfPool = CARE_OF[country.code];
    if (careOf && careOfPool !== undefined && rng.chance(0.45)) {
      nativeLine = latinLine = rng.pick(careOfPool);
    } else if (lang.streetFormat === "asian") {
      const street = rng.pick(lang.stems);
      const post = rng.pick(lang.streetPost);
      nativeLine = `${street.native}${post}${num}号`;
      latinLine = `${num} ${street.latin} ${lang.script === "kana" ? "Dori" : "Road"}`;
      if (lang.script === "kana") {
        nativeLine = `${street.native}${rng.range(1, 9)}-${rng.range(1, 30)}-${rng.range(1, 20)}`;
        latinLine = `${rng.range(1, 9)}-${rng.range(1, 30)}-${rng.range(1, 20)}, ${street.latin}`;
      }
    } else if (lang.script !== "latin") {
      const street = rng.chance(0.5) ? rng.pick(lang.surnames) : rng.pick(lang.stems);
      const pre = lang.streetPre.length > 0 ? rng.pick(lang.streetPre) : "";
      nativeLine = `${pre} ${street.native}, ${num}`.trim();
      latinLine = `${street.latin} Str. ${num}`;
    } else {
      nativeLine = `${streetLine(rng, lang, num)}`;
      latinLine = foldAscii(nativeLine);
    }
    if (rng.chance(country.upper * 0.5)) {
      nativeLine = nativeLine.toUpperCase();
      latinLine = latinLine.toUpperCase();
    }
    const additional1 = rng.chance(0.2)
      ? rng.pick([
          "Suite 400",
          "2nd Floor",
          "3RD FLOOR",
          "Unit 5",
          "Level 11",
          "Building B",
          "PO Box 1234",
          "Floor 7",
          "Apt. 12",
          "Room 1502",
          "Bus 1",
          "c/o Legal Department",
        ])
      : "";
    const additional2 =
      additional1 !== "" && rng.chance(0.2)
        ? rng.pick(["Industrial Estate", "Business Park", "Technology Park", "City Centre", "Harbour Side"])
        : "";
    const region = rng.chance(country.regionShare) ? city.region : "";
    const postal = rng.chance(0.985) ? pattern(rng, city.postal) : "";
    const cityNative = native ? city.name.native : city.name.latin;
    const tag = native ? (rng.chance(0.5) ? "" : tagTable(lang).pick(rng)) : rng.chance(0.7) ? "" : "en";
    const address: Address = {
      lang: tag,
      type: "",
      firstLine: native ? nativeLine : latinLine === nativeLine || lang.script === "latin" ? nativeLine : latinLine,
      additional1,
      additional2,
      city: cityNative,
      region,
      country: country.code,
      postalCode: postal,
    };
    const latin: Address = { ...address, firstLine: latinLine, city: city.name.latin };
    return { address, latin };
  }
}

// ---------------------------------------------------------------- helpers

const ENGLISH_ONLY: LangPack = (() => {
  const us = COUNTRIES.find((c) => c.code === "US")!;
  return us.lang;
})();

const TRUST_BANKS: readonly Word[] = [
  word(
    "日本マスタートラスト信託銀行株式会社",
    "Nihon Masuta Torasuto Shintaku Ginko Kabushiki Kaisha",
    "The Master Trust Bank of Japan, Ltd.",
  ),
  word("日本カストディ銀行株式会社", "Nihon Kasutodi Ginko Kabushiki Kaisha", "Custody Bank of Japan, Ltd."),
  word("三井住友信託銀行株式会社", "Mitsui Sumitomo Shintaku Ginko Kabushiki Kaisha", "Sumitomo Mitsui Trust Bank, Limited"),
];

const COUNTRY_MARKERS: Readonly<Record<string, string>> = {
  GB: "UK",
  US: "USA",
  DE: "Deutschland",
  FR: "France",
  IT: "ITALIA",
  ES: "España",
  NL: "Nederland",
  BE: "Belgium",
  LU: "Luxembourg",
  IE: "Ireland",
  DK: "Danmark",
  SE: "Sverige",
  NO: "Norge",
  FI: "Finland",
  PL: "Polska",
  CZ: "CZ",
  SK: "Slovakia",
  HU: "Magyarország",
  AT: "Austria",
  CH: "Schweiz",
  PT: "Portugal",
  GR: "Hellas",
  CY: "Cyprus",
  RO: "Romania",
  BG: "Bulgaria",
  EE: "Eesti",
  LV: "Latvia",
  LT: "Lietuva",
  RU: "RUS",
  UA: "Ukraine",
  TR: "Türkiye",
  IN: "INDIA",
  CN: "China",
  HK: "Hong Kong",
  JP: "Japan",
  KR: "Korea",
  SG: "SINGAPORE",
  AU: "AUSTRALIA",
  CA: "Canada",
  KY: "Cayman",
  VG: "BVI",
  BM: "Bermuda",
  SA: "Saudi Arabia",
  AE: "Middle East",
  IL: "Israel",
  TH: "Thailand",
  BR: "BRASIL",
  MX: "MEXICO",
  NG: "NIGERIA",
  ZA: "South Africa",
};

function langKey(lang: LangPack): string {
  if (lang.streetPost.includes("Street")) return "en";
  if (lang.streetPost.includes("straße")) return "de";
  if (lang.streetPre.includes("rue")) return "fr";
  if (lang.streetPre.includes("VIA")) return "it";
  if (lang.streetPre.includes("CALLE")) return "es";
  return "other";
}

const TAG_TABLES = new WeakMap<LangPack, Weighted<string>>();

function tagTable(lang: LangPack): Weighted<string> {
  let t = TAG_TABLES.get(lang);
  if (t === undefined) {
    t = new Weighted(lang.tags);
    TAG_TABLES.set(lang, t);
  }
  return t;
}

function latinOf(w: Word): Word {
  return { native: w.latin, latin: w.latin, english: w.english };
}

/** A brand-like coined word ("Maxrets", "Proudreed", "СЕВЕРСТРОЙ"): the open-vocabulary part of names. */
function coin(rng: Rng, lang: LangPack): Word {
  const n = rng.chance(0.6) ? 2 : 3;
  let native = "";
  let latin = "";
  for (let k = 0; k < n; k++) {
    const [s, l] = rng.pick(lang.syllables).split("=");
    native += s;
    latin += (l ?? s!).toLowerCase();
  }
  if (lang.script === "latin") {
    native = capitalise(native);
    return { native, latin: foldAscii(native), english: foldAscii(native) };
  }
  latin = capitalise(latin);
  if (lang.script === "cyrillic" || lang.script === "greek") native = capitalise(native);
  return { native, latin, english: latin };
}

function join(parts: readonly Word[], joined: boolean): NameParts {
  const sep = joined ? "" : " ";
  return {
    native: parts
      .map((p) => p.native)
      .join(sep)
      .replace(/ - /g, " - "),
    latin: parts.map((p) => p.latin).join(" "),
    english: parts.map((p) => p.english).join(" "),
  };
}

function pickForm(rng: Rng, forms: readonly LegalForm[], category: string): LegalForm {
  const wanted = category === "SOLE_PROPRIETOR" ? "sole" : null;
  const pool =
    wanted !== null && forms.some((f) => f.kind === wanted)
      ? forms.filter((f) => f.kind === wanted)
      : category === "FUND"
        ? forms
        : forms.filter((f) => f.kind !== "sole");
  const list = pool.length > 0 ? pool : forms;
  let total = 0;
  for (const f of list) total += f.weight;
  let x = rng.float() * total;
  for (const f of list) {
    x -= f.weight;
    if (x < 0) return f;
  }
  return list[list.length - 1]!;
}

function pickVariant(rng: Rng, form: LegalForm, latinScript: boolean): string {
  const native = form.variants.filter((v) => isNonLatin(v) !== latinScript);
  const pool = native.length > 0 ? native : form.variants;
  const v = rng.pick(pool);
  if (latinScript && isNonLatin(v)) return form.english ?? form.latin ?? "LIMITED";
  return v;
}

function applyForm(rng: Rng, core: NameParts, form: LegalForm, latinScript: boolean, joined: boolean): NameParts {
  const variant = pickVariant(rng, form, latinScript);
  const latinForm = isNonLatin(variant) ? (form.latin ?? foldAscii(variant)) : foldAscii(variant);
  const englishForm = isNonLatin(variant) ? (form.english ?? latinForm) : variant;
  if (variant === "") return { ...core };
  const sep = joined && isNonLatin(variant) ? "" : " ";
  // An English rendering of a native prefix form ("Co., Ltd." for 주식회사) goes after the name.
  const renderedInEnglish = latinScript && form.variants.every(isNonLatin);
  if (form.prefix === true && !renderedInEnglish) {
    const inner = form.quoteName === true ? `"${core.native}"` : core.native;
    const innerLatin = form.quoteName === true ? `"${core.latin}"` : core.latin;
    const close = form.close !== undefined ? ` ${form.close}` : "";
    return {
      native: `${variant}${form.close !== undefined ? " " : sep}${inner}${close}`,
      latin: `${latinForm} ${innerLatin}${form.close !== undefined ? " Chamkat" : ""}`,
      english: form.quoteName === true ? `${englishForm} ${innerLatin}` : `${core.english} ${englishForm}`,
    };
  }
  const glue = variant.startsWith(",") || variant.startsWith("-") || variant.startsWith("/") ? "" : sep;
  return {
    native: `${core.native}${glue}${variant}`,
    latin: `${core.latin}${glue === "" ? "" : " "}${latinForm}`,
    english: `${core.english}${glue === "" ? "" : " "}${englishForm}`,
  };
}

function entityStatusFor(rng: Rng, registrationStatus: string): string {
  switch (registrationStatus) {
    case "ISSUED":
      return rng.chance(0.996) ? "ACTIVE" : "INACTIVE";
    case "LAPSED":
      return rng.chance(0.925) ? "ACTIVE" : "INACTIVE";
    case "RETIRED":
      return rng.chance(0.75) ? "INACTIVE" : "ACTIVE";
    case "DUPLICATE":
      return rng.chance(0.6) ? "ACTIVE" : "INACTIVE";
    case "ANNULLED":
      return rng.chance(0.5) ? "ACTIVE" : "INACTIVE";
    default:
      return "ACTIVE";
  }
}

function pickCity(rng: Rng, country: Country): City {
  // Earlier cities in each list are the larger ones: weight them up.
  const n = country.cities.length;
  const k = Math.floor(n * rng.float() ** 1.6);
  return country.cities[Math.min(k, n - 1)]!;
}

function pickUsDelawareCity(rng: Rng, country: Country): City {
  return rng.chance(0.5) ? country.cities[rng.int(2)]! : pickCity(rng, country);
}

function streetName(rng: Rng, lang: LangPack): string {
  const base = rng.chance(0.5) ? rng.pick(lang.surnames).native : rng.chance(0.5) ? rng.pick(lang.stems).native : coin(rng, lang).native;
  if (lang.streetPre.length > 0 && (lang.streetPost.length === 0 || rng.chance(0.5))) return `${rng.pick(lang.streetPre)} ${base}`;
  const post = lang.streetPost.length > 0 ? rng.pick(lang.streetPost) : "";
  return post.startsWith(" ") || /^[A-Z]/.test(post) ? `${base} ${post.trim()}` : `${base}${post}`;
}

function streetLine(rng: Rng, lang: LangPack, num: string): string {
  const street = streetName(rng, lang);
  switch (lang.streetFormat) {
    case "numFirst":
      return `${num} ${street}`;
    case "numFirstComma":
      return rng.chance(0.5) ? `${num}, ${street}` : `${num} ${street}`;
    default:
      return rng.chance(0.15) ? `${street}, ${num}` : `${street} ${num}`;
  }
}
