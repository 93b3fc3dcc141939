// MCP thread: runs the MCP SDK for the POSTs to /mcp the front hands it (src/mcp/thread-server.ts),
// so that the SDK's work never holds up the front's event loop.
import { parentPort } from "node:worker_threads";
import { McpThreadServer } from "../src/mcp/thread-server.js";
import { yieldToFront } from "../src/os/thread-priority.js";

yieldToFront();
new McpThreadServer(parentPort!);
