// Area C vocabulary: event kinds, message states and the transitions table, suppression reasons.

/** The highest per-endpoint concurrency a webhook or inbound route may ask for. */
export const MAX_CONCURRENCY = 64;

export const DELIVERY_KINDS = ["queued", "processed", "held", "released", "deferred", "delivered", "bounced", "dropped"] as const;
export const ENGAGEMENT_KINDS = ["opened", "clicked", "unsubscribed"] as const;
/** Every kind can be subscribed to; the lifecycle markers (queued, processed, held, released) are opt-in like the rest. */
export const EVENT_KINDS = [...DELIVERY_KINDS, ...ENGAGEMENT_KINDS] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
/** The events of watched LEIs (src/watchlists/): made by the server from the change feed and the renewal sweep, never posted. */
export const LEI_EVENT_KINDS = [
  "lei.changed",
  "lei.lapsed",
  "lei.renewal_due",
  "lei.retired",
  "lei.merged",
  "lei.parent_changed",
  "lei.name_changed",
] as const;
export type LeiEventKind = (typeof LEI_EVENT_KINDS)[number];
/** What a webhook's event_types may name: mail events and LEI events. */
export const SUBSCRIBABLE_KINDS = [...EVENT_KINDS, ...LEI_EVENT_KINDS] as const;
export type MessageState = (typeof DELIVERY_KINDS)[number];

export const SUPPRESSION_REASONS = ["hard_bounce", "spam_complaint", "unsubscribe", "manual"] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

const TERMINAL: MessageState[] = ["delivered", "bounced", "dropped"];

/**
 * Which delivery state may follow which. A message seen for the first time may start anywhere (the
 * pipeline need not report every marker). delivered, bounced and dropped are final; deferred may
 * repeat; held only leads to released or dropped.
 */
const NEXT: Record<MessageState, MessageState[]> = {
  queued: ["processed", "held", "deferred", "delivered", "bounced", "dropped"],
  processed: ["held", "deferred", "delivered", "bounced", "dropped"],
  held: ["released", "dropped"],
  released: ["processed", "deferred", "delivered", "bounced", "dropped"],
  deferred: ["deferred", "delivered", "bounced", "dropped"],
  delivered: [],
  bounced: [],
  dropped: [],
};

export function isDeliveryKind(kind: EventKind): kind is MessageState {
  return (DELIVERY_KINDS as readonly string[]).includes(kind);
}

/** null when allowed; otherwise why not. Engagement never moves the state but needs a message that was not bounced or dropped. */
export function transitionProblem(from: MessageState | null, kind: EventKind): string | null {
  if (!isDeliveryKind(kind)) {
    if (from === "bounced" || from === "dropped") return `a message in state '${from}' cannot be '${kind}'`;
    return null;
  }
  if (from === null) return null;
  if (NEXT[from].includes(kind)) return null;
  return TERMINAL.includes(from)
    ? `message is in final state '${from}'; cannot move to '${kind}'`
    : `message cannot move from '${from}' to '${kind}'`;
}
