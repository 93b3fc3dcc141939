// One Ajv and one message for every request schema (src/http/json-schema.ts), and one answer to
// a body that is not JSON.

import t from "tap";
import { ajv, BAD_JSON, describeSchemaError, parseJsonBody } from "../../src/http/json-schema.js";

const validate = ajv.compile({
  type: "object",
  required: ["name"],
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    kind: { enum: ["a", "b"] },
    tags: { type: "array", uniqueItems: true },
    n: { type: ["integer", "null"] },
  },
});

t.test("the first error: where, and what it should be", async (t) => {
  const says = (value: unknown): string => {
    t.notOk(validate(value));
    return describeSchemaError("thing", validate.errors);
  };
  t.equal(says({}), "invalid thing: body must have required property 'name'");
  t.equal(says({ name: "x", colour: 1 }), "invalid thing: body has unknown field 'colour'");
  t.equal(says({ name: "x", kind: "c" }), "invalid thing: /kind must be one of a, b");
  t.equal(says({ name: "x", tags: [1, 1] }), "invalid thing: /tags must not repeat an item");
  t.equal(says({ name: 1 }), "invalid thing: /name must be string");
  t.ok(validate({ name: "x", n: null }), "union types are allowed");
  t.equal(describeSchemaError("thing", null), "invalid thing");
});

t.test("JSON bodies", async (t) => {
  t.same(parseJsonBody(Buffer.from('{"a":[1]}')), { a: [1] });
  t.equal(parseJsonBody(Buffer.from("{nope")), BAD_JSON);
  t.equal(parseJsonBody(Buffer.alloc(0)), BAD_JSON, "an empty body is not JSON");
  t.equal(parseJsonBody(Buffer.from("null")), null);
});
