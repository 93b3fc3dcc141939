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
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.88.99.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24],
  ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128], ["::1", 128], ["64:ff9b::", 96], ["64:ff9b:1::", 48], ["100::", 64], ["2001::", 23], ["2001:db8::", 32],
  ["2002::", 16], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8],
] as const) blocked.addSubnet(net, bits, "ipv6");

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address, else null. */
function embeddedV4(address: string): string | null {
  const m = /^(?:0{0,4}:){0,5}(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address.replace(/^::/, "0:"));
  if (m) return m[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const a = parseInt(hex[1], 16), b = parseInt(hex[2], 16);
    return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return null;
}

export function isGlobalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family === 6) {
    const v4 = embeddedV4(address.toLowerCase());
    if (v4 !== null) return isIP(v4) === 4 && !blocked.check(v4, "ipv4");
    return !blocked.check(address, "ipv6");
  }
  return false;
}

/** A host as compared: lower case, no IPv6 brackets, no trailing dot (`localhost.` is `localhost`). */
const normalHost = (host: string): string => host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");

type Lookup = (hostname: string, options: { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void) => void;

/** Resolver answers meaning "this name has no address" (as opposed to "the resolver failed"). */
const NO_SUCH_NAME = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA", "ENONAME"]);
export const RESOLVE_TIMEOUT_MS = 5000;

export interface ResolveProblem { status: 400 | 503; message: string }

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
  async resolvedProblem(raw: string, resolve: Lookup = dnsLookup as unknown as Lookup, timeoutMs = RESOLVE_TIMEOUT_MS): Promise<ResolveProblem | null> {
    const host = normalHost(new URL(raw).hostname);
    if (this.isAllowedHost(host) || isIP(host)) return null;
    let timer: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      new Promise<{ err: NodeJS.ErrnoException | null; list: { address: string; family: number }[] }>((res) => {
        resolve(host, { all: true }, (err, list) => res({ err, list: list ?? [] }));
      }),
      new Promise<null>((res) => { timer = setTimeout(() => res(null), timeoutMs); }),
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
    let url: URL;
    try { url = new URL(raw); } catch { return "url is not a valid absolute URL"; }
    if (url.protocol !== "https:") return "url must use https";
    if (url.username || url.password) return "url must not carry a user name or password";
    if (url.hash) return "url must not carry a fragment";
    const host = normalHost(url.hostname);
    if (this.isAllowedHost(host)) return null;
    if (isIP(host)) return isGlobalAddress(host) ? null : `url points at a non-public address (${host})`;
    if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal") || !host.includes(".")) {
      return `url points at a local host name (${host})`;
    }
    return null;
  }

  /**
   * A dns.lookup replacement for the connection: resolves every address and refuses the connection
   * when any of them is not public (unless the host is allowed), then connects to the first.
   */
  lookupFor(resolve: typeof dnsLookup = dnsLookup) {
    return (hostname: string, options: object, callback: (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void): void => {
      resolve(hostname, { all: true }, (err, addresses) => {
        if (err) { callback(err, ""); return; }
        const list = addresses as { address: string; family: number }[];
        if (!this.isAllowedHost(hostname)) {
          const bad = list.find((a) => !isGlobalAddress(a.address));
          if (bad) { callback(new Error(`blocked: ${hostname} resolves to non-public address ${bad.address}`), ""); return; }
        }
        if (list.length === 0) { callback(new Error(`no address for ${hostname}`), ""); return; }
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
  if (problem) { reply.error(400, problem); return true; }
  const dns = await guard.resolvedProblem(url);
  if (!dns) return false;
  if (dns.status === 503) reply.header("Retry-After", "5");
  reply.error(dns.status, dns.message);
  return true;
}
