// The /mcp tools, run by the SDK on an MCP thread. Their data comes from the front through
// ToolData (tool-data.ts), where LeiService and FamilyService answer them as they answer the HTTP
// routes: the tools add argument validation and text rendering, never a second way to search or
// look up. A fresh McpServer is built per HTTP request (the stateless protocol needs one per
// exchange); the compiled schemas are built once, here at module load.

import { readFileSync } from "node:fs";
import { fromJsonSchema, McpServer, type CallToolResult, type ToolAnnotations } from "@modelcontextprotocol/server";
import { batchText, changesText, matchText, entityText, facetListingText, familyText, searchPageText, statsText } from "./render-text.js";
import type { DataAnswer, DataCalls, DataOp, ToolData } from "./tool-data.js";
import {
  batchAnswerSchema,
  batchInputSchema,
  changePageSchema,
  changesInputSchema,
  type ChangePage,
  type ChangesToolInput,
  corporateFamilySchema,
  familyInputSchema,
  identifiedEntitySchema,
  identifierInputSchema,
  type CorporateFamily,
  type FamilyToolInput,
  type IdentifiedEntity,
  type IdentifierToolInput,
  matchAnswerSchema,
  matchInputSchema,
  datasetStatsSchema,
  entityInputSchema,
  facetInputSchema,
  facetListingSchema,
  legalEntitySchema,
  searchInputSchema,
  searchPageSchema,
  statsInputSchema,
  type BatchAnswer,
  type BatchToolInput,
  type MatchAnswer,
  type MatchToolInput,
  type DatasetStats,
  type EntityToolInput,
  type FacetListing,
  type FacetToolInput,
  type LegalEntity,
  type SearchPage,
  type SearchToolInput,
  type StatsToolInput,
} from "./tool-schemas.js";

const SERVER_INFO = { name: "leidex", title: "Leidex: the GLEIF LEI registry", version: packageVersion() };

const INSTRUCTIONS =
  "Legal entities of the GLEIF LEI registry (Level 1 golden copy, CC0 1.0). " +
  "Find entities by name, address or LEI with search_legal_entities (typo tolerant, filters by country, status and more), " +
  "then read one with get_legal_entity. find_entity_by_identifier reads one by LEI, ISIN or BIC; get_corporate_family tells who owns whom (GLEIF Level 2). " +
  "list_facet_values lists the codes a filter takes; get_dataset_stats tells how fresh the data is; get_entity_changes tells what changed in an entity's record, load by load.";

/** Every tool only reads a local, finite dataset: calling it again with the same input is harmless. */
const READ_ONLY: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

/** Bounds the work the SDK does validating one call's arguments (ours have at most a dozen values). */
const MAX_TOOL_INPUT_ELEMENTS = 200;

const schemas = {
  searchInput: fromJsonSchema<SearchToolInput>(searchInputSchema),
  searchOutput: fromJsonSchema<SearchPage>(searchPageSchema),
  entityInput: fromJsonSchema<EntityToolInput>(entityInputSchema),
  batchInput: fromJsonSchema<BatchToolInput>(batchInputSchema),
  batchOutput: fromJsonSchema<BatchAnswer>(batchAnswerSchema),
  matchInput: fromJsonSchema<MatchToolInput>(matchInputSchema),
  matchOutput: fromJsonSchema<MatchAnswer>(matchAnswerSchema),
  entityOutput: fromJsonSchema<LegalEntity>(legalEntitySchema),
  facetInput: fromJsonSchema<FacetToolInput>(facetInputSchema),
  facetOutput: fromJsonSchema<FacetListing>(facetListingSchema),
  statsInput: fromJsonSchema<StatsToolInput>(statsInputSchema),
  statsOutput: fromJsonSchema<DatasetStats>(datasetStatsSchema),
  familyInput: fromJsonSchema<FamilyToolInput>(familyInputSchema),
  familyOutput: fromJsonSchema<CorporateFamily>(corporateFamilySchema),
  identifierInput: fromJsonSchema<IdentifierToolInput>(identifierInputSchema),
  identifierOutput: fromJsonSchema<IdentifiedEntity>(identifiedEntitySchema),
  changesInput: fromJsonSchema<ChangesToolInput>(changesInputSchema),
  changesOutput: fromJsonSchema<ChangePage>(changePageSchema),
};

