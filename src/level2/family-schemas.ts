// The Level 2 answers as JSON Schemas (OpenAPI components and MCP output schemas), and the query
// parameters of the paged routes, validated by the same Ajv as the rest of the API.

import { ajv } from "../http/json-schema.js";
import type { JsonSchema } from "../http/route.js";
import { CHILD_KINDS, FAMILY_DEFAULT_DEPTH, FAMILY_DEFAULT_LIMIT, FAMILY_MAX_DEPTH, FAMILY_MAX_LIMIT } from "./family-service.js";
import { RELATIONSHIP_TYPES } from "./layout.js";

const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const nullableString = { type: ["string", "null"] };
const int64 = { type: "integer", format: "int64" };
const lei = { type: "string", description: "ISO 17442 LEI" };
const nullable = (name: string): JsonSchema => ({ oneOf: [ref(name), { type: "null" }] });

export const FAMILY_SCHEMAS: Record<string, JsonSchema> = {
  RelationshipRecord: {
    type: "object",
    description: "A GLEIF Level 2 relationship record (RR-CDF 2.1), as published; `NULL` statuses and empty values are null",
    required: ["startNode", "endNode", "type", "status", "periods", "registration"],
    properties: {
      startNode: { type: "string", description: "LEI of the child: the entity that reports the relationship" },
      startNodeType: nullableString,
      endNode: { type: "string", description: "LEI of the parent, fund manager, umbrella fund, master fund or head office" },
      endNodeType: nullableString,
      type: { type: "string", description: `One of ${RELATIONSHIP_TYPES.join(", ")}` },
      status: { type: ["string", "null"], description: "ACTIVE or INACTIVE; null where the file says NULL or nothing" },
      periods: {
        type: "array",
        items: {
          type: "object",
          properties: { type: nullableString, startDate: nullableString, endDate: nullableString },
          description: "RELATIONSHIP_PERIOD, ACCOUNTING_PERIOD or DOCUMENT_FILING_PERIOD",
        },
      },
      accountingStandard: { type: ["string", "null"], description: "The ACCOUNTING_STANDARD qualifier's category (IFRS, US_GAAP, …)" },
      qualifiers: { type: "array", items: { type: "object", properties: { dimension: nullableString, category: nullableString } } },
      quantifiers: {
        type: "array",
        items: { type: "object", properties: { measurementMethod: nullableString, amount: nullableString, units: nullableString } },
      },
      registration: {
        type: "object",
        properties: Object.fromEntries(
          [
            "initialRegistrationDate",
            "lastUpdateDate",
            "status",
            "nextRenewalDate",
            "managingLou",
            "validationSources",
            "validationDocuments",
            "validationReference",
          ].map((n) => [n, nullableString]),
        ),
      },
    },
  },
  ReportingException: {
    type: "object",
    description: "Why an entity reports no parent of a category (GLEIF REPEX)",
    required: ["lei", "category", "reasons", "references"],
    properties: {
      lei,
      category: { type: "string", description: "DIRECT_ACCOUNTING_CONSOLIDATION_PARENT or ULTIMATE_ACCOUNTING_CONSOLIDATION_PARENT" },
      reasons: {
        type: "array",
        items: { type: "string" },
        description: "NON_CONSOLIDATING, NATURAL_PERSONS, NO_KNOWN_PERSON, LEGAL_OBSTACLES, …",
      },
      references: { type: "array", items: { type: "string" } },
    },
  },
  RelatedEntity: {
    type: "object",
    required: ["lei", "entity", "relationship"],
    properties: {
      lei,
      entity: { description: "The related LegalEntity; null where Level 1 does not hold the LEI (a bare LEI)", ...nullable("LegalEntity") },
      relationship: ref("RelationshipRecord"),
    },
  },
  EntityRelationships: {
    type: "object",
    required: [
      "lei",
      "entity",
      "directParent",
      "ultimateParent",
      "directParentException",
      "ultimateParentException",
      "fundManagers",
      "umbrellaFund",
      "masterFunds",
      "headOffice",
      "children",
      "isins",
    ],
    properties: {
      lei,
      entity: nullable("LegalEntity"),
      directParent: nullable("RelatedEntity"),
      ultimateParent: nullable("RelatedEntity"),
      directParentException: nullable("ReportingException"),
      ultimateParentException: nullable("ReportingException"),
      fundManagers: { type: "array", items: ref("RelatedEntity") },
      umbrellaFund: nullable("RelatedEntity"),
      masterFunds: { type: "array", items: ref("RelatedEntity"), description: "IS_FEEDER_TO: the master funds this fund feeds" },
      headOffice: { description: "IS_INTERNATIONAL_BRANCH_OF: the head office of this branch", ...nullable("RelatedEntity") },
      children: {
        type: "object",
        description: "How many relationships of each kind name this entity as their parent end; GET …/children pages them",
        properties: Object.fromEntries(["direct", "ultimate", "managedFunds", "subFunds", "feeders", "branches"].map((n) => [n, int64])),
      },
      isins: { ...int64, description: "How many ISINs the entity issued; GET …/isins pages them" },
    },
  },
  ChildrenPage: {
    type: "object",
    required: ["lei", "type", "found", "page", "limit", "results"],
    properties: {
      lei,
      type: { type: "string", enum: Object.keys(CHILD_KINDS) },
      found: int64,
      page: int64,
      limit: int64,
      results: {
        type: "array",
        items: ref("RelatedEntity"),
        description: "The children, in LEI order; relationship.startNode is the child",
      },
    },
  },
  IsinPage: {
    type: "object",
    required: ["lei", "found", "page", "limit", "results"],
    properties: { lei, found: int64, page: int64, limit: int64, results: { type: "array", items: { type: "string" } } },
  },
  FamilyNode: {
    type: "object",
    required: ["lei", "entity", "relationship", "childCount", "children"],
    properties: {
      lei,
      entity: nullable("LegalEntity"),
      relationship: { description: "The record linking it to its parent in the tree; null for the top", ...nullable("RelationshipRecord") },
      childCount: { ...int64, description: "Direct children reported (any status); more than `children` holds where the caps cut" },
      children: { type: "array", items: ref("FamilyNode") },
    },
  },
  Family: {
    type: "object",
    required: ["lei", "top", "nodes", "truncated", "depth", "limit"],
    properties: {
      lei: { type: "string", description: "The entity asked about; it is always in the tree" },
      top: ref("FamilyNode"),
      nodes: int64,
      truncated: { type: "boolean", description: "Whether the depth or size cap left members out" },
      depth: int64,
      limit: int64,
    },
  },
};

