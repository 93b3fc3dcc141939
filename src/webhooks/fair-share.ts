// How many deliveries each endpoint may have on their way, and how rows waiting in the outbox are
// shared out when there is room for fewer than are waiting. A slow or dead endpoint can hold only
// its own bound of rows in memory (a small multiple of its concurrency cap); when the global bound
// is the limit, the room is split equally among the tenants with rows waiting, then equally among
// each tenant's endpoints (max-min fair), so a tenant with many endpoints cannot crowd out a tenant
// with one, nor one endpoint the others.

/**
 * rows handed out to one endpoint at most: enough to keep `cap` requests busy between two
 * hand-outs, and to let a busy endpoint's new rows go straight from intake (a bound of 32 sent most
 * of them through the outbox and cut intake by a third); still a small part of the 20,000
 */
export function handBound(cap: number): number {
  return Math.max(256, 64 * cap);
}

export interface Want {
  id: string;
  tenant: string;
  /** rows it may take now (its bound less what it has on its way) */
  room: number;
}

/**
 * Splits `total` rows among endpoints, never more than an endpoint's room: equal shares per
 * tenant, then per endpoint within a tenant; what one cannot use goes to the others. `turn`
 * rotates who gets the odd rows, so that when rows are fewer than takers each gets a turn.
 */
export function fairShare(total: number, wants: readonly Want[], turn: number): Map<string, number> {
  const byTenant = new Map<string, Want[]>();
  for (const w of wants) {
    if (w.room <= 0) continue;
    let list = byTenant.get(w.tenant);
    if (!list) byTenant.set(w.tenant, (list = []));
    list.push(w);
  }
  const tenants = [...byTenant.values()];
  const perTenant = split(
    total,
    tenants.map((list) => list.reduce((s, w) => s + w.room, 0)),
    turn,
  );
  const out = new Map<string, number>();
  tenants.forEach((list, i) => {
    const perEndpoint = split(
      perTenant[i],
      list.map((w) => w.room),
      turn,
    );
    list.forEach((w, j) => {
      if (perEndpoint[j] > 0) out.set(w.id, perEndpoint[j]);
    });
  });
  return out;
}

/** Max-min fair integer split of `total` under `caps`; the odd units go round from `turn`. */
function split(total: number, caps: readonly number[], turn: number): number[] {
  const out = caps.map(() => 0);
  let left = total;
  let open = caps.map((_, i) => i).filter((i) => caps[i] > 0);
  while (left > 0 && open.length > 0) {
    const each = Math.floor(left / open.length);
    if (each === 0) {
      // fewer units than takers (each still has room for one): one each, starting at the turn
      for (let k = 0; k < left; k++) out[open[(turn + k) % open.length]]++;
      break;
    }
    const next: number[] = [];
    for (const i of open) {
      const given = Math.min(each, caps[i] - out[i]);
      out[i] += given;
      left -= given;
      if (out[i] < caps[i]) next.push(i);
    }
    open = next;
  }
  return out;
}
