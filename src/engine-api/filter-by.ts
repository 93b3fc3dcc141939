// Typesense's filter_by, as far as the engine's filters reach: an AND over fields, each field a
// set of allowed values and a set of excluded ones. Clauses: `field:value`, `field:=value`,
// `field:[a,b]`, `field:!=value`, `field:!=[a,b]`; values may be `backtick quoted`. `&&`, `||`
// and parentheses combine them, as long as every `||` joins clauses of one field (an OR across
// fields is no per-field filter, and is refused with a message that says so). Parentheses nest at
// most MAX_FILTER_DEPTH deep; parsing is linear in the text.

import { COLUMNS, columnFieldName, type FilterParam } from "../engine/schema.js";
import { ParamError } from "../lei/search-params.js";

/** Typesense field name (LegalEntity's) → Leidex filter parameter. */
export const PARAM_OF_FIELD = new Map<string, FilterParam>(COLUMNS.map((c) => [columnFieldName(c), c.param]));

export interface FieldFilter {
  /** allowed values; null = any */
  include: string[] | null;
  exclude: string[];
}

/** Per field, what passes; null when the filter contradicts itself (nothing can pass). */
export type FilterPlan = Map<FilterParam, FieldFilter> | null;

type Token = { kind: "(" | ")" | "&&" | "||" } | { kind: "clause"; text: string };

/** Deepest parenthesis nesting accepted: deeper is a 400, never a deep recursion. */
const MAX_FILTER_DEPTH = 400;

/**
 * A request's filter_by ANDed with a scoped key's embedded one. Each is parsed on its own and
 * only the parsed plans are combined, so no text of one can reach into the other (joining them
 * as text let `country:FR) || (country:FR` escape the key's filter). Where both allow a value,
 * the key's spelling of it is kept.
 */
export function parseScopedFilterBy(request: string, scope: string | null): FilterPlan {
  const requested = parseFilterBy(request);
  if (scope === null) return requested;
  let scoped: FilterPlan;
  try {
    scoped = parseFilterBy(scope);
  } catch (err) {
    if (err instanceof ParamError) throw new ParamError(`the scoped key's embedded ${err.message}`);
    throw err;
  }
  return and(scoped, requested);
}

/**
 * Linear in the text: one pass to tokenize, one to parse (recursion at most MAX_FILTER_DEPTH
 * groups deep), and each && or || costs only the size of its right-hand side.
 */
export function parseFilterBy(text: string): FilterPlan {
  const tokens = tokenize(text);
  if (tokens.length === 0) return new Map();
  let at = 0;
  let depth = 0;
  const peek = (): Token | undefined => tokens[at];

  const expr = (): FilterPlan => {
    let left = conj();
    while (peek()?.kind === "||") {
      at++;
      left = or(left, conj());
    }
    return left;
  };
  const conj = (): FilterPlan => {
    let left = atom();
    while (peek()?.kind === "&&") {
      at++;
      left = and(left, atom());
    }
    return left;
  };
  const atom = (): FilterPlan => {
    const t = tokens[at++];
    if (!t) throw new ParamError("filter_by: ends too early");
    if (t.kind === "(") {
      if (++depth > MAX_FILTER_DEPTH) throw new ParamError(`filter_by: parentheses nest more than ${MAX_FILTER_DEPTH} deep`);
      const inner = expr();
      if (tokens[at++]?.kind !== ")") throw new ParamError("filter_by: unbalanced parentheses");
      depth--;
      return inner;
    }
    if (t.kind !== "clause") throw new ParamError(`filter_by: unexpected '${t.kind}'`);
    return clause(t.text);
  };
  const plan = expr();
  if (at !== tokens.length) throw new ParamError("filter_by: unbalanced parentheses or a stray operator");
  return plan;
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let current = "";
  let quoted = false;
  const flush = (): void => {
    if (current.trim() !== "") out.push({ kind: "clause", text: current.trim() });
    current = "";
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "`") quoted = !quoted;
    if (!quoted && (text.startsWith("&&", i) || text.startsWith("||", i))) {
      flush();
      out.push({ kind: text.startsWith("&&", i) ? "&&" : "||" });
      i++;
    } else if (!quoted && (ch === "(" || ch === ")")) {
      flush();
      out.push({ kind: ch });
    } else {
      current += ch;
    }
  }
  if (quoted) throw new ParamError("filter_by: unclosed backtick");
  flush();
  return out;
}

function clause(text: string): FilterPlan {
  const m = /^([A-Za-z]+)\s*:\s*(!=|=)?\s*(.+)$/s.exec(text);
  if (!m) throw new ParamError(`filter_by: cannot read '${text}'; write field:value, field:[a,b] or field:!=value`);
  const param = PARAM_OF_FIELD.get(m[1]);
  if (!param) throw new ParamError(`filter_by: '${m[1]}' is not a filter field; use ${COLUMNS.map(columnFieldName).join(", ")}`);
  const values = valuesOf(m[3].trim());
  return new Map([[param, m[2] === "!=" ? { include: null, exclude: values } : { include: values, exclude: [] }]]);
}

function valuesOf(raw: string): string[] {
  const list = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1).split(",") : [raw];
  const values = list.map((v) => v.trim().replace(/^`(.*)`$/s, "$1")).filter((v) => v !== "");
  if (values.length === 0) throw new ParamError("filter_by: a clause has no value");
  for (const v of values) if (v.includes(",")) throw new ParamError(`filter_by: the value '${v}' holds a comma`);
  return values;
}

const folded = (v: string): string => v.toLowerCase();

// and() and or() take plans fresh from clause() or from an earlier and()/or(), used once: they
// extend their left operand in place, so a chain of n clauses costs O(n), not O(n²).

function and(a: FilterPlan, b: FilterPlan): FilterPlan {
  if (a === null || b === null) return null;
  for (const [param, f] of b) {
    const g = a.get(param);
    if (!g) {
      a.set(param, f);
      continue;
    }
    if (f.include !== null) {
      if (g.include === null) g.include = f.include;
      else {
        const allowed = new Set(f.include.map(folded));
        g.include = g.include.filter((v) => allowed.has(folded(v)));
        if (g.include.length === 0) return null;
      }
    }
    for (const v of f.exclude) g.exclude.push(v);
  }
  return a;
}

function or(a: FilterPlan, b: FilterPlan): FilterPlan {
  if (a === null) return b;
  if (b === null) return a;
  const [fa, fb] = [single(a), single(b)];
  if (!fa || !fb || fa.param !== fb.param)
    throw new ParamError("filter_by: || may only join clauses of one field (field:a || field:b); an OR across fields is not supported");
  if (fa.filter.exclude.length > 0 || fb.filter.exclude.length > 0 || fa.filter.include === null || fb.filter.include === null) {
    throw new ParamError("filter_by: || may not join != clauses");
  }
  for (const v of fb.filter.include) fa.filter.include.push(v);
  return a;
}

function single(plan: Map<FilterParam, FieldFilter>): { param: FilterParam; filter: FieldFilter } | null {
  if (plan.size !== 1) return null;
  const [param, filter] = plan.entries().next().value!;
  return { param, filter };
}
