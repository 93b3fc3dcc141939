// A licence document: JSON naming the licensee, a tier, an expiry and entitlements, signed with
// Ed25519 by whoever issues licences. The server checks it offline against the public key given
// with --license-public-key. The document travels as base64url text and the signature is over its
// exact bytes, so no canonical JSON is needed.

import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { ajv, describeSchemaError } from "../http/json-schema.js";

export const MAX_PARTNER_BATCH = 10_000;

export const licenseDocumentSchema = {
  type: "object",
  required: ["licensee", "tier", "issued_at", "expires_at", "entitlements"],
  additionalProperties: false,
  properties: {
    licensee: { type: "string", minLength: 1, maxLength: 200 },
    tier: { type: "string", minLength: 1, maxLength: 50, description: "e.g. partner" },
    issued_at: { type: "integer", minimum: 0, description: "Unix seconds" },
    expires_at: { type: "integer", minimum: 0, description: "Unix seconds; the licence stops applying after it" },
    entitlements: {
      type: "object",
      required: ["clients"],
      additionalProperties: false,
      properties: {
        clients: {
          type: "array",
          minItems: 1,
          maxItems: 1000,
          items: { type: "string", maxLength: 64 },
          description: "Client addresses or CIDR blocks (203.0.113.7, 198.51.100.0/24, 2001:db8::/32) the entitlements apply to",
        },
        rate_limit: { type: "integer", minimum: 1, maximum: 100_000_000, description: "Requests per rate window for those clients" },
        batch_size: { type: "integer", minimum: 1, maximum: MAX_PARTNER_BATCH, description: "LEIs per batch lookup for those clients" },
      },
    },
  },
} as const;

export interface LicenseDocument {
  licensee: string;
  tier: string;
  issued_at: number;
  expires_at: number;
  entitlements: { clients: string[]; rate_limit?: number; batch_size?: number };
}

const validate = ajv.compile<LicenseDocument>(licenseDocumentSchema);

export class LicenseRefused extends Error {}

/** The Ed25519 public key in PEM (a file's text) or as base64 of its 32 raw bytes; throws on anything else. */
export function publicKeyFrom(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith("-----BEGIN")
    ? createPublicKey(trimmed)
    : createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(trimmed, "base64").toString("base64url") }, format: "jwk" });
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`the licence public key must be Ed25519, not ${key.asymmetricKeyType}`);
  return key;
}

/** The clients a licence names, as a BlockList; LicenseRefused on an entry that is no address or block. */
/** Whether the list holds the client's address (an IPv4 client on a dual-stack socket as IPv4). */
export function listsClient(list: BlockList, ip: string): boolean {
  if (ip === "") return false;
  const v4 = ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
  return list.check(v4, v4.includes(":") ? "ipv6" : "ipv4");
}

export function clientList(clients: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of clients) {
    const [address, bits, extra] = entry.split("/");
    const family = isIP(address);
    const prefix = bits === undefined ? null : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      extra !== undefined ||
      (prefix !== null && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= max && /^\d+$/.test(bits!)))
    ) {
      throw new LicenseRefused(`entitlements.clients: '${entry}' is not an IP address or CIDR block`);
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === null) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}

/**
 * The document, once its signature, fields and dates check out; LicenseRefused with the reason
 * otherwise. `encoded` and `signature` are base64url (padding allowed). `nowSeconds` null: the
 * expiry is not judged here (a stored licence is judged again at each use).
 */
export function verifyLicense(encoded: string, signature: string, key: KeyObject, nowSeconds: number | null): LicenseDocument {
  const bytes = Buffer.from(encoded, "base64url");
  const sig = Buffer.from(signature, "base64url");
  if (bytes.length === 0) throw new LicenseRefused("license is not base64url text");
  if (sig.length !== 64) throw new LicenseRefused("signature must be the 64 bytes of an Ed25519 signature, in base64url");
  if (!verify(null, bytes, key, sig))
    throw new LicenseRefused("the signature does not match the licence and this server's licence public key");
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new LicenseRefused("the signed licence is not JSON");
  }
  if (!validate(document)) throw new LicenseRefused(describeSchemaError("licence", validate.errors));
  if (nowSeconds !== null && document.expires_at <= nowSeconds)
    throw new LicenseRefused(`the licence expired at ${new Date(document.expires_at * 1000).toISOString()}`);
  clientList(document.entitlements.clients);
  return document;
}
