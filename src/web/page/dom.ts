// Elements built from data without HTML strings: every text the API returns is set as text,
// so a name holding markup shows as written and runs nothing.

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

export function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

const counts = new Intl.NumberFormat("en");
export function formatCount(n: number): string {
  return counts.format(n);
}

/** An LEI as a line of its own: the code, and a button that copies it. */
export function leiLine(lei: string, announce: (text: string) => void): HTMLParagraphElement {
  return h("p", { class: "lei" }, h("span", { class: "visually-hidden" }, "LEI "), h("code", {}, lei), " ", copyButton(lei, announce));
}

/** A button that copies an LEI and says so, in its label and to screen readers. */
export function copyButton(lei: string, announce: (text: string) => void): HTMLButtonElement {
  const button = h("button", { type: "button", class: "copy", "aria-label": `Copy LEI ${lei}` }, "Copy");
  button.addEventListener("click", () => {
    const done = (ok: boolean): void => {
      button.textContent = ok ? "Copied" : "Copy failed";
      announce(ok ? `LEI ${lei} copied` : "The browser did not allow copying");
      setTimeout(() => (button.textContent = "Copy"), 2000);
    };
    if (!navigator.clipboard) return done(false);
    navigator.clipboard.writeText(lei).then(
      () => done(true),
      () => done(false),
    );
  });
  return button;
}
