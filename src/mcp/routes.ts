// /mcp on the uWS front: the HTTP rules of the Streamable HTTP transport that hold before any
// JSON-RPC is read (Origin, method, Accept, Content-Type, body size, JSON, one message per POST)
// and the rate limit, checked here; then the message goes to an MCP thread, where the SDK answers
// it (mcp-threads.ts). Rate limited per IP with the same limiter as /v1. Every refusal is a
// JSON-RPC error object with id null unless a request id is known, so MCP clients can show the
// message.

import { JSON_RPC_TRANSPORT_ERROR as TRANSPORT_ERROR, jsonRpcError } from "../http/error-shapes.js";
import { RETRY_AFTER, type OperationDoc } from "../http/route.js";
import { acceptsGzip, type HttpServer, type Reply } from "../http/server.js";
import type { McpThreads } from "./mcp-threads.js";
import { OriginPolicy } from "./origin-policy.js";
import { isJsonContentType } from "./json-content-type.js";
import { MAX_MCP_BATCH } from "./tool-schemas.js";

/** Tool arguments are a few short strings; 64 KiB is far above any honest call. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

// JSON-RPC 2.0's error codes (transport refusals: JSON_RPC_TRANSPORT_ERROR)
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;

const EXPOSED_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After";
const ALLOWED_REQUEST_HEADERS =
  "Content-Type, Accept, Authorization, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID";
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

const MCP_DOC: OperationDoc = {
  method: "post",
  summary: "MCP (Streamable HTTP): one JSON-RPC message per POST",
  description:
    "Tools search_legal_entities, get_legal_entity, list_facet_values and get_dataset_stats. Stateless: GET and DELETE are 405 (no SSE stream, no session). " +
    "The Accept header must list application/json and text/event-stream. Pages from an Origin other than loopback or --mcp-origins are refused.",
  body: {
    schema: {
      type: "object",
      required: ["jsonrpc", "method"],
      properties: {
        jsonrpc: { const: "2.0" },
        id: { type: ["string", "integer"] },
        method: { type: "string" },
        params: { type: "object" },
      },
    },
    example: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "search_legal_entities", arguments: { query: "deutsche bank" } },
    },
    required: true,
  },
  responses: {
    200: {
      description: "The JSON-RPC response",
      schema: {
        type: "object",
        properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer"] }, result: { type: "object" } },
      },
    },
    202: { description: "A notification was accepted", contentType: "text/plain", schema: { type: "string" } },
    400: { description: "Not JSON, a batch, or a malformed header" },
    403: { description: "The Origin may not call /mcp" },
    404: { description: "subscriptions/listen: the tool list never changes" },
    406: { description: "Accept lacks application/json or text/event-stream" },
    503: { description: "Too many MCP requests are waiting, or the MCP thread is restarting", headers: RETRY_AFTER },
  },
};

export interface McpRouteOptions {
  /** Web origins allowed besides loopback pages (`*` = any); see OriginPolicy. */
  allowedOrigins?: readonly string[];
}

