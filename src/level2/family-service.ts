// Corporate families and the identifier crosswalk, shared by the HTTP routes and the MCP tools:
// validated identifiers in, JSON text out (family-schemas.ts describes every answer). Records
// are spliced in as stored; related entities are embedded from the live Level 1 collection, or
// left as a bare LEI (entity: null) where Level 1 does not hold them.

import { NotReadyError, type Collection } from "../engine/collection.js";
import { checkDigitsValid, hasLeiForm } from "../lei/lei-code.js";
import type { LeiService } from "../lei/service.js";
import type { Edge, FamilyData } from "./family-data.js";
import { checkBic, checkIsin, identifierKind, type IdentifierKind } from "./identifiers.js";
import { categoryCode, DIRECT, FUND_MANAGER, HEAD_OFFICE, MASTER_FUND, ULTIMATE, UMBRELLA } from "./layout.js";

const DIRECT_EXCEPTION = categoryCode("DIRECT_ACCOUNTING_CONSOLIDATION_PARENT"),
  ULTIMATE_EXCEPTION = categoryCode("ULTIMATE_ACCOUNTING_CONSOLIDATION_PARENT");

/** The kinds of child, as GET /v1/entities/{lei}/children?type= names them, and their relationship type. */
export const CHILD_KINDS = {
  direct: DIRECT,
  ultimate: ULTIMATE,
  "managed-funds": FUND_MANAGER,
  "sub-funds": UMBRELLA,
  feeders: MASTER_FUND,
  branches: HEAD_OFFICE,
} as const;
export type ChildKind = keyof typeof CHILD_KINDS;
const COUNT_NAMES: [string, number][] = [
  ["direct", DIRECT],
  ["ultimate", ULTIMATE],
  ["managedFunds", FUND_MANAGER],
  ["subFunds", UMBRELLA],
  ["feeders", MASTER_FUND],
  ["branches", HEAD_OFFICE],
];

export const FAMILY_DEFAULT_DEPTH = 3;
export const FAMILY_MAX_DEPTH = 10;
export const FAMILY_DEFAULT_LIMIT = 100;
export const FAMILY_MAX_LIMIT = 500;
/** how far up a chain of direct parents is followed, looking for the top of a family */
const MAX_CHAIN = 50;

/** An answer, or why there is none: the status and message the routes send. */
export type FamilyAnswer = { ok: true; json: string } | { ok: false; status: 400 | 404; message: string };

export class FamilyService {
  constructor(
    private readonly collection: Collection,
    private readonly lei: LeiService,
  ) {}

  /** GET /v1/entities/{lei}/relationships */
  relationships(input: string): FamilyAnswer {
    return this.withEntity(input, (lei, data) => {
      const entity = this.entityJson(lei);
      const reported = data?.reported(lei) ?? [];
      const exceptions = data?.exceptions(lei) ?? [];
      const exception = (category: number): string => exceptions.find((e) => e.category === category)?.json ?? "null";
      const one = (type: number): string => {
        const edge = preferred(reported.filter((e) => e.type === type));
        return edge ? this.related(edge) : "null";
      };
      const all = (type: number): string =>
        `[${reported
          .filter((e) => e.type === type)
          .map((e) => this.related(e))
          .join(",")}]`;
      const children = data?.childCounts(lei);
      const counts = COUNT_NAMES.map(([name, type]) => `${JSON.stringify(name)}:${children?.[type - 1] ?? 0}`).join(",");
      return (
        `{"lei":"${lei}","entity":${entity ?? "null"},"directParent":${one(DIRECT)},"ultimateParent":${one(ULTIMATE)},` +
        `"directParentException":${exception(DIRECT_EXCEPTION)},"ultimateParentException":${exception(ULTIMATE_EXCEPTION)},` +
        `"fundManagers":${all(FUND_MANAGER)},"umbrellaFund":${one(UMBRELLA)},"masterFunds":${all(MASTER_FUND)},"headOffice":${one(HEAD_OFFICE)},` +
        `"children":{${counts}},"isins":${data?.isinCount(lei) ?? 0}}`
      );
    });
  }

  /** GET /v1/entities/{lei}/children: one kind of child, paged in LEI order. */
  children(input: string, kind: ChildKind, page: number, limit: number): FamilyAnswer {
    return this.withEntity(input, (lei, data) => {
      const found = data ? data.reporters(lei, CHILD_KINDS[kind], (page - 1) * limit, limit) : { found: 0, items: [] };
      return `{"lei":"${lei}","type":"${kind}","found":${found.found},"page":${page},"limit":${limit},"results":[${found.items
        .map((e) => this.related(e))
        .join(",")}]}`;
    });
  }

