// Where area C keeps its state: the seams between the routes, intake and dispatch on one side and
// a store on the other. Two stores implement them: state.db on one node (the SQLite classes,
// synchronous) and the shared PostgreSQL store with --database (webhooks/pg/, asynchronous), so
// a call may answer at once or later (Eventually). Tenants, their keys, webhooks and inbound
// routes are read from a copy in memory on either store; the rest is read where it is stored.

import type { DispatchCenter, HandOff } from "./dispatch-center.js";
import type { InboundRoute } from "./inbound-store.js";
import type { IntakeError } from "./event-plan.js";
import type { IntakeResult, MailEvent } from "./intake-protocol.js";
import type { Attempt, Delivery, Outcome } from "./outbox.js";
import type { Suppression } from "./suppression-store.js";
import type { SuppressionReason } from "./model.js";
import type { Tenant } from "./tenant-store.js";
import type { Webhook } from "./webhook-store.js";

export type Eventually<T> = T | Promise<T>;

export interface TenantKeyInfo {
  id: string;
  prefix: string;
  created_at: string;
}

export interface Tenants {
  create(name: string): Eventually<Tenant>;
  get(id: string): Tenant | null;
  list(): Tenant[];
  /** a new key: its value is returned here and never again */
  createKey(tenantId: string): Eventually<TenantKeyInfo & { key: string }>;
  listKeys(tenantId: string): Eventually<TenantKeyInfo[]>;
  revokeKey(tenantId: string, keyId: string): Eventually<boolean>;
  /** the tenant a presented key belongs to, or null */
  tenantOfKey(value: string): string | null;
}

export type WebhookChange = Partial<
  Pick<Webhook, "url" | "event_types" | "status" | "disabled_reason" | "max_concurrency" | "secret" | "failing_since">
>;

export interface Webhooks {
  create(tenantId: string, url: string, eventTypes: string[], maxConcurrency: number): Eventually<Webhook>;
  get(tenantId: string, id: string): Webhook | null;
  byIdAnyTenant(id: string): Webhook | null;
  list(tenantId: string): Webhook[];
  update(w: Webhook, change: WebhookChange): Eventually<Webhook>;
  delete(w: Webhook): Eventually<void>;
}

export type InboundChange = Partial<Pick<InboundRoute, "match" | "url" | "max_concurrency">>;

export interface InboundRoutes {
  create(tenantId: string, match: string, url: string, maxConcurrency?: number): Eventually<InboundRoute>;
  get(tenantId: string, id: string): InboundRoute | null;
  byIdAnyTenant(id: string): InboundRoute | null;
  list(tenantId: string): InboundRoute[];
  update(r: InboundRoute, change: InboundChange): Eventually<InboundRoute>;
  delete(r: InboundRoute): Eventually<void>;
  /** the route for a recipient: exact address, then domain, then catch-all; oldest first */
  match(recipient: string): InboundRoute | null;
}

export interface Suppressions {
  get(tenantId: string, address: string): Eventually<Suppression | null>;
  add(tenantId: string, address: string, reason: SuppressionReason): Eventually<Suppression>;
  remove(tenantId: string, address: string): Eventually<boolean>;
  list(tenantId: string, limit: number, after: string): Eventually<Suppression[]>;
}

/** The tenant's side of the outbox: the delivery log and redeliveries. */
export interface DeliveryLog {
  attempts(webhookId: string, outcome: string | null, before: number, limit: number): Eventually<(Attempt & { row: number })[]>;
  /** the delivery due at once, as a manual redelivery; false when unknown */
  redeliver(webhookId: string, deliveryId: string): Eventually<boolean>;
  /** the endpoint's failed deliveries created since `since` due at once; how many */
  redeliverFailed(webhookId: string, since: number): Eventually<number>;
  /** pending deliveries of the endpoint become failed (it was disabled or deleted), finished at `now` (a recorded time) */
  failPending(endpointId: string, now: number): Eventually<void>;
}

export interface EventIntake {
  /** resolves once the batch is committed; rejects with IntakeError when it is refused (nothing of it stored) */
  submit(events: MailEvent[]): Promise<IntakeResult>;
  /** the refusal a batch of the largest size would get now, before its body is parsed; null when there is room */
  busy(): IntakeError | null;
  stop(): Promise<void>;
}

/** A received inbound message, stored for dispatch in one transaction: `over` names a pending cap it would break (nothing stored). */
export type InboundStored = { over: string } | { over: null; handOff: HandOff };

export interface InboundIntake {
  store(route: InboundRoute, messageId: string, body: string, now: number, direct: boolean): Eventually<InboundStored>;
}

/** A change of an endpoint's health that a batch of results makes. */
export interface HealthChange {
  id: string;
  change: WebhookChange;
}

/** The dispatch side of the outbox: rows this node takes on, and what became of them. */
export interface DispatchQueue {
  /** endpoints with due rows not on their way that this node may send (on PostgreSQL, taking the free leases it should hold first) */
  waiting(now: number): Eventually<string[]>;
  /**
   * due rows of each endpoint in `share`, at most its number, now leased to this node: per
   * endpoint first attempts in event order, then retries by due time
   */
  claim(now: number, share: ReadonlyMap<string, number>): Eventually<Delivery[]>;
  /** leases of rows that are no longer on their way go (they are due again) */
  release(seqs: readonly number[]): Eventually<void>;
  /** rows whose endpoint is gone: failed */
  fail(seqs: readonly number[], now: number): Eventually<void>;
  /** one transaction: the attempts, the deliveries' new states, endpoint health, and the pending rows of endpoints just disabled failed */
  record(outcomes: readonly Outcome[], health: readonly HealthChange[], disabled: readonly string[], now: number): Eventually<void>;
}

/** Finished outbox rows and old delivery-log rows, deleted in batches; `myTurn` says whether this node prunes now (once for all nodes). */
export interface PrunableOutbox {
  myTurn(everyMs: number): Eventually<boolean>;
  pruneFinished(status: "delivered" | "failed", before: number, limit: number): Eventually<number>;
  pruneLog(before: number, limit: number): Eventually<number>;
  /** retries due more than a day after `now` (the retry clock) made due at once, up to a batch; how many */
  dueTooFarAhead(now: number): Eventually<number>;
}

/** Everything area C keeps, on one store. */
export interface WebhookStores {
  tenants: Tenants;
  webhooks: Webhooks;
  inbound: InboundRoutes;
  suppressions: Suppressions;
  log: DeliveryLog;
  outbox: PrunableOutbox;
  queue: DispatchQueue;
  inboundIntake: InboundIntake;
  /** the event intake, handing what it stores to `dispatch` */
  openIntake(dispatch: DispatchCenter, nowMs: () => number, log: (line: string) => void): EventIntake;
  /** dispatch runs: the store may wake it (rows other nodes stored) or make it give up what it holds */
  attach(dispatch: DispatchCenter): void;
  /** stops the store's own background work (after dispatch stopped) */
  stop(): Promise<void>;
}
