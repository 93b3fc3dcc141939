// The change feed's consumer: reads the feed after its durable cursor, turns each watched LEI's
// changes into events (lei-events.ts) for the endpoints of the tenants watching it, and writes
// the outbox rows and the cursor's new position in ONE transaction (WatchStore.advance). A kill -9
// anywhere therefore neither loses a change (the cursor stays where it was, and the rows read
// again next time) nor sends one twice (the rows and the cursor commit together). On PostgreSQL
// one node at a time holds the cursor's lease and consumes; the cursor moves only from the
// position it read, so a node that lost its lease writes nothing.
//
// It runs after each load's swap, at start (catching up with what a crash left), and every few
// seconds (a lease taken over, a failure retried). A load stores its changes before it goes live:
// they wait for this node's swap, so that an event reads the records it is about.

import type { ChangeStore, StoredChange } from "../changes/model.js";
import { nextTurn } from "../os/event-loop-turns.js";
import type { Webhooks } from "../webhooks/webhook-state.js";
import { eventBody, eventsOf, groupChanges, type ChangeGroup } from "./lei-events.js";
import type { LiveData, ParentKind } from "./live-data.js";
import { SingleFlight } from "./single-flight.js";
import { CHANGES_CURSOR, type EventRow, type WatchFilter, type WatchStore } from "./watch-store.js";

/**
 * LEIDEX_TEST_WATCH_EVENTS_PAUSED=1 (test-only, read once at start): the feed is left unread, as
 * by a process killed between a load's swap and its events (docs/webhooks.md).
 */
const PAUSED_FOR_TESTS = process.env.LEIDEX_TEST_WATCH_EVENTS_PAUSED === "1";
/** feed rows read per transaction */
const BATCH = 500;
const POLL_MS = 2_000;
/** a lease outlives several polls; a node that dies gives the work to another after it */
export const LEASE_MS = 30_000;

export interface WatchWorkDeps {
  store: WatchStore;
  changes: () => ChangeStore | null;
  webhooks: Webhooks;
  live: LiveData;
  /** this node's name among the nodes (its leases carry it) */
  me: string;
  /** new outbox rows are there: dispatch looks now */
  kick: () => void;
  log: (line: string) => void;
}

/** The tenants watching an LEI and, for each, the lists that do. */
type Watching = Map<string, Set<string>>;

export class ChangeEvents {
  private failing = false;
  private readonly job = new SingleFlight(
    () => this.consume(),
    (err) => {
      if (err === null) {
        if (this.failing) this.deps.log("watchlist events: the change feed is consumed again");
        this.failing = false;
        return;
      }
      // the cursor did not move: the same rows are read at the next run
      if (!this.failing)
        this.deps.log(`watchlist events: consuming the change feed failed (${err.message}); retrying every ${POLL_MS / 1000} s`);
      this.failing = true;
    },
  );
  /** events written since start, for the log and tests */
  written = 0;
  /**
   * A load stores its changes before it goes live, and its events are made once it is (its records
   * are the ones read): after a swap (and at start) the feed is read to its end; between swaps,
   * changes detected after the last such read wait for the next swap.
   */
  private drain = true;
  private liveSince = 0;

  constructor(private readonly deps: WatchWorkDeps) {}

  start(): void {
    this.job.start(POLL_MS);
  }

  stop(): void {
    this.job.stop();
  }

  /** A load went live: its changes are consumed now. */
  swapped(): void {
    this.drain = true;
    this.run();
  }

  /** Consumes what the feed holds after the cursor; a call while running makes it look once more after. */
  run(): void {
    this.job.run();
  }

