// Area C on state.db (one node): the SQLite stores, the intake writer thread and the outbox whose
// leases are flags cleared at start.

import type { StateDb } from "../store/state-db.js";
import { Backlog } from "./backlog.js";
import type { DispatchCenter } from "./dispatch-center.js";
import { InboundStore, SqliteInboundIntake } from "./inbound-store.js";
import { Intake } from "./intake.js";
import { Outbox } from "./outbox.js";
import { SqliteDispatchQueue } from "./sqlite-dispatch-queue.js";
import { SuppressionStore } from "./suppression-store.js";
import { TenantStore } from "./tenant-store.js";
import type { WebhookStores } from "./webhook-state.js";
import { WebhookStore } from "./webhook-store.js";

export function sqliteWebhookStores(db: StateDb): WebhookStores {
  const tenants = new TenantStore(db);
  const webhooks = new WebhookStore(db);
  const suppressions = new SuppressionStore(db);
  const outbox = new Outbox(db);
  const inbound = new InboundStore(db);
  const backlog = new Backlog(db);
  return {
    tenants,
    webhooks,
    inbound,
    suppressions,
    log: outbox,
    outbox,
    queue: new SqliteDispatchQueue(db, outbox, webhooks),
    inboundIntake: new SqliteInboundIntake(db, inbound, outbox, backlog),
    openIntake: (dispatch: DispatchCenter, nowMs: () => number, log: (line: string) => void) =>
      new Intake(db, {
        backlog,
        nowMs,
        directRooms: () => dispatch.directRooms(),
        handOff: (h) => dispatch.handOff(h),
        onLost: (afterSeq) => dispatch.releaseAfter(afterSeq, (onTheirWay) => outbox.releaseAfter(afterSeq, onTheirWay)),
        log,
      }),
    attach: () => undefined,
    stop: () => Promise.resolve(),
  };
}
