// Wires area C: its stores (state.db, or PostgreSQL with --database), the operator key, the event
// intake, the dispatcher workers, the outbox pruner and the routes. LEIDEX_WEBHOOK_TIME_SCALE (test-only, default 1) divides every
// retry delay and retention period.

import type { HttpServer } from "../http/server.js";
import type { Metrics } from "../http/metrics.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { DispatchCenter } from "./dispatch-center.js";
import type { PersistedKey } from "../store/persisted-key.js";
import { OutboxPruner } from "./outbox-pruner.js";
import { registerWebhookRoutes } from "./routes.js";
import { RecordClock } from "../time/record-clock.js";
import { SteadyClock } from "../time/steady-clock.js";
import { TrustedClock } from "../time/trusted-clock.js";
import { UrlGuard } from "./url-guard.js";
import type { WebhookStores } from "./webhook-state.js";
import { startWatchlists, type WatchWiring } from "../watchlists/area.js";

export interface WebhookConfig {
  operatorKey: PersistedKey;
  dispatchers: number;
  allowHosts: string[];
  caFile: string | null;
  timeoutSeconds: number;
  /** the guard against guessing keys, shared with the keyed API: one budget per address */
  guessing: RateLimiter;
}

/** What the server keeps of the area: a way to stop its background work. */
export interface WebhookAreaHandle {
  /** a load went live: watchlist events and renewal reminders are looked for now */
  loaded(): void;
  stop(): Promise<void>;
}

export function startWebhookArea(
  server: HttpServer,
  stores: WebhookStores,
  config: WebhookConfig,
  log: (line: string) => void,
  metrics: Metrics | null = null,
  /** the watchlists (src/watchlists/), with the stores and live data they read */
  watch: WatchWiring | null = null,
): WebhookAreaHandle {
  const op = config.operatorKey;
  log(op.banner);
  const rawScale = Number(process.env.LEIDEX_WEBHOOK_TIME_SCALE ?? "1");
  const scale = Number.isFinite(rawScale) && rawScale > 0 ? rawScale : 1;
  // three clocks against wall-clock steps (docs/webhooks.md, "Clock steps"): times recorded are
  // never behind the steady time; prunes and disables are judged on a clock a forward step cannot
  // move; retries are scheduled and found due on one no step moves
  const recorded = new RecordClock();
  const nowMs = (): number => recorded.now();
  const trusted = new TrustedClock();
  const decisionNowMs = (): number => trusted.now();
  const steady = new SteadyClock();
  const retryNowMs = (): number => steady.now();
  const dispatch = new DispatchCenter(stores.queue, stores.webhooks, stores.inbound, {
    workers: config.dispatchers,
    workerData: { caFile: config.caFile, allowHosts: config.allowHosts, timeoutMs: config.timeoutSeconds * 1000 },
    scale,
    nowMs: retryNowMs,
    decisionNowMs,
    recordNowMs: nowMs,
    log,
    metrics,
  });
  const intake = stores.openIntake(dispatch, nowMs, log);
  const pruner = new OutboxPruner(stores.outbox, { scale, nowMs, decisionNowMs, retryNowMs, log, metrics });
  if (metrics) {
    metrics.gauge("leidex_webhook_deliveries_in_flight", "Webhook deliveries handed to dispatcher threads and not yet recorded.", () => [
      [{}, dispatch.inFlight],
    ]);
  }
  const watchlists = watch ? startWatchlists(watch, { webhooks: stores.webhooks, kick: () => dispatch.kick(), log, metrics }) : null;
  registerWebhookRoutes(server, {
    operatorKey: op.value,
    tenants: stores.tenants,
    webhooks: stores.webhooks,
    inbound: stores.inbound,
    inboundIntake: stores.inboundIntake,
    suppressions: stores.suppressions,
    log: stores.log,
    intake,
    dispatch,
    guard: new UrlGuard(config.allowHosts),
    guessing: config.guessing,
    nowMs,
    ...(watchlists ? { more: watchlists.routes } : {}),
  });
  dispatch.start();
  stores.attach(dispatch);
  pruner.start();
  return {
    loaded: () => watchlists?.loaded(),
    stop: async () => {
      watchlists?.stop();
      await pruner.stop();
      await intake.stop();
      await dispatch.stop();
      await stores.stop();
    },
  };
}
