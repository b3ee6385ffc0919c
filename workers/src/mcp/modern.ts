/**
 * The modern era of MCP (specification 2026-07-28) on `/mcp` (docs/mcp.md#protocol-eras): no
 * `initialize` handshake; every request carries its protocol version and client capabilities in
 * `params._meta`, mirrored in the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers;
 * `server/discover` tells a client the versions, capabilities and identity of the server; every
 * result carries `resultType`, and list and discovery results carry cache hints (`ttlMs`,
 * `cacheScope`). Sources: MCP 2026-07-28 "Versioning and Compatibility", "Transports →
 * Streamable HTTP" (request metadata, server validation) and "Overview" (result types, error
 * codes -32020…-32022).
 *
 * The checks here are pure: they read a header getter and the parsed message and say how the
 * request must be refused, if at all. The route runs what passes through the same server as the
 * 2025 era.
 */
import { LEGACY_VERSIONS } from "./http-rules.js";

/** Modern protocol versions Skillgate speaks, newest first. */
export const MODERN_VERSIONS = ["2026-07-28"] as const;

/** Every version `/mcp` speaks, newest first (the `supported` list of version errors). */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/** `_meta` key of the request's protocol version. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
/** `_meta` key of the client's capabilities (required on every modern request). */
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** JSON-RPC error codes the 2026-07-28 specification defines. */
export const MODERN_ERROR = {
  /** Headers missing or not matching the body. */
  headerMismatch: -32020,
  /** A protocol version the server does not implement. */
  unsupportedProtocolVersion: -32022,
} as const;

/** Methods a modern request may name (the rest answer 404 with -32601). */
export const MODERN_METHODS = new Set(["server/discover", "tools/list", "tools/call"]);

/** Methods whose `Mcp-Name` header mirrors `params.name` (or `params.uri`). */
const NAMED_METHODS = new Set(["tools/call", "resources/read", "prompts/get"]);

/** A JSON-RPC message as parsed from a POST body (shape not yet trusted). */
export interface RawMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type HeaderGetter = (name: string) => string | undefined;

function metaOf(message: RawMessage): Record<string, unknown> | undefined {
  const params = message.params;
  if (!params || typeof params !== "object") return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return meta && typeof meta === "object" && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}

/**
 * Whether a single message speaks the modern era: its `_meta` names a protocol version, or its
 * `MCP-Protocol-Version` header is a modern version. Anything else is served as the 2025 era.
 */
export function isModernMessage(headerVersion: string | undefined, message: RawMessage): boolean {
  if (headerVersion && (MODERN_VERSIONS as readonly string[]).includes(headerVersion)) return true;
  return metaOf(message)?.[META_PROTOCOL_VERSION] !== undefined;
}

/**
 * Decodes a header that may carry the Base64 sentinel form `=?base64?<value>?=` (UTF-8); a plain
 * value is returned as it is. @returns undefined for a sentinel that is not valid Base64/UTF-8.
 */
