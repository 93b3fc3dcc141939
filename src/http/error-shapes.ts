// The error shape of each area of the API, in one place: the front answers every refusal of a
// route (framing, rate limit, key, body, not ready, a handler's own) in its area's shape, and the
// OpenAPI document describes the same shapes. SPEC.md: the public API's errors carry no code.

export type Area = "public" | "engine" | "webhooks" | "mcp" | "ops";

/** A JSON-RPC 2.0 error object; id null unless the request's id is known. */
export function jsonRpcError(code: number, message: string, id: string | number | null = null): string {
  return JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id });
}

/** JSON-RPC's code for a refusal by the transport (the MCP SDKs use it so). */
export const JSON_RPC_TRANSPORT_ERROR = -32000;

const errorField = (message: string): string => JSON.stringify({ error: message });

export const ERROR_BODY: Record<Area, (message: string) => string> = {
  public: errorField,
  engine: (message) => JSON.stringify({ message }), // Typesense's shape, which its clients read
  webhooks: errorField,
  mcp: (message) => jsonRpcError(JSON_RPC_TRANSPORT_ERROR, message),
  ops: errorField,
};

const ERROR_FIELD = {
  name: "ApiError",
  schema: {
    type: "object",
    required: ["error"],
    properties: { error: { type: "string", description: "What is wrong, for a person to read" } },
  },
};

/** The same shapes as JSON Schemas, for the OpenAPI document. */
export const ERROR_SCHEMA: Record<Area, { name: string; schema: object }> = {
  public: ERROR_FIELD,
  engine: {
    name: "EngineError",
    schema: {
      type: "object",
      required: ["message"],
      properties: { message: { type: "string", description: "What is wrong (Typesense's shape)" } },
    },
  },
  webhooks: ERROR_FIELD,
  mcp: {
    name: "JsonRpcError",
    schema: {
      type: "object",
      required: ["jsonrpc", "error", "id"],
      properties: {
        jsonrpc: { const: "2.0" },
        id: { type: ["string", "integer", "null"] },
        error: { type: "object", required: ["code", "message"], properties: { code: { type: "integer" }, message: { type: "string" } } },
      },
    },
  },
  ops: ERROR_FIELD,
};
