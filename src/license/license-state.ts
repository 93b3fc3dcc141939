// The installation's licence: at most one activated licence document, kept in state.db and
// checked again at every start against the configured public key. While it is valid (signed,
// not expired) its entitlements apply to the client addresses it lists: their own rate limit and
// batch size. Everything else is served as without a licence.

import type { KeyObject } from "node:crypto";
import type { BlockList } from "node:net";
import { migrate, type StateDb } from "../store/state-db.js";
import { clientList, LicenseRefused, verifyLicense, type LicenseDocument } from "./license-document.js";

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

export class LicenseState {
  private active: Active | null = null;

  constructor(
    private readonly db: StateDb,
    /** null: this server takes no licences (no --license-public-key) */
    private readonly publicKey: KeyObject | null,
    private readonly nowSeconds: () => number,
    log: (line: string) => void,
  ) {
    migrate(db, [
      `CREATE TABLE IF NOT EXISTS license (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL, signature TEXT NOT NULL)`,
    ]);
    const stored = db.prepare("SELECT document, signature FROM license WHERE id = 1").get() as
      { document: string; signature: string } | undefined;
    if (!stored) return;
    if (publicKey === null) {
      log("a licence is stored but no --license-public-key is given: it does not apply");
      return;
    }
    try {
      this.active = this.check(stored.document, stored.signature);
    } catch (err) {
      if (!(err instanceof LicenseRefused)) throw err;
      log(`the stored licence does not apply: ${err.message}`);
    }
  }

  get acceptsLicenses(): boolean {
    return this.publicKey !== null;
  }

  private check(document: string, signature: string): Active {
    if (this.publicKey === null) throw new LicenseRefused("this server takes no licences: start it with --license-public-key");
    const verified = verifyLicense(document, signature, this.publicKey, this.nowSeconds());
    return { document: verified, clients: clientList(verified.entitlements.clients) };
  }

  /** Verifies and stores the licence, replacing any other; LicenseRefused (nothing stored) otherwise. */
  activate(document: string, signature: string): Activation {
    const active = this.check(document, signature);
    this.db
      .prepare(
        "INSERT INTO license (id, document, signature) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET document = excluded.document, signature = excluded.signature",
      )
      .run(document, signature);
    this.active = active;
    return this.activation();
  }

  /** Removes the licence; false when there was none. */
  deactivate(): boolean {
    const removed = this.db.prepare("DELETE FROM license WHERE id = 1").run().changes > 0;
    this.active = null;
    return removed;
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
    if (value === undefined || !this.valid() || ip === "") return null;
    const v4 = ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip; // an IPv4 client on a dual-stack socket
    return active!.clients.check(v4, v4.includes(":") ? "ipv6" : "ipv4") ? value : null;
  }

  rateLimitFor(ip: string): number | null {
    return this.entitlement(ip, "rate_limit");
  }

  batchSizeFor(ip: string): number | null {
    return this.entitlement(ip, "batch_size");
  }
}