export function decodeMirroredHeader(value: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!m) return value.startsWith("=?base64?") ? undefined : value;
  try {
    const bytes = Uint8Array.from(atob(m[1]!), (ch) => ch.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A refusal of a modern request: HTTP status and JSON-RPC error. */
export interface ModernRefusal {
  status: 400 | 404;
  error: { code: number; message: string; data?: unknown };
}

/**
 * Checks a modern request against the 2026-07-28 rules, in this order:
 * 1. `MCP-Protocol-Version` present and equal to `_meta`'s version (else 400, -32020);
 * 2. the version is one Skillgate speaks (else 400, -32022 with `data: { supported, requested }`);
 * 3. for a request (it has an id): `Mcp-Method` equal to `method`, and for `tools/call`,
 *    `resources/read`, `prompts/get` an `Mcp-Name` equal to `params.name` / `params.uri` after
 *    Base64-sentinel decoding (else 400, -32020);
 * 4. `_meta` holds the client capabilities object (else 400, -32602);
 * 5. the method is one Skillgate implements (else 404, -32601).
 * @returns undefined when the request may run.
 */
export function checkModernRequest(
  header: HeaderGetter,
  message: RawMessage,
): ModernRefusal | undefined {
  const meta = metaOf(message);
  const bodyVersion = meta?.[META_PROTOCOL_VERSION];
  const headerVersion = header("mcp-protocol-version");
  const mismatch = (text: string): ModernRefusal => ({
    status: 400,
    error: { code: MODERN_ERROR.headerMismatch, message: `Header mismatch: ${text}` },
  });
  if (headerVersion === undefined) return mismatch("the MCP-Protocol-Version header is required");
  if (bodyVersion !== headerVersion) {
    return mismatch(
      `MCP-Protocol-Version header value '${headerVersion}' does not match _meta["${META_PROTOCOL_VERSION}"] (${JSON.stringify(bodyVersion ?? null)})`,
    );
  }
  if (!(MODERN_VERSIONS as readonly string[]).includes(headerVersion)) {
    return {
      status: 400,
      error: {
        code: MODERN_ERROR.unsupportedProtocolVersion,
        message: "Unsupported protocol version",
        data: { supported: SUPPORTED_VERSIONS, requested: headerVersion },
      },
    };
  }
  const method = typeof message.method === "string" ? message.method : "";
  if (message.id !== undefined) {
    const mcpMethod = header("mcp-method");
    if (mcpMethod === undefined) return mismatch("the Mcp-Method header is required");
    if (mcpMethod !== method) {
      return mismatch(
        `Mcp-Method header value '${mcpMethod}' does not match body value '${method}'`,
      );
    }
    if (NAMED_METHODS.has(method)) {
      const params = (message.params ?? {}) as { name?: unknown; uri?: unknown };
      const bodyName = method === "resources/read" ? params.uri : params.name;
      const raw = header("mcp-name");
      if (raw === undefined) return mismatch(`the Mcp-Name header is required for ${method}`);
      const name = decodeMirroredHeader(raw);
      if (name === undefined || name !== bodyName) {
        return mismatch(`Mcp-Name header value does not match body value for ${method}`);
      }
    }
  }
  const capabilities = meta?.[META_CLIENT_CAPABILITIES];
  if (!capabilities || typeof capabilities !== "object" || Array.isArray(capabilities)) {
    return {
      status: 400,
      error: {
        code: -32602,
        message: `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] must be an object`,
      },
    };
  }
  if (message.id !== undefined && !MODERN_METHODS.has(method)) {
    return { status: 404, error: { code: -32601, message: `Method not found: ${method}` } };
  }
  return undefined;
}

/** Identity and instructions of the server, as `initialize` gives them in the 2025 era. */
export interface ServerIdentity {
  serverInfo: { name: string; title?: string; version: string };
  instructions: string;
}

/** How long a client may reuse a `server/discover` answer, in ms (it changes with a release). */
export const DISCOVER_TTL_MS = 3_600_000;

/**
 * The `server/discover` result (MCP 2026-07-28 "Discovery"): every version `/mcp` speaks, the
 * tools capability (`listChanged: false`: there is no `subscriptions/listen` stream to announce
 * changes on), identity, instructions and cache hints (the same for every caller: `public`).
 */
export function discoverResult(identity: ServerIdentity): Record<string, unknown> {
  return {
    resultType: "complete",
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: { tools: { listChanged: false } },
    serverInfo: identity.serverInfo,
    instructions: identity.instructions,
    ttlMs: DISCOVER_TTL_MS,
    cacheScope: "public",
  };
}

/**
 * A 2025-era result made modern: `resultType: "complete"`, and for `tools/list` the cache hints
 * `ttlMs: 0` (the list follows the registry at once) and `cacheScope: "private"` (it depends on
 * the caller's key).
 */
export function modernResult(method: string, result: Record<string, unknown>) {
  const out: Record<string, unknown> = { ...result, resultType: "complete" };
  if (method === "tools/list") {
    out.ttlMs = 0;
    out.cacheScope = "private";
  }
  return out;
}
