// The public API's answers as JSON Schemas: the OpenAPI components of /v1, also the MCP tools'
// output schemas. LegalEntity derives from the one field table (engine/schema.ts).

import { ENTITY_FIELD_TABLE } from "../engine/schema.js";
import type { JsonSchema } from "../http/route.js";

const nullableString = { type: ["string", "null"] };
const int64 = { type: "integer", format: "int64" };

export const PUBLIC_SCHEMAS: Record<string, JsonSchema> = {
  LegalEntity: {
    type: "object",
    required: ["lei"],
    properties: Object.fromEntries(
      ENTITY_FIELD_TABLE.map((f) => [f.name, { ...(f.name === "lei" ? { type: "string" } : nullableString), description: f.description }]),
    ),
  },
  SearchPage: {
    type: "object",
    required: ["found", "outOf", "page", "limit", "searchTimeMs", "results"],
    properties: {
      found: int64,
      outOf: int64,
      page: int64,
      limit: int64,
      searchTimeMs: int64,
      results: { type: "array", items: { $ref: "#/components/schemas/LegalEntity" } },
      facets: { type: "array", items: { $ref: "#/components/schemas/Facet" } },
    },
  },
  Facet: {
    type: "object",
    required: ["field", "values"],
    properties: { field: { type: "string" }, values: { type: "array", items: { $ref: "#/components/schemas/FacetValue" } } },
  },
  FacetValue: { type: "object", required: ["value", "count"], properties: { value: { type: "string" }, count: int64 } },
  DatasetStats: {
    type: "object",
    required: ["records", "source", "license"],
    properties: {
      records: int64,
      source: { type: "string" },
      license: { type: "string" },
      published: nullableString,
      downloadSeconds: { type: ["number", "null"] },
      ingestSeconds: { type: ["number", "null"] },
      licenseActive: {
        type: "boolean",
        description: "Whether an activated licence is valid on this installation (GET /license tells more)",
      },
      parts: {
        type: "object",
        description:
          "With GLEIF as the source: each part fetched apart from Level 1 (relationship records, reporting exceptions, ISIN and BIC maps). One that could not be fetched does not stop the load: the live copy is kept (stale), or, with none, the part is empty (missing)",
        required: ["rr", "repex", "isin", "bic"],
        properties: Object.fromEntries(["rr", "repex", "isin", "bic"].map((p) => [p, { $ref: "#/components/schemas/SourcePartState" }])),
      },
      changesDetected: {
        type: ["integer", "null"],
        format: "int64",
        description:
          "Field changes the live collection's load found against the collection it replaced (GET /v1/changes); null where it was not compared",
      },
      changeDetectionSeconds: {
        type: ["number", "null"],
        description: "Seconds that change detection took, storing included; null where it was not compared",
      },
      delta: {
        description:
          "The GLEIF delta the live collection's load applied on top of the live records, and what it cost; null after a full load (docs/golden-copy.md#deltas)",
        oneOf: [
          {
            type: "object",
            required: ["window", "file", "rows", "downloadSeconds", "seconds"],
            properties: {
              window: { type: "string", enum: ["IntraDay", "LastDay", "LastWeek", "LastMonth"] },
              file: { type: "string", description: "The delta file's name" },
              rows: { ...int64, description: "Its records" },
              downloadSeconds: { type: ["number", "null"], description: "Seconds the load's downloads took; null: nothing was downloaded" },
              seconds: {
                type: "number",
                description: "Seconds from the start of the load until the collection was ready to go live, downloads included",
              },
            },
          },
          { type: "null" },
        ],
      },
    },
  },
  SourcePartState: {
    type: "object",
    required: ["status", "from", "loadedAt", "since", "reason"],
    properties: {
      status: {
        type: "string",
        enum: ["fresh", "stale", "missing"],
        description: "fresh: fetched by the latest load; stale: an earlier load's copy; missing: none, the part is empty",
      },
      from: { ...nullableString, description: "The GLEIF publication (rr, repex) or mapping file name (isin, bic) its data comes from" },
      loadedAt: { ...nullableString, description: "When the load that fetched its data ran" },
      since: { ...nullableString, description: "Stale: when its copy was loaded; missing: the first failure" },
      reason: { ...nullableString, description: "Stale or missing: why the latest load could not fetch it" },
    },
  },
};
