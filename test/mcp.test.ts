// /mcp: the official MCP clients (SDK v1, client v2 in legacy and auto negotiation) connect,
// list the tools and call them with good and bad input, and every answer is checked against the
// HTTP API's answer to the same question; then the Streamable HTTP rules on the raw wire
// (Accept, Content-Type, protocol version, notifications, GET/DELETE, body cap, JSON, Origin),
// the rate limit shared with /v1, and input that must not hurt the server.

import t, { type Test } from "tap";
import { BAD_CHECK_LEI, withBadCheckDigits, withCheckDigits, writeFixture } from "./helpers/fixture.js";
import { CLIENT_FLAVOURS, connectClient, type McpTestClient, type ToolResult } from "./helpers/mcp-clients.js";
import { fetchGot, qs, runLeidex, startServer, tempDir, type Got, type Params } from "./helpers/server.js";

const fx = writeFixture(tempDir(t));
const srv = await startServer(t, { source: fx.csv, rateLimit: 0 });
const MCP = `${srv.base}/mcp`;

const TOOL_NAMES = [
  "find_entity_by_identifier",
  "get_corporate_family",
  "get_dataset_stats",
  "get_entity_changes",
  "get_legal_entities",
  "get_legal_entity",
  "list_facet_values",
  "match_legal_entities",
  "search_legal_entities",
];
const FILTERS = [
  "country",
  "jurisdiction",
  "status",
  "registrationStatus",
  "category",
  "legalForm",
  "managingLou",
  "city",
  "region",
  "directParent",
  "ultimateParent",
  "hasParent",
];
const VORLANDIA = fx.synthetic.find((r) => r.entity.legalName === "Vorlandia Kraftwerk Gesellschaft mbH")!.entity;

/** Every status /mcp answered in this file: none may be 5xx. */
const statuses: number[] = [];

// ---------------------------------------------------------------- helpers

const text = (r: ToolResult): string =>
  r.content
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n");

/** A SearchPage without its timing, the one field two runs of one query may differ in. */
const untimed = (page: unknown): unknown => {
  const { searchTimeMs: _ignored, ...rest } = page as Record<string, unknown>;
  return rest;
};

async function http(path: string): Promise<Got> {
  const r = await srv.get(path);
  statuses.push(r.status);
  return r;
}

interface RawOptions {
  headers?: Record<string, string>;
  method?: string;
  body?: string | Buffer;
}
const LEGACY_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

/** One request to /mcp as a client would put it on the wire; 10 s at most, so a hang fails the test. */
async function raw(options: RawOptions = {}): Promise<Got> {
  const r = await fetchGot(MCP, {
    method: options.method ?? "POST",
    headers: options.headers ?? LEGACY_HEADERS,
    body: options.body,
    signal: AbortSignal.timeout(10_000),
  });
  statuses.push(r.status);
  return r;
}

const rpc = (id: number, method: string, params?: object): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });

/** The body of a JSON-RPC error answer: its code and message. */
function rpcError(t: Test, r: Got, code: number): string {
  t.equal(r.body?.jsonrpc, "2.0", "a JSON-RPC message");
  t.equal(r.body?.error?.code, code, `error code ${code}`);
  t.type(r.body?.error?.message, "string");
  return r.body?.error?.message ?? "";
}

// ---------------------------------------------------------------- the three official clients

/** Tool calls whose answers must equal GET /v1/entities with the given query. */
const SEARCHES: { args: Record<string, unknown>; http: Params; why: string }[] = [
  { args: { query: "vorlandia kraftwrek" }, http: { q: "vorlandia kraftwrek" }, why: "a typo in the name" },
  { args: { query: "bank", limit: 7, page: 2 }, http: { q: "bank", limit: 7, page: 2 }, why: "a common word, second page" },
  {
    args: { country: "de", status: "active", facets: ["country", "status", "category"] },
    http: { country: "de", status: "active", facets: "country,status,category" },
    why: "filters alone, lower-case codes, facets",
  },
  {
    args: { query: "münchen", fields: "address", limit: 3 },
    http: { q: "münchen", fields: "address", limit: 3 },
    why: "address field only",
  },
  {
    args: { jurisdiction: "US", registrationStatus: "ISSUED,LAPSED", facets: ["jurisdiction"], limit: 100 },
    http: { jurisdiction: "US", registrationStatus: "ISSUED,LAPSED", facets: "jurisdiction", limit: 100 },
    why: "a country jurisdiction with its subdivisions, OR of statuses",
  },
  { args: { query: "zzzqqqxxx nothing like it" }, http: { q: "zzzqqqxxx nothing like it" }, why: "no match" },
  { args: { city: "Zurich", limit: 500 }, http: { city: "Zurich", limit: 500 }, why: "city folded, limit clamped to 100" },
];

