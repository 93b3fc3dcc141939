// The search view: results as you type (debounced), facet filters with counts, pages, and the
// empty, rate-limited and unavailable states. It renders into <main>; the URL holds its state.

import { getJson, problemText, type Entity, type FacetCounts, type SearchPage } from "./api.js";
import { badges } from "./badges.js";
import { formatCount, h, leiLine } from "./dom.js";
import type { FacetParam } from "../../engine/schema.js";
import { FACETS, codeWords, countryName, placeName } from "./labels.js";
import { LAST_PAGE, PAGE_SIZE, apiPathOf, emptyFilters, urlOf, type SearchState } from "./search-state.js";

const TYPING_PAUSE_MS = 250;
/** facet values shown before "Show all" */
const FACET_HEAD = 8;

export interface SearchViewHost {
  main: HTMLElement;
  input: HTMLInputElement;
  announce(text: string): void;
  /** moves to a URL of the page, adding a history entry (push) or replacing the current one */
  navigate(url: string, how: "push" | "replace"): void;
}

export class SearchView {
  private state: SearchState | null = null;
  private controller: AbortController | null = null;
  private typingTimer: ReturnType<typeof setTimeout> | null = null;
  private blockedUntil = 0;
  private resumeTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly expanded = new Set<FacetParam>();
  private readonly status = h("p", { id: "status", class: "status", role: "status", "aria-live": "polite" });
  private readonly facets = h("aside", { class: "facets", "aria-label": "Filters" });
  private readonly results = h("ol", { class: "results", id: "results", "aria-label": "Results" });
  private readonly pager = h("nav", { class: "pager", "aria-label": "Result pages" });
  // results before filters in the document, so focus reaches them first at every width; the
  // stylesheet places the filters on the left on a wide screen
  private readonly root = h(
    "div",
    { class: "layout" },
    h(
      "section",
      { class: "hits", "aria-labelledby": "results-heading" },
      h("h1", { id: "results-heading", class: "visually-hidden" }, "Search results"),
      this.status,
      this.results,
      this.pager,
    ),
    this.facets,
  );

