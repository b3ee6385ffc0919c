/**
 * OAuth 2.0 Protected Resource Metadata of `/mcp` (RFC 9728; MCP 2025-11-25 "Authorization" →
 * "Protected Resource Metadata Discovery"; docs/mcp.md#authentication). MCP clients that follow
 * the specification read the `resource_metadata` URL of a 401's `WWW-Authenticate` and fetch this
 * document to learn how to authenticate. It names no authorization server: `/mcp` takes a bearer
 * API key (or the management token) in the `Authorization` header, so a client stops probing for
 * OAuth and asks its user for a key.
 */
import { Hono } from "hono";
import { SCOPES } from "../auth/scopes.js";
import type { AppEnv } from "../routes/context.js";

/** Path of the metadata document of the resource `<base>/mcp` (RFC 9728 §3.1, path inserted). */
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource/mcp";

/** The document at the root form of the well-known path, for clients that look there first. */
const ROOT_PATH = "/.well-known/oauth-protected-resource";

/**
 * The base URL (`scheme://host[:port]`, no trailing slash) the metadata names: `PUBLIC_BASE_URL`
 * when configured, else the origin of the request.
 */
export function resourceBase(publicBaseUrl: string | undefined, requestUrl: string): string {
  return (publicBaseUrl ?? new URL(requestUrl).origin).replace(/\/+$/, "");
}

/** The `WWW-Authenticate` value of a 401 from `/mcp` (RFC 6750 §3, RFC 9728 §5.1). */
export function mcpChallenge(base: string): string {
  return `Bearer realm="skillgate", resource_metadata="${base}${PROTECTED_RESOURCE_PATH}"`;
}

/** The metadata document: `resource`, `bearer_methods_supported: ["header"]`, the key scopes. */
export function protectedResourceMetadata(base: string): Record<string, unknown> {
  return {
    resource: `${base}/mcp`,
    resource_name: "Skillgate MCP server (Authorization: Bearer <API key>)",
    bearer_methods_supported: ["header"],
    scopes_supported: [...SCOPES],
  };
}

/** Routes serving the metadata document at both well-known paths, without authentication. */
export function protectedResourceRoutes(opts: { publicBaseUrl: string | undefined }) {
  const app = new Hono<AppEnv>();
  for (const path of [PROTECTED_RESOURCE_PATH, ROOT_PATH]) {
    app.get(path, (c) =>
      c.json(protectedResourceMetadata(resourceBase(opts.publicBaseUrl, c.req.url)), 200, {
        "Cache-Control": "public, max-age=3600",
      }),
    );
  }
  return app;
}
