// Which node sends each endpoint's deliveries, when several share one PostgreSQL store. One node
// at a time holds an endpoint's lease (a row of endpoint_leases), and only the holder claims that
// endpoint's rows, so the endpoint's concurrency cap, kept by the holder's dispatcher thread, holds
// across all nodes together. Endpoints are spread by rendezvous hashing over the nodes alive
// (dispatch_nodes): a node takes the free leases of the endpoints that hash to it, and gives back
// an endpoint that now hashes elsewhere once nothing of it is on its way.
//
// Every HEARTBEAT_MS a node renews its node row and all its leases in one round trip each. A
// node killed stops renewing: after the lease period its endpoints' leases are free, and their
// rows, still marked with its name, are claimed again by the new holders (at least once); a node
// restarted on its data dir frees what its earlier run held at once. A node that
// cannot renew stops sending before its leases can expire (fence): it gives up every row it holds
// and runs on under a new name, so nothing it held is ever sent by two nodes at the same time.

import { randomBytes } from "node:crypto";
import { fnv1aOfAscii } from "../../engine/fnv.js";
import type { SharedDb } from "../../store/pg/shared-db.js";

export const HEARTBEAT_MS = 1_000;

export interface LeaseOptions {
  /** the node's name (its node id), part of each run's name */
  node: string;
  /** the longest a delivery attempt takes: a lease outlives a fenced node's last attempt */
  attemptTimeoutMs: number;
  /** every endpoint there is (webhooks and inbound routes) */
  endpoints: () => Iterable<string>;
  /** endpoints with deliveries on their way from this node */
  busy: () => ReadonlySet<string>;
  /** this node must give up every row it holds (its leases may lapse) */
  fence: () => void;
  log: (line: string) => void;
}

export class EndpointLeases {
  /** this run's name: rows and leases carry it; a new one after a fence */
  private name: string;
  readonly leaseMs: number;
  private live: string[] = [];
  /** prefers() of each endpoint asked about, for the current nodes alive and name */
  private preferred = new Map<string, boolean>();
  /** endpoints whose leases this run holds, with when each was taken (performance.now) */
  private held = new Map<string, number>();
  /** local time (performance.now) until which the leases renewed last are surely ours */
  private safeUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private reported = false;
  /** names this node ran under before a fence: removed (node rows, leases) at the next renewal */
  private retired: string[] = [];

  constructor(
    private readonly db: SharedDb,
    private readonly opts: LeaseOptions,
  ) {
    this.leaseMs = 2 * opts.attemptTimeoutMs + 5_000;
    this.name = this.newName();
  }

  get me(): string {
    return this.name;
  }

  private newName(): string {
    return `${this.opts.node}/${randomBytes(6).toString("hex")}`;
  }

