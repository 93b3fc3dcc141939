// The one answer to a request the data cannot serve yet (no collection loaded, or a slice being
// served again after its shard worker died), in every area: 503 with Retry-After, in the area's
// own error shape.

import { RETRY_AFTER, type ResponseDoc } from "./route.js";
import type { Reply } from "./server.js";

export const NOT_READY_RETRY_AFTER_SECONDS = 5;

export function replyNotReady(reply: Reply, message: string): void {
  reply.header("Retry-After", String(NOT_READY_RETRY_AFTER_SECONDS)).error(503, message);
}

/** The 503 in a route's OpenAPI operation. */
export const NOT_READY_RESPONSE: ResponseDoc = {
  description: "No collection is live yet, or a slice is being served again",
  headers: RETRY_AFTER,
};