for (const flavour of CLIENT_FLAVOURS) {
  t.test(`${flavour}: connects, lists the tools, calls them with good and bad input`, async (t) => {
    const client: McpTestClient = await connectClient(flavour, MCP);
    t.teardown(() => client.close());

    t.test("the protocol era on the wire", async (t) => {
      const versions = new Set(client.sent.filter((s) => s.method === "POST").map((s) => s.protocolVersion));
      if (flavour === "client-v2-auto") {
        t.ok(
          client.sent.some((s) => s.body.includes('"server/discover"')),
          "probes server/discover",
        );
        t.notOk(
          client.sent.some((s) => s.body.includes('"initialize"')),
          "and never falls back to initialize",
        );
        t.ok(versions.has("2026-07-28"), "speaks 2026-07-28");
      } else {
        t.ok(
          client.sent.some((s) => s.body.includes('"initialize"')),
          "opens with initialize",
        );
        t.notOk(versions.has("2026-07-28"), "stays in the 2025 era");
      }
    });

    t.test("tools/list: the eight tools, documented and annotated", async (t) => {
      const tools = await client.listTools();
      t.same(tools.map((tool) => tool.name).sort(), TOOL_NAMES);
      for (const tool of tools) {
        t.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
        t.equal(tool.annotations?.idempotentHint, true, `${tool.name} is idempotent`);
        t.equal(tool.annotations?.destructiveHint, false, `${tool.name} is not destructive`);
        t.ok((tool.description ?? "").length > 60, `${tool.name} says when to use it`);
        t.equal(tool.outputSchema?.type, "object", `${tool.name} publishes an output schema`);
        for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
          t.ok((property.description ?? "").length > 10, `${tool.name}.${name} is documented`);
        }
      }
      const search = tools.find((tool) => tool.name === "search_legal_entities")!;
      t.same(
        Object.keys(search.inputSchema.properties ?? {}).sort(),
        ["query", "fields", ...FILTERS, "facets", "page", "limit"].sort(),
        "search takes query, fields, every filter of GET /v1/entities, facets, page and limit",
      );
      t.same(search.inputSchema.properties?.fields?.enum, ["all", "name", "address", "lei"], "fields lists its values");
      t.same(
        (search.inputSchema.properties?.facets?.items as { enum?: string[] })?.enum,
        ["country", "jurisdiction", "status", "registrationStatus", "category", "hasParent"],
        "facets lists its values",
      );
      t.match(search.inputSchema.properties?.status?.description ?? "", /ACTIVE.*INACTIVE/, "status names its values");
      t.same(tools.find((tool) => tool.name === "get_legal_entity")!.inputSchema.required, ["lei"]);
    });

    t.test("search_legal_entities answers exactly what GET /v1/entities answers", async (t) => {
      for (const { args, http: params, why } of SEARCHES) {
        const result = await client.callTool("search_legal_entities", args);
        const expected = await http(`/v1/entities${qs(params)}`);
        t.equal(expected.status, 200, `${why}: HTTP 200`);
        t.notOk(result.isError, `${why}: not an error`);
        t.same(untimed(result.structuredContent), untimed(expected.body), `${why}: structuredContent = the HTTP SearchPage`);

        // the text: a head line, then one line per entity with LEI, name, country and status
        const page = expected.body;
        const lines = text(result).split("\n");
        const entityLines = lines.filter((line) => /^[0-9A-Z]{20} \| /.test(line));
        t.equal(entityLines.length, page.results.length, `${why}: one text line per entity`);
        page.results.forEach((e: Record<string, string | null>, i: number) => {
          t.equal(
            entityLines[i],
            `${e.lei} | ${e.legalName ?? "-"} | ${e.country ?? "-"} | ${e.entityStatus ?? "-"}/${e.registrationStatus ?? "-"}`,
            `${why}: line ${i + 1} is ${e.lei}, in rank order`,
          );
        });
        t.match(lines[0], String(page.found), `${why}: the head line says how many match`);
        for (const facet of page.facets ?? []) {
          const line = lines.find((l) => l.startsWith(`facet ${facet.field}:`));
          t.ok(line, `${why}: a line for facet ${facet.field}`);
          if (facet.values.length > 0)
            t.match(line ?? "", `${facet.values[0].value} ${facet.values[0].count}`, `${why}: with its top value`);
        }
      }
      const typo = await client.callTool("search_legal_entities", { query: "vorlandia kraftwrek" });
      t.equal(
        (typo.structuredContent as { results: { lei: string }[] }).results[0]?.lei,
        VORLANDIA.lei,
        "the misspelt name finds its entity first",
      );
    });

    t.test("search_legal_entities: bad input is an isError result naming the problem, as HTTP 400 does", async (t) => {
      const cases: { args: Record<string, unknown>; http: Params; mentions: RegExp }[] = [
        { args: { country: "Germany" }, http: { country: "Germany" }, mentions: /country/ },
        { args: { status: "SLEEPING" }, http: { status: "SLEEPING" }, mentions: /status/ },
        { args: { page: 30, limit: 50 }, http: { page: 30, limit: 50 }, mentions: /page too deep/ },
        { args: { region: "Bavaria" }, http: { region: "Bavaria" }, mentions: /region/ },
      ];
      for (const c of cases) {
        const result = await client.callTool("search_legal_entities", c.args);
        const expected = await http(`/v1/entities${qs(c.http)}`);
        t.equal(expected.status, 400);
        t.equal(result.isError, true, `${JSON.stringify(c.args)}: isError`);
        t.equal(text(result), expected.body.error, `${JSON.stringify(c.args)}: the HTTP API's message`);
        t.match(text(result), c.mentions);
      }
      // rejected by the input schema before the search runs: still an answer, never a crash
      for (const args of [{ limit: 0 }, { page: "two" }, { facets: ["colour"] }, { nickname: "x" }, { query: "x".repeat(501) }]) {
        const result = await client.callTool("search_legal_entities", args).catch((err: Error) => ({ error: err.message }));
        const message = "error" in result ? result.error : text(result);
        t.ok("error" in result || result.isError === true, `${JSON.stringify(args).slice(0, 40)}: refused`);
        t.match(message, /valid|Invalid/, `${JSON.stringify(args).slice(0, 40)}: says the input is invalid`);
      }
    });

    t.test("get_legal_entity: the HTTP entity, and the three failures each told apart", async (t) => {
      const found = await client.callTool("get_legal_entity", { lei: VORLANDIA.lei.toLowerCase() });
      t.notOk(found.isError);
      t.same(found.structuredContent, await srv.json(`/v1/entities/${VORLANDIA.lei}`), "structuredContent = GET /v1/entities/{lei}");
      t.equal(
        text(found).split("\n")[0],
        `${VORLANDIA.lei} | Vorlandia Kraftwerk Gesellschaft mbH | DE | ACTIVE/ISSUED`,
        "the text starts with the entity line",
      );
      t.match(text(found), "Leopoldstraße 99", "and names the headquarters address");
      t.notMatch(text(found), "check digits", "a valid LEI gets no check-digit note");

      const misfit = await client.callTool("get_legal_entity", { lei: ` ${BAD_CHECK_LEI} ` });
      t.notOk(misfit.isError, "an LEI failing its check digits but in the data is served, as over HTTP");
      t.equal((misfit.structuredContent as { lei: string }).lei, BAD_CHECK_LEI);
      t.match(text(misfit), /fails the ISO 17442 check digits/, "with a note saying so");

      const failures = [
        { lei: "NOT-AN-LEI", status: 400, says: /^malformed LEI/ },
        { lei: withBadCheckDigits("LEIDEXT0ST77777777"), status: 400, says: /fails the ISO 17442 check digits and is not in the dataset/ },
        { lei: withCheckDigits("LEIDEXT0ST77777777"), status: 404, says: /^no entity with LEI/ },
      ];
      const texts = new Set<string>();
      for (const f of failures) {
        const result = await client.callTool("get_legal_entity", { lei: f.lei });
        const expected = await http(`/v1/entities/${encodeURIComponent(f.lei)}`);
        t.equal(expected.status, f.status, `${f.lei}: HTTP ${f.status}`);
        t.equal(result.isError, true, `${f.lei}: isError`);
        t.match(text(result), f.says, `${f.lei}: the text says which failure`);
        t.equal(text(result), expected.body.error, `${f.lei}: word for word the HTTP error`);
        t.equal(result.structuredContent, undefined, `${f.lei}: no structuredContent on an error`);
        texts.add(text(result).split(" ")[0]);
      }
      t.equal(texts.size, 3, "three different messages");
    });

    t.test("get_legal_entities: POST /v1/entities/batch's rows, one text line per LEI", async (t) => {
      const leis = [VORLANDIA.lei, "NOT-AN-LEI", withCheckDigits("LEIDEXT0ST77777777"), VORLANDIA.lei.toLowerCase()];
      const result = await client.callTool("get_legal_entities", { leis });
      t.notOk(result.isError);
      const expected = await fetchGot(`${srv.base}/v1/entities/batch`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ leis }),
      });
      t.equal(expected.status, 200);
      t.same(result.structuredContent, expected.body, "structuredContent = the HTTP batch answer");
      const lines = text(result).split("\n");
      t.equal(lines[0], "2 found, 1 not found, 1 invalid:");
      t.equal(lines[2], `${VORLANDIA.lei} | Vorlandia Kraftwerk Gesellschaft mbH | DE | ACTIVE/ISSUED`);
      t.match(lines[3], /^NOT-AN-LEI \| invalid: malformed LEI/);
      t.match(lines[4], /\| not_found: no entity with LEI/);
      t.equal(lines.length, 6, "a head, a legend and a line per LEI");
      const tooMany = await client.callTool("get_legal_entities", { leis: Array(101).fill(VORLANDIA.lei) });
      t.equal(tooMany.isError, true, "more than 100 LEIs is refused, with the reason");
      t.match(text(tooMany), /100/);
    });

    t.test("match_legal_entities: POST /v1/match's answer, a verdict line per row", async (t) => {
      const rows = [{ name: VORLANDIA.legalName!, country: "DE" }, { name: "Zzyzx Qwv Plonk" }];
      const result = await client.callTool("match_legal_entities", { rows, limit: 2 });
      t.notOk(result.isError);
      const expected = await fetchGot(`${srv.base}/v1/match`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ rows, limit: 2 }),
      });
      t.same(result.structuredContent, expected.body, "structuredContent = the HTTP match answer");
      const lines = text(result).split("\n");
      t.equal(lines[0], "row 1: match");
      t.match(lines[1], new RegExp(`^  1\\.000 ${VORLANDIA.lei} \\| Vorlandia Kraftwerk`));
      t.ok(lines.includes("row 2: none"));
    });

    t.test("list_facet_values and get_dataset_stats: the HTTP answers", async (t) => {
      for (const field of ["country", "registrationStatus", "category"]) {
        const result = await client.callTool("list_facet_values", { field });
        const expected = await srv.json(`/v1/facets/${field}`);
        t.same(result.structuredContent, { field, values: expected }, `${field}: every value with its count`);
        t.equal(text(result).split("\n").length, expected.length + 1, `${field}: one text line per value`);
      }
      const refused = await client
        .callTool("list_facet_values", { field: "legalName" })
        .catch((err: Error) => ({ isError: true, content: [{ type: "text", text: err.message }] }));
      t.equal(refused.isError, true, "a field that is not a facet is refused");

      const stats = await client.callTool("get_dataset_stats", {});
      const expected = await srv.json("/v1/stats");
      t.same(stats.structuredContent, expected, "structuredContent = GET /v1/stats");
      t.match(text(stats), `${fx.model.length} legal entities`);
      t.match(text(stats), "CC0 1.0");
    });

    t.test("get_entity_changes: the HTTP history, and the HTTP API's refusals", async (t) => {
      const history = await client.callTool("get_entity_changes", { lei: VORLANDIA.lei.toLowerCase() });
      t.notOk(history.isError);
      t.same(history.structuredContent, await srv.json(`/v1/entities/${VORLANDIA.lei}/changes`), "structuredContent = the HTTP history");
      t.equal(text(history), `no changes of ${VORLANDIA.lei} recorded`, "no cursor given: the whole history is empty");
      const newest = await client.callTool("get_entity_changes", { lei: VORLANDIA.lei, order: "newest" });
      t.equal(text(newest), `no changes of ${VORLANDIA.lei} recorded`, "newest first without before: no cursor named");
      const past = await client.callTool("get_entity_changes", { lei: VORLANDIA.lei, order: "newest", before: "5" });
      t.match(text(past), `no changes of ${VORLANDIA.lei} recorded before the cursor; next: 5`, "with before: empty below that cursor");
      const unknown = await client.callTool("get_entity_changes", { lei: withCheckDigits("LEIDEXMCPNOCHANGE0") });
      t.equal(unknown.isError, true, "an LEI neither held nor in the feed");
      t.match(text(unknown), "does not hold");
      const malformed = await client.callTool("get_entity_changes", { lei: "NOT-AN-LEI" });
      t.equal(malformed.isError, true);
      t.match(text(malformed), "is not an LEI");
      const badField = await client
        .callTool("get_entity_changes", { lei: VORLANDIA.lei, field: "colour" })
        .catch((err: Error) => ({ isError: true, content: [{ type: "text", text: err.message }] }));
      t.equal(badField.isError, true, "a field the feed does not follow is refused");
    });
  });
}

