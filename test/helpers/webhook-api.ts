// One call of area C's JSON API with an optional Bearer key, answered as status, parsed body, text and headers.

import type { RunningServer } from "./server.js";

export interface Res { status: number; body: any; text: string; headers: Headers }

/** `raw`, when given, is sent as the JSON body as it is (malformed or oversized bodies) instead of `body`. */
export async function api(srv: RunningServer, method: string, path: string, key: string | null, body?: unknown, raw?: string): Promise<Res> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined || raw !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(srv.base + path, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await r.text();
  let parsed: any;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: r.status, body: parsed, text, headers: r.headers };
}