  async start(): Promise<void> {
    // one process runs on a data dir: what earlier runs of this node held, they hold no more
    const earlier = `${this.opts.node}/%`;
    await this.db.pool.query("DELETE FROM endpoint_leases WHERE owner LIKE $1", [earlier]);
    await this.db.pool.query("DELETE FROM dispatch_nodes WHERE id LIKE $1", [earlier]);
    await this.beat();
    this.timer = setInterval(() => {
      // a renewal that hangs counts as failed once the leases could lapse
      if (this.held.size > 0 && performance.now() >= this.safeUntil) this.fenceNow("renewing them took too long");
      this.beating ??= this.beat()
        .catch(() => undefined)
        .finally(() => {
          this.beating = null;
        });
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    // give the leases back at once: the other nodes need not wait for them to lapse
    await this.db.pool.query("DELETE FROM endpoint_leases WHERE owner = $1", [this.me]).catch(() => undefined);
    await this.db.pool.query("DELETE FROM dispatch_nodes WHERE id = $1", [this.me]).catch(() => undefined);
  }

  /** The endpoints whose rows this node may claim now: leases held, on endpoints that hash to it. */
  claimable(): string[] {
    if (performance.now() >= this.safeUntil) return [];
    return [...this.held.keys()].filter((id) => this.prefers(id));
  }

  /** Endpoints that hash to this node and whose leases it does not hold yet. */
  wanted(): string[] {
    const out: string[] = [];
    for (const id of this.opts.endpoints()) if (!this.held.has(id) && this.prefers(id)) out.push(id);
    return out;
  }

  /** Leases just taken (by the claim's query). */
  took(ids: readonly string[]): void {
    const now = performance.now();
    for (const id of ids) this.held.set(id, now);
  }

  /** Does `endpoint` hash to this node among the nodes alive? (Remembered until the nodes alive change.) */
  private prefers(endpoint: string): boolean {
    let mine = this.preferred.get(endpoint);
    if (mine === undefined) {
      let best = "";
      let bestScore = -1;
      for (const node of this.live) {
        const score = fnv1aOfAscii(`${endpoint}\n${node}`);
        if (score > bestScore || (score === bestScore && node < best)) {
          best = node;
          bestScore = score;
        }
      }
      this.preferred.set(endpoint, (mine = best === this.name));
    }
    return mine;
  }

  /** The leases may lapse before this node hears the store again: it stops sending what it holds and runs on under a new name. */
  private fenceNow(why: string): void {
    const was = this.me;
    this.retired.push(was);
    this.name = this.newName();
    this.preferred = new Map();
    this.held = new Map();
    this.opts.fence();
    this.opts.log(`webhook dispatch: leases of ${was} could not be renewed (${why}); gave up its deliveries, continuing as ${this.me}`);
    this.reported = true;
  }

  /** Renews this node and its leases; gives back leases it should no longer hold; fences when renewing failed too long. */
  private async beat(): Promise<void> {
    const started = performance.now();
    const me = this.me;
    try {
      const lease = `${this.leaseMs} milliseconds`;
      await this.db.pool.query(
        `INSERT INTO dispatch_nodes (id, alive_until) VALUES ($1, now() + $2::interval)
         ON CONFLICT (id) DO UPDATE SET alive_until = excluded.alive_until`,
        [me, lease],
      );
      const renewed = await this.db.pool.query<{ endpoint_id: string }>(
        "UPDATE endpoint_leases SET until = now() + $2::interval WHERE owner = $1 RETURNING endpoint_id",
        [me, lease],
      );
      const live = await this.db.pool.query<{ id: string }>("SELECT id FROM dispatch_nodes WHERE alive_until > now() ORDER BY id");
      if (me !== this.me) return; // fenced meanwhile: these leases are not this run's
      if (this.retired.length > 0) {
        // what the earlier names held was given up at the fence: free for whoever it hashes to
        const retired = this.retired;
        await this.db.pool.query("DELETE FROM endpoint_leases WHERE owner = ANY($1)", [retired]);
        await this.db.pool.query("DELETE FROM dispatch_nodes WHERE id = ANY($1)", [retired]);
        this.retired = this.retired.filter((n) => !retired.includes(n));
      }
      // what the renewal found, and what a claim took while it ran (the renewal may have missed it)
      const held = new Map<string, number>();
      for (const r of renewed.rows) held.set(r.endpoint_id, this.held.get(r.endpoint_id) ?? started);
      for (const [id, at] of this.held) if (at >= started) held.set(id, at);
      this.held = held;
      const alive = live.rows.map((r) => r.id);
      if (alive.join() !== this.live.join()) this.preferred = new Map();
      this.live = alive;
      this.safeUntil = started + this.leaseMs - this.opts.attemptTimeoutMs - HEARTBEAT_MS;
      if (this.reported) this.opts.log(`webhook dispatch: leases renewed again as ${this.me}`);
      this.reported = false;
      // endpoints that hash elsewhere now go to their new holder once nothing of them is on its way
      const busy = this.opts.busy();
      const leaving = [...this.held.keys()].filter((id) => !this.prefers(id) && !busy.has(id));
      if (leaving.length > 0) {
        await this.db.pool.query("DELETE FROM endpoint_leases WHERE owner = $1 AND endpoint_id = ANY($2)", [me, leaving]);
        for (const id of leaving) this.held.delete(id);
      }
      await this.db.pool.query("DELETE FROM dispatch_nodes WHERE alive_until < now() - interval '1 day'");
    } catch (err) {
      if (this.held.size > 0 && performance.now() >= this.safeUntil) this.fenceNow((err as Error).message);
      else if (!this.reported) {
        this.opts.log(`webhook dispatch: renewing leases failed (${(err as Error).message}); retrying each second`);
        this.reported = true;
      }
      throw err;
    }
  }
}