  /** GET /v1/entities/{lei}/isins */
  isins(input: string, page: number, limit: number): FamilyAnswer {
    return this.withEntity(input, (lei, data) => {
      const found = data ? data.isinsOf(lei, (page - 1) * limit, limit) : { found: 0, items: [] };
      return `{"lei":"${lei}","found":${found.found},"page":${page},"limit":${limit},"results":${JSON.stringify(found.items)}}`;
    });
  }

  /**
   * GET /v1/entities/{lei}/family: the tree from the family's top (the ultimate parent, else the
   * top of the chain of direct parents, else the entity) down through direct children, at most
   * `depth` levels below the top and `limit` nodes; the path from the top to the entity is
   * always in it.
   */
  family(input: string, depth: number, limit: number): FamilyAnswer {
    return this.withEntity(input, (lei, data) => {
      const tree = new FamilyTree(data, (l) => this.entityJson(l), depth, limit);
      return tree.render(lei);
    });
  }

  /** GET /v1/isin/{isin}: the issuer's LegalEntity (a bare {"lei"} where Level 1 does not hold it). */
  byIsin(input: string): FamilyAnswer {
    return this.byCode(input, "ISIN");
  }

  /** GET /v1/bic/{bic}: the LegalEntity the BIC belongs to (a bare {"lei"} where Level 1 does not hold it). */
  byBic(input: string): FamilyAnswer {
    return this.byCode(input, "BIC");
  }

  private byCode(input: string, kind: "ISIN" | "BIC"): FamilyAnswer {
    const mapped = this.mapped(input, kind);
    if (mapped.lei === null) return { ok: false, status: mapped.malformed ? 400 : 404, message: mapped.message };
    return { ok: true, json: this.entityJson(mapped.lei) ?? `{"lei":"${mapped.lei}"}` };
  }

  /** The LEI an identifier names: itself for an LEI, the mapped one for an ISIN or BIC; null where none is known. */
  resolve(input: string): { kind: IdentifierKind; lei: string | null; error?: string; invalid?: boolean } | null {
    const kind = identifierKind(input);
    if (kind === null) return null;
    if (kind === "LEI") return { kind, lei: input.trim().toUpperCase() };
    const mapped = this.mapped(input, kind);
    return mapped.lei === null ? { kind, lei: null, error: mapped.message, invalid: mapped.malformed } : { kind, lei: mapped.lei };
  }

  /** The LEI GLEIF maps an ISIN or BIC to, once the code is checked; else why there is none. */
  private mapped(input: string, kind: "ISIN" | "BIC"): { lei: string } | { lei: null; malformed: boolean; message: string } {
    const checked = kind === "ISIN" ? checkIsin(input) : checkBic(input);
    if (!checked.ok) return { lei: null, malformed: true, message: checked.message };
    const data = this.data();
    const lei = kind === "ISIN" ? (data?.isinIssuer(checked.value) ?? null) : (data?.bicOwner(checked.value) ?? null);
    return lei === null ? { lei: null, malformed: false, message: `no LEI is known for ${kind} '${checked.value}'` } : { lei };
  }

  /** Whether Level 1 holds the LEI (any case), or Level 2 names it. Throws NotReadyError while nothing is loaded. */
  knows(input: string): boolean {
    const lei = input.trim().toUpperCase();
    if (!hasLeiForm(lei)) return false;
    return this.lei.holds(lei) || (this.data()?.mentions(lei) ?? false);
  }

  /** The live collection's Level 2 data; throws NotReadyError while nothing is loaded. */
  private data(): FamilyData | null {
    const live = this.collection.current;
    if (!live) throw new NotReadyError("no collection is loaded yet");
    return live.family;
  }

  /** The entity's LegalEntity JSON, or null where Level 1 does not hold it. */
  private entityJson(lei: string): string | null {
    return this.lei.entity(lei, (r) => (r.kind === "found" ? Buffer.from(r.json).toString("utf8") : null));
  }

  private related(edge: Edge): string {
    return `{"lei":"${edge.lei}","entity":${this.entityJson(edge.lei) ?? "null"},"relationship":${edge.record}}`;
  }

  /** Validates the LEI as GET /v1/entities/{lei} does; 404 when neither Level 1 nor Level 2 knows it. */
  private withEntity(input: string, answer: (lei: string, data: FamilyData | null) => string): FamilyAnswer {
    const lei = input.trim().toUpperCase();
    if (!hasLeiForm(lei)) {
      return {
        ok: false,
        status: 400,
        message: `malformed LEI '${clip(input)}': an LEI is 20 characters, 18 letters or digits then 2 check digits`,
      };
    }
    if (!this.knows(lei)) {
      if (!checkDigitsValid(lei))
        return { ok: false, status: 400, message: `LEI '${lei}' fails the ISO 17442 check digits and is not in the dataset` };
      return { ok: false, status: 404, message: `no entity with LEI '${lei}'` };
    }
    return { ok: true, json: answer(lei, this.data()) };
  }
}

