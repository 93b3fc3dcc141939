// The mailbox equality rule (src/webhooks/mailbox.ts, docs/webhooks.md "Mailbox equality"): the
// local part exact but for ASCII case, the domain IDNA-normalized; no Unicode folding of the
// local part, so look-alikes (KELVIN SIGN, dotted capital I, fullwidth letters) stay apart.

import t from "tap";
import { normalAddress, normalRouteMatch } from "../../src/webhooks/mailbox.js";

t.test("addresses", async (t) => {
  t.equal(normalAddress(" Kate@X.Example "), "kate@x.example");
  t.equal(normalAddress("\u212Aate@x.example"), "\u212Aate@x.example", "KELVIN SIGN is not k");
  t.not(normalAddress("\u212Aate@x.example"), normalAddress("kate@x.example"));
  t.equal(normalAddress("\u0130nfo@x.example"), "\u0130nfo@x.example", "dotted capital I is not folded");
  t.equal(normalAddress("\uFF4Bate@x.example"), "\uFF4Bate@x.example", "a fullwidth k is not k");
  t.equal(normalAddress("\u00C4rger@x.example"), "\u00C4rger@x.example", "non-ASCII capitals are kept as given");
  t.equal(normalAddress("ann@B\u00DCCHER.example"), "ann@b\u00FCcher.example");
  t.equal(normalAddress("ann@xn--bcher-kva.example"), "ann@b\u00FCcher.example", "the ASCII form of the same domain");
  t.equal(normalAddress("kate@\u212A.example"), "kate@k.example", "domains map as IDNA maps them");
  t.equal(normalAddress("x@[127.0.0.1]"), "x@[127.0.0.1]", "a domain IDNA refuses is ASCII-lower-cased only");
  t.equal(normalAddress("Abc"), "abc", "no @: ASCII-lower-cased (a list cursor)");
});

t.test("inbound route matches", async (t) => {
  t.equal(normalRouteMatch("*"), "*");
  t.equal(normalRouteMatch("@IN.Example"), "@in.example");
  t.equal(normalRouteMatch("Support@IN.example"), "support@in.example");
  t.equal(normalRouteMatch("\u212Aate@in.example"), "\u212Aate@in.example");
});
