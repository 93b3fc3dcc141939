// When two mail addresses are the same mailbox (docs/webhooks.md, "Mailbox equality"): suppressions,
// event intake and inbound routes all compare and store addresses in this one normal form.
// - The domain is IDNA-normalized (UTS #46, as url.domainToASCII does: case-folded, mapped the way
//   a resolver would) and kept in its Unicode form; a domain IDNA refuses is ASCII-lower-cased.
// - The local part is compared exactly, except that ASCII letters are lower-cased (as mail
//   systems do in practice). No Unicode case folding or normalization (NFC, NFKC) is applied to
//   it: toLowerCase() turns KELVIN SIGN (U+212A) into "k", and NFC and NFKC turn it into "K", so
//   any of them would let a bounce for a look-alike address suppress a real one.

import { domainToASCII, domainToUnicode } from "node:url";

const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** A domain in its normal form (without the "@"). */
export function normalDomain(domain: string): string {
  const ascii = domainToASCII(domain);
  return ascii === "" ? asciiLower(domain) : domainToUnicode(ascii);
}

/** An address in its normal form: the local part as given, ASCII letters lower-cased; "@"; the domain IDNA-normalized. */
export function normalAddress(address: string): string {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf("@");
  if (at < 0) return asciiLower(trimmed);
  return `${asciiLower(trimmed.slice(0, at))}@${normalDomain(trimmed.slice(at + 1))}`;
}

/** An inbound route's match in its normal form: "*", "@domain" or an address. */
export function normalRouteMatch(match: string): string {
  const trimmed = match.trim();
  if (trimmed === "*") return trimmed;
  return trimmed.startsWith("@") ? `@${normalDomain(trimmed.slice(1))}` : normalAddress(trimmed);
}
