// The official MCP clients, behind one small interface so a test can run the same checks with
// each: @modelcontextprotocol/sdk v1 (2025-era protocol) and @modelcontextprotocol/client v2 in
// its 'legacy' (initialize handshake) and 'auto' (server/discover, 2026-07-28) negotiation modes.
// Each client's fetch is wrapped to record what it put on the wire, so tests can tell which
// protocol era a conversation really used.

import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";

export type ClientFlavour = "sdk-v1" | "client-v2-legacy" | "client-v2-auto";
export const CLIENT_FLAVOURS: ClientFlavour[] = ["sdk-v1", "client-v2-legacy", "client-v2-auto"];

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, { description?: string; [k: string]: unknown }>; required?: string[] };
  outputSchema?: { type: string; properties?: Record<string, unknown> };
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

export interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** One HTTP exchange as the client sent it. */
export interface SentRequest {
  method: string;
  protocolVersion: string | null;
  mcpMethod: string | null;
  body: string;
}

export interface McpTestClient {
  flavour: ClientFlavour;
  sent: SentRequest[];
  listTools(): Promise<ToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: "leidex-test", version: "1.0.0" };

function recordingFetch(sent: SentRequest[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? "GET",
      protocolVersion: headers.get("mcp-protocol-version"),
      mcpMethod: headers.get("mcp-method"),
      body: typeof init?.body === "string" ? init.body : "",
    });
    return fetch(input, init);
  };
}

export async function connectClient(flavour: ClientFlavour, url: string): Promise<McpTestClient> {
  const sent: SentRequest[] = [];
  const endpoint = new URL(url);
  if (flavour === "sdk-v1") {
    const client = new V1Client(CLIENT_INFO);
    await client.connect(new V1Transport(endpoint, { fetch: recordingFetch(sent) }));
    return {
      flavour,
      sent,
      listTools: async () => (await client.listTools()).tools as ToolInfo[],
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
      close: () => client.close(),
    };
  }
  const client = new V2Client(CLIENT_INFO, {
    versionNegotiation: { mode: flavour === "client-v2-auto" ? "auto" : "legacy" },
  });
  await client.connect(new V2Transport(endpoint, { fetch: recordingFetch(sent) }));
  return {
    flavour,
    sent,
    listTools: async () => (await client.listTools()).tools as ToolInfo[],
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}