const pageParams = (maxLimit: number, defaultLimit: number): Record<string, JsonSchema> => ({
  page: { type: "string", pattern: "^[0-9]{1,7}$", description: "1-based page (default 1)", "x-hint": "a whole number from 1" },
  limit: {
    type: "string",
    pattern: "^[0-9]{1,4}$",
    description: `Page size, 1 to ${maxLimit} (default ${defaultLimit})`,
    "x-hint": `a whole number from 1 to ${maxLimit}`,
  },
});

export const CHILDREN_LIMIT = { max: 100, default: 20 };
export const ISINS_LIMIT = { max: 1000, default: 100 };

export const childrenQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    type: {
      type: "string",
      enum: Object.keys(CHILD_KINDS),
      description: "Which children (default direct)",
      "x-hint": Object.keys(CHILD_KINDS).join(", "),
    },
    ...pageParams(CHILDREN_LIMIT.max, CHILDREN_LIMIT.default),
  },
};
export const isinsQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageParams(ISINS_LIMIT.max, ISINS_LIMIT.default),
};
export const familyQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    depth: {
      type: "string",
      pattern: "^[0-9]{1,2}$",
      description: `Levels below the top, 1 to ${FAMILY_MAX_DEPTH} (default ${FAMILY_DEFAULT_DEPTH})`,
      "x-hint": `a whole number from 1 to ${FAMILY_MAX_DEPTH}`,
    },
    limit: {
      type: "string",
      pattern: "^[0-9]{1,4}$",
      description: `Most nodes in the tree, 1 to ${FAMILY_MAX_LIMIT} (default ${FAMILY_DEFAULT_LIMIT})`,
      "x-hint": `a whole number from 1 to ${FAMILY_MAX_LIMIT}`,
    },
  },
};

export const validateChildren = ajv.compile(childrenQuerySchema);
export const validateIsins = ajv.compile(isinsQuerySchema);
export const validateFamily = ajv.compile(familyQuerySchema);
