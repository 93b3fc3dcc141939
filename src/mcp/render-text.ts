// The text an agent reads next to each tool's structuredContent: compact, one entity per line,
// every line self-contained (LEI first, so it can be copied into get_legal_entity). The full
// JSON is in structuredContent; repeating it here would only double what a model has to read.

import { MAX_WINDOW } from "../lei/search-params.js";
import type {
  BatchAnswer,
  ChangePage,
  MatchAnswer,
  DatasetStats,
  FacetListing,
  FacetValue,
  LegalEntity,
  SearchPage,
} from "./tool-schemas.js";

const NONE = "-";
const show = (value: string | null | undefined): string => (value === null || value === undefined || value === "" ? NONE : value);

/** `LEI | legal name | country | entity status/registration status` */
export function entityLine(entity: LegalEntity): string {
  return `${entity.lei} | ${show(entity.legalName)} | ${show(entity.country)} | ${show(entity.entityStatus)}/${show(entity.registrationStatus)}`;
}

const facetCounts = (values: FacetValue[]): string =>
  values.length === 0 ? "(none)" : values.map((v) => `${v.value} ${v.count}`).join(", ");

const entities = (n: number): string => (n === 1 ? "1 entity matches" : `${n} entities match`);

export function searchPageText(page: SearchPage): string {
  const first = (page.page - 1) * page.limit + 1;
  const last = first + page.results.length - 1;
  const lines: string[] = [];
  if (page.results.length === 0) {
    lines.push(
      page.found === 0
        ? `No entity matches (of ${page.outOf}).`
        : `${entities(page.found)} (of ${page.outOf}); page ${page.page} is past the last one.`,
    );
  } else {
    lines.push(`${entities(page.found)} (of ${page.outOf}); results ${first}-${last}, page ${page.page}:`);
    lines.push("LEI | legal name | country | status/registration");
    for (const entity of page.results) lines.push(entityLine(entity));
    if (last < page.found) {
      lines.push(
        (page.page + 1) * page.limit <= MAX_WINDOW
          ? `More results: page ${page.page + 1}.`
          : `More results than paging reaches (page × limit ≤ ${MAX_WINDOW}): narrow the query with filters.`,
      );
    }
  }
  for (const facet of page.facets ?? []) lines.push(`facet ${facet.field}: ${facetCounts(facet.values)}`);
  return lines.join("\n");
}

/** "Gesellschaft mit beschränkter Haftung (GmbH; ELF 2HBR)": the ELF list's name where it has one, the code after. */
function formText(entity: LegalEntity): string {
  if (!entity.legalFormName) return show(entity.legalForm);
  const detail = [entity.legalFormAbbreviations, `ELF ${entity.legalForm}`].filter(Boolean).join("; ");
  return `${entity.legalFormName} (${detail})`;
}

export function entityText(entity: LegalEntity, checkDigitsValid: boolean): string {
  const lines = [
    entityLine(entity),
    `legal name: ${show(entity.legalName)}`,
    `status: ${show(entity.entityStatus)}; registration: ${show(entity.registrationStatus)}; category: ${show(entity.entityCategory)}; legal form: ${formText(entity)}`,
    `jurisdiction: ${show(entity.jurisdiction)}; country: ${show(entity.country)}; region: ${show(entity.region)}`,
    `legal address: ${[entity.legalAddress, entity.postalCode, entity.city].filter(Boolean).join(", ") || NONE}`,
  ];
  if (entity.hqAddress) lines.push(`headquarters address: ${entity.hqAddress}`);
  lines.push(
    `managing LOU: ${show(entity.managingLou)}; registered: ${show(entity.registeredAt)}; last updated: ${show(entity.lastUpdatedAt)}; next renewal: ${show(entity.nextRenewalDate)}`,
  );
  if (entity.successorLeis) lines.push(`successor LEIs: ${entity.successorLeis}`);
  if (!checkDigitsValid) lines.push("note: this LEI fails the ISO 17442 check digits, yet it is in the registry as published");
  return lines.join("\n");
}

/**
 * A line per change, in the page's order, and the cursor of the next page. `fromCursor`: the page
 * began at a cursor the caller passed (since or before), so an empty page is empty past it only.
 */
