// SSRF guard for receiver URLs: HTTPS only, no userinfo, and no address that is not globally
// routable, whether written as an IP literal or reached through DNS. The dispatcher checks again
// at connect time (lookup below), so a name that changes its answer after the check is caught too.
// Hosts named in --webhook-allow-hosts (exact host names or IP literals) skip the address check:
// for self-hosters with private receivers and for tests.

import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP } from "node:net";

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

export class UrlGuard {
  private readonly allowed: Set<string>;

  constructor(allowHosts: string[]) {
    this.allowed = new Set(allowHosts.map((h) => h.toLowerCase().replace(/^\[|\]$/g, "")));
  }

  isAllowedHost(host: string): boolean {
    return this.allowed.has(host.toLowerCase().replace(/^\[|\]$/g, ""));
  }

  /** The static checks (no DNS): null when fine, else the reason. */
  problem(raw: string): string | null {
    let url: URL;
    try { url = new URL(raw); } catch { return "url is not a valid absolute URL"; }
    if (url.protocol !== "https:") return "url must use https";
    if (url.username || url.password) return "url must not carry a user name or password";
    if (url.hash) return "url must not carry a fragment";
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (this.isAllowedHost(host)) return null;
    if (isIP(host)) return isGlobalAddress(host) ? null : `url points at a non-public address (${host})`;
    const lower = host.toLowerCase();
    if (lower === "localhost" || lower.endsWith(".localhost") || lower.endsWith(".local") || lower.endsWith(".internal") || !lower.includes(".")) {
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
