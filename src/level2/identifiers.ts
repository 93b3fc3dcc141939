// The identifiers GLEIF maps to LEIs: ISIN (ISO 6166) and BIC (ISO 9362), checked before any
// lookup as LEIs are: a malformed one is the caller's mistake (400), never a search.

/** 2 letters (country or XS/EU), 9 letters or digits, 1 check digit. */
const ISIN_FORM = /^[A-Z]{2}[0-9A-Z]{9}[0-9]$/;
/** 4 letters (institution), 2 letters (country), 2 letters or digits (location), optionally 3 (branch). */
const BIC_FORM = /^[A-Z]{4}[A-Z]{2}[0-9A-Z]{2}([0-9A-Z]{3})?$/;

export type Checked = { ok: true; value: string } | { ok: false; message: string };

/** The ISIN upper-cased, when it has the form and its check digit (Luhn over the letters as numbers, A=10 … Z=35) holds. */
export function checkIsin(input: string): Checked {
  const isin = input.trim().toUpperCase();
  if (!ISIN_FORM.test(isin)) {
    return {
      ok: false,
      message: `malformed ISIN '${clip(input)}': an ISIN is 12 characters, 2 letters, 9 letters or digits, then a check digit`,
    };
  }
  if (!isinCheckDigitValid(isin)) return { ok: false, message: `ISIN '${isin}' fails its ISO 6166 check digit` };
  return { ok: true, value: isin };
}

export function isinCheckDigitValid(isin: string): boolean {
  let digits = "";
  for (const ch of isin) digits += ch >= "A" ? String(ch.charCodeAt(0) - 55) : ch;
  let sum = 0;
  // Luhn from the right: the check digit itself is not doubled, the one before it is
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The BIC upper-cased in its 11-character form (an 8-character BIC is its head office, branch XXX). */
export function checkBic(input: string): Checked {
  const bic = input.trim().toUpperCase();
  if (!BIC_FORM.test(bic)) {
    return {
      ok: false,
      message: `malformed BIC '${clip(input)}': a BIC is 8 or 11 letters or digits: 4 letters, a 2-letter country, 2 for the location, optionally 3 for the branch`,
    };
  }
  return { ok: true, value: bic.length === 8 ? `${bic}XXX` : bic };
}

export type IdentifierKind = "LEI" | "ISIN" | "BIC";

/** What an identifier looks like: 20 characters an LEI, 12 an ISIN, 8 or 11 a BIC; null for none of them. */
export function identifierKind(input: string): IdentifierKind | null {
  const code = input.trim().toUpperCase();
  if (/^[0-9A-Z]{18}[0-9]{2}$/.test(code)) return "LEI";
  if (ISIN_FORM.test(code)) return "ISIN";
  if (BIC_FORM.test(code)) return "BIC";
  return null;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
