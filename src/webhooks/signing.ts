// The dispatch signature of SPEC.md: lower-case hex HMAC-SHA256 keyed by the secret's UTF-8 bytes
// over `timestamp + "." + nonce + "." + rawBody`.

import { createHmac, randomBytes } from "node:crypto";

export function sign(secret: string, timestamp: number, nonce: string, body: Buffer | string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.${nonce}.`).update(body).digest("hex");
}

// Nonces come from a pool refilled 256 at a time: one CSPRNG call per nonce costs more than the HMAC.
const NONCE_BYTES = 16;
let pool = Buffer.alloc(0);
let offset = 0;

export function freshNonce(): string {
  if (offset + NONCE_BYTES > pool.length) {
    pool = randomBytes(NONCE_BYTES * 256);
    offset = 0;
  }
  const nonce = pool.toString("hex", offset, offset + NONCE_BYTES);
  offset += NONCE_BYTES;
  return nonce;
}

export interface SignedHeaders {
  [name: string]: string;
}

export function signedHeaders(
  secret: string,
  eventType: string,
  eventId: string,
  body: Buffer | string,
  nowSeconds: number,
): SignedHeaders {
  const nonce = freshNonce();
  return {
    "content-type": "application/json",
    "user-agent": "Leidex-Webhooks/1",
    "x-mail-event": eventType,
    "x-mail-event-id": eventId,
    "x-mail-timestamp": String(nowSeconds),
    "x-mail-nonce": nonce,
    "x-mail-signature": sign(secret, nowSeconds, nonce, body),
  };
}
