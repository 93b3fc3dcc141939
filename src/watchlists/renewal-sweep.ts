// The renewal sweep: once a day on the trusted clock (and after each load, and at start), for
// every watched LEI, its live record's NextRenewalDate; when it is 60, 30, 7 or 1 days away, or
// fewer (a threshold passed while the server was down is sent late, once), the tenants watching
// it get one `lei.renewal_due` for the smallest threshold not below the days left. Each
// (tenant, LEI, renewal date, threshold) is recorded with its outbox rows in one transaction
// (WatchStore.notify), so a reminder goes out once, whatever restarts or sweeps come after; a
// renewed registration (a new date) starts again. On PostgreSQL one node sweeps (the sweep
// cursor's lease); the day it swept is its cursor.

import { TrustedClock } from "../time/trusted-clock.js";
import type { Webhooks } from "../webhooks/webhook-state.js";
import { LEASE_MS } from "./change-events.js";
import { SingleFlight } from "./single-flight.js";
import type { LiveData, ParentKind } from "./live-data.js";
import { SWEEP_CURSOR, type RenewalNotice, type WatchStore } from "./watch-store.js";

export const RENEWAL_THRESHOLDS = [60, 30, 7, 1] as const;
const DAY_MS = 86_400_000;
const CHECK_MS = 60_000;
const PAGE = 1000;
/** notices written per transaction */
const NOTICES = 500;

/** The threshold a renewal `daysLeft` days away falls under (the smallest not below it), or null beyond 60 days or once past. */
export function thresholdFor(daysLeft: number): number | null {
  if (daysLeft < 0 || daysLeft > RENEWAL_THRESHOLDS[0]) return null;
  return RENEWAL_THRESHOLDS.filter((t) => daysLeft <= t).at(-1) ?? null;
}

/** Whole UTC days from `today` (YYYY-MM-DD) to the renewal date's calendar day as written; null when it is no date. */
export function daysUntil(renewal: string, today: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(renewal);
  if (!m) return null;
  const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isFinite(at) ? Math.round((at - Date.parse(`${today}T00:00:00Z`)) / DAY_MS) : null;
}

export interface SweepDeps {
  store: WatchStore;
  webhooks: Webhooks;
  live: LiveData;
  me: string;
  kick: () => void;
  log: (line: string) => void;
  /** the sweep's clock (a TrustedClock: a forward step of the wall clock sends nothing early) */
  nowMs?: () => number;
}

export class RenewalSweep {
  private readonly nowMs: () => number;
  /** a load went live since the last sweep: sweep again today */
  private dirty = true;
  private readonly job = new SingleFlight(
    () => this.sweep(),
    (err) => {
      if (err !== null) this.deps.log(`renewal sweep failed (${err.message}); it runs again within a minute`);
    },
  );
  /** reminders written since start (notices; each with a row per subscribed endpoint) */
  sent = 0;

  constructor(private readonly deps: SweepDeps) {
    const clock = new TrustedClock();
    this.nowMs = deps.nowMs ?? (() => clock.now());
  }

  start(): void {
    this.job.start(CHECK_MS);
  }

  stop(): void {
    this.job.stop();
  }

  /** A load went live: its renewal dates are swept (what was sent before is not sent again). */
  loaded(): void {
    this.dirty = true;
    this.run();
  }

  run(): void {
    this.job.run();
  }

  private async sweep(): Promise<void> {
    const { store, live, me } = this.deps;
    if (!live.ready()) return;
    const today = new Date(this.nowMs()).toISOString().slice(0, 10);
    const swept = await store.lead(SWEEP_CURSOR, me, LEASE_MS);
    if (swept === null || (swept >= today && !this.dirty)) return;
    this.dirty = false;
    const watching = await this.watchedLeis();
    let notices: RenewalNotice[] = [];
    let sent = 0;
    const flush = async (): Promise<void> => {
      if (notices.length === 0) return;
      sent += await store.notify(notices, Date.now());
      notices = [];
    };
    for (const [lei, tenants] of watching) {
      const record = live.record(lei);
      const renewal = record?.nextRenewalDate ?? null;
      if (renewal === null) continue;
      const days = daysUntil(renewal, today);
      const threshold = days === null ? null : thresholdFor(days);
      if (threshold === null) continue;
      const date = renewal.slice(0, 10);
      const id = `lxr_${lei}_${date}_${threshold}`;
      for (const [tenant, lists] of tenants) {
        const hooks = this.deps.webhooks.list(tenant).filter((h) => h.status === "enabled" && h.event_types.includes("lei.renewal_due"));
        // a tenant that subscribes later still gets the reminder it has not had
        if (hooks.length === 0) continue;
        const body = JSON.stringify({
          id,
          type: "lei.renewal_due",
          created_at: new Date(this.nowMs()).toISOString(),
          tenant_id: tenant,
          data: {
            lei,
            legalName: record?.legalName ?? null,
            nextRenewalDate: renewal,
            daysLeft: days,
            threshold,
            watchlists: [...lists].sort(),
          },
        });
        notices.push({
          tenant_id: tenant,
          lei,
          renewal_date: date,
          threshold,
          rows: hooks.map((h) => ({ webhook_id: h.id, tenant_id: tenant, event_id: id, event_type: "lei.renewal_due", body })),
        });
        if (notices.length >= NOTICES) await flush();
      }
    }
    await flush();
    await store.advance(SWEEP_CURSOR, me, swept, today > swept ? today : swept, []);
    if (sent > 0) {
      this.sent += sent;
      this.deps.log(`renewal sweep: ${sent} lei.renewal_due reminders for ${watching.size} watched LEIs`);
      this.deps.kick();
    }
  }

  /** Every watched LEI (named in a list, or a filter list's member now), with the tenants and lists watching it. */
  private async watchedLeis(): Promise<Map<string, Map<string, Set<string>>>> {
    const out = new Map<string, Map<string, Set<string>>>();
    const watch = (lei: string, tenant: string, list: string): void => {
      let tenants = out.get(lei);
      if (!tenants) out.set(lei, (tenants = new Map()));
      const lists = tenants.get(tenant);
      if (lists) lists.add(list);
      else tenants.set(tenant, new Set([list]));
    };
    let after = { lei: "", watchlist_id: "" };
    for (;;) {
      const page = await this.deps.store.watched(after, PAGE);
      for (const w of page) watch(w.lei, w.tenant_id, w.watchlist_id);
      if (page.length < PAGE) break;
      after = page[page.length - 1];
    }
    for (const f of await this.deps.store.filterLists()) {
      for (const kind of ["ultimateParent", "directParent"] as ParentKind[]) {
        const parent = f.filter?.[kind];
        if (parent) for (const lei of this.deps.live.childrenOf(parent, kind)) watch(lei, f.tenant_id, f.id);
      }
    }
    return out;
  }
}
