// The copy in memory of a tenant-owned kind of record (webhooks, inbound routes) that every
// request and every dispatch asks for by id: another tenant's record is as absent as a missing
// one, and lists come oldest first.

import { normalAddress } from "./mailbox.js";

export interface Owned {
  id: string;
  tenant_id: string;
  created_at: string;
}

export const oldestFirst = (a: { id: string; created_at: string }, b: { id: string; created_at: string }): number =>
  a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

export class Directory<T extends Owned> {
  private byId = new Map<string, T>();

  /** replaces the whole copy */
  load(all: Iterable<T>): void {
    this.byId = new Map();
    for (const x of all) this.byId.set(x.id, x);
  }

  set(x: T): void {
    this.byId.set(x.id, x);
  }

  remove(id: string): void {
    this.byId.delete(id);
  }

  get(tenantId: string, id: string): T | null {
    const x = this.byId.get(id);
    return x && x.tenant_id === tenantId ? x : null;
  }

  byIdAnyTenant(id: string): T | null {
    return this.byId.get(id) ?? null;
  }

  list(tenantId: string): T[] {
    return [...this.byId.values()].filter((x) => x.tenant_id === tenantId).sort(oldestFirst);
  }

  all(): IterableIterator<T> {
    return this.byId.values();
  }
}

/** The reads a store of such records answers from its copy in memory (`known`). */
export abstract class DirectoryReads<T extends Owned> {
  protected abstract readonly known: Directory<T>;

  get(tenantId: string, id: string): T | null {
    return this.known.get(tenantId, id);
  }

  byIdAnyTenant(id: string): T | null {
    return this.known.byIdAnyTenant(id);
  }

  list(tenantId: string): T[] {
    return this.known.list(tenantId);
  }
}

/** The inbound route for a recipient among `routes`: exact address, then domain, then catch-all; oldest first. */
export function matchRoute<T extends Owned & { match: string }>(routes: Iterable<T>, recipient: string): T | null {
  const address = normalAddress(recipient);
  const domain = address.slice(address.lastIndexOf("@"));
  const rank = (r: T): number => (r.match === address ? 0 : r.match === domain ? 1 : r.match === "*" ? 2 : 3);
  const found = [...routes].filter((r) => rank(r) < 3).sort((a, b) => rank(a) - rank(b) || oldestFirst(a, b));
  return found[0] ?? null;
}
