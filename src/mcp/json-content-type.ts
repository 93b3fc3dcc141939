// Whether a Content-Type header denotes application/json, by the MCP SDK's rule
// (isJsonContentType in @modelcontextprotocol/server 2.4, on the `content-type` package's
// grammar), so that the front can refuse a POST with a 415 without loading the SDK: parameters
// are allowed and ignored; malformed parameters do not reject a header whose media type is
// unambiguously application/json, i.e. one with no comma after it.

const PARAM =
  /; *([!#$%&'*+.^_`|~0-9A-Za-z-]+) *= *("(?:[\u000b\u0020\u0021\u0023-\u005b\u005d-\u007e\u0080-\u00ff]|\\[\u000b\u0020-\u00ff])*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+) */y;

export function isJsonContentType(header: string): boolean {
  if (header === "application/json") return true;
  const semicolon = header.indexOf(";");
  const essence = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  if (essence !== "application/json") return false;
  return wellFormedParameters(header, semicolon) || !header.slice(essence.length).includes(",");
}

/** Whether everything from `from` (a semicolon, or -1 for none) is `; name=value` parameters. */
function wellFormedParameters(header: string, from: number): boolean {
  if (from === -1) return true;
  let at = from;
  for (;;) {
    PARAM.lastIndex = at;
    const match = PARAM.exec(header);
    if (match === null) return at === header.length;
    at += match[0].length;
  }
}
