// What one mail event does, whichever store takes it: the kind it is reported as (a queued event
// to a suppressed address is dropped), the message state it moves to, the address it suppresses,
// and the exact body every subscriber receives. Pure: the store reads the message and the
// suppression first and writes what the plan says.

import { machineVerdict } from "./bot.js";
import type { MailEvent } from "./intake-protocol.js";
import { isDeliveryKind, transitionProblem, type EventKind, type MessageState, type SuppressionReason } from "./model.js";

/** A refusal of a whole batch; nothing of it is stored. */
export class IntakeError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

export interface KnownMessage {
  state: MessageState;
  delivered_at: number | null;
}

export interface EventPlan {
  kind: EventKind;
  /** the message's new state, when the event moves it */
  move: { state: MessageState; deliveredAt: number | null } | null;
  /** the address the event suppresses, and why */
  suppress: SuppressionReason | null;
  body: string;
}

const PASSED_ON = ["bounce_type", "smtp_code", "reason", "url", "user_agent", "ip", "http_method", "method"] as const;

/** The plan for `e`, given its message as stored and (for a queued event) the suppression of its recipient; throws IntakeError (409) on an impossible transition. */
export function planEvent(e: MailEvent, msg: KnownMessage | null, suppressedFor: SuppressionReason | null): EventPlan {
  let kind: EventKind = e.type;
  const data: Record<string, unknown> = { message_id: e.message_id, recipient: e.recipient, timestamp: e.timestamp };
  for (const k of PASSED_ON) if (e[k] !== undefined) data[k] = e[k];
  if (kind === "queued" && suppressedFor !== null) {
    kind = "dropped";
    data.reason = "suppressed";
    data.suppression_reason = suppressedFor;
    data.reported_as = "queued";
  }
  const problem = transitionProblem(msg?.state ?? null, kind);
  if (problem) throw new IntakeError(409, `event '${e.id}' (message '${e.message_id}'): ${problem}`);
  if (kind === "opened" || kind === "clicked") Object.assign(data, machineVerdict(e, msg?.delivered_at ?? null));
  const suppress = kind === "bounced" && e.bounce_type === "hard" ? "hard_bounce" : kind === "unsubscribed" ? "unsubscribe" : null;
  return {
    kind,
    move: isDeliveryKind(kind) ? { state: kind, deliveredAt: kind === "delivered" ? e.timestamp : null } : null,
    suppress,
    body: JSON.stringify({ id: e.id, type: kind, created_at: new Date(e.timestamp * 1000).toISOString(), tenant_id: e.tenant_id, data }),
  };
}