export function changesText(lei: string, page: ChangePage, newestFirst: boolean, fromCursor: boolean): string {
  const [order, side, cursor] = newestFirst ? ["newest", "before", "before"] : ["oldest", "after", "since"];
  if (page.changes.length === 0)
    return fromCursor ? `no changes of ${lei} recorded ${side} the cursor; next: ${page.next}` : `no changes of ${lei} recorded`;
  const lines = [`${page.changes.length} change(s) of ${lei}, ${order} first (field: old → new, publication):`];
  for (const c of page.changes) lines.push(`${c.field}: ${show(c.valueOld)} → ${show(c.valueNew)} (${c.publication})`);
  lines.push(`next: ${page.next} (pass it as ${cursor} for the ${newestFirst ? "older" : "later"} changes)`);
  return lines.join("\n");
}

export function facetListingText(listing: FacetListing): string {
  return `${listing.field}: ${listing.values.length} values, most frequent first\n${listing.values.map((v) => `${v.value} ${v.count}`).join("\n")}`;
}

export function statsText(stats: DatasetStats): string {
  return [
    `${stats.records} legal entities; license ${stats.license}`,
    `source: ${stats.source}`,
    `published: ${show(stats.published)}`,
  ].join("\n");
}

/** A line per input, in order: the entity's line, or the LEI and why it has none. */
export function batchText(answer: BatchAnswer): string {
  const lines = [
    `${answer.found} found, ${answer.notFound} not found, ${answer.invalid} invalid:`,
    "LEI | legal name | country | status/registration",
  ];
  for (const row of answer.results) lines.push(row.entity ? entityLine(row.entity) : `${row.lei} | ${row.status}: ${row.error ?? ""}`);
  return lines.join("\n");
}

/** Per row: its verdict, then a line per candidate with its score. */
export function matchText(answer: MatchAnswer): string {
  const lines: string[] = [];
  answer.results.forEach((row, i) => {
    lines.push(`row ${i + 1}: ${row.verdict}`);
    for (const c of row.candidates) lines.push(`  ${c.score.toFixed(3)} ${entityLine(c.entity)}`);
  });
  return lines.join("\n");
}

interface RelatedJson {
  lei: string;
  entity: LegalEntity | null;
  relationship: { status: string | null };
}

/** get_corporate_family: the parents (or why there are none), then the tree, one member a line, indented by depth. */
export function familyText(result: { relationships: Record<string, unknown>; family: Record<string, unknown> }): string {
  const r = result.relationships as {
    lei: string;
    directParent: RelatedJson | null;
    ultimateParent: RelatedJson | null;
    directParentException: { reasons: string[] } | null;
    ultimateParentException: { reasons: string[] } | null;
    fundManagers: RelatedJson[];
    umbrellaFund: RelatedJson | null;
    headOffice: RelatedJson | null;
    children: Record<string, number>;
    isins: number;
  };
  const named = (x: RelatedJson): string =>
    `${x.lei} ${x.entity?.legalName ?? "(not in the Level 1 registry)"} [${x.relationship.status ?? "no status"}]`;
  const parent = (label: string, p: RelatedJson | null, e: { reasons: string[] } | null): string =>
    `${label}: ${p ? named(p) : e ? `none reported (${e.reasons.join(", ") || "no reason given"})` : NONE}`;
  const lines = [
    `corporate family of ${r.lei}`,
    parent("direct parent", r.directParent, r.directParentException),
    parent("ultimate parent", r.ultimateParent, r.ultimateParentException),
  ];
  if (r.fundManagers.length > 0) lines.push(`fund manager: ${r.fundManagers.map(named).join("; ")}`);
  if (r.umbrellaFund) lines.push(`umbrella fund: ${named(r.umbrellaFund)}`);
  if (r.headOffice) lines.push(`head office: ${named(r.headOffice)}`);
  lines.push(
    `children: ${Object.entries(r.children)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}; ISINs: ${r.isins}`,
  );
  type Node = { lei: string; entity: LegalEntity | null; childCount: number; children: Node[] };
  const f = result.family as { top: Node; nodes: number; truncated: boolean };
  lines.push(`family tree (${f.nodes} members${f.truncated ? ", cut at the depth or size cap" : ""}):`);
  const walk = (n: Node, depth: number): void => {
    const more = n.childCount > n.children.length ? ` (+${n.childCount - n.children.length} more)` : "";
    lines.push(`${"  ".repeat(depth + 1)}${n.lei} ${n.entity?.legalName ?? "(not in the Level 1 registry)"}${more}`);
    for (const c of n.children) walk(c, depth + 1);
  };
  walk(f.top, 0);
  return lines.join("\n");
}
