// SSRF guard for receiver URLs: HTTPS only, no userinfo, and no address that is not globally
// routable, whether written as an IP literal or reached through DNS. A URL is checked when it is
// set (static checks, then the name is resolved: every answer must be public) and again at connect
// time (lookup below, pinned), so a name that changes its answer after creation is caught too.
// Hosts named in --webhook-allow-hosts (exact host names or IP literals) skip the address check:
// for self-hosters with private receivers and for tests.

import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP } from "node:net";
import type { Reply } from "../http/server.js";

const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  blocked.addSubnet(net, bits, "ipv6");

/** An IPv6 address as 8 groups of 16 bits (an embedded dotted quad read as two groups); null when malformed. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const tail: number[] = [];
  const quad = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const o = quad.slice(2).map(Number);
    if (o.some((x) => x > 255)) return null;
    tail.push((o[0] << 8) | o[1], (o[2] << 8) | o[3]);
    text = quad[1].endsWith("::") ? quad[1] : quad[1].slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const read = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = read(halves[0]);
  const rest = halves.length === 2 ? read(halves[1]) : [];
  if (!head || !rest) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
}

const v4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address carries, whatever the spelling (hex groups or a dotted quad),
 * else null: IPv4-compatible ::a.b.c.d, IPv4-mapped ::ffff:a.b.c.d, IPv4-translated
 * ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002:AABB:CCDD::/48 and Teredo 2001:0::/32 (its
 * client address, stored inverted). A packet to any of them can end at that IPv4 address, so the
 * guard judges it as that address too.
 */
export function embeddedV4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return v4Of(g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4Of(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4Of(g[6], g[7]);
  if (g[0] === 0x2002) return v4Of(g[1], g[2]);
  if (g[0] === 0x2001 && g[1] === 0) return v4Of(g[6] ^ 0xffff, g[7] ^ 0xffff);
  return null;
}

/**
 * Public on every reading: an IPv6 address must lie outside the blocked IPv6 ranges and, when it
 * carries an IPv4 address, that address must be public too. NAT64 64:ff9b::/96 is judged by the
 * address it carries (DNS64 networks answer every IPv4 host that way); 64:ff9b:1::/48, 6to4 and
 * Teredo stay refused as whole ranges whatever they carry.
 */
export function isGlobalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family === 6) {
    if (ipv6Groups(address) === null) return false;
    const v4 = embeddedV4(address);
    if (v4 !== null && blocked.check(v4, "ipv4")) return false;
    return !blocked.check(address.replace(/%.*$/, ""), "ipv6");
  }
  return false;
}

/** A host as compared: lower case, no IPv6 brackets, no trailing dot (`localhost.` is `localhost`). */
const normalHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");

type Lookup = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void,
) => void;

/** Resolver answers meaning "this name has no address" (as opposed to "the resolver failed"). */
const NO_SUCH_NAME = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA", "ENONAME"]);
export const RESOLVE_TIMEOUT_MS = 5000;

export interface ResolveProblem {
  status: 400 | 503;
  message: string;
}

export class UrlGuard {
  private readonly allowed: Set<string>;

  constructor(allowHosts: string[]) {
    this.allowed = new Set(allowHosts.map(normalHost));
  }

  isAllowedHost(host: string): boolean {
    return this.allowed.has(normalHost(host));
  }

