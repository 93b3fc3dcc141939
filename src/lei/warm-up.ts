// Warming the search path once the first collection is live, before the server says it is
// listening. The first searches after a start run on code V8 has not optimised yet and on engine
// memory no query has touched: they took 10–30 ms where the same searches take 1–5 ms a second
// later. So a few hundred searches go first, made from the collection's own first names in the
// shapes people send (the whole name, a word and the start of the next, the name with a typo, one
// word), and a lookup of each name's LEI. They go through the LEI service, not HTTP: nothing
// counts as traffic, and no client's rate limit pays for them.
// A collection under WARM_UP_MIN_RECORDS is not warmed: its first searches cost a few ms cold,
// and the warm-up would cost each start (the bundled sample's included) about a second of CPU.

import { parseSearchParams } from "./search-params.js";
import type { LeiService } from "./service.js";

/** How many of the collection's first names the warm-up searches by. */
export const WARM_UP_NAMES = 100;
/** The fewest records a collection is warmed up for. */
export const WARM_UP_MIN_RECORDS = 50_000;

export interface WarmUpResult {
  /** the live collection's records; under WARM_UP_MIN_RECORDS nothing was searched */
  records: number;
  searches: number;
  lookups: number;
  ms: number;
}

export async function warmUp(service: LeiService, names = WARM_UP_NAMES): Promise<WarmUpResult> {
  const started = performance.now();
  const records = service.stats().records;
  if (records < WARM_UP_MIN_RECORDS) return { records, searches: 0, lookups: 0, ms: 0 };
  const entities = await firstEntities(service, names);
  let searches = 0;
  for (const { legalName } of entities) {
    for (const q of shapesOf(legalName)) {
      await service.search(parseSearchParams(`q=${encodeURIComponent(q)}`), () => undefined);
      searches++;
    }
  }
  for (const { lei } of entities) service.entity(lei, () => undefined);
  return { records, searches, lookups: entities.length, ms: performance.now() - started };
}

interface NamedEntity {
  lei: string;
  legalName: string;
}

/** The first `count` entities in LEI order, read from the export's first chunk(s). */
async function firstEntities(service: LeiService, count: number): Promise<NamedEntity[]> {
  const out: NamedEntity[] = [];
  const decoder = new TextDecoder();
  let rest = "";
  await service.exportInLeiOrder(parseSearchParams(""), (chunk) => {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      if (out.length >= count) break;
      const entity = JSON.parse(line) as Partial<NamedEntity>;
      if (typeof entity.lei === "string" && typeof entity.legalName === "string")
        out.push({ lei: entity.lei, legalName: entity.legalName });
    }
    return Promise.resolve(out.length < count);
  });
  return out;
}

/** The query shapes of one name: whole, a word and the start of the next, with a typo, one word. */
export function shapesOf(name: string): string[] {
  const words = name.split(/\s+/).filter((w) => w.length > 0);
  if (words.length === 0) return [];
  const shapes = [name];
  if (words.length > 1) shapes.push(words[0], `${words[0]} ${words[1].slice(0, 3)}`);
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
  if (longest.length >= 5) shapes.push(name.replace(longest, longest[0] + longest[2] + longest[1] + longest.slice(3)));
  return shapes;
}
