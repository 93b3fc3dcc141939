// Wires the watchlists into area C: their routes (under the tenant key), the change feed's
// consumer and the renewal sweep, both writing into the webhooks' outbox and waking its dispatch.

import type { ChangeStore } from "../changes/model.js";
import type { Metrics } from "../http/metrics.js";
import type { TenantRoute } from "../webhooks/routes.js";
import type { Webhooks } from "../webhooks/webhook-state.js";
import { ChangeEvents } from "./change-events.js";
import type { LiveData } from "./live-data.js";
import { RenewalSweep } from "./renewal-sweep.js";
import { registerWatchlistRoutes } from "./routes.js";
import type { WatchStore } from "./watch-store.js";

/** What the server gives the watchlists. */
export interface WatchWiring {
  store: WatchStore;
  /** the change feed's store, once open (null: no feed yet) */
  changes: () => ChangeStore | null;
  live: LiveData;
  /** this node's name (its leases carry it) */
  me: string;
}

export interface WatchArea {
  routes(route: TenantRoute): void;
  /** a load went live: its changes and renewal dates are looked at now */
  loaded(): void;
  stop(): void;
}

export function startWatchlists(
  w: WatchWiring,
  area: { webhooks: Webhooks; kick: () => void; log: (line: string) => void; metrics: Metrics | null },
): WatchArea {
  const deps = { store: w.store, webhooks: area.webhooks, live: w.live, me: w.me, kick: area.kick, log: area.log };
  const events = new ChangeEvents({ ...deps, changes: w.changes });
  const sweep = new RenewalSweep(deps);
  area.metrics?.counterFrom(
    "leidex_watchlist_events_total",
    "Watchlist event deliveries written to the outbox (change: from the change feed; renewal: reminders of the renewal sweep).",
    () => [
      [{ source: "change" }, events.written],
      [{ source: "renewal" }, sweep.sent],
    ],
    ["source"],
  );
  events.start();
  sweep.start();
  return {
    routes: (route) => registerWatchlistRoutes(route, w.store),
    loaded: () => {
      events.swapped();
      sweep.loaded();
    },
    stop: () => {
      events.stop();
      sweep.stop();
    },
  };
}
