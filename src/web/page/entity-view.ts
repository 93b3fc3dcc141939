// One entity: every field with a label a person understands, codes spelled out, the ISO 17442
// check-digit verdict, a link to GLEIF's own record, and the JSON as the API serves it.

import type { EntityField } from "../../engine/schema.js";
import { checkDigitsValid, hasLeiForm } from "../../lei/lei-code.js";
import { getJson, problemText, type Entity } from "./api.js";
import { badges } from "./badges.js";
import { h, leiLine } from "./dom.js";
import { FIELD_LABELS, codeWords, countryName, dateWords, legalFormWords, placeName } from "./labels.js";

export interface EntityViewHost {
  main: HTMLElement;
  announce(text: string): void;
  /** where "back to the search" leads: the last search's URL */
  lastSearchUrl(): string;
}

export class EntityView {
  private controller: AbortController | null = null;

  constructor(private readonly host: EntityViewHost) {}

  async show(input: string): Promise<void> {
    this.controller?.abort();
    const controller = (this.controller = new AbortController());
    const lei = input.trim().toUpperCase();
    document.title = `${lei}: Leidex`;
    this.host.main.replaceChildren(this.back(), h("p", { class: "status", role: "status" }, "Loading…"));
    try {
      const answer = await getJson<Entity>(`/v1/entities/${encodeURIComponent(lei)}`, controller.signal);
      if (controller.signal.aborted) return;
      if (answer.ok) this.render(answer.value);
      else if (answer.problem.kind === "refused" && (answer.problem.status === 404 || answer.problem.status === 400))
        this.notFound(lei, answer.problem.status, answer.problem.message);
      else
        this.host.main.replaceChildren(
          this.back(),
          h("h1", { tabindex: -1 }, "The entity cannot be shown"),
          h("p", { class: "status problem", role: "status" }, problemText(answer.problem)),
        );
    } catch (err) {
      if ((err as Error).name !== "AbortError") throw err;
      return;
    }
    this.host.main.querySelector<HTMLElement>("h1")?.focus();
  }

  private back(): HTMLElement {
    return h("p", { class: "back" }, h("a", { href: this.host.lastSearchUrl(), "data-spa": true }, "← Back to the search"));
  }

  private notFound(lei: string, status: number, message: string): void {
    document.title = `No entity ${lei}: Leidex`;
    const heading = status === 404 ? `No entity with LEI ${lei}` : `“${lei}” is not an LEI in this dataset`;
    this.host.main.replaceChildren(
      this.back(),
      h("h1", { tabindex: -1 }, heading),
      h("p", { class: "status problem", role: "status" }, message),
      h("p", {}, "An LEI is 20 characters: 18 letters or digits, then 2 check digits. The search also finds entities by name."),
    );
  }

  private render(entity: Entity): void {
    document.title = `${entity.legalName}: Leidex`;
    const rows = (Object.keys(FIELD_LABELS) as EntityField[])
      .filter((field) => field !== "legalName")
      .map((field) => [h("dt", {}, FIELD_LABELS[field]), h("dd", {}, this.value(field, entity))]);
    this.host.main.replaceChildren(
      h(
        "article",
        { class: "entity" },
        this.back(),
        h("h1", { tabindex: -1 }, entity.legalName),
        badges(entity),
        leiLine(entity.lei, this.host.announce),
        checkDigitVerdict(entity.lei),
        h("dl", { class: "fields" }, ...rows.flat()),
        h(
          "p",
          {},
          h(
            "a",
            { href: `https://search.gleif.org/#/record/${entity.lei}`, rel: "external noopener noreferrer", target: "_blank" },
            "This record on GLEIF's search site",
          ),
          " (opens a new tab)",
        ),
        h(
          "details",
          { class: "json" },
          h("summary", {}, "JSON, as the API serves it"),
          h("pre", { tabindex: 0 }, JSON.stringify(entity, null, 2)),
        ),
      ),
    );
  }

  private value(field: EntityField, entity: Entity): Node | string {
    const raw = entity[field];
    if (raw === null || raw === undefined || raw === "") return h("span", { class: "none" }, "not given");
    const text = String(raw);
    switch (field) {
      case "lei":
        return h("code", {}, text);
      case "entityStatus":
      case "registrationStatus":
      case "entityCategory":
        return codeWords(text);
      case "legalForm":
        return legalFormWords(text);
      case "country":
        return `${countryName(text)} (${text})`;
      case "jurisdiction":
      case "region":
        return placeName(text);
      case "registeredAt":
      case "lastUpdatedAt":
        return h("time", { datetime: text }, dateWords(text));
      case "managingLou":
        return h("a", { href: `/entity/${text}`, "data-spa": true }, h("code", {}, text));
      default:
        return text;
    }
  }
}

function checkDigitVerdict(lei: string): HTMLElement {
  if (hasLeiForm(lei) && checkDigitsValid(lei)) return h("p", { class: "verdict good" }, "Check digits valid (ISO 17442, MOD 97-10).");
  return h(
    "p",
    { class: "verdict warn" },
    "Check digits fail ISO 17442: this LEI is in the registry as published, but its last two digits do not verify. Quote it exactly as shown.",
  );
}
