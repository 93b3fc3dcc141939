// Who is calling the keyed API, and may they do this? The key travels in X-SEARCH-API-KEY (or
// X-TYPESENSE-API-KEY, which the official client sends), else in the x-search-api-key /
// x-typesense-api-key query parameter; the header wins. A missing, unknown or expired key is a
// 401 that says which; a valid key without the action or the collection is a 403 that names what
// is missing. Repeated bad keys from one address are slowed down to 429 (a guessing guard). The
// bootstrap key is compared in constant time (timingSafeEqual).

import { timingSafeEqual } from "node:crypto";
import type { RateDecision, RateLimiter } from "../http/rate-limit.js";
import type { KeyStore } from "./key-store.js";
import { actionAllowed, collectionAllowed, expired, FAR_FUTURE, type ApiKey } from "./model.js";
import { digestMatches, embeddedParams, parseScoped } from "./scoped.js";

export type Caller =
  | { kind: "bootstrap"; key: ApiKey }
  | { kind: "key"; key: ApiKey }
  | { kind: "scoped"; key: ApiKey; embedded: Record<string, string | number | boolean> };

export type AuthOutcome =
  { ok: true; caller: Caller } | { ok: false; status: 401 | 403 | 429; message: string; retryAfterSeconds?: number };

const SEARCH = "documents:search";

/** Verified scoped keys (HMAC, base64 and JSON work done once); their parent is re-checked every time. */
const SCOPED_CACHE_SIZE = 4096;

export class KeyAuth {
  private readonly bootstrapKey: ApiKey;
  private readonly bootstrapBytes: Buffer;
  private readonly scopedCache = new Map<string, { parent: ApiKey; embedded: Record<string, string | number | boolean> }>();

  constructor(
    private readonly store: KeyStore,
    bootstrapValue: string,
    private readonly failures: RateLimiter,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.bootstrapKey = {
      id: 0,
      value: bootstrapValue,
      description: "bootstrap key",
      actions: ["*"],
      collections: [],
      expiresAt: FAR_FUTURE,
      autodelete: false,
    };
    this.bootstrapBytes = Buffer.from(bootstrapValue, "utf8");
  }

  /**
   * Constant time over the value's bytes, so timing tells nothing of the bootstrap key but its
   * length, which is no secret (generated keys all have one). A value of another length, such as
   * every scoped key, costs no comparison and no hashing on the hot path.
   */
  isBootstrap(value: string): boolean {
    if (value.length !== this.bootstrapKey.value.length) return false;
    const bytes = Buffer.from(value, "utf8");
    return bytes.length === this.bootstrapBytes.length && timingSafeEqual(bytes, this.bootstrapBytes);
  }

  /** One guess charged to an address's budget, the one bad keys spend (see keys-routes.ts for why a chosen value costs one). */
  chargeGuess(ip: string): RateDecision | null {
    return this.failures.enabled ? this.failures.take(ip) : null;
  }

  /** The key a request presents: header first, then query parameter. */
  static presented(header: (name: string) => string, rawQuery: string): string | null {
    const fromHeader = header("x-search-api-key") || header("x-typesense-api-key");
    if (fromHeader) return fromHeader;
    const query = new URLSearchParams(rawQuery);
    return query.get("x-search-api-key") || query.get("x-typesense-api-key") || null;
  }

  /** `collections`: the collection named by the request and, for an alias, its target; [] for none. */
  check(ip: string, presented: string | null, action: string, collections: string[]): AuthOutcome {
    const outcome = this.decide(presented, action, collections);
    if (!outcome.ok && outcome.status === 401) {
      const guess = this.chargeGuess(ip);
      if (guess && !guess.allowed) {
        return {
          ok: false,
          status: 429,
          message: "too many requests with bad API keys from this address; wait a minute",
          retryAfterSeconds: guess.retryAfterSeconds,
        };
      }
    }
    return outcome;
  }

  private decide(presented: string | null, action: string, collections: string[]): AuthOutcome {
    if (!presented)
      return deny(
        401,
        "no API key: send it in the X-SEARCH-API-KEY header (or X-TYPESENSE-API-KEY, or the x-search-api-key query parameter)",
      );
    if (this.isBootstrap(presented)) return { ok: true, caller: { kind: "bootstrap", key: this.bootstrapKey } };
    const now = this.nowSeconds();
    const stored = this.store.byExactValue(presented);
    if (stored) {
      if (expired(stored, now)) return deny(401, `the API key expired at ${new Date(stored.expiresAt * 1000).toISOString()}`);
      const refused = refusalOf(stored, action, collections);
      return refused ? deny(403, refused) : { ok: true, caller: { kind: "key", key: stored } };
    }
    const verified = this.verifyScoped(presented);
    if (typeof verified === "string") return deny(401, verified);
    const { parent, embedded } = verified;
    const expiresAt = Math.min(parent.expiresAt, typeof embedded.expires_at === "number" ? embedded.expires_at : FAR_FUTURE);
    if (now > expiresAt) return deny(401, `the scoped API key expired at ${new Date(expiresAt * 1000).toISOString()}`);
    if (action !== SEARCH) return deny(403, `a scoped search key allows documents:search only, not ${action}`);
    const refused = refusalOf(parent, action, collections);
    return refused ? deny(403, refused) : { ok: true, caller: { kind: "scoped", key: parent, embedded } };
  }

  /** The parent and embedded parameters of a scoped key, or why it is refused. */
  private verifyScoped(presented: string): { parent: ApiKey; embedded: Record<string, string | number | boolean> } | string {
    const cached = this.scopedCache.get(presented);
    // a cached parent counts only while that very key is still stored (not deleted, not replaced)
    if (cached && this.store.byExactValue(cached.parent.value) === cached.parent) return cached;
    const token = parseScoped(presented);
    const parent = token ? this.store.byPrefix(token.prefix).find((k) => digestMatches(k, token)) : undefined;
    if (!token || !parent) return "unknown API key";
    if (parent.actions.length !== 1 || parent.actions[0] !== SEARCH)
      return "a scoped key's parent must hold exactly the documents:search action";
    const embedded = embeddedParams(token);
    if (typeof embedded === "string") return embedded;
    if (this.scopedCache.size >= SCOPED_CACHE_SIZE) this.scopedCache.delete(this.scopedCache.keys().next().value!);
    const entry = { parent, embedded };
    this.scopedCache.set(presented, entry);
    return entry;
  }
}

function refusalOf(key: ApiKey, action: string, collections: string[]): string | null {
  if (!actionAllowed(key.actions, action)) return `the API key lacks the action '${action}'`;
  if (collections.length > 0 && !collectionAllowed(key.collections, collections))
    return `the API key does not cover the collection '${collections[0]}'`;
  return null;
}

function deny(status: 401 | 403, message: string): AuthOutcome {
  return { ok: false, status, message };
}
