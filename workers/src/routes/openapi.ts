/**
 * The OpenAPI 3.1 document served at `/openapi.json`: document-level fields (info, servers,
 * tags, default security) and the two bearer security schemes. Operations carry their own
 * `operationId`, tag and security requirement in their route definitions.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.js";
import { KEY_OR_MANAGEMENT, TAGS } from "./schemas.js";

/** Version of the HTTP API described by the document. */
export const API_VERSION = "0.1.0";

/**
 * The project ships under no public license (all rights reserved); OpenAPI 3.1 names such a
 * license with an SPDX `LicenseRef-` identifier.
 */
const LICENSE = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };

/** The document-level fields of the OpenAPI document (info, servers, default security, tags). */
export const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Skillgate API",
    version: API_VERSION,
    description:
      "Skills registry, provider-aware tool injection, interception and sandboxed execution. " +
      "Errors answer `{ error: { code, message, details? } }`. Status codes: a create answers " +
      "201 with the created resource; `POST /api/skills/executions` and the approve endpoint " +
      "answer 200 with the finished execution, whatever its status; a delete that removes a " +
      "resource answers 204 with no body, a revoke keeps the record and answers 200 with it; " +
      "a method a path does not support answers 405 with an `Allow` header.",
    license: LICENSE,
  },
  servers: [{ url: "/", description: "The deployment serving this document" }],
  security: KEY_OR_MANAGEMENT,
  tags: [
    { name: TAGS.skills, description: "The skill registry (management; a key may read one)" },
    {
      name: TAGS.executions,
      description: "Run a skill now, read the history, approve or reject pending executions",
    },
    {
      name: TAGS.tools,
      description: "Add skills to a provider request as tools; run the tool calls it returns",
    },
    { name: TAGS.catalogs, description: "Search SkillsMP and skills.sh, install from them" },
    { name: TAGS.keys, description: "API keys (management)" },
    { name: TAGS.settings, description: "Master switch and catalog settings (management)" },
    { name: TAGS.health, description: "Liveness, and details for management" },
    {
      name: TAGS.agentSkills,
      description:
        "SKILL.md entries that explain this API to agents (generated from this document)",
    },
    { name: TAGS.routing, description: "Upstream call history and provider recommendations" },
  ],
};

/**
 * Serves the document at `/openapi.json` on `app` and registers the security schemes.
 * The server URL is relative (`/`): the document describes the deployment that serves it.
 */
export function serveOpenApiDocument(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "managementToken", {
    type: "http",
    scheme: "bearer",
    description:
      "The management token (`MGMT_TOKEN`; `npm start` creates one in `.data/mgmt-token`). Allows every operation; acts for a key where an operation takes `apiKeyId`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`sg_...`, created with `POST /api/keys`). Acts for itself: its own and global skills, its own executions.",
  });
  app.doc31("/openapi.json", OPENAPI_DOCUMENT);
}
