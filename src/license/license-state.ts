// The installation's licence: at most one activated licence document, kept in the state store
// (state.db, or PostgreSQL with --database, where every node applies the one any node activated:
// store/replica.ts) and checked again whenever it is read, against the configured public key.
// While it is valid (signed, not expired) its entitlements apply to the client addresses it
// lists: their own rate limit and batch size. Everything else is served as without a licence.
// The stored licence's signature is checked when it is read from the store; its expiry at every
// use, on the clock given (a TrustedClock: a forward step of the wall clock does not expire it;
// a licence that looked expired because the clock was ahead at start applies again, without a
// restart, once the clock is put right).

import type { KeyObject } from "node:crypto";
import type { BlockList } from "node:net";
import { ReplicatedState, type ReplicaSource } from "../store/replica.js";
import { clientList, listsClient, LicenseRefused, verifyLicense, type LicenseDocument } from "./license-document.js";

export interface Activation {
  state: "none" | "active" | "expired";
  licensee?: string;
  tier?: string;
  expires_at?: number;
  entitlements?: LicenseDocument["entitlements"];
}

interface Active {
  document: LicenseDocument;
  clients: BlockList;
}

export interface StoredLicense {
  document: string;
  signature: string;
}

export interface LicenseSnapshot {
  version: number;
  stored: StoredLicense | null;
}

/** Where the licence is stored (sqlite-license.ts, pg-license.ts). Writes answer the version they made. */
export interface LicenseBackend extends ReplicaSource<LicenseSnapshot> {
  put(stored: StoredLicense): Promise<number>;
  /** null: there was none */
  remove(): Promise<number | null>;
  close(): Promise<void>;
}

export class LicenseState extends ReplicatedState<LicenseSnapshot> {
  private active: Active | null = null;
  /** Called whenever the licence that applies changes (here or, with --database, on another node): the front threads read it at once. */
  changed: (() => void) | null = null;

  private constructor(
    private readonly backend: LicenseBackend,
    /** null: this server takes no licences (no --license-public-key) */
    private readonly publicKey: KeyObject | null,
    private readonly nowSeconds: () => number,
    private readonly log: (line: string) => void,
  ) {
    super(backend);
  }

  static async open(
    backend: LicenseBackend,
    publicKey: KeyObject | null,
    nowSeconds: () => number,
    log: (line: string) => void,
  ): Promise<LicenseState> {
    const state = new LicenseState(backend, publicKey, nowSeconds, log);
    await state.replica.start();
    return state;
  }

  protected apply(snapshot: LicenseSnapshot): void {
    this.applyStored(snapshot);
    this.changed?.();
  }

  private applyStored({ stored }: LicenseSnapshot): void {
    this.active = null;
    if (!stored) return;
    if (this.publicKey === null) {
      this.log("a licence is stored but no --license-public-key is given: it does not apply");
      return;
    }
    try {
      this.active = this.check(stored.document, stored.signature, false);
    } catch (err) {
      if (!(err instanceof LicenseRefused)) throw err;
      this.log(`the stored licence does not apply: ${err.message}`);
      return;
    }
    if (!this.valid())
      this.log(
        `the stored licence has expired (at ${new Date(this.active.document.expires_at * 1000).toISOString()} by this server's clock)`,
      );
  }

  get acceptsLicenses(): boolean {
    return this.publicKey !== null;
  }

  /** `judgeExpiry` false: a stored licence, whose expiry is judged again at every use */
  private check(document: string, signature: string, judgeExpiry = true): Active {
    if (this.publicKey === null) throw new LicenseRefused("this server takes no licences: start it with --license-public-key");
    const verified = verifyLicense(document, signature, this.publicKey, judgeExpiry ? this.nowSeconds() : null);
    return { document: verified, clients: clientList(verified.entitlements.clients) };
  }

  /** Verifies and stores the licence, replacing any other; LicenseRefused (nothing stored) otherwise. */
  async activate(document: string, signature: string): Promise<Activation> {
    const active = this.check(document, signature);
    const version = await this.backend.put({ document, signature });
    this.active = active;
    this.replica.wrote(version);
    this.changed?.();
    return this.activation();
  }

  /** Removes the licence; false when there was none. */
  async deactivate(): Promise<boolean> {
    const version = await this.backend.remove();
    this.active = null;
    if (version !== null) this.replica.wrote(version);
    this.changed?.();
    return version !== null;
  }

  activation(): Activation {
    if (!this.active) return { state: "none" };
    const { licensee, tier, expires_at, entitlements } = this.active.document;
    return { state: this.valid() ? "active" : "expired", licensee, tier, expires_at, entitlements };
  }

  private valid(): boolean {
    return this.active !== null && this.active.document.expires_at > this.nowSeconds();
  }

  get isActive(): boolean {
    return this.valid();
  }

  /** The licence's entitlement for this client address, or null (none, expired, or not listed). */
  private entitlement(ip: string, which: "rate_limit" | "batch_size"): number | null {
    const active = this.active;
    const value = active?.document.entitlements[which];
    if (value === undefined || !this.valid()) return null;
    return listsClient(active!.clients, ip) ? value : null;
  }

  /** The rate limit a valid licence gives its client addresses, with those addresses; null without one. */
  rateEntitlement(): { clients: string[]; limit: number } | null {
    const limit = this.active?.document.entitlements.rate_limit;
    if (limit === undefined || !this.valid()) return null;
    return { clients: this.active!.document.entitlements.clients, limit };
  }

  rateLimitFor(ip: string): number | null {
    return this.entitlement(ip, "rate_limit");
  }

  batchSizeFor(ip: string): number | null {
    return this.entitlement(ip, "batch_size");
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}
