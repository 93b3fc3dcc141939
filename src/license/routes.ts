// The licence endpoints (SPEC.md area B: they exist and need no key). GET /license says under
// which licences the software and the data come, and whether a licence is active here; POST
// /license/activate takes a signed licence document; DELETE /license removes it, with the
// bootstrap key only. Errors are the engine API's {"message": ...}.

import { ajv, BAD_JSON, describeSchemaError, readJsonBody } from "../http/json-schema.js";
import { REFUSED, type Guard, type JsonSchema } from "../http/route.js";
import type { HttpServer } from "../http/server.js";
import { KeyAuth } from "../keys/auth.js";
import { refuseKey } from "../keys/keyed-route.js";
import { LICENSE } from "../lei/service.js";
import { LicenseRefused, licenseDocumentSchema } from "./license-document.js";
import type { LicenseState } from "./license-state.js";

const MAX_ACTIVATION_BODY = 64 * 1024;

const activationRequestSchema = {
  type: "object",
  required: ["license", "signature"],
  additionalProperties: false,
  properties: {
    license: { type: "string", minLength: 1, maxLength: 48_000, description: "The licence document's JSON bytes, base64url" },
    signature: { type: "string", minLength: 1, maxLength: 200, description: "Ed25519 signature of those bytes, base64url" },
  },
} as const;
const validateRequest = ajv.compile<{ license: string; signature: string }>(activationRequestSchema);

const activationSchema: JsonSchema = {
  type: "object",
  required: ["state"],
  properties: {
    state: { type: "string", enum: ["none", "active", "expired"] },
    licensee: { type: "string" },
    tier: { type: "string" },
    expires_at: { type: "integer" },
    entitlements: licenseDocumentSchema.properties.entitlements,
  },
};

export const LICENSE_SCHEMAS: Record<string, JsonSchema> = {
  Activation: activationSchema,
  LicenseInfo: {
    type: "object",
    required: ["software", "data", "activation", "accepts_licenses"],
    properties: {
      software: { type: "object", properties: { name: { type: "string" }, license: { type: "string" } } },
      data: { type: "object", properties: { license: { type: "string" }, source: { type: "string" }, attribution: { type: "string" } } },
      activation: { $ref: "#/components/schemas/Activation" },
      accepts_licenses: { type: "boolean", description: "Whether this server was started with a licence public key" },
    },
  },
  LicenseActivation: {
    ...activationRequestSchema,
    properties: {
      ...activationRequestSchema.properties,
      license: {
        ...activationRequestSchema.properties.license,
        contentEncoding: "base64url",
        contentMediaType: "application/json",
        contentSchema: { $ref: "#/components/schemas/LicenseDocument" },
      },
    },
  },
  LicenseDocument: licenseDocumentSchema,
};

const DATA = {
  license: LICENSE,
  source: "GLEIF Level 1 golden copy (LEI-CDF), https://www.gleif.org",
  attribution:
    "Contains LEI data from the Global Legal Entity Identifier Foundation (GLEIF), available under CC0 1.0; no attribution is required, this line is a courtesy.",
};

/** Only the bootstrap key: another valid key is a 403, a missing or unknown one as on every keyed route. */
function bootstrapOnly(auth: KeyAuth): Guard<undefined> {
  return {
    scheme: "engineKey",
    admit(req, reply) {
      const presented = KeyAuth.presented((header) => req.header(header), req.rawQuery);
      if (presented !== null && auth.isBootstrap(presented)) return undefined;
      const outcome = auth.check(req.ip, presented, "license:delete", []);
      if (outcome.ok) reply.error(403, "only the bootstrap key removes the licence");
      else refuseKey(reply, outcome);
      return REFUSED;
    },
  };
}

export function registerLicenseRoutes(server: HttpServer, license: LicenseState, auth: KeyAuth): void {
  const ref = { $ref: "#/components/schemas/Activation" };
  server.route(
    "get",
    "/license",
    {
      name: "license-get",
      area: "engine",
      doc: {
        summary: "The software's and the data's licences, and this installation's activation",
        responses: { 200: { description: "The licences", schema: { $ref: "#/components/schemas/LicenseInfo" } } },
      },
    },
    (_req, reply) => {
      reply.json(
        200,
        JSON.stringify({
          software: { name: "Leidex", license: "MIT" },
          data: DATA,
          activation: license.activation(),
          accepts_licenses: license.acceptsLicenses,
        }),
      );
    },
  );

  server.route(
    "post",
    "/license/activate",
    {
      name: "license-activate",
      area: "engine",
      maxBodyBytes: MAX_ACTIVATION_BODY,
      doc: {
        summary: "Activate a signed licence",
        description:
          "The licence document (LicenseDocument) is JSON, sent base64url with an Ed25519 signature of its bytes. It is checked against the public key the server " +
          "was started with (--license-public-key), stored, and its entitlements apply at once to the client addresses it lists. It replaces any earlier licence. " +
          "A bad signature, an expired licence or an unknown field is a 400 and nothing is stored. Needs no key.",
        body: {
          schema: { $ref: "#/components/schemas/LicenseActivation" },
          required: true,
          example: { license: "eyJsaWNlbnNlZSI6...", signature: "k3Q2..." },
        },
        responses: { 200: { description: "Active", schema: ref }, 400: { description: "Refused, with the reason; nothing stored" } },
      },
    },
    async (req, reply) => {
      const body = await readJsonBody(req, reply);
      if (body === BAD_JSON) return;
      if (!validateRequest(body)) return reply.error(400, describeSchemaError("activation", validateRequest.errors));
      try {
        reply.json(200, JSON.stringify(await license.activate(body.license, body.signature)));
      } catch (err) {
        if (!(err instanceof LicenseRefused)) throw err;
        reply.error(400, `licence refused, nothing stored: ${err.message}`);
      }
    },
  );

  server.route(
    "del",
    "/license",
    {
      name: "license-delete",
      area: "engine",
      auth: bootstrapOnly(auth),
      doc: {
        summary: "Remove the licence (bootstrap key only)",
        responses: { 200: { description: "Removed; the activation is none", schema: ref }, 404: { description: "No licence is stored" } },
      },
    },
    async (_req, reply) => {
      if (!(await license.deactivate())) return reply.error(404, "no licence is stored");
      reply.json(200, JSON.stringify(license.activation()));
    },
  );
}
