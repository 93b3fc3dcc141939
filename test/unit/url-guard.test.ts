// Which addresses a webhook may reach (src/webhooks/url-guard.ts): public ones only, an IPv6
// address judged also by the IPv4 address it carries, whatever its spelling.

import t from "tap";
import { embeddedV4, isGlobalAddress } from "../../src/webhooks/url-guard.js";

t.test("IPv4: private, loopback, link-local, CGNAT and the like are not global", async (t) => {
  for (const a of [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "192.0.2.1",
  ]) {
    t.notOk(isGlobalAddress(a), `${a} refused`);
  }
  for (const a of ["8.8.8.8", "93.184.216.34", "1.1.1.1"]) t.ok(isGlobalAddress(a), `${a} allowed`);
  t.notOk(isGlobalAddress("example.com"), "a name is not an address");
});

t.test("IPv4 inside IPv6, in every spelling", async (t) => {
  t.equal(embeddedV4("::ffff:127.0.0.1"), "127.0.0.1", "mapped, dotted");
  t.equal(embeddedV4("::ffff:7f00:1"), "127.0.0.1", "mapped, hex");
  t.equal(embeddedV4("::127.0.0.1"), "127.0.0.1", "compatible");
  t.equal(embeddedV4("64:ff9b::a00:1"), "10.0.0.1", "NAT64");
  t.equal(embeddedV4("2002:c0a8:0101::1"), "192.168.1.1", "6to4");
  t.equal(embeddedV4("2001:0:4136:e378:8000:63bf:f5ff:fffe"), "10.0.0.1", "Teredo, inverted");
  t.equal(embeddedV4("2606:4700::1111"), null, "a plain IPv6 address");
  for (const a of ["::ffff:127.0.0.1", "::ffff:7f00:1", "64:ff9b::a00:1", "::1", "fe80::1", "fc00::1", "2002:c0a8:0101::1"])
    t.notOk(isGlobalAddress(a), `${a} refused`);
  t.ok(isGlobalAddress("64:ff9b::808:808"), "NAT64 of a public address");
  t.ok(isGlobalAddress("2606:4700::1111"));
});