  constructor(private readonly host: SearchViewHost) {
    this.results.addEventListener("keydown", (e) => this.moveFocus(e));
    host.input.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown" && this.state) {
        const first = this.results.querySelector<HTMLAnchorElement>("a.result-link");
        if (first) {
          e.preventDefault();
          first.focus();
        }
      }
    });
  }

  /** Shows the view for a state read from the URL, and searches. */
  show(state: SearchState): void {
    if (!this.root.isConnected) this.host.main.replaceChildren(this.root);
    if (this.host.input.value !== state.q && document.activeElement !== this.host.input) this.host.input.value = state.q;
    document.title = state.q.trim() ? `${state.q.trim()}: Leidex LEI search` : "Leidex: LEI search";
    this.state = state;
    void this.search(state);
  }

  /** The query as typed: searched once typing pauses, the URL replaced rather than stacked. */
  typed(q: string): void {
    if (this.typingTimer) clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.submitted(q), TYPING_PAUSE_MS);
  }

  /** The form submitted (Enter): search now, on the first page, keeping the filters. */
  submitted(q: string): void {
    if (this.typingTimer) clearTimeout(this.typingTimer);
    this.typingTimer = null;
    const next = { ...(this.state ?? { q: "", filters: emptyFilters(), page: 1 }), q, page: 1 };
    // from the entity view a search is a new history entry; within the search view it replaces
    this.host.navigate(urlOf(next), this.root.isConnected ? "replace" : "push");
  }

  private async search(state: SearchState): Promise<void> {
    this.controller?.abort();
    const wait = this.blockedUntil - Date.now();
    if (wait > 0) {
      this.showBlocked(wait);
      return;
    }
    const controller = (this.controller = new AbortController());
    this.results.setAttribute("aria-busy", "true");
    this.status.textContent = "Searching…";
    try {
      const answer = await getJson<SearchPage>(apiPathOf(state), controller.signal);
      if (controller.signal.aborted) return;
      if (answer.ok) this.render(state, answer.value);
      else {
        if (answer.problem.kind === "rate-limited") {
          this.blockedUntil = Date.now() + answer.problem.retryAfterSeconds * 1000;
          this.showBlocked(answer.problem.retryAfterSeconds * 1000);
          return;
        }
        this.status.textContent = problemText(answer.problem);
        this.status.className = "status problem";
      }
    } catch (err) {
      if ((err as Error).name !== "AbortError") throw err;
    } finally {
      if (this.controller === controller) {
        this.results.removeAttribute("aria-busy");
        this.controller = null;
      }
    }
  }

  /** The rate limit: say so, send nothing until the wait is over, then search once. */
  private showBlocked(waitMs: number): void {
    this.results.removeAttribute("aria-busy");
    this.status.className = "status problem";
    this.status.textContent = problemText({ kind: "rate-limited", retryAfterSeconds: Math.ceil(waitMs / 1000) });
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = null;
      if (this.state && this.root.isConnected) void this.search(this.state);
    }, waitMs);
  }

  private render(state: SearchState, page: SearchPage): void {
    this.status.className = "status";
    const q = state.q.trim();
    if (page.found === 0) {
      this.status.textContent = q
        ? `No entity matches “${q}”${anyFilter(state) ? " with these filters" : ""}.`
        : "No entity matches these filters.";
      this.results.replaceChildren(h("li", { class: "empty" }, emptyHint(state)));
    } else {
      const first = (page.page - 1) * page.limit + 1;
      const last = first + page.results.length - 1;
      const of = `${formatCount(page.found)} ${page.found === 1 ? "entity" : "entities"}`;
      this.status.textContent = q
        ? `${of} ${page.found === 1 ? "matches" : "match"} “${q}”; showing ${first}–${last}.`
        : `${of}; showing ${first}–${last}.`;
      this.results.replaceChildren(...page.results.map((entity) => this.card(entity)));
    }
    this.renderFacets(state, page.facets);
    this.renderPager(state, page);
  }

  private card(entity: Entity): HTMLLIElement {
    const place = [entity.city, entity.country ? countryName(entity.country) : null].filter(Boolean).join(", ");
    return h(
      "li",
      { class: "card" },
      h("h2", {}, h("a", { class: "result-link", href: `/entity/${entity.lei}`, "data-spa": true }, entity.legalName)),
      leiLine(entity.lei, this.host.announce),
      place ? h("p", { class: "place" }, place) : null,
      badges(entity),
    );
  }

  private renderFacets(state: SearchState, counted: FacetCounts[]): void {
    const groups = FACETS.map(({ field, label }) => {
      const values = counted.find((f) => f.field === field)?.values ?? [];
      const chosen = state.filters[field];
      // chosen values stay listed (and can be unticked) even when the facet no longer counts them
      const rows = [...values];
      for (const value of chosen) if (!rows.some((r) => r.value === value)) rows.unshift({ value, count: 0 });
      if (rows.length === 0) return null;
      const all = this.expanded.has(field);
      const shown = all ? rows : rows.filter((r, i) => i < FACET_HEAD || chosen.includes(r.value));
      const list = h("ul", {}, ...shown.map((r) => h("li", {}, this.facetBox(state, field, r.value, r.count))));
      const more =
        rows.length > FACET_HEAD
          ? h(
              "button",
              { type: "button", class: "more", "aria-expanded": all ? "true" : "false" },
              all ? "Show fewer" : `Show all ${rows.length}`,
            )
          : null;
      more?.addEventListener("click", () => {
        if (all) this.expanded.delete(field);
        else this.expanded.add(field);
        this.renderFacets(state, counted);
        this.facets.querySelector<HTMLButtonElement>(`fieldset[data-field="${field}"] button.more`)?.focus();
      });
      return h("fieldset", { "data-field": field }, h("legend", {}, label), list, more);
    });
    const clear = anyFilter(state) ? h("button", { type: "button", class: "clear" }, "Clear filters") : null;
    clear?.addEventListener("click", () => this.host.navigate(urlOf({ ...state, filters: emptyFilters(), page: 1 }), "push"));
    const shown = [clear, ...groups].filter((g) => g !== null);
    // nothing to filter by (no match, no filter chosen): no empty panel
    if (shown.length === 0) this.facets.replaceChildren();
    else this.facets.replaceChildren(h("h2", { class: "facets-title" }, "Filters"), ...shown);
  }

  private facetBox(state: SearchState, field: FacetParam, value: string, count: number): HTMLLabelElement {
    const checked = state.filters[field].includes(value);
    const box = h("input", { type: "checkbox", name: field, value, checked });
    box.addEventListener("change", () => {
      const values = checked ? state.filters[field].filter((v) => v !== value) : [...state.filters[field], value];
      this.host.navigate(urlOf({ ...state, filters: { ...state.filters, [field]: values }, page: 1 }), "push");
    });
    return h("label", {}, box, h("span", { class: "value" }, facetWords(field, value)), h("span", { class: "count" }, formatCount(count)));
  }

  private renderPager(state: SearchState, page: SearchPage): void {
    const pages = Math.min(Math.max(1, Math.ceil(page.found / PAGE_SIZE)), LAST_PAGE);
    if (page.found <= PAGE_SIZE) {
      this.pager.replaceChildren();
      return;
    }
    const link = (to: number, text: string, rel: string): HTMLElement =>
      to < 1 || to > pages
        ? h("span", { class: "disabled", "aria-disabled": "true" }, text)
        : h("a", { href: urlOf({ ...state, page: to }), rel, "data-spa": true }, text);
    const capped =
      Math.ceil(page.found / PAGE_SIZE) > LAST_PAGE
        ? h("p", { class: "note" }, "The first 1,000 results can be paged through; filters narrow the rest.")
        : null;
    this.pager.replaceChildren(
      ...[
        link(state.page - 1, "← Previous", "prev"),
        h("span", { class: "where", "aria-current": "page" }, `Page ${state.page} of ${formatCount(pages)}`),
        link(state.page + 1, "Next →", "next"),
        capped,
      ].filter((el) => el !== null),
    );
  }

  /** Arrow keys walk the result links; up from the first returns to the search box. */
  private moveFocus(e: KeyboardEvent): void {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const links = [...this.results.querySelectorAll<HTMLAnchorElement>("a.result-link")];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    e.preventDefault();
    if (e.key === "ArrowDown") links[Math.min(at + 1, links.length - 1)].focus();
    else if (at === 0) this.host.input.focus();
    else links[at - 1].focus();
  }
}

function anyFilter(state: SearchState): boolean {
  return FACETS.some((f) => state.filters[f.field].length > 0);
}

function emptyHint(state: SearchState): string {
  if (anyFilter(state)) return "Try removing a filter, or check the spelling. An LEI can be pasted as it is.";
  return "Check the spelling, try fewer words, or paste the LEI.";
}

function facetWords(field: FacetParam, value: string): string {
  if (field === "country") return `${countryName(value)} (${value})`;
  if (field === "jurisdiction") return placeName(value);
  return codeWords(value);
}
