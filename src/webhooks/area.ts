// Wires area C: stores on the shared state.db, the operator key, the dispatcher workers and the
// routes. LEIDEX_WEBHOOK_TIME_SCALE (test-only, default 1) divides every retry delay.

import type { HttpServer } from "../http/server.js";
import type { StateDb } from "../store/state-db.js";
import { DispatchCenter } from "./dispatch-center.js";
import { InboundStore } from "./inbound-store.js";
import { Intake } from "./intake.js";
import { operatorKey } from "./operator-key.js";
import { Outbox } from "./outbox.js";
import { registerWebhookRoutes } from "./routes.js";
import { SuppressionStore } from "./suppression-store.js";
import { TenantStore } from "./tenant-store.js";
import { UrlGuard } from "./url-guard.js";
import { WebhookStore } from "./webhook-store.js";

export interface WebhookConfig {
  dataDir: string;
  operatorKey: string | null;
  dispatchers: number;
  allowHosts: string[];
  caFile: string | null;
  timeoutSeconds: number;
}

export function startWebhookArea(server: HttpServer, db: StateDb, config: WebhookConfig, log: (line: string) => void): DispatchCenter {
  const op = operatorKey(config.operatorKey, config.dataDir);
  log(op.banner);
  const scale = Number(process.env.LEIDEX_WEBHOOK_TIME_SCALE ?? "1");
  const nowMs = (): number => Date.now();
  const tenants = new TenantStore(db);
  const webhooks = new WebhookStore(db);
  const suppressions = new SuppressionStore(db);
  const outbox = new Outbox(db);
  const inbound = new InboundStore(db);
  const intake = new Intake(db, tenants, webhooks, suppressions, outbox, nowMs);
  const dispatch = new DispatchCenter(db, outbox, webhooks, inbound, {
    workers: config.dispatchers,
    workerData: { caFile: config.caFile, allowHosts: config.allowHosts, timeoutMs: config.timeoutSeconds * 1000 },
    scale: Number.isFinite(scale) && scale > 0 ? scale : 1,
    nowMs,
    log,
  });
  const guard = new UrlGuard(config.allowHosts);
  registerWebhookRoutes(server, { db, inbound, operatorKey: op.value, tenants, webhooks, suppressions, outbox, intake, dispatch, guard, nowMs });
  dispatch.start();
  return dispatch;
}
