// What an API key may do, by Typesense's rules: actions ("*", exact, or "x:*" for every "x:…"),
// collections (empty or "*" = all; otherwise exact names or full-match regular expressions), and
// an expiry in Unix seconds (a key works through the second of expires_at). Plus the rule
// Typesense lacks: a key may only create, see and delete keys within its own powers.

import { compileKeyPatterns, patternMatches } from "./collection-pattern.js";

export interface ApiKey {
  id: number;
  value: string;
  description: string;
  actions: string[];
  collections: string[];
  expiresAt: number;
  autodelete: boolean;
}

/** Typesense's "never": the year 4020. */
export const FAR_FUTURE = 64723363199;

export function actionAllowed(granted: readonly string[], action: string): boolean {
  return granted.some(
    (g) => g === "*" || g === action || (g.endsWith(":*") && action.startsWith(g.slice(0, -1)) && g.indexOf(":") === g.length - 2),
  );
}

/** Collection rules; `names` are the collection and, for an alias, its target: either may match. */
export function collectionAllowed(granted: readonly string[], names: readonly string[]): boolean {
  if (granted.length === 0) return true;
  // patterns match in linear time (collection-pattern.ts): never a backtracking RegExp on the front
  const patterns = compileKeyPatterns(granted);
  return granted.some((g, i) => g === "*" || names.some((n) => g === n || patternMatches(patterns[i], n)));
}

/** Why a key may not be created with these collection entries (a pattern outside what is matched), or null. */
export function collectionsRefusal(collections: readonly string[]): string | null {
  const compiled = compileKeyPatterns(collections);
  for (const [i, c] of compiled.entries()) {
    if (c.kind === "unsupported") return `the collection pattern '${collections[i]}' is not supported: ${c.reason}`;
  }
  return null;
}

/** One line per stored key whose collection patterns match nothing any more (stored before they were refused). */
export function unsupportedPatternWarnings(keys: readonly ApiKey[]): string[] {
  const lines: string[] = [];
  for (const key of keys) {
    for (const [i, c] of compileKeyPatterns(key.collections).entries()) {
      if (c.kind === "unsupported")
        lines.push(
          `API key ${key.id}: the collection pattern '${key.collections[i]}' is not supported (${c.reason}); it matches no collection`,
        );
    }
  }
  return lines;
}

export function expired(key: Pick<ApiKey, "expiresAt">, nowSeconds: number): boolean {
  return nowSeconds > key.expiresAt;
}

/**
 * Whether `child`'s powers lie within `parent`'s: every action within the parent's, every
 * collection within the parent's, and no later expiry. This decides which keys a key may create,
 * list, get and delete. A parent limited to some collections never covers an all-collections
 * child. A child's collection entry is within the parent's when it is one of the parent's
 * entries verbatim, or a plain name (letters, digits, '_', '-') that one of the parent's entries
 * names or matches; a child pattern that is not verbatim one of the parent's is outside, even
 * when it happens to match fewer names (comparing two patterns is not attempted).
 */
export function withinPowers(parent: ApiKey, child: Pick<ApiKey, "actions" | "collections" | "expiresAt">): string | null {
  for (const a of child.actions) {
    if (!actionCovers(parent.actions, a)) return `action '${a}' is beyond the creating key's actions`;
  }
  const parentAll = parent.collections.length === 0 || parent.collections.includes("*");
  if (!parentAll) {
    if (child.collections.length === 0 || child.collections.includes("*"))
      return "all collections are beyond the creating key's collections";
    for (const c of child.collections) {
      const plainName = /^[A-Za-z0-9_-]+$/.test(c);
      if (!parent.collections.includes(c) && !(plainName && collectionAllowed(parent.collections, [c]))) {
        return `collection '${c}' is beyond the creating key's collections`;
      }
    }
  }
  if (child.expiresAt > parent.expiresAt) return "expires_at is later than the creating key's";
  return null;
}

/** A granted action (possibly a wildcard) covered by the parent's actions. */
function actionCovers(parent: readonly string[], action: string): boolean {
  if (parent.includes("*")) return true;
  if (action === "*") return false;
  if (action.endsWith(":*")) return parent.includes(action);
  return actionAllowed(parent, action);
}
