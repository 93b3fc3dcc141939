// Wires area C: stores on the shared state.db, the operator key, the intake writer thread, the
// dispatcher workers, the outbox pruner and the routes. LEIDEX_WEBHOOK_TIME_SCALE (test-only, default 1) divides every
// retry delay and retention period.

import type { HttpServer } from "../http/server.js";
import type { Metrics } from "../http/metrics.js";
import type { RateLimiter } from "../http/rate-limit.js";
import type { StateDb } from "../store/state-db.js";
import { Backlog } from "./backlog.js";
import { DispatchCenter } from "./dispatch-center.js";
import { InboundStore } from "./inbound-store.js";
import { Intake } from "./intake.js";
import { operatorKey } from "./operator-key.js";
import { Outbox } from "./outbox.js";
import { OutboxPruner } from "./outbox-pruner.js";
import { registerWebhookRoutes } from "./routes.js";
import { SuppressionStore } from "./suppression-store.js";
import { TenantStore } from "./tenant-store.js";
import { TrustedClock } from "../time/trusted-clock.js";
import { UrlGuard } from "./url-guard.js";
import { WebhookStore } from "./webhook-store.js";

export interface WebhookConfig {
  dataDir: string;
  operatorKey: string | null;
  dispatchers: number;
  allowHosts: string[];
  caFile: string | null;
  timeoutSeconds: number;
  /** the guard against guessing keys, shared with the keyed API: one budget per address */
  guessing: RateLimiter;
}

/** What the server keeps of the area: a way to stop its background work. */
export interface WebhookAreaHandle {
  stop(): Promise<void>;
}

export function startWebhookArea(
  server: HttpServer,
  db: StateDb,
  config: WebhookConfig,
  log: (line: string) => void,
  metrics: Metrics | null = null,
): WebhookAreaHandle {
  const op = operatorKey(config.operatorKey, config.dataDir);
  log(op.banner);
  const rawScale = Number(process.env.LEIDEX_WEBHOOK_TIME_SCALE ?? "1");
  const scale = Number.isFinite(rawScale) && rawScale > 0 ? rawScale : 1;
  const nowMs = (): number => Date.now();
  // prunes and disables are judged on a clock a forward step cannot move
  const trusted = new TrustedClock(nowMs);
  const decisionNowMs = (): number => trusted.now();
  const tenants = new TenantStore(db);
  const webhooks = new WebhookStore(db);
  const suppressions = new SuppressionStore(db);
  const outbox = new Outbox(db);
  const inbound = new InboundStore(db);
  const dispatch = new DispatchCenter(db, outbox, webhooks, inbound, {
    workers: config.dispatchers,
    workerData: { caFile: config.caFile, allowHosts: config.allowHosts, timeoutMs: config.timeoutSeconds * 1000 },
    scale,
    nowMs,
    decisionNowMs,
    log,
    metrics,
  });
  const backlog = new Backlog(db);
  const intake = new Intake(db, {
    backlog,
    nowMs,
    directAllowance: () => dispatch.directAllowance(),
    handOff: (h) => dispatch.handOff(h),
    onLost: (afterSeq) => dispatch.releaseAfter(afterSeq),
    log,
  });
  const pruner = new OutboxPruner(outbox, { scale, nowMs, decisionNowMs, log, metrics });
  if (metrics) {
    metrics.gauge("leidex_webhook_deliveries_in_flight", "Webhook deliveries handed to dispatcher threads and not yet recorded.", () => [
      [{}, dispatch.inFlight],
    ]);
  }
  const guard = new UrlGuard(config.allowHosts);
  registerWebhookRoutes(server, {
    db,
    backlog,
    inbound,
    operatorKey: op.value,
    tenants,
    webhooks,
    suppressions,
    outbox,
    intake,
    dispatch,
    guard,
    guessing: config.guessing,
    nowMs,
  });
  dispatch.start();
  pruner.start();
  return {
    stop: async () => {
      await pruner.stop();
      await intake.stop();
      await dispatch.stop();
    },
  };
}