  /**
   * The DNS check made when a URL is set (after problem() found nothing): every address the name
   * resolves to must be public. A name with no address is a 400 ("does not resolve": a receiver
   * that cannot be reached is a mistake to report now, not after days of failed retries); a
   * resolver that fails or does not answer within 5 s is a 503 (try again). IP literals and
   * allowed hosts are not resolved here.
   */
  async resolvedProblem(
    raw: string,
    resolve: Lookup = dnsLookup as unknown as Lookup,
    timeoutMs = RESOLVE_TIMEOUT_MS,
  ): Promise<ResolveProblem | null> {
    const host = normalHost(new URL(raw).hostname);
    if (this.isAllowedHost(host) || isIP(host)) return null;
    let timer: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      new Promise<{ err: NodeJS.ErrnoException | null; list: { address: string; family: number }[] }>((res) => {
        resolve(host, { all: true }, (err, list) => res({ err, list: list ?? [] }));
      }),
      new Promise<null>((res) => {
        timer = setTimeout(() => res(null), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (answer === null) return { status: 503, message: `url host ${host} could not be resolved within ${timeoutMs / 1000} s; try again` };
    if (answer.err) {
      const code = answer.err.code ?? "error";
      return NO_SUCH_NAME.has(code)
        ? { status: 400, message: `url host ${host} does not resolve (${code})` }
        : { status: 503, message: `url host ${host} could not be resolved right now (${code}); try again` };
    }
    if (answer.list.length === 0) return { status: 400, message: `url host ${host} does not resolve (no address)` };
    const bad = answer.list.find((a) => !isGlobalAddress(a.address));
    return bad ? { status: 400, message: `url host ${host} resolves to a non-public address (${bad.address})` } : null;
  }

  /** The static checks (no DNS): null when fine, else the reason. */
  problem(raw: string): string | null {
    // the URL parser silently drops tabs and line breaks; a stored URL must be the one that is used
    if (/[\u0000-\u001f\u007f-\u009f]/.test(raw)) return "url must not contain control characters (CR, LF, tab, ...)";
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "url is not a valid absolute URL";
    }
    if (url.protocol !== "https:") return "url must use https";
    if (url.username || url.password) return "url must not carry a user name or password";
    if (url.hash) return "url must not carry a fragment";
    const host = normalHost(url.hostname);
    if (this.isAllowedHost(host)) return null;
    if (isIP(host)) {
      if (isGlobalAddress(host)) return null;
      const v4 = isIP(host) === 6 ? embeddedV4(host) : null;
      return `url points at a non-public address (${host}${v4 ? `, which carries ${v4}` : ""})`;
    }
    if (
      host === "localhost" ||
      host.endsWith(".localhost") ||
      host.endsWith(".local") ||
      host.endsWith(".internal") ||
      !host.includes(".")
    ) {
      return `url points at a local host name (${host})`;
    }
    return null;
  }

  /**
   * A dns.lookup replacement for the connection: resolves every address and refuses the connection
   * when any of them is not public (unless the host is allowed), then connects to the first.
   */
  lookupFor(resolve: typeof dnsLookup = dnsLookup) {
    return (
      hostname: string,
      options: object,
      callback: (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
    ): void => {
      resolve(hostname, { all: true }, (err, addresses) => {
        if (err) {
          callback(err, "");
          return;
        }
        const list = addresses as { address: string; family: number }[];
        if (!this.isAllowedHost(hostname)) {
          const bad = list.find((a) => !isGlobalAddress(a.address));
          if (bad) {
            callback(new Error(`blocked: ${hostname} resolves to non-public address ${bad.address}`), "");
            return;
          }
        }
        if (list.length === 0) {
          callback(new Error(`no address for ${hostname}`), "");
          return;
        }
        if ((options as { all?: boolean }).all) callback(null, list);
        else callback(null, list[0].address, list[0].family);
      });
    };
  }
}

/**
 * The SSRF checks of a receiver URL being set: static ones, then the name is resolved (every
 * address must be public). Answers the request and returns true when the URL is refused.
 */
export async function refuseUrl(guard: UrlGuard, url: string, reply: Reply): Promise<boolean> {
  const problem = guard.problem(url);
  if (problem) {
    reply.error(400, problem);
    return true;
  }
  const dns = await guard.resolvedProblem(url);
  if (!dns) return false;
  if (dns.status === 503) reply.header("Retry-After", "5");
  reply.error(dns.status, dns.message);
  return true;
}
