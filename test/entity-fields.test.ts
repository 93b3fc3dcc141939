// One field table (src/engine/schema.ts) behind every description of the entity: what a lookup
// answers, the OpenAPI LegalEntity schema, and the Typesense collection's field list, whose
// facet flags must be what facet_by accepts.

import t from "tap";
import { randomBytes } from "node:crypto";
import { keyedRequest } from "./helpers/keys.js";
import { startServer } from "./helpers/server.js";
import { readSample, COLUMN_OF } from "./helpers/fixture.js";

const KEY = `kx-boot-${randomBytes(12).toString("hex")}`;
const srv = await startServer(t, { rateLimit: 0, args: ["--api-key", KEY] });
const { header, rows } = readSample();
const lei = rows[0][header.indexOf(COLUMN_OF.lei)];

t.test("the OpenAPI LegalEntity has exactly the fields a lookup answers", async (t) => {
  const entity = await srv.json(`/v1/entities/${lei}`);
  const schema = (await srv.json("/openapi.json")).components.schemas.LegalEntity;
  t.same(Object.keys(schema.properties), Object.keys(entity), "the same fields, in document order");
  for (const [name, property] of Object.entries(schema.properties) as [string, { description?: string }][]) {
    t.ok((property.description ?? "").length > 5, `${name} is described`);
  }
});

t.test("the Typesense field list: stored fields plus otherNames, facet flags as facet_by takes them", async (t) => {
  const collection = await keyedRequest(srv.port, "/collections/lei", { key: KEY });
  t.equal(collection.status, 200);
  const fields = collection.body.fields as { name: string; facet: boolean }[];
  const entity = await srv.json(`/v1/entities/${lei}`);
  t.same(
    fields.map((f) => f.name).filter((n) => n !== "otherNames"),
    Object.keys(entity),
    "every stored field listed",
  );
  t.ok(
    fields.some((f) => f.facet),
    "some fields are facets",
  );
  for (const f of fields) {
    const r = await keyedRequest(srv.port, `/collections/lei/documents/search?q=bank&query_by=legalName&facet_by=${f.name}`, { key: KEY });
    t.equal(r.status, f.facet ? 200 : 400, `facet_by=${f.name}: ${f.facet ? "accepted" : "refused"}, as the field list says`);
  }
});
