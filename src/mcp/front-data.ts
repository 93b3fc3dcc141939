// The front's side of the tools' data calls (tool-data.ts): each runs on LeiService and
// FamilyService exactly as the HTTP route of the same question does, and answers with the
// route's serialised JSON, so the front's work per tool call is close to the HTTP API's. The
// failures an HTTP client would get as 400, 404 or 503 become the text of an isError result, with
// the same message.

import { NotReadyError, ShardFailedError } from "../engine/collection.js";
import { batchAnswer } from "../lei/batch-lookup.js";
import { ParamError } from "../lei/search-params.js";
import type { LeiService } from "../lei/service.js";
import { FAMILY_DEFAULT_DEPTH, FAMILY_DEFAULT_LIMIT, type FamilyService } from "../level2/family-service.js";
import { Matcher } from "../match/matcher.js";
import { matchRows } from "../match/routes.js";
import { searchParamsOf } from "./search-arguments.js";
import type { ChangeStore } from "../changes/model.js";
import { changePage, changeQuery, ChangeQueryError, checkedLei, HISTORY_PARAMS, knownEntity, type ChangePage } from "../changes/query.js";

/** The change feed as the tool reads it: its store (null until state is open), and whether the live collection holds an LEI. */
export interface ChangeHistory {
  store(): ChangeStore | null;
  holds(lei: string): boolean;
}
import type { DataAnswer, DataCalls, DataOp, ToolData } from "./tool-data.js";

type Handlers = { [K in DataOp]: (args: DataCalls[K]["args"]) => DataAnswer<K> | Promise<DataAnswer<K>> };

const utf8 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
const failure = (text: string): { failure: string } => ({ failure: text });

export class FrontData implements ToolData {
  private readonly handlers: Handlers;

  constructor(
    service: LeiService,
    family: FamilyService,
    matcher: Matcher = new Matcher(service, (input) => family.resolve(input)),
    history: ChangeHistory | null = null,
  ) {
    const resolve = (input: string): ReturnType<FamilyService["resolve"]> => family.resolve(input);
    this.handlers = {
      // the page's bytes are scratch memory the next search reuses: decoded before anything else runs
      search: async (args) => ({ value: await service.search(searchParamsOf(args), utf8) }),
      entity: (lei) =>
        service.entity(lei, (r) =>
          r.kind === "found" ? { value: { json: utf8(r.json), checkDigitsValid: r.checkDigitsValid } } : failure(r.message),
        ),
      entities: (leis) => ({ value: batchAnswer(service, leis, resolve).toString("utf8") }),
      match: async ({ rows, limit }) => ({ value: JSON.stringify({ results: await matchRows(matcher, rows, limit ?? 3) }) }),
      facets: async (field) => ({ value: await service.facetValues(field) }),
      stats: () => ({ value: service.stats() }),
      family: ({ lei, depth, limit }) => {
        const relationships = family.relationships(lei);
        if (!relationships.ok) return failure(relationships.message);
        const tree = family.family(lei, depth ?? FAMILY_DEFAULT_DEPTH, limit ?? FAMILY_DEFAULT_LIMIT);
        if (!tree.ok) return failure(tree.message);
        return { value: { relationships: relationships.json, family: tree.json } };
      },
      changes: async ({ lei, since, order, before, field, type, limit }) => {
        const store = history?.store() ?? null;
        if (store === null) return failure("temporarily unavailable: the change feed is not open yet; retry in a few seconds");
        const params: Record<string, string> = {};
        if (since !== undefined) params.since = since;
        if (order !== undefined) params.order = order;
        if (before !== undefined) params.before = before;
        if (field !== undefined) params.field = field;
        if (type !== undefined) params.type = type;
        if (limit !== undefined) params.limit = String(limit);
        const query = { ...changeQuery(params, HISTORY_PARAMS), lei: checkedLei(lei.trim()) };
        let page: ChangePage, known: boolean;
        try {
          page = await changePage(store, query);
          known = page.changes.length > 0 || (await knownEntity(store, query.lei, (l) => history!.holds(l)));
        } catch (err) {
          return failure(
            `temporarily unavailable: the change feed cannot be read now (${(err as Error).message.split("\n")[0]}); retry in a few seconds`,
          );
        }
        if (!known) {
          return failure(`no entity ${query.lei}: the registry does not hold it and the feed has no change of it`);
        }
        return { value: JSON.stringify(page) };
      },
      identifier: (identifier) => {
        const resolved = family.resolve(identifier);
        if (!resolved) return failure(`'${identifier.slice(0, 40)}' is neither an LEI (20 characters), an ISIN (12) nor a BIC (8 or 11)`);
        if (resolved.lei === null) return failure(resolved.error ?? "not found");
        const lei = resolved.lei;
        return service.entity(lei, (r) => {
          if (r.kind === "malformed" || r.kind === "bad-check-digits") return failure(r.message);
          if (r.kind === "not-found" && resolved.kind === "LEI") return failure(r.message);
          return { value: { kind: resolved.kind, lei, json: r.kind === "found" ? utf8(r.json) : null } };
        });
      },
    };
  }

  async call<K extends DataOp>(op: K, args: DataCalls[K]["args"]): Promise<DataAnswer<K>> {
    const handler: Handlers[K] | undefined = this.handlers[op];
    if (handler === undefined) return failure("internal error");
    try {
      return await handler(args);
    } catch (err) {
      return failure(failureText(err));
    }
  }
}

/**
 * What an agent is told of a call that threw: the HTTP API's message for a bad argument (400) or
 * data not ready (503); anything else is a bug, logged here, and the agent is told no more than
 * the HTTP API would tell it.
 */
function failureText(err: unknown): string {
  if (err instanceof ParamError || err instanceof ChangeQueryError) return err.message;
  if (err instanceof NotReadyError || err instanceof ShardFailedError)
    return `temporarily unavailable: ${err.message}; retry in a few seconds`;
  console.error(`mcp tool: ${(err as Error)?.stack ?? String(err)}`);
  return "internal error";
}