// ---------------------------------------------------------------- the raw wire

t.test("initialize and tools/call over plain HTTP, one JSON body each", async (t) => {
  const init = await raw({
    body: rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } }),
  });
  t.equal(init.status, 200);
  t.match(init.headers.get("content-type") ?? "", /^application\/json/, "a JSON response, not an SSE stream");
  t.equal(init.body?.result?.protocolVersion, "2025-06-18", "the client's version is accepted");
  t.equal(init.body?.result?.capabilities?.tools?.listChanged, false, "no list_changed is promised");
  t.equal(init.headers.get("mcp-session-id"), null, "stateless: no session");
  const call = await raw({ body: rpc(2, "tools/call", { name: "get_legal_entity", arguments: { lei: VORLANDIA.lei } }) });
  t.equal(call.body?.result?.structuredContent?.lei, VORLANDIA.lei, "a tool call without initialize (stateless) works");
  const unknown = await raw({ body: rpc(3, "tools/call", { name: "delete_everything", arguments: {} }) });
  t.ok(unknown.body?.error || unknown.body?.result?.isError, "an unknown tool is refused");
  t.match(JSON.stringify(unknown.body), /delete_everything/, "by name");
});

t.test("2026-07-28 on the wire: server/discover, and an unsupported version", async (t) => {
  const meta = (version: string): object => ({
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  });
  const headers = (version: string, method: string): Record<string, string> => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": version,
    "mcp-method": method,
  });
  const discover = await raw({
    headers: headers("2026-07-28", "server/discover"),
    body: rpc(1, "server/discover", { _meta: meta("2026-07-28") }),
  });
  t.equal(discover.status, 200);
  t.same(discover.body?.result?.supportedVersions, ["2026-07-28"]);
  t.ok(discover.body?.result?.capabilities?.tools, "tools are offered");

  for (const accept of ["application/json", "*/*"]) {
    const r = await raw({
      headers: { ...headers("2026-07-28", "tools/list"), accept },
      body: rpc(2, "tools/list", { _meta: meta("2026-07-28") }),
    });
    t.equal(r.status, 406, `a modern request with Accept ${accept} -> 406, as in the 2025 era`);
  }

  const future = await raw({ headers: headers("2099-01-01", "tools/list"), body: rpc(2, "tools/list", { _meta: meta("2099-01-01") }) });
  t.equal(future.status, 400, "an unsupported modern version is a 400");
  rpcError(t, future, -32022);

  const listen = await raw({
    headers: headers("2026-07-28", "subscriptions/listen"),
    body: rpc(3, "subscriptions/listen", { _meta: meta("2026-07-28"), notifications: { toolsListChanged: true } }),
  });
  t.equal(listen.status, 404, "subscriptions/listen is declined at once, never left hanging");
  rpcError(t, listen, -32601);
  t.equal(listen.body?.id, 3, "the answer carries the request's id");
});

