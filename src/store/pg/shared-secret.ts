// Admin keys every node must share (bootstrap, operator) when they are generated rather than
// given: the first node to start makes one and keeps it in shared_secrets, the others read it.

import { randomKey, type PersistedKey } from "../persisted-key.js";
import type { SharedDb } from "./shared-db.js";

export async function sharedSecret(db: SharedDb, k: { name: string; prefix: string; label: string }): Promise<PersistedKey> {
  const fresh = randomKey(k.prefix);
  await db.pool.query("INSERT INTO shared_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [k.name, fresh]);
  const { rows } = await db.pool.query<{ value: string }>("SELECT value FROM shared_secrets WHERE name = $1", [k.name]);
  const value = rows[0].value;
  return value === fresh
    ? { value, banner: `${k.label} (shown once, kept in the database ${db.describe}): ${value}` }
    : { value, banner: `${k.label}: ${value.slice(0, k.prefix.length + 4)}… (kept in the database ${db.describe})` };
}
