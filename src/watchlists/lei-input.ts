// The LEIs a watchlist request brings, as a JSON list or a CSV upload, checked before anything is
// stored: each one trimmed and upper-cased, of ISO 17442 form with valid check digits
// (src/lei/lei-code.ts), duplicates dropped. A problem is a 400 naming where it is (the list's
// index, the CSV's line), at most a few of them.

import { checkDigitsValid, hasLeiForm } from "../lei/lei-code.js";

/** The most LEIs a tenant's watchlists hold together; one request may bring as many. */
export const MAX_LEIS_PER_TENANT = 100_000;
const SHOWN_PROBLEMS = 3;

export type LeiInput = { ok: true; leis: string[] } | { ok: false; message: string };

/** Why `raw` is no LEI, or null. */
export function leiProblem(raw: string): string | null {
  const lei = raw.trim().toUpperCase();
  if (!hasLeiForm(lei)) return `'${clip(raw)}' is not an LEI (20 characters: 18 letters or digits, then 2 check digits)`;
  if (!checkDigitsValid(lei)) return `'${lei}' fails the ISO 17442 check digits`;
  return null;
}

/** Checks a JSON list of LEIs (its items are strings: the schema saw to that). */
export function leisFromList(items: readonly string[]): LeiInput {
  return collect(items.map((raw, i) => ({ raw, where: `leis[${i}]` })));
}

/**
 * Reads a CSV upload: one LEI a line, or a header line with an `LEI` column (any case; the
 * golden copy's own header works) and the LEI in that column. Empty lines are skipped; a byte
 * order mark is allowed; the text must be UTF-8.
 */
export function leisFromCsv(bytes: Buffer): LeiInput {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { ok: false, message: "the CSV is not UTF-8 text" };
  }
  const lines = text.split(/\r\n|\n|\r/);
  let column = 0;
  let first = 0;
  // a first line that is neither a header nor an LEI is reported below as a bad LEI on line 1
  while (first < lines.length && lines[first].trim() === "") first++;
  if (first === lines.length) return { ok: false, message: "the CSV holds no LEI" };
  const head = csvFields(lines[first]);
  if (head === null) return { ok: false, message: `CSV line ${first + 1}: an unclosed quote` };
  const named = head.findIndex((f) => f.trim().toUpperCase() === "LEI");
  if (named >= 0) {
    column = named;
    first++;
  } else if (head.length > 1) {
    return { ok: false, message: "the CSV's header has no LEI column (send one LEI a line, or a column named LEI)" };
  }
  const found: { raw: string; where: string }[] = [];
  for (let i = first; i < lines.length; i++) {
    if (lines[i].trim() === "") continue;
    const fields = csvFields(lines[i]);
    if (fields === null) return { ok: false, message: `CSV line ${i + 1}: an unclosed quote` };
    if (column >= fields.length) return { ok: false, message: `CSV line ${i + 1}: no field ${column + 1} (the LEI column)` };
    found.push({ raw: fields[column], where: `CSV line ${i + 1}` });
    if (found.length > MAX_LEIS_PER_TENANT)
      return { ok: false, message: `the CSV holds more than ${MAX_LEIS_PER_TENANT} LEIs, the most a tenant's watchlists may hold` };
  }
  if (found.length === 0) return { ok: false, message: "the CSV holds no LEI" };
  return collect(found);
}

function collect(items: { raw: string; where: string }[]): LeiInput {
  const problems: string[] = [];
  let bad = 0;
  const leis = new Set<string>();
  for (const { raw, where } of items) {
    const problem = leiProblem(raw);
    if (problem) {
      if (++bad <= SHOWN_PROBLEMS) problems.push(`${where}: ${problem}`);
      continue;
    }
    leis.add(raw.trim().toUpperCase());
  }
  if (bad > 0)
    return {
      ok: false,
      message: `${problems.join("; ")}${bad > SHOWN_PROBLEMS ? `; and ${bad - SHOWN_PROBLEMS} more` : ""}; nothing stored`,
    };
  return { ok: true, leis: [...leis] };
}

/** One CSV line's fields (RFC 4180 quotes, no line breaks inside a field); null for an unclosed quote. */
function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    if (line[at] === '"') {
      let value = "";
      at++;
      for (;;) {
        const q = line.indexOf('"', at);
        if (q < 0) return null;
        value += line.slice(at, q);
        if (line[q + 1] === '"') {
          value += '"';
          at = q + 2;
        } else {
          at = q + 1;
          break;
        }
      }
      fields.push(value);
      const comma = line.indexOf(",", at);
      if (comma < 0) return fields;
      at = comma + 1;
    } else {
      const comma = line.indexOf(",", at);
      fields.push(line.slice(at, comma < 0 ? undefined : comma));
      if (comma < 0) return fields;
      at = comma + 1;
    }
  }
}

const clip = (s: string): string => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
