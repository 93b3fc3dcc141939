// The OpenAPI 3.1 document of the public API, built from the same schemas that validate requests.

import { ENTITY_FIELD_TABLE, FACET_PARAMS } from "../engine/schema.js";
import { searchQuerySchema } from "./search-params.js";

const nullableString = { type: ["string", "null"] };

const legalEntity = {
  type: "object",
  required: ["lei"],
  properties: Object.fromEntries(ENTITY_FIELD_TABLE.map((f) => [f.name, { ...(f.name === "lei" ? { type: "string" } : nullableString), description: f.description }])),
};

const apiError = { type: "object", required: ["error"], properties: { error: { type: "string" } } };
const facetValue = { type: "object", required: ["value", "count"], properties: { value: { type: "string" }, count: { type: "integer", format: "int64" } } };
const int64 = { type: "integer", format: "int64" };

const rateHeaders = {
  "X-RateLimit-Limit": { schema: { type: "integer" }, description: "Requests allowed per window" },
  "X-RateLimit-Remaining": { schema: { type: "integer" }, description: "Requests left in the window" },
};
const error = (description: string): object => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/ApiError" } } } });
const tooMany = { ...error("Rate limit exceeded"), headers: { "Retry-After": { schema: { type: "integer" } } } };
const ok = (schema: object): object => ({ description: "OK", headers: rateHeaders, content: { "application/json": { schema } } });

export function openApiDocument(): object {
  return {
    openapi: "3.1.0",
    info: { title: "Leidex legal entity API", version: "1.0.0", license: { name: "Data: CC0 1.0" } },
    paths: {
      "/v1/entities": {
        get: {
          summary: "Search legal entities (free text, typo tolerant, relevance order)",
          parameters: Object.entries(searchQuerySchema.properties).map(([name, s]) => ({
            name, in: "query", required: false, description: s.description, schema: { ...s, "x-hint": undefined },
          })),
          responses: { 200: ok({ $ref: "#/components/schemas/SearchPage" }), 400: error("Bad parameter"), 429: tooMany },
        },
      },
      "/v1/entities/{lei}": {
        get: {
          summary: "Fetch one legal entity by LEI",
          parameters: [{ name: "lei", in: "path", required: true, schema: { type: "string" }, description: "ISO 17442 LEI; check digits are verified, but an LEI that fails them is still served when it is in the data" }],
          responses: { 200: ok({ $ref: "#/components/schemas/LegalEntity" }), 400: error("Malformed LEI, or failed check digits and not in the data"), 404: error("No such entity"), 429: tooMany },
        },
      },
      "/v1/facets/{field}": {
        get: {
          summary: "All values of a facet across the dataset",
          parameters: [{ name: "field", in: "path", required: true, schema: { type: "string", enum: [...FACET_PARAMS] } }],
          responses: { 200: ok({ type: "array", items: { $ref: "#/components/schemas/FacetValue" } }), 400: error("Not a facetable field"), 429: tooMany },
        },
      },
      "/v1/stats": {
        get: { summary: "Dataset statistics", responses: { 200: ok({ $ref: "#/components/schemas/DatasetStats" }), 429: tooMany } },
      },
    },
    components: {
      schemas: {
        LegalEntity: legalEntity,
        SearchPage: {
          type: "object",
          required: ["found", "outOf", "page", "limit", "searchTimeMs", "results"],
          properties: {
            found: int64, outOf: int64, page: int64, limit: int64, searchTimeMs: int64,
            results: { type: "array", items: { $ref: "#/components/schemas/LegalEntity" } },
            facets: { type: "array", items: { $ref: "#/components/schemas/Facet" } },
          },
        },
        Facet: { type: "object", required: ["field", "values"], properties: { field: { type: "string" }, values: { type: "array", items: { $ref: "#/components/schemas/FacetValue" } } } },
        FacetValue: facetValue,
        DatasetStats: {
          type: "object",
          required: ["records", "source", "license"],
          properties: {
            records: int64, source: { type: "string" }, license: { type: "string" }, published: nullableString,
            downloadSeconds: { type: ["number", "null"] }, ingestSeconds: { type: ["number", "null"] },
          },
        },
        ApiError: apiError,
      },
    },
  };
}
