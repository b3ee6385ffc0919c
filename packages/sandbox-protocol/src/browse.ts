/**
 * Shapes of the `browser` builtin between the API and the sandbox host (docs/sandbox.md#the-browser-builtin):
 * `POST /v1/browse` takes a {@link BrowseRequest} and answers a {@link BrowseResult} for every
 * browse that started (whatever its outcome); failures before the start use the host's error body.
 */
import { z } from "zod";
import { RUN_ID_PATTERN } from "./schemas.js";

/** Longest page URL accepted, in characters (the outbound guard's limit). */
export const BROWSE_MAX_URL_LENGTH = 8192;
/** Most actions one browse may perform. */
export const BROWSE_MAX_ACTIONS = 50;
/** Cap on extracted text or HTML, in characters; longer content is cut with `truncated: true`. */
export const BROWSE_MAX_CHARS = 100_000;
/** Cap on a screenshot, in bytes of PNG; a larger one is dropped with `truncated: true`. */
export const BROWSE_MAX_SCREENSHOT_BYTES = 2_000_000;
/** Default time limit of a browse in ms (start of Chromium included). */
export const BROWSE_DEFAULT_TIMEOUT_MS = 30_000;

const selector = z.string().min(1).max(1000).describe("CSS or Playwright selector.");

/**
 * One page action, performed in order after the first load: `{ click: selector }`,
 * `{ fill: selector, value }`, `{ waitFor: selector }` (until visible), `{ press: key, selector? }`
 * (a key name of Playwright's `keyboard.press`, e.g. `Enter`; on the selected element when given).
 */
export const browserActionSchema = z.union([
  z.object({ click: selector }).strict(),
  z.object({ fill: selector, value: z.string().max(100_000) }).strict(),
  z.object({ waitFor: selector }).strict(),
  z
    .object({
      press: z.string().min(1).max(100).describe("Key name, e.g. `Enter`."),
      selector: selector.optional(),
    })
    .strict(),
]);

/** One page action (see {@link browserActionSchema}). */
export type BrowserAction = z.infer<typeof browserActionSchema>;

/** What to return from the page. */
export const BROWSE_EXTRACTS = ["text", "html", "screenshot"] as const;

/**
 * Schema of a browse request (`POST /v1/browse`): the page URL (http or https), actions, what to
 * extract (default `text`), the time limit in ms (default {@link BROWSE_DEFAULT_TIMEOUT_MS},
 * capped at 60 000 by the host) and the caller's run id (so that `POST /v1/kill/{runId}` stops it).
 */
export const browseRequestSchema = z
  .object({
    url: z.string().min(1).max(BROWSE_MAX_URL_LENGTH),
    actions: z.array(browserActionSchema).max(BROWSE_MAX_ACTIONS).optional(),
    extract: z.enum(BROWSE_EXTRACTS).optional(),
    timeoutMs: z.number().int().min(1).optional(),
    runId: z.string().regex(RUN_ID_PATTERN).optional(),
  })
  .strict();

/** A browse request (see {@link browseRequestSchema}). */
export type BrowseRequest = z.infer<typeof browseRequestSchema>;

/** A request the egress proxy refused: the target as the page asked for it and why. */
export const blockedRequestSchema = z.object({
  /** `http://host:port/path` for a plain request, `host:port` for a tunnel (https, wss). */
  target: z.string(),
  /** e.g. `10.0.0.1 is not a public unicast address (private)`. */
  reason: z.string(),
});

/** A refused request (see {@link blockedRequestSchema}). */
export type BlockedRequest = z.infer<typeof blockedRequestSchema>;

/**
 * Outcome of a browse: `ok`; `timeout` (the limit ended it); `error` with a code:
 * `outbound_blocked` (the page itself was refused by the egress proxy), `dns_failed` (its host
 * name did not resolve) and `connect_failed` (no address of it accepted a connection), neither of
 * which is a refusal, `navigation_failed`,
 * `action_failed`, `browser_failed` (Chromium or the driver failed), `oom_killed`.
 */
export const browseResultSchema = z.object({
  runId: z.string(),
  status: z.enum(["ok", "error", "timeout"]),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** The page's final URL (after redirects and actions); the requested URL when none loaded. */
  url: z.string(),
  title: z.string(),
  /** HTTP status of the last main-document response, null when none arrived. */
  httpStatus: z.number().int().nullable(),
  extract: z.enum(BROWSE_EXTRACTS),
  text: z.string().optional(),
  html: z.string().optional(),
  /** PNG of the viewport, base64. */
  screenshot: z.string().optional(),
  /** The text or HTML was cut at {@link BROWSE_MAX_CHARS}, or the screenshot was over its cap. */
  truncated: z.boolean(),
  /** Requests of the page the egress proxy refused (at most 100 listed). */
  blocked: z.array(blockedRequestSchema),
  /** Wall time from the container's start to its exit, in ms. */
  durationMs: z.number().nonnegative(),
});

/** A browse result (see {@link browseResultSchema}). */
export type BrowseResult = z.infer<typeof browseResultSchema>;
