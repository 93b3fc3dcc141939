// A request's query string as parameters. URLSearchParams turns a broken escape or bytes that are
// not UTF-8 into U+FFFD without a word, so a search for garbage would quietly run; here both are
// refused, and the record has no prototype, so "toString" or "__proto__" is a parameter like any other.

export class QueryStringError extends Error {}

const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** The parameters in order; throws QueryStringError for a '%' that starts no escape or escapes that are not UTF-8. */
export function queryEntries(rawQuery: string): [string, string][] {
  if (BROKEN_ESCAPE.test(rawQuery)) throw new QueryStringError("malformed query string: '%' must start a two-digit hex escape");
  const entries = [...new URLSearchParams(rawQuery)];
  // only a U+FFFD in the result can hide a bad escape, and a real one is rare: check then
  if (entries.some(([k, v]) => k.includes("\uFFFD") || v.includes("\uFFFD")) && !isUtf8(rawQuery)) {
    throw new QueryStringError("malformed query string: percent-escapes must encode UTF-8");
  }
  return entries;
}

/** The parameters as a record without prototype; a repeated name keeps its last value. */
export function queryRecord(rawQuery: string): Record<string, string> {
  const record = Object.create(null) as Record<string, string>;
  for (const [k, v] of queryEntries(rawQuery)) record[k] = v;
  return record;
}

function isUtf8(rawQuery: string): boolean {
  try {
    decodeURIComponent(rawQuery.replace(/\+/g, " "));
    return true;
  } catch {
    return false;
  }
}
