/**
 * HTTP calls to the catalogs and GitHub raw (operator-configured upstreams; docs/catalogs.md): one
 * place that maps their failures to API errors. Upstream 429 → 429 `catalog_rate_limited`; other
 * non-2xx → 502 `catalog_failed` (404 is left to the caller where it means "try the next path");
 * unreachable → 502 `catalog_unreachable`; a body that is not JSON → 502
 * `catalog_invalid_response`.
 */

import { describeNetworkError } from "@skillgate/sandbox-protocol";
import { UpstreamError } from "../errors.js";
import { jsonDepthExceeds, MAX_VALUE_DEPTH } from "../json-depth.js";

/** Time limit of one upstream call, in ms. */
export const CATALOG_TIMEOUT_MS = 15_000;

/** The global fetch through a wrapper (workerd refuses a detached `fetch`). */
export const globalFetch: typeof fetch = (input, init) => fetch(input, init);

/**
 * Sends a GET and returns the response when it is 2xx (or 404 when `allow404`).
 * @throws UpstreamError as described in the module docstring.
 */
export async function upstreamGet(
  label: string,
  fetchImpl: typeof fetch,
  url: URL,
  headers: Record<string, string> = {},
  allow404 = false,
): Promise<Response> {
  let res: Response;
  try {
    res = await fetchImpl(url.href, { headers, signal: AbortSignal.timeout(CATALOG_TIMEOUT_MS) });
  } catch (err) {
    // The network cause in words ("name not resolved", "connection refused"), not "fetch failed".
    throw new UpstreamError(
      `${label} is unreachable (${url.host}): ${describeNetworkError(err).phrase}`,
      "catalog_unreachable",
      {
        cause: err,
      },
    );
  }
  if (res.ok || (allow404 && res.status === 404)) return res;
  const detail = (await res.text().catch(() => "")).slice(0, 200).trim();
  const suffix = detail ? `: ${detail}` : "";
  if (res.status === 429) {
    throw new UpstreamError(
      `${label} rate limit reached (HTTP 429)${suffix}`,
      "catalog_rate_limited",
      { details: { retryAfter: res.headers.get("retry-after") } },
    );
  }
  if (res.status === 401 || res.status === 403) {
    throw new UpstreamError(
      `${label} refused our credentials (HTTP ${res.status})${suffix}`,
      "catalog_auth_failed",
    );
  }
  throw new UpstreamError(`${label} failed with HTTP ${res.status}${suffix}`, "catalog_failed", {
    details: { status: res.status },
  });
}

/**
 * GETs a JSON document.
 * @throws UpstreamError (see {@link upstreamGet}); `catalog_invalid_response` when not JSON or
 *   nested deeper than `MAX_VALUE_DEPTH` levels.
 */
export async function upstreamJson(
  label: string,
  fetchImpl: typeof fetch,
  url: URL,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const res = await upstreamGet(label, fetchImpl, url, { accept: "application/json", ...headers });
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw new UpstreamError(`${label} answered with invalid JSON`, "catalog_invalid_response");
  }
  if (jsonDepthExceeds(text, MAX_VALUE_DEPTH)) {
    throw new UpstreamError(
      `${label} answered with JSON nested deeper than ${MAX_VALUE_DEPTH} levels`,
      "catalog_invalid_response",
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UpstreamError(`${label} answered with invalid JSON`, "catalog_invalid_response");
  }
}

/** Joins a base URL (with or without a trailing slash or a path prefix) and a relative path. */
export function joinUrl(base: string, path: string): URL {
  return new URL(path.replace(/^\/+/, ""), base.endsWith("/") ? base : `${base}/`);
}