export function registerMcpRoutes(server: HttpServer, threads: McpThreads, options: McpRouteOptions = {}): void {
  const origins = new OriginPolicy(options.allowedOrigins);
  const routeOptions = { name: "mcp", area: "mcp", rateLimited: "by-weight", maxBodyBytes: MAX_MCP_BODY_BYTES, doc: MCP_DOC } as const;

  server.route("any", "/mcp", routeOptions, async (req, reply) => {
    const headers = new Map(req.headers()); // uWS frees the request at the first await
    const ip = req.ip;
    const header = (name: string): string => headers.get(name) ?? "";
    const method = req.method.toUpperCase();

    const origin = header("origin");
    if (!origins.allows(origin)) {
      return reply.json(
        403,
        jsonRpcError(
          TRANSPORT_ERROR,
          `Forbidden: origin '${origin}' may not call /mcp; allowed are clients that send no Origin, loopback pages and the origins given by --mcp-origins`,
        ),
      );
    }
    if (origin !== "") {
      reply.header("Access-Control-Allow-Origin", origin).header("Vary", "Origin").header("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    if (method === "OPTIONS") return preflight(reply, header("access-control-request-headers"));
    if (method !== "POST") {
      // stateless server: no SSE stream to open (GET) and no session to end (DELETE)
      return reply
        .header("Allow", "POST, OPTIONS")
        .json(
          405,
          jsonRpcError(
            TRANSPORT_ERROR,
            `Method Not Allowed: ${method} /mcp; this server is stateless and offers no SSE stream or session, send each JSON-RPC message with POST`,
          ),
        );
    }
    if (!acceptsJsonAndEventStream(header("accept"))) {
      return reply.json(
        406,
        jsonRpcError(TRANSPORT_ERROR, "Not Acceptable: the Accept header must list both application/json and text/event-stream"),
      );
    }
    if (!isJsonContentType(header("content-type"))) {
      return reply.json(415, jsonRpcError(TRANSPORT_ERROR, "Unsupported Media Type: Content-Type must be application/json"));
    }

    const body = (await req.body()).toString("utf8"); // over the cap: BodyTooLargeError, answered 413 by the server
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return reply.json(400, jsonRpcError(PARSE_ERROR, "Parse error: the body is not valid JSON"));
    }
    if (Array.isArray(message)) {
      // batches existed only in 2025-03-26; one message per POST also keeps the rate limit per call
      return reply.json(
        400,
        jsonRpcError(INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported; send one message per POST"),
      );
    }
    // a batch tool call weighs its LEIs on the rate limit, as POST /v1/entities/batch does
    if (!server.rateLimit(ip, batchWeight(message) - 1, reply)) return;
    const listen = subscriptionRequestId(message);
    if (listen !== undefined) {
      // a subscription stream would stay open with nothing to say: the tool list never changes
      return reply.json(
        404,
        jsonRpcError(
          METHOD_NOT_FOUND,
          "Method not found: subscriptions/listen; the tool list of this server never changes (tools.listChanged is false)",
          listen,
        ),
      );
    }

    const flat: string[] = [];
    for (const [name, value] of headers) flat.push(name, value);
    threads.serve(reply, flat, body, acceptsGzip(header("accept-encoding")), requestId(message));
  });
}

function preflight(reply: Reply, requestedHeaders: string): void {
  reply
    .header("Allow", "POST, OPTIONS")
    .header("Access-Control-Allow-Methods", "POST, OPTIONS")
    .header("Access-Control-Allow-Headers", HEADER_LIST.test(requestedHeaders) ? requestedHeaders : ALLOWED_REQUEST_HEADERS)
    .header("Access-Control-Max-Age", "86400")
    .send(204, "", "text/plain");
}

/**
 * Whether an Accept header lists both media types a Streamable HTTP client must accept. As in
 * the SDK's own check, wildcards do not count: the spec asks clients to list both explicitly.
 */
export function acceptsJsonAndEventStream(accept: string): boolean {
  const accepted = new Set<string>();
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(type);
  }
  return accepted.has("application/json") && accepted.has("text/event-stream");
}

/** How many LEIs or rows a get_legal_entities or match_legal_entities call asks for (1 for any other message). */
function batchWeight(message: unknown): number {
  if (message === null || typeof message !== "object") return 1;
  const { method, params } = message as {
    method?: unknown;
    params?: { name?: unknown; arguments?: { leis?: unknown; rows?: unknown } } | null;
  };
  if (method !== "tools/call") return 1;
  const items =
    params?.name === "get_legal_entities"
      ? params.arguments?.leis
      : params?.name === "match_legal_entities"
        ? params.arguments?.rows
        : undefined;
  return Array.isArray(items) ? Math.max(1, Math.min(items.length, MAX_MCP_BATCH)) : 1;
}

/** A request's JSON-RPC id; null for a notification or a response. */
function requestId(message: unknown): string | number | null {
  if (message === null || typeof message !== "object") return null;
  const { id } = message as { id?: unknown };
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** The id of a subscriptions/listen request, else undefined. */
function subscriptionRequestId(message: unknown): string | number | null | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (method !== "subscriptions/listen") return undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
