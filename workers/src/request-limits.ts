/**
 * Request limits of the REST API, applied before any body is parsed:
 * - body size per route (`MAX_BODY_BYTES_EXECUTE`, `MAX_BODY_BYTES_INJECT`,
 *   `MAX_BODY_BYTES_INTERCEPT`, `MAX_BODY_BYTES` for every other route): a larger body answers
 *   413 `payload_too_large`, and nothing is written. Hono's `bodyLimit` refuses a declared
 *   `Content-Length` over the limit without reading, and counts the bytes of a chunked body,
 *   stopping at the limit (the runtime — Node's HTTP parser or workerd — never delivers more bytes
 *   than a `Content-Length` declares);
 * - nesting depth of a JSON body (`MAX_JSON_DEPTH`): deeper answers 400 `json_too_deep`, checked
 *   on the raw text before validation or any recursive code runs.
 * The numbers are documented in the README's configuration table.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Config } from "./config.js";
import { InvalidInputError, PayloadTooLargeError } from "./errors.js";
import { jsonDepthExceeds } from "./json-depth.js";

type LimitVariable =
  | "MAX_BODY_BYTES"
  | "MAX_BODY_BYTES_EXECUTE"
  | "MAX_BODY_BYTES_INJECT"
  | "MAX_BODY_BYTES_INTERCEPT";

/** Routes with a limit of their own: `METHOD path` → configuration variable. */
const ROUTE_LIMITS: Record<string, LimitVariable> = {
  "POST /api/skills/executions": "MAX_BODY_BYTES_EXECUTE",
  "POST /api/skills/inject": "MAX_BODY_BYTES_INJECT",
  "POST /api/skills/intercept": "MAX_BODY_BYTES_INTERCEPT",
};

/** Media types parsed as JSON (as Hono's validator: `application/json`, `application/*+json`). */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * The body limit of a request, in bytes, and the variable that sets it.
 * @param method HTTP method; @param path request path.
 */
export function bodyLimitFor(
  config: Config,
  method: string,
  path: string,
): { bytes: number; variable: LimitVariable } {
  const variable = ROUTE_LIMITS[`${method.toUpperCase()} ${path}`] ?? "MAX_BODY_BYTES";
  return { bytes: config[variable], variable };
}

/**
 * Middleware enforcing the body size and JSON depth limits (see the module docstring).
 * @throws PayloadTooLargeError (413) past the size limit; InvalidInputError `json_too_deep` (400)
 *   past the depth limit.
 */
export function requestLimits(config: Config): MiddlewareHandler {
  const limiters = new Map<LimitVariable, MiddlewareHandler>();
  const limiterFor = (variable: LimitVariable, bytes: number): MiddlewareHandler => {
    let limiter = limiters.get(variable);
    if (!limiter) {
      limiter = bodyLimit({
        maxSize: bytes,
        onError: () => {
          throw new PayloadTooLargeError(
            `Request body is larger than ${bytes} bytes, the limit of this route (${variable})`,
            { maxBytes: bytes },
          );
        },
      });
      limiters.set(variable, limiter);
    }
    return limiter;
  };
  return async (c, next) => {
    if (!c.req.raw.body) return next();
    const { bytes, variable } = bodyLimitFor(config, c.req.method, c.req.path);
    return limiterFor(variable, bytes)(c, async () => {
      const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
      if (JSON_MEDIA_TYPE.test(mediaType)) {
        // Cached by Hono: the validator parses this same text afterwards.
        const text = await c.req.text();
        if (jsonDepthExceeds(text, config.MAX_JSON_DEPTH)) {
          throw new InvalidInputError(
            `JSON body is nested deeper than ${config.MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`,
            { maxDepth: config.MAX_JSON_DEPTH },
            "json_too_deep",
          );
        }
      }
      await next();
    });
  };
}
