// An entity's corporate family (GLEIF Level 2) on its page: the direct and ultimate parents, or
// why none is reported; fund managers, umbrella fund, master funds and head office; its children
// by kind, a page at a time; and its ISINs. Every related entity is a link to its own page. The
// section never breaks the page: a 404, an empty or unreadable answer says "No relationships
// reported", any other problem says what it is, and the entity above stays as it was.

import { getJson, problemText, type Answer, type ChildKind, type EntityRelationships, type ListPage, type RelatedEntity } from "./api.js";
import { formatCount, h } from "./dom.js";
import { accountingStandardWords, codeWords, dateWords, exceptionReasonWords } from "./labels.js";

/** Children per page, and ISINs per page (the first few shown at once). */
const CHILDREN_PAGE = 20;
const ISIN_PAGE = 10;

/** The kinds of child in the order shown, with their words and the API's `type` parameter. */
const CHILD_KINDS: { kind: ChildKind; type: string; heading: string; noun: string; onDemand?: boolean }[] = [
  { kind: "direct", type: "direct", heading: "Direct children", noun: "direct children" },
  // mostly the direct children again and those below them: listed when asked for
  { kind: "ultimate", type: "ultimate", heading: "Ultimate children", noun: "ultimate children", onDemand: true },
  { kind: "managedFunds", type: "managed-funds", heading: "Managed funds", noun: "managed funds" },
  { kind: "subFunds", type: "sub-funds", heading: "Sub-funds", noun: "sub-funds" },
  { kind: "branches", type: "branches", heading: "International branches", noun: "branches" },
  { kind: "feeders", type: "feeders", heading: "Feeder funds", noun: "feeder funds" },
];

const NONE_REPORTED = "No relationships reported";

export class FamilySection {
  readonly element: HTMLElement;
  private readonly heading = h("h2", { id: "family-heading" }, "Corporate family");

  constructor(
    private readonly lei: string,
    private readonly signal: AbortSignal,
  ) {
    this.element = h(
      "section",
      { class: "family", "aria-labelledby": "family-heading" },
      this.heading,
      h("p", { class: "note" }, "Loading relationships…"),
    );
  }

  /** Fills the section from the relationships answer (null: the request was cancelled). */
  show(answer: Answer<EntityRelationships> | null): void {
    if (answer === null) return;
    let body: Node[];
    try {
      body = this.body(answer);
    } catch {
      // an answer of an unexpected shape: the page stays whole
      body = [none()];
    }
    this.element.replaceChildren(this.heading, ...body);
  }

  private body(answer: Answer<EntityRelationships>): Node[] {
    if (!answer.ok) {
      const { problem } = answer;
      if (problem.kind === "refused" && problem.status < 500) return [none()];
      return [h("p", { class: "status problem" }, `Relationships cannot be shown: ${problemText(problem)}`)];
    }
    const r = answer.value;
    if (r === null || typeof r !== "object") return [none()];
    const rows: [string, Node][] = [];
    const one = (label: string, related: RelatedEntity | null | undefined): void => {
      if (related && typeof related.lei === "string") rows.push([label, relatedBlock(related, true)]);
    };
    const many = (one: string, several: string, related: RelatedEntity[] | null | undefined): void => {
      const list = (Array.isArray(related) ? related : []).filter((x) => x && typeof x.lei === "string");
      if (list.length === 1) rows.push([one, relatedBlock(list[0], true)]);
      else if (list.length > 1)
        rows.push([several, h("ul", { class: "related-list" }, ...list.map((x) => h("li", {}, relatedBlock(x, true))))]);
    };
    const parent = (
      label: string,
      which: string,
      related: RelatedEntity | null | undefined,
      exception: EntityRelationships["directParentException"],
    ): void => {
      if (related && typeof related.lei === "string") one(label, related);
      else if (exception && Array.isArray(exception.reasons))
        rows.push([
          label,
          h("span", {}, `No ${which} parent reported: ${exception.reasons.map(exceptionReasonWords).join("; ") || "no reason given"}`),
        ]);
    };
    parent("Direct parent", "direct", r.directParent, r.directParentException);
    parent("Ultimate parent", "ultimate", r.ultimateParent, r.ultimateParentException);
    many("Fund manager", "Fund managers", r.fundManagers);
    one("Umbrella fund", r.umbrellaFund);
    many("Master fund", "Master funds", r.masterFunds);
    one("Head office", r.headOffice);

    const body: Node[] = [];
    if (rows.length > 0)
      body.push(h("dl", { class: "fields" }, ...rows.flatMap(([label, value]) => [h("dt", {}, label), h("dd", {}, value)])));

    const counts = r.children && typeof r.children === "object" ? r.children : {};
    const kinds = CHILD_KINDS.map((k) => ({ ...k, count: countOf(counts[k.kind]) })).filter((k) => k.count > 0);
    if (kinds.length > 0) {
      body.push(h("h3", {}, "Children"));
      // the counts side by side where there are several kinds (each also heads its list)
      if (kinds.length > 1)
        body.push(h("p", {}, kinds.map((k) => `${formatCount(k.count)} ${k.count === 1 ? singular(k.noun) : k.noun}`).join(", ") + "."));
      for (const k of kinds) {
        const list = new PagedList<RelatedEntity>({
          path: `/v1/entities/${encodeURIComponent(this.lei)}/children?type=${k.type}`,
          limit: CHILDREN_PAGE,
          found: k.count,
          noun: k.noun,
          listClass: "related-list",
          item: (child) => relatedBlock(child, false),
          signal: this.signal,
        });
        body.push(h("h4", {}, `${k.heading} (${formatCount(k.count)})`), list.element);
        if (k.onDemand) list.offer(`Show the ${k.noun}`);
        else void list.load(false);
      }
    }

    const isins = countOf(r.isins);
    if (isins > 0) {
      const list = new PagedList<string>({
        path: `/v1/entities/${encodeURIComponent(this.lei)}/isins?`,
        limit: ISIN_PAGE,
        found: isins,
        noun: "ISINs",
        listClass: "isins",
        item: (isin) => h("code", {}, String(isin)),
        signal: this.signal,
      });
      body.push(h("h3", {}, `ISINs (${formatCount(isins)})`), list.element);
      void list.load(false);
    }
    return body.length > 0 ? body : [none()];
  }
}