  private async consume(): Promise<void> {
    if (PAUSED_FOR_TESTS) return;
    const { store, live, me } = this.deps;
    for (;;) {
      const feed = this.deps.changes();
      if (feed === null || !live.ready() || this.job.stopped) return;
      const position = await store.lead(CHANGES_CURSOR, me, LEASE_MS);
      if (position === null) return; // another node consumes
      const draining = this.drain;
      const read = await feed.list({ since: position, limit: BATCH });
      if (read.length === 0 && draining) {
        this.drain = false;
        this.liveSince = Date.now();
      }
      // rows of a load not live here yet wait for its swap (the feed is in id order, so is the cut)
      const early = draining ? -1 : read.findIndex((r) => Date.parse(r.detectedAt) > this.liveSince);
      const rows = early < 0 ? read : read.slice(0, early);
      if (rows.length === 0) return;
      const taken = early < 0 ? wholeGroups(rows, BATCH) : rows;
      const events = await this.plan(groupChanges(taken));
      const next = taken[taken.length - 1].id;
      if (!(await store.advance(CHANGES_CURSOR, me, position, next, events))) return;
      if (events.length > 0) {
        this.written += events.length;
        this.deps.kick();
      }
      // a load's changes are many batches, and the store's calls may not wait for anything
      await nextTurn();
    }
  }

  /** The outbox rows of the groups: per watched LEI, its events for each subscribed endpoint of each watching tenant. */
  private async plan(groups: ChangeGroup[]): Promise<EventRow[]> {
    const { store, live, webhooks } = this.deps;
    const leis = [...new Set(groups.map((g) => g.lei))];
    const named = new Map<string, { tenant_id: string; watchlist_id: string }[]>();
    for (const w of await store.watchersOf(leis)) {
      const of = named.get(w.lei);
      if (of) of.push(w);
      else named.set(w.lei, [w]);
    }
    const filters = await store.filterLists();
    const hooksOf = new Map<string, ReturnType<Webhooks["list"]>>();
    const enabledHooks = (tenant: string): ReturnType<Webhooks["list"]> => {
      let hooks = hooksOf.get(tenant);
      if (hooks === undefined) hooksOf.set(tenant, (hooks = webhooks.list(tenant).filter((h) => h.status === "enabled")));
      return hooks;
    };
    const rows: EventRow[] = [];
    for (const g of groups) {
      const watching: Watching = new Map();
      const watch = (tenant: string, list: string): void => {
        const lists = watching.get(tenant);
        if (lists) lists.add(list);
        else watching.set(tenant, new Set([list]));
      };
      for (const w of named.get(g.lei) ?? []) watch(w.tenant_id, w.watchlist_id);
      // the live record, read only for an LEI a list may watch (most of a load's changed LEIs none does)
      const record = watching.size > 0 || filters.length > 0 ? live.record(g.lei) : null;
      for (const f of filters) if (f.filter && filterMatches(f.filter, g, record)) watch(f.tenant_id, f.id);
      if (watching.size === 0) continue;
      const events = eventsOf(g, record);
      for (const [tenant, lists] of watching) {
        const hooks = enabledHooks(tenant);
        if (hooks.length === 0) continue;
        const names = [...lists].sort();
        for (const e of events) {
          const body = eventBody(e, tenant, names);
          for (const h of hooks)
            if (h.event_types.includes(e.type))
              rows.push({ webhook_id: h.id, tenant_id: tenant, event_id: e.id, event_type: e.type, body });
        }
      }
    }
    return rows;
  }
}

/**
 * A full batch ends with the group of its last row, which may go on in the next batch: it is
 * left for then (unless it is the whole batch), so that one load's changes of one LEI make one
 * event of each kind.
 */
function wholeGroups(rows: StoredChange[], batch: number): StoredChange[] {
  if (rows.length < batch) return rows;
  const last = rows[rows.length - 1];
  let cut = rows.length;
  while (cut > 0 && rows[cut - 1].lei === last.lei && rows[cut - 1].publication === last.publication) cut--;
  return cut === 0 ? rows : rows.slice(0, cut);
}

/**
 * Whether a filter list watches the group's LEI: its parent of the filter's kind is the filter's
 * LEI in the live record, or was or became it in this load (so that leaving the family is told).
 */
export function filterMatches(
  filter: WatchFilter,
  g: ChangeGroup,
  record: { directParent: string | null; ultimateParent: string | null } | null,
): boolean {
  for (const kind of ["ultimateParent", "directParent"] as ParentKind[]) {
    const parent = filter[kind];
    if (parent === undefined) continue;
    if (record?.[kind] === parent) return true;
    if (g.changes.some((c) => c.field === kind && (c.valueOld === parent || c.valueNew === parent))) return true;
  }
  return false;
}
