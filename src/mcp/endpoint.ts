// The MCP protocol behind /mcp, as a fetch-style function (Request in, Response out) built from
// the official SDK (@modelcontextprotocol/server v2). It serves both protocol eras from one
// server factory:
// - 2026-07-28 ("modern": per-request _meta envelope, server/discover, no sessions) through the
//   SDK's createMcpHandler;
// - 2025-era clients (initialize handshake, MCP-Protocol-Version 2024-11-05 ... 2025-11-25)
//   through a stateless Streamable HTTP transport, one per request.
// Both answer every request with one JSON body, never an SSE stream: the tools send nothing
// before their result, and a finished body is what the uWS front writes in one corked call.

import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
  type McpServer,
} from "@modelcontextprotocol/server";

export class McpEndpoint {
  private readonly modern: McpHttpHandler;

  constructor(private readonly createServer: () => McpServer) {
    // 'reject': legacy traffic never reaches this handler, serve() routes it first
    this.modern = createMcpHandler(() => createServer(), { legacy: "reject" });
  }

  /**
   * One POSTed JSON-RPC message. `message` is the already parsed body (the Request carries the
   * same bytes); the SDK classifies the era from it and checks headers against it.
   */
  async serve(request: Request, message: unknown): Promise<Response> {
    if (await isLegacyRequest(request, message)) return this.serveLegacy(request, message);
    return this.modern.fetch(request, { parsedBody: message });
  }

  /**
   * The stateless 2025 idiom (no session id), with JSON responses instead of the SDK fallback's
   * SSE streams. The SDK transport checks Accept, Content-Type and MCP-Protocol-Version itself.
   */
  private async serveLegacy(request: Request, message: unknown): Promise<Response> {
    const server = this.createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: message });
    } finally {
      await transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    }
  }
}