function none(): HTMLElement {
  return h("p", { class: "none" }, NONE_REPORTED);
}

function countOf(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function singular(noun: string): string {
  if (noun.endsWith("children")) return noun.replace(/children$/, "child");
  if (noun.endsWith("branches")) return noun.replace(/es$/, "");
  return noun.replace(/s$/, "");
}

/** A related entity: its name (or its bare LEI where Level 1 does not hold it) as a link to its page, and the relationship. */
function relatedBlock(related: RelatedEntity, full: boolean): HTMLElement {
  const lei = String(related.lei);
  const name = related.entity && typeof related.entity.legalName === "string" && related.entity.legalName ? related.entity.legalName : null;
  const link = h("a", { href: `/entity/${encodeURIComponent(lei)}`, "data-spa": true }, name ?? h("code", {}, lei));
  const facts = relationshipFacts(related, full);
  return h(
    "span",
    { class: "related" },
    link,
    name ? h("span", { class: "note" }, " ", h("code", {}, lei)) : h("span", { class: "note" }, " (not in the Level 1 data)"),
    facts ? h("span", { class: "facts" }, facts) : null,
  );
}

/** "Relationship active; accounting standard IFRS; since 1 January 2012" (the status alone for a child, where inactive). */
function relationshipFacts(related: RelatedEntity, full: boolean): string | null {
  const record = related.relationship;
  if (!record || typeof record !== "object") return null;
  const facts: string[] = [];
  if (record.status && (full || record.status !== "ACTIVE")) facts.push(`Relationship ${codeWords(record.status).toLowerCase()}`);
  if (full && record.accountingStandard) facts.push(`accounting standard ${accountingStandardWords(record.accountingStandard)}`);
  if (full && Array.isArray(record.periods)) {
    const period = record.periods.find((p) => p && p.type === "RELATIONSHIP_PERIOD" && p.startDate);
    if (period?.startDate)
      facts.push(
        `${period.endDate ? "from" : "since"} ${dateWords(period.startDate)}${period.endDate ? ` to ${dateWords(period.endDate)}` : ""}`,
      );
  }
  if (facts.length === 0) return null;
  const text = facts.join("; ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

interface PagedListOptions<T> {
  /** the list's path, its query begun (`?type=direct` or `?`): page and limit are added */
  path: string;
  limit: number;
  /** how many the relationships answer counted (the pages' own `found` wins once one arrives) */
  found: number;
  noun: string;
  listClass: string;
  item(value: T): Node;
  signal: AbortSignal;
}

/** A list read a page at a time: the first page at once (or on demand), then "Show more" for the next. */
class PagedList<T> {
  readonly element: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly note = h("p", { class: "note", tabindex: -1 });
  private readonly more = h("button", { type: "button", class: "more" });
  private page = 0;
  private shown = 0;
  private found: number;
  private loading = false;

  constructor(private readonly options: PagedListOptions<T>) {
    this.found = options.found;
    this.list = h("ul", { class: options.listClass });
    this.more.hidden = true;
    this.more.addEventListener("click", () => void this.load(true));
    this.element = h("div", { class: "paged" }, this.list, this.note, this.more);
  }

  /** Nothing loaded yet: a button loads the first page. */
  offer(label: string): void {
    this.more.textContent = label;
    this.more.hidden = false;
  }

  /** The next page; `focus`: the reader asked for it, so focus moves to the first new item. */
  async load(focus: boolean): Promise<void> {
    if (this.loading) return;
    this.loading = true;
    this.more.disabled = true;
    this.list.setAttribute("aria-busy", "true");
    const { path, limit, signal } = this.options;
    try {
      const answer = await getJson<ListPage<T>>(`${path}${path.endsWith("?") ? "" : "&"}page=${this.page + 1}&limit=${limit}`, signal);
      if (signal.aborted) return;
      if (!answer.ok || !answer.value || !Array.isArray(answer.value.results)) {
        this.note.className = "note problem";
        this.note.textContent = answer.ok
          ? `The ${this.options.noun} cannot be shown.`
          : `The ${this.options.noun} cannot be shown: ${problemText(answer.problem)}`;
        this.more.textContent = "Try again";
        this.more.hidden = false;
        return;
      }
      const page = answer.value;
      this.page++;
      if (typeof page.found === "number" && Number.isFinite(page.found)) this.found = page.found;
      const items = page.results.map((value) => h("li", {}, this.options.item(value)));
      this.list.append(...items);
      this.shown += items.length;
      this.note.className = "note";
      const complete = this.shown >= this.found || items.length === 0;
      this.note.textContent = complete ? "" : `Showing ${formatCount(this.shown)} of ${formatCount(this.found)}.`;
      this.more.textContent = `Show more ${this.options.noun}`;
      this.more.hidden = complete;
      if (focus) {
        const target = items[0]?.querySelector<HTMLElement>("a") ?? (complete ? this.note : this.more);
        if (complete && target === this.note) this.note.textContent = `All ${formatCount(this.shown)} shown.`;
        target.focus();
      }
    } catch (err) {
      if ((err as Error).name !== "AbortError") throw err;
    } finally {
      this.loading = false;
      this.more.disabled = false;
      this.list.removeAttribute("aria-busy");
    }
  }
}
