// Conditional requests on the public API: lookups, searches, facets and stats carry a weak ETag
// naming the loaded collection and a Cache-Control; If-None-Match with that tag is a 304 with no
// body, another tag a 200; a new collection (an upload here) changes every tag.

import t from "tap";
import { readFileSync } from "node:fs";
import { sampleModel } from "./helpers/fixture.js";
import { SAMPLE_CSV, startServer } from "./helpers/server.js";

const KEY = "conditional-bootstrap-key-0123456789";
const lei = sampleModel()[0].entity.lei;
const PATHS = [`/v1/entities/${lei}`, "/v1/entities?q=bank&country=DE", "/v1/facets/country", "/v1/stats"];

t.test("ETag and Cache-Control on every answer from the collection; If-None-Match → 304", async (t) => {
  const server = await startServer(t, { args: ["--api-key", KEY] });
  const tags = new Set<string>();
  for (const path of PATHS) {
    const first = await server.get(path);
    t.equal(first.status, 200, path);
    const etag = first.headers.get("etag") ?? "";
    t.match(etag, /^W\/"lei_.+"$/, `${path}: a weak tag naming the collection`);
    t.equal(first.headers.get("cache-control"), "public, max-age=3600");
    tags.add(etag);

    const again = await fetch(`${server.base}${path}`, { headers: { "if-none-match": etag } });
    t.equal(again.status, 304, `${path}: the same tag → 304`);
    t.equal(await again.text(), "", "no body");
    t.equal(again.headers.get("etag"), etag, "the 304 repeats the tag");

    const listed = await fetch(`${server.base}${path}`, { headers: { "if-none-match": `"other", ${etag.slice(2)}` } });
    t.equal(listed.status, 304, `${path}: a list naming the tag (strong form) → 304`);
    const other = await fetch(`${server.base}${path}`, { headers: { "if-none-match": 'W/"lei_older"' } });
    t.equal(other.status, 200, `${path}: another tag → 200`);
  }
  t.equal(tags.size, 1, "one collection, one tag");
  const bad = await fetch(`${server.base}/v1/entities?page=0`, { headers: { "if-none-match": "*" } });
  t.equal(bad.status, 400, "a bad request stays a 400 whatever the tag");

  // a new collection: the sample uploaded again is loaded as a fresh one
  const [tag] = tags;
  const upload = await fetch(`${server.base}/collections/lei/documents/import`, {
    method: "POST",
    headers: { "x-typesense-api-key": KEY, "content-type": "text/csv" },
    body: readFileSync(SAMPLE_CSV),
  });
  t.equal(upload.status, 200, "the upload is live");
  for (const path of PATHS) {
    const after = await fetch(`${server.base}${path}`, { headers: { "if-none-match": tag } });
    t.equal(after.status, 200, `${path}: the old tag no longer matches`);
    t.not(after.headers.get("etag"), tag, `${path}: a new tag`);
  }
});