/** Of several relationships of one type, the current one: ACTIVE first, then without status, then INACTIVE. */
function preferred(edges: Edge[]): Edge | null {
  if (edges.length < 2) return edges[0] ?? null;
  let best: Edge | null = null,
    bestRank = 3;
  for (const e of edges) {
    const status = (JSON.parse(e.record) as { status: string | null }).status;
    const rank = status === "ACTIVE" ? 0 : status === null ? 1 : 2;
    if (rank < bestRank) {
      best = e;
      bestRank = rank;
    }
  }
  return best;
}

interface TreeNode {
  lei: string;
  /** the relationship record linking it to its parent in the tree; null for the top */
  record: string | null;
  children: TreeNode[];
  childCount: number;
}

/** One family tree, built top-down within its caps. */
class FamilyTree {
  private nodes = 0;
  private truncated = false;
  private readonly seen = new Set<string>();

  constructor(
    private readonly data: FamilyData | null,
    private readonly entity: (lei: string) => string | null,
    private readonly depth: number,
    private readonly limit: number,
  ) {}

  render(lei: string): string {
    const path = this.pathToTop(lei);
    const top: TreeNode = this.node(path[0].lei, null);
    // the path first: the asked entity is in the tree however large the family
    let at = top;
    for (const step of path.slice(1)) {
      const child = this.node(step.lei, step.record);
      at.children.push(child);
      at = child;
    }
    // then breadth first from the top, level by level, within the caps
    let level: { node: TreeNode; depth: number }[] = [{ node: top, depth: 0 }];
    while (level.length > 0) {
      const next: { node: TreeNode; depth: number }[] = [];
      for (const { node, depth } of level) {
        for (const child of node.children) next.push({ node: child, depth: depth + 1 });
        if (depth >= this.depth) {
          if (node.childCount > node.children.length) this.truncated = true;
          continue;
        }
        for (let from = 0; node.children.length < node.childCount && from < node.childCount;) {
          const room = this.limit - this.nodes;
          if (room <= 0) {
            this.truncated = true;
            break;
          }
          const page = this.data!.reporters(node.lei, DIRECT, from, Math.min(room, 100));
          from += page.items.length;
          if (page.items.length === 0) break;
          for (const edge of page.items) {
            if (this.seen.has(edge.lei) || this.nodes >= this.limit) continue;
            const child = this.node(edge.lei, edge.record);
            node.children.push(child);
            next.push({ node: child, depth: depth + 1 });
          }
        }
      }
      level = next;
    }
    return `{"lei":"${path[path.length - 1].lei}","top":${this.write(top)},"nodes":${this.nodes},"truncated":${this.truncated},"depth":${this.depth},"limit":${this.limit}}`;
  }

  private node(lei: string, record: string | null): TreeNode {
    this.nodes++;
    this.seen.add(lei);
    return { lei, record, children: [], childCount: this.data?.childCounts(lei)[DIRECT - 1] ?? 0 };
  }

  /** From the family's top down to `lei`: each step's LEI and the record linking it to the one before. */
  private pathToTop(lei: string): { lei: string; record: string | null }[] {
    const chain: { lei: string; record: string | null }[] = [{ lei, record: null }];
    if (!this.data) return chain;
    const ultimate = preferred(this.data.reported(lei).filter((e) => e.type === ULTIMATE));
    const onChain = new Set([lei]);
    for (let i = 0; i < MAX_CHAIN; i++) {
      const head = chain[0];
      if (ultimate && head.lei === ultimate.lei) break;
      const parent = preferred(this.data.reported(head.lei).filter((e) => e.type === DIRECT));
      if (!parent || onChain.has(parent.lei)) break;
      head.record = parent.record;
      chain.unshift({ lei: parent.lei, record: null });
      onChain.add(parent.lei);
    }
    // the ultimate parent, where the direct chain does not reach it, sits above the chain's top
    if (ultimate && chain[0].lei !== ultimate.lei && !onChain.has(ultimate.lei)) {
      chain[0].record = ultimate.record;
      chain.unshift({ lei: ultimate.lei, record: null });
    }
    return chain;
  }

  private write(node: TreeNode): string {
    return `{"lei":"${node.lei}","entity":${this.entity(node.lei) ?? "null"},"relationship":${node.record ?? "null"},"childCount":${node.childCount},"children":[${node.children
      .map((c) => this.write(c))
      .join(",")}]}`;
  }
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
