/**
 * The proxy's bounds on what it sends back (docs/proxy.md#limits): the execution ids in a
 * response header or a stream's trailing comment are listed up to {@link MAX_LISTED_EXECUTIONS}
 * with their count and a link to all of them, so a turn of hundreds of calls never makes an
 * oversized header; and the size of a tool call's arguments in an upstream answer.
 */
import type { ExtractedCall } from "../../formats/types.js";
import { UpstreamFailure } from "./upstream.js";

/** Most execution ids listed in `x-skillgate-executions` (about 750 bytes of ids). */
export const MAX_LISTED_EXECUTIONS = 20;

/**
 * The execution headers of an answer: `x-skillgate-executions` (the first
 * {@link MAX_LISTED_EXECUTIONS} ids, comma-separated), `x-skillgate-executions-count` (all of
 * them), `x-skillgate-executions-truncated: true` when some are not listed, and
 * `x-skillgate-executions-url` (the REST listing of the session's executions, relative to the
 * API's base URL). None when `ids` is empty.
 */
export function executionHeaders(
  ids: readonly string[],
  sessionId: string,
): Record<string, string> {
  if (ids.length === 0) return {};
  const h: Record<string, string> = {
    "x-skillgate-executions": ids.slice(0, MAX_LISTED_EXECUTIONS).join(","),
    "x-skillgate-executions-count": String(ids.length),
    "x-skillgate-executions-url": `/api/skills/executions?sessionId=${encodeURIComponent(sessionId)}`,
  };
  if (ids.length > MAX_LISTED_EXECUTIONS) h["x-skillgate-executions-truncated"] = "true";
  return h;
}

/**
 * The trailing comment of a stream (`x-skillgate-rounds=…; x-skillgate-executions=…`), with the
 * same bounded list as {@link executionHeaders}.
 */
export function trailerText(rounds: number, ids: readonly string[], limit?: string): string {
  const parts = [
    `x-skillgate-rounds=${rounds}`,
    `x-skillgate-executions=${ids.slice(0, MAX_LISTED_EXECUTIONS).join(",")}`,
  ];
  if (ids.length > 0) parts.push(`x-skillgate-executions-count=${ids.length}`);
  if (limit) parts.push(`x-skillgate-limit=${limit}`);
  return parts.join("; ");
}

/** Characters of a call's arguments as the model wrote them (a string) or as JSON (an object). */
export function argumentsChars(call: ExtractedCall): number {
  if (typeof call.input === "string") return call.input.length;
  return JSON.stringify(call.input ?? null)?.length ?? 0;
}

/**
 * Refuses an answer holding a call whose arguments are longer than `maxChars`
 * (`PROXY_MAX_TOOL_ARGUMENTS_CHARS`).
 * @throws UpstreamFailure 502 `upstream_too_large` naming the call.
 */
export function checkArguments(calls: readonly ExtractedCall[], maxChars: number): void {
  for (const call of calls)
    if (argumentsChars(call) > maxChars) throw argumentsTooLarge(call.name, maxChars);
}

/**
 * The failure of a call whose arguments passed `maxChars` (502 `upstream_too_large`); `name`
 * (when known) is named in the message, cut to 100 characters.
 */
export function argumentsTooLarge(name: string | undefined, maxChars: number): UpstreamFailure {
  const which = name ? ` ${JSON.stringify(name.slice(0, 100))}` : "";
  return new UpstreamFailure(
    502,
    `The upstream's tool call${which} has arguments longer than ${maxChars} characters`,
    "upstream_too_large",
  );
}
