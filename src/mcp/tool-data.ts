// What the /mcp tools ask of the data, as calls small enough to cross threads: the SDK and the
// tools run on an MCP thread (mcp-threads.ts), the data (LeiService, FamilyService, the shard
// pool) lives on the front. Each call is one message there and one back; its answer is the
// HTTP API's serialised JSON, or the text of an isError result (the HTTP API's message).

import type { FacetParam } from "../engine/schema.js";
import type { DatasetStats } from "../lei/service.js";
import type { ChangesToolInput, FamilyToolInput, MatchToolInput, SearchToolInput } from "./tool-schemas.js";

export interface DataCalls {
  /** a SearchPage's JSON */
  search: { args: SearchToolInput; value: string };
  /** a LegalEntity's JSON; a malformed, unknown or check-digit-failing LEI is a failure */
  entity: { args: string; value: FoundEntity };
  /** a BatchAnswer's JSON */
  entities: { args: string[]; value: string };
  /** a MatchAnswer's JSON */
  match: { args: MatchToolInput; value: string };
  facets: { args: FacetParam; value: [string, number][] };
  stats: { args: null; value: DatasetStats };
  /** EntityRelationships and Family JSON */
  family: { args: FamilyToolInput; value: { relationships: string; family: string } };
  /** the LEI behind an LEI, ISIN or BIC, with its LegalEntity's JSON (null where Level 1 does not hold it) */
  identifier: { args: string; value: IdentifiedLei };
  /** a ChangePage's JSON: one entity's changes (GET /v1/entities/{lei}/changes) */
  changes: { args: ChangesToolInput; value: string };
}

export interface FoundEntity {
  json: string;
  checkDigitsValid: boolean;
}

export interface IdentifiedLei {
  kind: "LEI" | "ISIN" | "BIC";
  lei: string;
  json: string | null;
}

export type DataOp = keyof DataCalls;

/** A call's value, or the text an agent reads in an isError result. */
export type DataAnswer<K extends DataOp> = { value: DataCalls[K]["value"]; failure?: undefined } | { value?: undefined; failure: string };

export interface ToolData {
  call<K extends DataOp>(op: K, args: DataCalls[K]["args"]): Promise<DataAnswer<K>>;
}
