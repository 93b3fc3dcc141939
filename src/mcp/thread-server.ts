// An MCP thread's side (workers/mcp.ts): it runs the SDK for the POSTs the front hands it, as
// fetch Requests through McpEndpoint, and sends back each Response as status, headers and body,
// compressed here when the client takes gzip. The tools' data calls go to the front
// (RemoteData), which alone holds the data.

import type { MessagePort } from "node:worker_threads";
import { gzipSync } from "node:zlib";
import { JSON_RPC_TRANSPORT_ERROR, jsonRpcError } from "../http/error-shapes.js";
import { McpEndpoint } from "./endpoint.js";
import type { DataCallMessage, McpRequestMessage, McpResponseMessage, ReadyMessage, ToMcpThread } from "./thread-protocol.js";
import type { DataAnswer, DataCalls, DataOp, ToolData } from "./tool-data.js";
import { createLeiMcpServer } from "./tools.js";

/** The URL the SDK sees; it never leaves the thread, so the name is only a placeholder. */
const ENDPOINT_URL = "http://leidex.invalid/mcp";
/** Connection-level headers: they describe the hop from the client to uWS, not the message. */
const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
]);
/** The front's own threshold (http/server.ts): smaller answers go uncompressed, as every other route's. */
const GZIP_MIN_BYTES = 1024;
/** The front's error answers' media type (Reply.json), for the answers this thread makes itself. */
const JSON_TYPE = "application/json; charset=utf-8";

type Port = Pick<MessagePort, "postMessage" | "on">;

/** The tools' data, asked of the front one message per call. */
class RemoteData implements ToolData {
  private readonly waiting = new Map<number, (answer: DataAnswer<DataOp>) => void>();
  private calls = 0;

  constructor(private readonly port: Port) {}

  call<K extends DataOp>(op: K, args: DataCalls[K]["args"]): Promise<DataAnswer<K>> {
    const id = ++this.calls;
    const message: DataCallMessage = { t: "data", id, op, args };
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (answer: DataAnswer<DataOp>) => void);
      this.port.postMessage(message);
    });
  }

  answered(id: number, answer: DataAnswer<DataOp>): void {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    resolve?.(answer);
  }
}

export class McpThreadServer {
  private readonly data: RemoteData;
  private readonly endpoint: McpEndpoint;

  constructor(private readonly port: Port) {
    this.data = new RemoteData(port);
    this.endpoint = new McpEndpoint(() => createLeiMcpServer(this.data));
    port.on("message", (m: ToMcpThread) => {
      if (m.t === "data") this.data.answered(m.id, m.answer);
      else void this.serve(m);
    });
    const ready: ReadyMessage = { t: "ready" };
    port.postMessage(ready);
  }

  private async serve(m: McpRequestMessage): Promise<void> {
    let answer: McpResponseMessage;
    try {
      answer = await this.answer(m);
    } catch (err) {
      // a bug in the SDK or here: the front's answer to a handler that throws
      console.error(`mcp: ${(err as Error)?.stack ?? String(err)}`);
      answer = response(m, 500, [], JSON_TYPE, jsonRpcError(JSON_RPC_TRANSPORT_ERROR, "internal error"));
    }
    if (answer.gzipped) this.port.postMessage(answer, [answer.gzipped.buffer as ArrayBuffer]);
    else this.port.postMessage(answer);
  }

  private async answer(m: McpRequestMessage): Promise<McpResponseMessage> {
    let request: Request;
    try {
      const headers = new Headers();
      for (let i = 0; i < m.headers.length; i += 2) if (!HOP_BY_HOP.has(m.headers[i])) headers.append(m.headers[i], m.headers[i + 1]);
      request = new Request(ENDPOINT_URL, { method: "POST", headers, body: m.body });
    } catch {
      return response(m, 400, [], JSON_TYPE, jsonRpcError(JSON_RPC_TRANSPORT_ERROR, "Bad Request: a request header is malformed"));
    }
    const sdk = await this.endpoint.serve(request, JSON.parse(m.body));
    const body = await sdk.text();
    const headers: string[] = [];
    for (const [name, value] of sdk.headers) if (name !== "content-type" && !HOP_BY_HOP.has(name)) headers.push(name, value);
    return response(m, sdk.status, headers, sdk.headers.get("content-type") ?? "application/json", body);
  }
}

function response(m: McpRequestMessage, status: number, headers: string[], contentType: string, body: string): McpResponseMessage {
  const gzipped = m.gzip && Buffer.byteLength(body) >= GZIP_MIN_BYTES ? ownBytes(gzipSync(body, { level: 4 })) : null;
  return { t: "response", id: m.id, status, headers, contentType, body: gzipped ? "" : body, gzipped };
}

/** Bytes that own their whole ArrayBuffer, so it can be transferred (not copied) to the front. */
function ownBytes(bytes: Buffer): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  return new Uint8Array(bytes);
}
