// The engine API's answers and bodies as JSON Schemas, for its OpenAPI operations: Typesense's
// shapes, with LegalEntity (src/lei/api-schemas.ts) as the document.

import type { JsonSchema, ParamDoc } from "../http/route.js";

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const str = { type: "string" };
const int = { type: "integer" };

export const ENGINE_SCHEMAS: Record<string, JsonSchema> = {
  Collection: {
    type: "object",
    required: ["name", "num_documents", "fields"],
    properties: {
      name: { ...str, description: "The live collection's name, e.g. lei_loaded-20261126041144" },
      num_documents: int,
      created_at: { ...int, description: "Unix seconds of the load" },
      fields: {
        type: "array",
        items: {
          type: "object",
          properties: { name: str, type: str, facet: { type: "boolean" }, optional: { type: "boolean" }, index: { type: "boolean" } },
        },
      },
      default_sorting_field: str,
      enable_nested_fields: { type: "boolean" },
    },
  },
  Alias: {
    type: "object",
    required: ["name", "collection_name"],
    properties: { name: str, collection_name: { ...str, description: "lei, or the live collection's name" } },
  },
  SearchResult: {
    type: "object",
    required: ["found", "out_of", "page", "search_time_ms", "hits"],
    properties: {
      found: int,
      out_of: int,
      page: int,
      search_time_ms: int,
      hits: {
        type: "array",
        items: { type: "object", properties: { document: ref("LegalEntity"), text_match: int, highlights: { type: "array", items: {} } } },
      },
      facet_counts: {
        type: "array",
        items: {
          type: "object",
          properties: {
            field_name: str,
            counts: { type: "array", items: { type: "object", properties: { value: str, count: int, highlighted: str } } },
          },
        },
      },
      request_params: { type: "object", properties: { collection_name: str, q: str, per_page: int } },
    },
  },
  MultiSearchRequest: {
    type: "object",
    required: ["searches"],
    properties: {
      searches: {
        type: "array",
        maxItems: 50,
        items: {
          type: "object",
          description: "A search's parameters, with `collection` and optionally its own `x-typesense-api-key`",
          additionalProperties: true,
        },
      },
    },
  },
  MultiSearchResult: {
    type: "object",
    required: ["results"],
    properties: {
      results: {
        type: "array",
        items: { oneOf: [ref("SearchResult"), { type: "object", required: ["code", "error"], properties: { code: int, error: str } }] },
      },
    },
  },
  SynonymRule: {
    type: "object",
    required: ["id", "synonyms"],
    properties: { id: str, synonyms: { type: "array", items: str }, root: str },
  },
  Preset: {
    type: "object",
    required: ["name", "value"],
    properties: { name: str, value: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } } },
  },
  StopwordSet: {
    type: "object",
    required: ["id", "stopwords"],
    properties: { id: str, stopwords: { type: "array", items: str }, locale: str },
  },
};

export { ref as engineRef };

/** The search parameters of GET /collections/{name}/documents/search (Typesense's names). */
export const ENGINE_SEARCH_PARAMS: ParamDoc[] = [
  { name: "q", required: true, description: "The query; * matches everything", example: "deutsche bank" },
  {
    name: "query_by",
    description: "Fields to search: legalName, otherNames, name, address fields; default all text fields",
    example: "legalName",
  },
  {
    name: "filter_by",
    description: "field:value, field:=value, field:[a,b], field:!=value, &&, parentheses; || only between clauses of one field",
    example: "country:DE && entityStatus:ACTIVE",
  },
  { name: "facet_by", description: "Comma-separated facet fields", example: "country" },
  { name: "page", description: "1-based page", schema: { type: "integer", minimum: 1 } },
  { name: "per_page", description: "Hits per page, up to 250", schema: { type: "integer", minimum: 0, maximum: 250 } },
  { name: "num_typos", description: "0–2 typos per word at most (a cap under the length budget)", schema: { type: "string" } },
  { name: "prefix", description: "true/false: whether the last word matches as a prefix", schema: { type: "string" } },
  { name: "preset", description: "A stored preset's parameters fill what the request does not set" },
  { name: "stopwords", description: "A stored stopword set's words are dropped from q" },
];

/** The collection named in a path: the live collection's name, or an alias of it (lei). */
export const COLLECTION_PARAM: ParamDoc = {
  name: "name",
  description: "The live collection's name, or an alias of it such as lei",
  example: "lei",
};
