/**
 * HTTP client of the `skillgate` CLI for the Skillgate REST API (docs/api.md), and the CLI's exit
 * codes (docs/cli.md#exit-codes). Every failure becomes a {@link CliError} with a message that
 * says what to do. The shapes of the API's answers come from its OpenAPI document
 * (`./api-types.ts`, generated; docs/cli.md#api-types).
 */
import type { components, paths } from "./api-types.js";

/** A named schema of the API's OpenAPI document, e.g. `ApiSchema<"Skill">`. */
export type ApiSchema<N extends keyof components["schemas"]> = components["schemas"][N];

/** The HTTP methods the client sends. */
type Method = "get" | "post" | "put" | "delete";

/** The methods the OpenAPI document defines for `P`. */
export type ApiMethod<P extends keyof paths> = {
  [M in Method]: paths[P][M] extends { responses: unknown } ? M : never;
}[Method];

/**
 * The JSON body of the success answer (200, else 201) of `M` on the route `P` of the OpenAPI
 * document, e.g. `ApiAnswer<"/api/skills/{id}", "get">` is `{ skill: Skill }`; `never` for a
 * route that answers no JSON on success (204).
 */
export type ApiAnswer<P extends keyof paths, M extends ApiMethod<P>> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: { content: { "application/json": infer B } } }
    ? B
    : R extends { 201: { content: { "application/json": infer B } } }
      ? B
      : never
  : never;

/** Exit codes scripts can rely on (docs/cli.md#exit-codes). */
export const EXIT = {
  ok: 0,
  /** Server error or an unexpected answer. */
  failure: 1,
  /** Bad usage or input (missing option, invalid JSON, HTTP 400/413/422). */
  usage: 2,
  /** Missing, invalid or insufficient credentials (HTTP 401/403). */
  auth: 3,
  /** The thing named does not exist (HTTP 404). */
  notFound: 4,
  /** Conflict with the current state (HTTP 409: exists, not pending, provider not active). */
  conflict: 5,
  /** The server could not be reached, or is busy / unavailable (HTTP 429/503). */
  unavailable: 6,
  /** The execution ran and ended in `error` or `timeout`. */
  executionFailed: 7,
} as const;

/** An error the CLI reports and exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

function exitFor(status: number): number {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status === 429 || status === 503) return EXIT.unavailable;
  if (status >= 400 && status < 500) return EXIT.usage;
  return EXIT.failure;
}

const HINTS: Record<number, string> = {
  401: "Check SKILLGATE_TOKEN (or --token): it must be the management token or a valid API key.",
  403: "This needs the management token; an API key cannot do it.",
};

/**
 * One path segment from a value the user typed or the server sent (an id, a name): percent-encoded
 * with `encodeURIComponent`, so `/`, `?`, `#` and `%` stay inside the segment (RFC 3986 §3.3).
 * @throws CliError (usage) for an empty segment or a dot segment (`.`, `..`): a URL parser
 *   resolves those against the path (WHATWG URL, also in their `%2E` spellings) before the
 *   request is sent, so they would name another endpoint.
 */
export function segment(value: string): string {
  if (value === "" || value === "." || value === "..")
    throw new CliError(`Not a valid id or name: "${value}"`, EXIT.usage);
  return encodeURIComponent(value);
}

/**
 * A request path whose interpolated values are each one encoded path segment ({@link segment}):
 * ``apiPath`/api/skills/executions/${id}/approve` `` can never reach another endpoint.
 */
export function apiPath(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce(
    (path, s, i) => path + s + (i < values.length ? segment(values[i]!) : ""),
    "",
  );
}

/** Connection settings. */
export interface ClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:20128`. */
  url: string;
  token: string | undefined;
}

/** Minimal JSON client. */
export class SkillgateClient {
  constructor(private readonly opts: ClientOptions) {}

  /**
   * Sends a request and returns the parsed JSON body (undefined for 204).
   * @throws CliError with the server's error code and message, and an exit code by status.
   */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    if (!this.opts.token) {
      throw new CliError("No credentials: set SKILLGATE_TOKEN or pass --token.", EXIT.auth);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    const url = new URL(path, this.opts.url.endsWith("/") ? this.opts.url : `${this.opts.url}/`);
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new CliError(
        `Cannot reach Skillgate at ${this.opts.url} (${(err as Error).message}). Check SKILLGATE_URL or --url, and that the server is running.`,
        EXIT.unavailable,
      );
    }
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new CliError(
        `Unexpected answer from ${url.pathname} (HTTP ${res.status}, not JSON). Is ${this.opts.url} a Skillgate server?`,
        EXIT.failure,
      );
    }
    if (!res.ok) {
      const err = (parsed as { error?: { code?: string; message?: string; details?: unknown } })
        ?.error;
      const details = Array.isArray(err?.details)
        ? (err.details as { field?: string; message?: string }[])
            .map((d) => `\n  - ${d.field ?? "?"}: ${d.message ?? ""}`)
            .join("")
        : "";
      const hint = HINTS[res.status] ? `\n${HINTS[res.status]}` : "";
      throw new CliError(
        `${err?.message ?? `HTTP ${res.status}`} [${err?.code ?? res.status}]${details}${hint}`,
        exitFor(res.status),
        err?.code,
      );
    }
    return parsed as T;
  }

  get<T>(path: string) {
    return this.request<T>("GET", path);
  }
  post<T>(path: string, body: unknown = {}) {
    return this.request<T>("POST", path, body);
  }
  put<T>(path: string, body: unknown) {
    return this.request<T>("PUT", path, body);
  }
  delete<T>(path: string) {
    return this.request<T>("DELETE", path);
  }
}
