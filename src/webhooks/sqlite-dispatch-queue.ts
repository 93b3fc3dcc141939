// The dispatch side of state.db's outbox (one node): due rows are read per endpoint (as many as
// the front's fair share gives each) and leased by a flag, and every flag is cleared at start,
// since nothing is on its way then. Results, endpoint health and the
// failing of a disabled endpoint's rows commit in one transaction without waiting for the disk
// (relaxedTransaction): a result lost to a power cut only sends its delivery again.

import type { StateDb } from "../store/state-db.js";
import { relaxedTransaction, type Delivery, type Outbox, type Outcome } from "./outbox.js";
import type { DispatchQueue, HealthChange } from "./webhook-state.js";
import type { WebhookStore } from "./webhook-store.js";

export class SqliteDispatchQueue implements DispatchQueue {
  constructor(
    private readonly db: StateDb,
    private readonly outbox: Outbox,
    private readonly webhooks: WebhookStore,
  ) {
    outbox.clearLeases();
  }

  waiting(now: number): string[] {
    return this.outbox.waiting(now);
  }

  claim(now: number, share: ReadonlyMap<string, number>): Delivery[] {
    const due: Delivery[] = [];
    for (const [id, n] of share) for (const d of this.outbox.dueOf(id, now, n)) due.push(d);
    this.outbox.lease(
      due.map((d) => d.seq),
      true,
    );
    return due;
  }

  release(seqs: readonly number[]): void {
    this.outbox.lease(seqs, false);
  }

  fail(seqs: readonly number[], now: number): void {
    this.outbox.fail(seqs, now);
  }

  record(outcomes: readonly Outcome[], health: readonly HealthChange[], disabled: readonly string[], now: number): void {
    relaxedTransaction(this.db, () => {
      for (const h of health) {
        const w = this.webhooks.byIdAnyTenant(h.id);
        if (w) this.webhooks.update(w, h.change);
      }
      this.outbox.record(outcomes, now);
      // after the outcomes, so that a retry recorded in this batch cannot revive a disabled endpoint's row
      for (const id of disabled) this.outbox.failPending(id, now);
    });
  }
}
