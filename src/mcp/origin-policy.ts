// Which web origins may call /mcp. The MCP transport spec asks servers to refuse a request whose
// Origin header is present but not allowed (the defence against DNS rebinding, where a page of
// some other site reaches a server through a name it controls). Programs that are not browsers
// send no Origin and are always allowed.

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export class OriginPolicy {
  private readonly listed: Set<string>;
  private readonly anyOrigin: boolean;

  /**
   * @param extraOrigins origins allowed besides loopback pages, as `scheme://host[:port]`; `*`
   * allows every origin (sensible only when the data is public anyway, as it is here).
   */
  constructor(extraOrigins: readonly string[] = []) {
    this.anyOrigin = extraOrigins.includes("*");
    this.listed = new Set(extraOrigins.filter((o) => o !== "*").map((o) => normalise(o) ?? o));
  }

  /**
   * Allowed: no Origin header; a page on this machine (localhost, 127.0.0.1, [::1] on any port:
   * local tools such as MCP inspectors); a listed origin. Refused: everything else, `null`
   * (sandboxed frames, file: pages) included. Same-host pages get no pass: Leidex serves no
   * pages, and the Host header is exactly what a rebinding attack controls.
   */
  allows(origin: string): boolean {
    if (origin === "") return true;
    if (this.anyOrigin) return true;
    const normalised = normalise(origin);
    if (normalised === null) return false;
    if (this.listed.has(normalised)) return true;
    const url = new URL(normalised);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname);
  }
}

/** `scheme://host[:port]` with default ports dropped and the host lower-cased; null when not an origin. */
function normalise(origin: string): string | null {
  try {
    const url = new URL(origin);
    const bare = (url.pathname === "/" || url.pathname === "") && !url.search && !url.hash && !url.username;
    if (url.origin === "null" || !bare) return null;
    return url.origin;
  } catch {
    return null;
  }
}