t.test("Accept: both application/json and text/event-stream, else 406", async (t) => {
  const body = rpc(1, "tools/list");
  for (const accept of [undefined, "application/json", "text/event-stream", "*/*", "application/json, text/event-stream;q=0"]) {
    const headers: Record<string, string> = { "content-type": "application/json", "mcp-protocol-version": "2025-11-25" };
    if (accept !== undefined) headers.accept = accept;
    const r = await raw({ headers, body });
    t.equal(r.status, 406, `Accept ${accept ?? "(missing)"} -> 406`);
    t.match(rpcError(t, r, -32000), /application\/json and text\/event-stream/);
  }
  const ok = await raw({ headers: { ...LEGACY_HEADERS, accept: "text/event-stream;q=0.5, application/json" }, body });
  t.equal(ok.status, 200, "both listed, in any order, with parameters -> 200");
});

t.test("Content-Type must be JSON (415); the protocol version must be known (400)", async (t) => {
  const body = rpc(1, "tools/list");
  const plain = await raw({ headers: { ...LEGACY_HEADERS, "content-type": "text/plain" }, body });
  t.equal(plain.status, 415);
  rpcError(t, plain, -32000);
  const charset = await raw({ headers: { ...LEGACY_HEADERS, "content-type": "application/json; charset=utf-8" }, body });
  t.equal(charset.status, 200, "a charset parameter is fine");

  const bad = await raw({ headers: { ...LEGACY_HEADERS, "mcp-protocol-version": "1999-01-01" }, body });
  t.equal(bad.status, 400, "MCP-Protocol-Version 1999-01-01 -> 400");
  t.match(rpcError(t, bad, -32000), /1999-01-01.*2025-11-25/, "naming the bad version and the supported ones");
  const garbage = await raw({ headers: { ...LEGACY_HEADERS, "mcp-protocol-version": "latest please" }, body });
  t.equal(garbage.status, 400, "a version that is not a date -> 400");
});

