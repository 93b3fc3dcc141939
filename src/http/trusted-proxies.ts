// --trust-proxy: the addresses of reverse proxies whose X-Forwarded-For is believed. A request
// from one of them counts against the rate limit of the client the proxy names; from anyone
// else the header is ignored, since any client can send it.

import { BlockList, isIP } from "node:net";

export class TrustedProxies {
  private readonly list = new BlockList();

  /** Addresses or CIDR ranges ("127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"); throws on a bad entry. */
  constructor(entries: string[]) {
    for (const entry of entries) {
      const [address, bits, extra] = entry.split("/");
      const family = isIP(address);
      if (family === 0 || extra !== undefined) throw new Error(`not an IP address or CIDR range: "${entry}"`);
      const type = family === 4 ? "ipv4" : "ipv6";
      if (bits === undefined) {
        this.list.addAddress(address, type);
        continue;
      }
      const prefix = Number(bits);
      if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`bad prefix length in "${entry}"`);
      this.list.addSubnet(address, prefix, type);
    }
  }

  trusts(address: string): boolean {
    const plain = unmapped(address);
    const family = isIP(plain);
    return family !== 0 && this.list.check(plain, family === 4 ? "ipv4" : "ipv6");
  }

  /**
   * The client behind a chain of trusted proxies: X-Forwarded-For read from the right, skipping
   * trusted hops; the first untrusted (or malformed) hop is the client.
   */
  clientOf(peer: string, forwardedFor: string): string {
    if (forwardedFor === "" || !this.trusts(peer)) return peer;
    const hops = forwardedFor.split(",");
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = unmapped(hops[i].trim());
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!this.trusts(hop)) return hop;
    }
    return client;
  }
}

/** "::ffff:10.0.0.1" is the IPv4 address 10.0.0.1. */
function unmapped(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}
