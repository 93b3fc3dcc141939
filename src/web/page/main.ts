// The page's entry: one shell (index.html), two views picked by the path (/ and /entity/{lei}),
// links inside the page followed without a reload, and the dataset's freshness in the footer.

import { getJson, type Stats } from "./api.js";
import { byId, formatCount } from "./dom.js";
import { EntityView } from "./entity-view.js";
import { dateWords } from "./labels.js";
import { stateFromUrl } from "./search-state.js";
import { SearchView } from "./search-view.js";

const main = byId<HTMLElement>("main");
const input = byId<HTMLInputElement>("q");
const form = byId<HTMLFormElement>("search-form");
const live = byId<HTMLElement>("announce");
let lastSearchUrl = "/";

function announce(text: string): void {
  live.textContent = text;
}

function navigate(url: string, how: "push" | "replace"): void {
  if (how === "push") history.pushState(null, "", url);
  else history.replaceState(null, "", url);
  route();
}

const searchView = new SearchView({ main, input, announce, navigate });
const entityView = new EntityView({ main, announce, lastSearchUrl: () => lastSearchUrl });

function route(): void {
  const entity = /^\/entity\/([^/]+)\/?$/.exec(location.pathname);
  if (entity) {
    void entityView.show(decodedOrAsIs(entity[1]));
    return;
  }
  lastSearchUrl = location.pathname + location.search;
  searchView.show(stateFromUrl(location.search));
}

/** A path segment decoded; one that is not valid percent-encoding is shown as typed. */
function decodedOrAsIs(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

input.addEventListener("input", () => searchView.typed(input.value));
form.addEventListener("submit", (e) => {
  e.preventDefault();
  searchView.submitted(input.value);
});

// links inside the page (data-spa) change the view without reloading it; a modified click opens a tab as usual
document.addEventListener("click", (e) => {
  const link = (e.target as Element | null)?.closest?.("a[data-spa]");
  if (!(link instanceof HTMLAnchorElement) || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(link.getAttribute("href") ?? "/", "push");
});
window.addEventListener("popstate", route);

async function showFreshness(): Promise<void> {
  const answer = await getJson<Stats>("/v1/stats");
  const el = byId<HTMLElement>("freshness");
  if (!answer.ok) return;
  const { records, published, source, parts } = answer.value;
  el.textContent = published
    ? `${formatCount(records)} entities from the GLEIF golden copy published ${dateWords(published)}.`
    : `${formatCount(records)} entities. Source: ${source}`;
  showStaleParts(parts);
}

const PART_WORDS = { rr: "Relationship records", repex: "Reporting exceptions", isin: "ISIN map", bic: "BIC map" } as const;

/** Which parts are older than Level 1 (an earlier load's copy) or missing, since when: none, no line. */
function showStaleParts(parts: Stats["parts"]): void {
  const el = byId<HTMLElement>("stale-parts");
  const lines = Object.entries(PART_WORDS).flatMap(([part, words]) => {
    const state = parts?.[part as keyof typeof PART_WORDS];
    if (!state || state.status === "fresh") return [];
    const since = state.since ? ` since ${dateWords(state.since)}` : "";
    const copy = state.from ? ` (${dateWords(state.from)})` : "";
    return [
      state.status === "stale" ? `${words}: stale${since}, an earlier load's copy${copy}.` : `${words}: missing${since}, not loaded.`,
    ];
  });
  el.textContent = lines.join(" ");
  el.hidden = lines.length === 0;
}

route();
void showFreshness();