t.test("a notification is accepted with 202 and no body", async (t) => {
  const r = await raw({ body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  t.equal(r.status, 202);
  t.equal(r.text, "", "no body");
  const cancelled = await raw({ body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } }) });
  t.equal(cancelled.status, 202, "another notification, for a request that does not exist");
});

t.test("GET and DELETE: 405 at once (no stream, no session)", async (t) => {
  for (const method of ["GET", "DELETE", "PUT", "PATCH"]) {
    const started = Date.now();
    const r = await raw({ method, headers: { accept: "text/event-stream" } });
    t.equal(r.status, 405, `${method} -> 405`);
    t.match(r.headers.get("allow") ?? "", /POST/, `${method}: Allow names POST`);
    rpcError(t, r, -32000);
    t.ok(Date.now() - started < 5000, `${method}: answered without waiting`);
  }
});

t.test("bodies are capped: over 64 KiB is a 413, and the server goes on", async (t) => {
  const padding = "x".repeat(70 * 1024);
  const big = rpc(1, "tools/call", { name: "search_legal_entities", arguments: { query: padding } });
  const r = await raw({ body: big });
  t.equal(r.status, 413);
  t.match(rpcError(t, r, -32000), /65536/, "the message gives the cap");
  const under = rpc(2, "tools/call", { name: "search_legal_entities", arguments: { query: "x".repeat(400), limit: 1 } });
  t.ok(Buffer.byteLength(under) < 64 * 1024);
  t.equal((await raw({ body: under })).status, 200, "a body under the cap is served");
  t.equal((await http("/health")).status, 200, "still alive");
});

