// Messages between the front and an MCP thread. The front sends a POST that passed its HTTP
// checks; the thread answers it with the SDK's response, and meanwhile asks the front for the
// tools' data (tool-data.ts). Flat shapes: headers as [name, value, name, value, ...], bodies as
// strings (a string costs the front no buffer, see ARCHITECTURE.md's garbage rules); only a
// compressed body travels as bytes.

import type { DataAnswer, DataOp } from "./tool-data.js";

/** Front → thread: one JSON-RPC message POSTed to /mcp. */
export interface McpRequestMessage {
  t: "request";
  id: number;
  /** the request's headers, lower-case names, flat */
  headers: string[];
  /** the body, a JSON object (the front checked) */
  body: string;
  /** whether the client takes gzip (the front's rule): the thread compresses an answer worth it */
  gzip: boolean;
}

/** Front → thread: the answer to a data call. */
export interface DataAnswerMessage {
  t: "data";
  id: number;
  answer: DataAnswer<DataOp>;
}

export type ToMcpThread = McpRequestMessage | DataAnswerMessage;

/** Thread → front: the HTTP answer to request `id`. */
export interface McpResponseMessage {
  t: "response";
  id: number;
  status: number;
  /** headers to add, flat; neither Content-Type nor hop-by-hop ones */
  headers: string[];
  contentType: string;
  /** the body; empty when `gzipped` holds it */
  body: string;
  gzipped: Uint8Array | null;
}

/** Thread → front: a tool's data call. */
export interface DataCallMessage {
  t: "data";
  id: number;
  op: DataOp;
  args: unknown;
}

/** Thread → front: the SDK is loaded; requests are answered from now on. */
export interface ReadyMessage {
  t: "ready";
}

export type FromMcpThread = McpResponseMessage | DataCallMessage | ReadyMessage;
