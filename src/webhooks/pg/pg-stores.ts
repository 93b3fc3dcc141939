// Area C on the shared PostgreSQL store (--database): every node takes events and API calls, and
// each endpoint's deliveries are sent by the one node holding its lease (endpoint-leases.ts).

import type { SharedDb } from "../../store/pg/shared-db.js";
import type { DispatchCenter } from "../dispatch-center.js";
import type { WebhookStores } from "../webhook-state.js";
import { EndpointLeases } from "./endpoint-leases.js";
import { PgInboundIntake, PgIntake } from "./pg-intake.js";
import { OUTBOX_CHANNEL, PgOutbox } from "./pg-outbox.js";
import { PgSuppressions } from "./pg-suppressions.js";
import { PgInboundRoutes, PgTenants, PgWebhookConfig, PgWebhooks } from "./pg-webhook-config.js";

/** notifications of new rows within this long wake dispatch once */
const WAKE_MS = 10;

export interface PgWebhookOptions {
  /** this node's id */
  node: string;
  attemptTimeoutMs: number;
  log: (line: string) => void;
}

export async function openPgWebhookStores(db: SharedDb, opts: PgWebhookOptions): Promise<WebhookStores> {
  const config = await PgWebhookConfig.open(db);
  let dispatch: DispatchCenter | null = null;
  const leases = new EndpointLeases(db, {
    node: opts.node,
    attemptTimeoutMs: opts.attemptTimeoutMs,
    endpoints: function* () {
      for (const w of config.webhooks.all()) yield w.id;
      for (const r of config.routes.all()) yield r.id;
    },
    busy: () => dispatch?.busyEndpoints() ?? new Set(),
    fence: () => dispatch?.abandon(),
    log: opts.log,
  });
  await leases.start();
  const outbox = new PgOutbox(db, config, leases);
  return {
    tenants: new PgTenants(config),
    webhooks: new PgWebhooks(config),
    inbound: new PgInboundRoutes(config),
    suppressions: new PgSuppressions(db),
    log: outbox,
    outbox,
    queue: outbox,
    inboundIntake: new PgInboundIntake(db),
    openIntake: (d, nowMs) => new PgIntake(db, nowMs, (h) => d.handOff(h)),
    attach: (d) => {
      dispatch = d;
      // rows another node stored or made due: this node looks soon (it may hold their endpoint),
      // once for all the notifications of a few ms
      let soon: NodeJS.Timeout | null = null;
      db.listen(OUTBOX_CHANNEL, () => {
        soon ??= setTimeout(() => {
          soon = null;
          d.kick();
        }, WAKE_MS);
      });
    },
    stop: async () => {
      await leases.stop();
      await config.close();
    },
  };
}