t.test("invalid JSON is a 400 with a JSON-RPC parse error; batches and non-messages are refused", async (t) => {
  for (const body of ["{bad", "", '{"jsonrpc":"2.0",', "\u00ff\u00fe"]) {
    const r = await raw({ body });
    t.equal(r.status, 400, `${JSON.stringify(body)} -> 400`);
    rpcError(t, r, -32700);
    t.equal(r.body?.id, null, "id null: no request id could be read");
  }
  const batch = await raw({ body: `[${rpc(1, "ping")},${rpc(2, "ping")}]` });
  t.equal(batch.status, 400, "a batch -> 400");
  t.match(rpcError(t, batch, -32600), /batch/);
  for (const body of ["null", "42", '"text"', "{}", '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":{},"method":7}']) {
    const r = await raw({ body });
    t.ok(r.status >= 400 && r.status < 500, `${body} -> ${r.status}, a 4xx`);
    t.ok(r.body?.error, `${body}: a JSON-RPC error`);
  }
});

t.test("Origin: present and not allowed is a 403; loopback pages are allowed, with CORS", async (t) => {
  const body = rpc(1, "tools/list");
  for (const origin of ["https://evil.example", "null", "http://127.0.0.1.evil.example", "file://"]) {
    const r = await raw({ headers: { ...LEGACY_HEADERS, origin }, body });
    t.equal(r.status, 403, `Origin ${origin} -> 403`);
    t.match(rpcError(t, r, -32000), /origin/);
  }
  for (const origin of ["http://localhost:6274", "http://127.0.0.1:3000", "https://localhost"]) {
    const r = await raw({ headers: { ...LEGACY_HEADERS, origin }, body });
    t.equal(r.status, 200, `Origin ${origin} -> 200`);
    t.equal(r.headers.get("access-control-allow-origin"), origin, `${origin}: echoed for the browser`);
  }
  const preflight = await raw({
    method: "OPTIONS",
    headers: {
      origin: "http://localhost:6274",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, mcp-protocol-version",
    },
  });
  t.equal(preflight.status, 204, "a preflight from an allowed origin -> 204");
  t.match(preflight.headers.get("access-control-allow-methods") ?? "", "POST");
  t.match(preflight.headers.get("access-control-allow-headers") ?? "", "mcp-protocol-version");
  const refused = await raw({ method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
  t.equal(refused.status, 403, "a preflight from another origin -> 403");
  t.equal(refused.headers.get("access-control-allow-origin"), null, "with no CORS grant");
});

t.test("--mcp-origins allows listed origins; the rate limit is the one of /v1, per IP", async (t) => {
  const limited = await startServer(t, {
    source: fx.csv,
    rateLimit: 6,
    rateWindow: 3600,
    args: ["--mcp-origins", "https://agent.example, https://ops.example:8443"],
  });
  const post = (headers: Record<string, string> = {}): Promise<Got> =>
    fetchGot(`${limited.base}/mcp`, {
      method: "POST",
      headers: { ...LEGACY_HEADERS, ...headers },
      body: rpc(1, "tools/list"),
      signal: AbortSignal.timeout(10_000),
    });
  t.equal((await post({ origin: "https://agent.example" })).status, 200, "a listed origin -> 200");
  t.equal((await post({ origin: "https://ops.example:8443" })).status, 200, "a listed origin with its port -> 200");
  t.equal((await post({ origin: "https://ops.example" })).status, 403, "the same host on another port is another origin -> 403");
  // 3 tokens spent; 3 more on /v1, then /mcp is out of tokens too
  for (let i = 0; i < 3; i++) t.equal((await limited.get("/v1/stats")).status, 200, `/v1 request ${i + 1}`);
  const r = await post();
  t.equal(r.status, 429, "/mcp shares the bucket of /v1");
  t.ok(Number(r.headers.get("retry-after")) > 0, "with Retry-After");
  t.equal(r.body?.error?.code, -32000, "and a JSON-RPC error body");
  t.equal((await limited.get("/v1/entities")).status, 429, "and /v1 is limited as well");
});

t.test("a get_legal_entities call weighs its LEIs on the rate limit", async (t) => {
  const limited = await startServer(t, { source: fx.csv, rateLimit: 10, rateWindow: 3600 });
  const call = (leis: string[]): Promise<Got> =>
    fetchGot(`${limited.base}/mcp`, {
      method: "POST",
      headers: LEGACY_HEADERS,
      body: rpc(1, "tools/call", { name: "get_legal_entities", arguments: { leis } }),
      signal: AbortSignal.timeout(10_000),
    });
  const four = await call(Array(4).fill(VORLANDIA.lei));
  t.equal(four.status, 200);
  t.equal(four.headers.get("x-ratelimit-remaining"), "6", "4 LEIs spent 4 of 10 tokens");
  const seven = await call(Array(7).fill(VORLANDIA.lei));
  t.equal(seven.status, 429, "7 LEIs with 6 tokens left");
  t.equal(seven.body?.error?.code, -32000, "a JSON-RPC error body");
  t.equal((await limited.get("/v1/stats")).status, 200, "the refused call spent one token only");
});

t.test("flag values that are not origins stop the server at start", async (t) => {
  const r = await runLeidex(["--source", "sample", "--mcp-origins", "agent.example/path"]);
  t.equal(r.code, 2, "exit 2, as for every bad flag");
  t.match(r.stderr, /--mcp-origins/);
});

t.test("nothing sent to /mcp in this file got a 5xx, and the server still answers", async (t) => {
  t.same(
    statuses.filter((s) => s >= 500),
    [],
    `${statuses.length} answers, no 5xx`,
  );
  const client = await connectClient("client-v2-auto", MCP);
  t.teardown(() => client.close());
  const result = await client.callTool("get_dataset_stats", {});
  t.equal((result.structuredContent as { records: number }).records, fx.model.length);
  t.equal(srv.stderr().match(/mcp tool:|internal error/g), null, "no tool failure was logged");
});
