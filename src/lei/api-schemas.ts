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
    },
  },
};
