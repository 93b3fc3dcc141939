// One entity: every field with a label a person understands, codes spelled out, the ISO 17442
// check-digit verdict, its corporate family (family-view.ts), a link to GLEIF's own record, and
// the JSON as the API serves it. An LEI that only Level 2 names (a parent or fund manager
// without a Level 1 record) gets a page too: its bare LEI and its family.

import type { EntityField } from "../../engine/schema.js";
import { checkDigitsValid, hasLeiForm } from "../../lei/lei-code.js";
import { getJson, problemText, type Answer, type Entity, type EntityRelationships } from "./api.js";
import { badges } from "./badges.js";
import { h, leiLine } from "./dom.js";
import { FamilySection } from "./family-view.js";
import { ChangesSection } from "./changes-view.js";
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
    // the family is asked for at once, beside the entity; it fills its section when it comes
    const family = getJson<EntityRelationships>(`/v1/entities/${encodeURIComponent(lei)}/relationships`, controller.signal).catch(
      (err: Error) => {
        if (err.name === "AbortError") return null;
        throw err;
      },
    );
    try {
      const answer = await getJson<Entity>(`/v1/entities/${encodeURIComponent(lei)}`, controller.signal);
      if (controller.signal.aborted) return;
      if (answer.ok)
        this.render(
          answer.value,
          this.familySection(answer.value.lei, controller.signal, family),
          new ChangesSection(answer.value.lei, controller.signal),
        );
      else if (answer.problem.kind === "refused" && answer.problem.status === 404) {
        // not in Level 1: Level 2 may still name it
        const relationships = await family;
        if (controller.signal.aborted) return;
        if (relationships?.ok && relationships.value && typeof relationships.value === "object")
          this.renderLevel2Only(lei, this.familySection(lei, controller.signal, family));
        else this.notFound(lei, answer.problem.status, answer.problem.message);
      } else if (answer.problem.kind === "refused" && answer.problem.status === 400)
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

  /** The family section, filled when its answer comes (unless the view has moved on). */
  private familySection(lei: string, signal: AbortSignal, answer: Promise<Answer<EntityRelationships> | null>): FamilySection {
    const section = new FamilySection(lei, signal);
    void answer.then((a) => {
      if (!signal.aborted) section.show(a);
    });
    return section;
  }

  /** An LEI that Level 2 names but Level 1 does not hold: no name or address to show, only its family. */
  private renderLevel2Only(lei: string, family: FamilySection): void {
    document.title = `LEI ${lei}: Leidex`;
    this.host.main.replaceChildren(
      h(
        "article",
        { class: "entity" },
        this.back(),
        h("h1", { tabindex: -1 }, `LEI ${lei}`),
        leiLine(lei, this.host.announce),
        h(
          "p",
          { class: "note" },
          "This LEI is not in this dataset's Level 1 records (who is who), so its name and addresses are not known here. GLEIF's Level 2 data (who owns whom) names it.",
        ),
        checkDigitVerdict(lei),
        family.element,
        gleifLink(lei),
      ),
    );
  }

  private render(entity: Entity, family: FamilySection, changes: ChangesSection): void {
    document.title = `${entity.legalName}: Leidex`;
    const rows = (Object.keys(FIELD_LABELS) as (keyof typeof FIELD_LABELS)[])
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
        family.element,
        changes.element,
        gleifLink(entity.lei),
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
      case "legalForm": {
        const form = legalFormWords(entity);
        return h("span", {}, h("span", { class: "legal-form" }, form.words), " ", h("span", { class: "note" }, `(${form.code})`));
      }
      case "country":
        return `${countryName(text)} (${text})`;
      case "jurisdiction":
      case "region":
        return placeName(text);
      case "registeredAt":
      case "lastUpdatedAt":
        return h("time", { datetime: text }, dateWords(text));
      case "nextRenewalDate": {
        const date = h("time", { datetime: text }, dateWords(text));
        const due = Date.parse(text);
        if (Number.isNaN(due) || due > Date.now()) return date;
        return h("span", {}, date, " ", h("strong", { class: "renewal-overdue", role: "note" }, "Renewal overdue: this date has passed"));
      }
      case "successorLeis":
        return h(
          "span",
          {},
          ...text
            .split("; ")
            .flatMap((lei, i) => [
              ...(i > 0 ? ["; "] : []),
              h("a", { href: `/entity/${encodeURIComponent(lei)}`, "data-spa": true }, h("code", {}, lei)),
            ]),
        );
      case "managingLou":
        return h("a", { href: `/entity/${text}`, "data-spa": true }, h("code", {}, text));
      default:
        return text;
    }
  }
}

function gleifLink(lei: string): HTMLElement {
  return h(
    "p",
    {},
    h(
      "a",
      { href: `https://search.gleif.org/#/record/${encodeURIComponent(lei)}`, rel: "external noopener noreferrer", target: "_blank" },
      "This record on GLEIF's search site",
    ),
    " (opens a new tab)",
  );
}

function checkDigitVerdict(lei: string): HTMLElement {
  if (hasLeiForm(lei) && checkDigitsValid(lei)) return h("p", { class: "verdict good" }, "Check digits valid (ISO 17442, MOD 97-10).");
  return h(
    "p",
    { class: "verdict warn" },
    "Check digits fail ISO 17442: this LEI is in the registry as published, but its last two digits do not verify. Quote it exactly as shown.",
  );
}
