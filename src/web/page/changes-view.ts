// An entity's recent changes on its page, from the change feed (GET /v1/entities/{lei}/changes):
// newest first, each field named as on the page, with its old and new value and the publication
// that brought it. The section never breaks the page: no history says so, a problem says what it is.

import type { StoredChange } from "../../changes/model.js";
import { getJson, problemText, type Answer } from "./api.js";
import { h } from "./dom.js";
import { CHANGE_LABELS, dateWords } from "./labels.js";

/** The most recent changes shown. */
const SHOWN = 20;

interface ChangePage {
  changes: StoredChange[];
  next: string;
}

export class ChangesSection {
  readonly element: HTMLElement;
  private readonly body = h("div", {}, h("p", { class: "note" }, "Loading changes…"));

  constructor(lei: string, signal: AbortSignal) {
    this.element = h(
      "section",
      { class: "changes", "aria-labelledby": "changes-heading" },
      h("h2", { id: "changes-heading" }, "Recent changes"),
      this.body,
    );
    getJson<ChangePage>(`/v1/entities/${encodeURIComponent(lei)}/changes?order=newest&limit=${SHOWN}`, signal).then(
      (answer) => {
        if (!signal.aborted) this.show(answer);
      },
      (err: Error) => {
        if (err.name !== "AbortError") this.body.replaceChildren(h("p", { class: "status problem" }, err.message));
      },
    );
  }

  private show(answer: Answer<ChangePage>): void {
    if (!answer.ok) {
      this.body.replaceChildren(h("p", { class: "status problem" }, problemText(answer.problem)));
      return;
    }
    const rows = Array.isArray(answer.value?.changes) ? answer.value.changes : [];
    if (rows.length === 0) {
      this.body.replaceChildren(h("p", { class: "note" }, "No changes recorded since this server began following the registry."));
      return;
    }
    const shown = (v: string | null): Node | string => (v === null || v === "" ? h("span", { class: "none" }, "none") : v);
    this.body.replaceChildren(
      h(
        "table",
        { class: "changes-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "Field"),
            h("th", { scope: "col" }, "Before"),
            h("th", { scope: "col" }, "After"),
            h("th", { scope: "col" }, "Publication"),
          ),
        ),
        h(
          "tbody",
          {},
          ...rows.map((c) =>
            h(
              "tr",
              { "data-field": c.field },
              h("th", { scope: "row" }, CHANGE_LABELS[c.field] ?? c.field),
              h("td", {}, shown(c.valueOld)),
              h("td", {}, shown(c.valueNew)),
              h("td", {}, h("time", { datetime: c.publication }, dateWords(c.publication))),
            ),
          ),
        ),
      ),
    );
  }
}
