// An entity's status, registration status and category as badges: words first, colour only as
// a second cue, and a lapsed or retired registration marked as a warning.

import type { Entity } from "./api.js";
import { STALE_REGISTRATIONS, codeWords } from "./labels.js";
import { h } from "./dom.js";

export function badges(entity: Entity): HTMLElement {
  const list = h("ul", { class: "badges", "aria-label": "Status" });
  if (entity.entityStatus)
    list.append(
      h(
        "li",
        { class: `badge ${entity.entityStatus === "ACTIVE" ? "good" : "bad"}` },
        `Entity ${codeWords(entity.entityStatus).toLowerCase()}`,
      ),
    );
  if (entity.registrationStatus) {
    const status = entity.registrationStatus;
    const tone = status === "ISSUED" ? "good" : STALE_REGISTRATIONS.has(status) ? "warn" : "neutral";
    list.append(h("li", { class: `badge ${tone}` }, `LEI ${codeWords(status).toLowerCase()}`));
  }
  if (entity.entityCategory) list.append(h("li", { class: "badge neutral" }, codeWords(entity.entityCategory)));
  return list;
}
