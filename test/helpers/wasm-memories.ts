// The WebAssembly memories a server process has mapped, read from /proc/PID/maps (Linux): how
// tests see that a replaced generation's index is given back, not only dropped. V8 reserves
// several GiB of address space for each wasm memory and makes its used part accessible, so a
// memory shows as an accessible mapping followed at once by a reservation of 4 GiB or more.

import { readFileSync } from "node:fs";
import { waitFor } from "./server.js";

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
}

function mappingsOf(pid: number): Mapping[] {
  const out: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
    if (m) out.push({ start: BigInt(`0x${m[1]}`), end: BigInt(`0x${m[2]}`), perms: m[3] });
  }
  return out;
}

const RESERVATION = 4n << 30n;
/** A slice's memory holds its index, MBs even for the bundled sample; other wasm memories (an HTTP client's parser) stay at a few pages. */
const SLICE_BYTES = 1 << 20;

/**
 * The accessible size in bytes of each wasm memory of process `pid` holding at least
 * SLICE_BYTES, by address.
 */
export function wasmMemories(pid: number): Map<string, number> {
  const maps = mappingsOf(pid);
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < maps.length; i++) {
    const used = maps[i];
    const reserved = maps[i + 1];
    if (!used.perms.startsWith("rw") || reserved.start !== used.end || reserved.end - reserved.start < RESERVATION) continue;
    const bytes = Number(used.end - used.start);
    if (bytes >= SLICE_BYTES) out.set(used.start.toString(16), bytes);
  }
  return out;
}

/**
 * Waits up to `timeoutMs` until process `pid` maps none of the memories `replaced` (addresses, as
 * wasmMemories() gives them: a generation's, read before it was replaced); whether it came to
 * that, and the sizes of those still mapped then ("6.4 MiB, 6.4 MiB").
 */
export async function untilUnmapped(pid: number, replaced: Iterable<string>, timeoutMs = 20_000): Promise<{ gone: boolean; left: string }> {
  const old = [...replaced];
  const still = (): number[] => {
    const now = wasmMemories(pid);
    return old.filter((a) => now.has(a)).map((a) => now.get(a)!);
  };
  const gone = await waitFor("the replaced memories unmapped", () => still().length === 0, timeoutMs).catch(() => false);
  return {
    gone,
    left: still()
      .map((b) => `${(b / 2 ** 20).toFixed(1)} MiB`)
      .join(", "),
  };
}