export function createLeiMcpServer(data: ToolData): McpServer {
  const server = new McpServer(SERVER_INFO, {
    // the tool list is fixed: no list_changed notifications, so none is promised
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
  });

  server.registerTool(
    "search_legal_entities",
    {
      title: "Search legal entities",
      description:
        "Full-text, typo-tolerant search of the LEI registry, ranked by relevance (exact and whole-name matches first). " +
        "USE WHEN you have a company name (even misspelt), part of an address, or an LEI fragment, optionally narrowed by country, jurisdiction, " +
        "status, registration status, category, legal form, managing LOU, city or region. Without query, filters alone list entities. " +
        "Returns a SearchPage (the same as GET /v1/entities) and one text line per entity: LEI | name | country | status/registration. " +
        "FAILS WHEN a filter value is malformed or page × limit exceeds 1000 (the message names the argument).",
      inputSchema: schemas.searchInput,
      outputSchema: schemas.searchOutput,
      annotations: READ_ONLY,
    },
    (args) =>
      answer(data.call("search", args), (json) => {
        const page = JSON.parse(json) as SearchPage;
        return { content: [{ type: "text", text: searchPageText(page) }], structuredContent: page };
      }),
  );

  server.registerTool(
    "get_legal_entity",
    {
      title: "Get a legal entity by LEI",
      description:
        "The registry record of one LEI: legal name, statuses, category, legal form, jurisdiction, addresses, managing LOU and dates " +
        "(the same as GET /v1/entities/{lei}). USE WHEN you hold an LEI, e.g. from search_legal_entities, and need its details or want to check it exists. " +
        "FAILS WHEN the LEI is malformed, fails its ISO 17442 check digits and is not in the registry, or is not in the registry; the message says which.",
      inputSchema: schemas.entityInput,
      outputSchema: schemas.entityOutput,
      annotations: READ_ONLY,
    },
    ({ lei }) =>
      answer(data.call("entity", lei), (found) => {
        const entity = JSON.parse(found.json) as LegalEntity;
        return { content: [{ type: "text", text: entityText(entity, found.checkDigitsValid) }], structuredContent: entity };
      }),
  );

  server.registerTool(
    "get_legal_entities",
    {
      title: "Get legal entities by LEI, many at once",
      description:
        "The registry records of up to 100 LEIs in one call, one row per LEI in the order given: found with the entity, not_found, or invalid " +
        "with the reason (the same as POST /v1/entities/batch). USE WHEN you hold several LEIs, e.g. a list to check; " +
        "for one LEI get_legal_entity is enough. Each LEI counts against the rate limit.",
      inputSchema: schemas.batchInput,
      outputSchema: schemas.batchOutput,
      annotations: READ_ONLY,
    },
    ({ leis }) =>
      answer(data.call("entities", leis), (json) => {
        const rows = JSON.parse(json) as BatchAnswer;
        return { content: [{ type: "text", text: batchText(rows) }], structuredContent: rows };
      }),
  );

  server.registerTool(
    "match_legal_entities",
    {
      title: "Match names to legal entities",
      description:
        "For each row (a name, and optionally country, city, postal code or an LEI to check) the candidate entities with a score in [0,1], " +
        "an explanation (which fields agree or differ, which name matched) and a verdict: match, ambiguous, possible or none " +
        "(the same as POST /v1/match). USE WHEN you must decide which registered entity a name in a list, invoice or document stands for. " +
        "Each row counts against the rate limit.",
      inputSchema: schemas.matchInput,
      outputSchema: schemas.matchOutput,
      annotations: READ_ONLY,
    },
    ({ rows, limit }) =>
      answer(data.call("match", { rows, limit }), (json) => {
        const results = JSON.parse(json) as MatchAnswer;
        return { content: [{ type: "text", text: matchText(results) }], structuredContent: results };
      }),
  );

  server.registerTool(
    "list_facet_values",
    {
      title: "List the values of a filter field",
      description:
        "Every value of country, jurisdiction, status, registrationStatus or category across the whole registry, with its number of entities, " +
        "most frequent first (the same as GET /v1/facets/{field}). USE WHEN you need the exact codes a search_legal_entities filter accepts, " +
        "or the size of the registry per value.",
      inputSchema: schemas.facetInput,
      outputSchema: schemas.facetOutput,
      annotations: READ_ONLY,
    },
    ({ field }) =>
      answer(data.call("facets", field), (values) => {
        const listing: FacetListing = { field, values: values.map(([value, count]) => ({ value, count })) };
        return { content: [{ type: "text", text: facetListingText(listing) }], structuredContent: listing };
      }),
  );

  server.registerTool(
    "get_dataset_stats",
    {
      title: "Dataset statistics",
      description:
        "How many entities the registry holds, which GLEIF publication they come from and under which license " +
        "(the same as GET /v1/stats). USE WHEN you must say how current an answer is.",
      inputSchema: schemas.statsInput,
      outputSchema: schemas.statsOutput,
      annotations: READ_ONLY,
    },
    () =>
      answer(data.call("stats", null), (stats) => {
        return { content: [{ type: "text", text: statsText(stats) }], structuredContent: stats };
      }),
  );

  server.registerTool(
    "get_corporate_family",
    {
      title: "Get the corporate family of a legal entity",
      description:
        "Who owns whom (GLEIF Level 2): the entity's direct and ultimate accounting parents with their relationship records, " +
        "or the reporting exception saying why none is reported; its fund manager, umbrella fund, master funds and head office; how many children of each kind; " +
        "and the family as one tree from the ultimate parent down (the same as GET /v1/entities/{lei}/relationships and /family). " +
        "USE WHEN asked about a company's parent, owner, group, subsidiaries, or a fund's manager. A related LEI that is not in the registry comes with entity null. " +
        "FAILS WHEN the LEI is malformed or known to neither Level 1 nor Level 2.",
      inputSchema: schemas.familyInput,
      outputSchema: schemas.familyOutput,
      annotations: READ_ONLY,
    },
    ({ lei, depth, limit }) =>
      answer(data.call("family", { lei, depth, limit }), (json) => {
        const result: CorporateFamily = {
          relationships: JSON.parse(json.relationships) as Record<string, unknown>,
          family: JSON.parse(json.family) as Record<string, unknown>,
        };
        return { content: [{ type: "text", text: familyText(result) }], structuredContent: result as unknown as Record<string, unknown> };
      }),
  );

  server.registerTool(
    "find_entity_by_identifier",
    {
      title: "Find a legal entity by LEI, ISIN or BIC",
      description:
        "The registry record behind an identifier: an LEI directly, an ISIN through GLEIF's ISIN-LEI map (the issuer), a BIC through GLEIF's BIC-LEI map " +
        "(the same as GET /v1/entities/{lei}, /v1/isin/{isin} and /v1/bic/{bic}). USE WHEN you hold a security's ISIN or a bank's BIC and need the legal entity. " +
        "FAILS WHEN the identifier has none of the three forms, an ISIN fails its check digit, or no LEI is known for it.",
      inputSchema: schemas.identifierInput,
      outputSchema: schemas.identifierOutput,
      annotations: READ_ONLY,
    },
    ({ identifier }) =>
      answer(data.call("identifier", identifier), ({ kind, lei, json }) => {
        const entity = json === null ? null : (JSON.parse(json) as LegalEntity);
        const result: IdentifiedEntity = { identifier: identifier.trim().toUpperCase(), kind, lei, entity };
        const text = entity
          ? `${kind} ${result.identifier} → ${entityText(entity, true)}`
          : `${kind} ${result.identifier} → LEI ${lei} (not in the Level 1 registry)`;
        return { content: [{ type: "text", text }], structuredContent: result as unknown as Record<string, unknown> };
      }),
  );

  server.registerTool(
    "get_entity_changes",
    {
      title: "Get the change history of a legal entity",
      description:
        "What changed in one LEI's record, load by load, oldest first (order newest: newest first): legal and other names, addresses, entity and registration status, " +
        "next renewal date, managing LOU, legal form, successor LEIs, direct and ultimate parent, reporting exceptions and ISIN count, " +
        "each with its old and new value and the publication that brought it (the same as GET /v1/entities/{lei}/changes). " +
        "USE WHEN asked whether or when an entity lapsed, was renamed, moved, changed parent or was merged. Pass a page's next as since for later changes (as before for older ones, newest first). " +
        "FAILS WHEN the LEI is malformed, a filter is unknown (the message lists the valid ones), or the LEI is neither in the registry nor in the feed.",
      inputSchema: schemas.changesInput,
      outputSchema: schemas.changesOutput,
      annotations: READ_ONLY,
    },
    (args) =>
      answer(data.call("changes", args), (json) => {
        const page = JSON.parse(json) as ChangePage;
        return {
          content: [{ type: "text", text: changesText(args.lei.trim().toUpperCase(), page, args.order === "newest", fromCursor(args)) }],
          structuredContent: page as unknown as Record<string, unknown>,
        };
      }),
  );

  return server;
}

/** An isError result: the agent reads the text and can correct its call. */
function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A tool's result from its data call: the rendered value, or an isError result with the text the
 * front gave (the HTTP API's message for a bad argument, an unknown LEI, data not ready). A
 * failure in rendering is a bug: logged, and the agent is told no more than the HTTP API would
 * tell it.
 */
async function answer<K extends DataOp>(
  call: Promise<DataAnswer<K>>,
  render: (value: DataCalls[K]["value"]) => CallToolResult,
): Promise<CallToolResult> {
  try {
    const answered = await call;
    return answered.failure === undefined ? render(answered.value) : failure(answered.failure);
  } catch (err) {
    console.error(`mcp tool: ${(err as Error)?.stack ?? String(err)}`);
    return failure("internal error");
  }
}

function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** Whether a change page began at a cursor the caller passed: `before` newest first, `since` (not 0, the start) oldest first. */
function fromCursor(args: { order?: string; since?: string; before?: string }): boolean {
  return args.order === "newest" ? args.before !== undefined : args.since !== undefined && args.since !== "0";
}
