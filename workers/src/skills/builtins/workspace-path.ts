/**
 * Workspace path validation for `file_read` / `file_write` (README "Workspace files"). Every path is
 * checked here, as a string, before any storage access; nothing is resolved against a file system.
 */
import { ExecutionFailure } from "../../errors.js";

/**
 * Path segments that may never appear (README "Workspace files"), compared after Unicode compatibility
 * folding and case folding (see {@link segmentKey}).
 */
export const FORBIDDEN_SEGMENTS: readonly string[] = [
  ".env",
  ".git",
  ".ssh",
  ".omniroute",
  ".codex",
  "secrets",
];

/** Longest accepted path, in UTF-16 code units. */
export const MAX_PATH_LENGTH = 1024;
/** Longest accepted segment, in UTF-16 code units (the common file-system limit). */
export const MAX_SEGMENT_LENGTH = 255;

/**
 * Characters that look like `.`, `/` or `\` but are different code points. Some fold to ASCII
 * under NFKC (caught again by the NFKC comparison below), others do not (U+2215, U+3002, ...).
 */
const LOOKALIKES = new Set([
  "\u2024", // ONE DOT LEADER
  "\u2025", // TWO DOT LEADER
  "\u2026", // HORIZONTAL ELLIPSIS
  "\uFE52", // SMALL FULL STOP
  "\uFF0E", // FULLWIDTH FULL STOP
  "\u3002", // IDEOGRAPHIC FULL STOP
  "\uFF61", // HALFWIDTH IDEOGRAPHIC FULL STOP
  "\u0701", // SYRIAC SUPRALINEAR FULL STOP
  "\u0702", // SYRIAC SUBLINEAR FULL STOP
  "\uA60E", // VAI FULL STOP
  "\u2E31", // WORD SEPARATOR MIDDLE DOT
  "\u00B7", // MIDDLE DOT
  "\u2219", // BULLET OPERATOR
  "\u2215", // DIVISION SLASH
  "\u2044", // FRACTION SLASH
  "\uFF0F", // FULLWIDTH SOLIDUS
  "\u29F8", // BIG SOLIDUS
  "\u2571", // BOX DRAWINGS LIGHT DIAGONAL
  "\u2216", // SET MINUS
  "\uFE68", // SMALL REVERSE SOLIDUS
  "\uFF3C", // FULLWIDTH REVERSE SOLIDUS
  "\u29F9", // BIG REVERSE SOLIDUS
]);

/** Why a workspace path was refused; `reason` is a stable machine-readable tag. */
export class WorkspacePathError extends ExecutionFailure {
  /**
   * @param reason stable tag (`empty`, `absolute`, `drive_letter`, `backslash`, `traversal`, ...).
   * @param message human-readable explanation naming the rule.
   */
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(`Invalid workspace path: ${message}`, { code: "invalid_path" });
    this.name = "WorkspacePathError";
  }
}

/**
 * The form of a segment that forbidden names are compared with: NFKC (full-width letters,
 * mathematical alphanumerics, `ſ` → `s`, ligatures and other compatibility forms become their
 * plain letters; no-break and ideographic spaces become spaces), then full case folding
 * approximated by lower-, upper- then lower-casing (`ß` and `ẞ` → `ss`, Kelvin sign → `k`,
 * dotless `ı` → `i`), NFKC again,
 * and trailing dots and spaces dropped (Windows treats `.git.` as `.git`).
 * Rule source: Unicode Standard Annex #15 (normalization forms) and the Unicode case mappings.
 */
export function segmentKey(segment: string): string {
  return segment
    .normalize("NFKC")
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[. ]+$/, "");
}

function countAscii(text: string, chars: string): number {
  let n = 0;
  for (const ch of text) if (chars.includes(ch)) n++;
  return n;
}

/**
 * Validates a workspace-relative path and returns its normal form: Unicode NFC (so a name typed
 * precomposed or decomposed names the same file), segments joined by `/`, `.` segments and
 * repeated slashes removed. Pure: performs no I/O.
 *
 * Refused (README "Workspace files", plus the classes of bypass known from path-traversal attacks): non-strings,
 * empty or blank paths, NUL and other control or invisible format characters, over-long paths or
 * segments, absolute paths (`/…`, `~…`), drive letters and any other `:` (URL schemes, NTFS
 * streams), backslashes, `..` anywhere (even inside a name), percent-encoded bytes, Unicode
 * look-alikes of `.`, `/`, `\` (explicit list, plus any character whose NFKC form adds one of
 * `./\:%`), trailing `/` (a directory), and the forbidden segments `.env`, `.git`, `.ssh`,
 * `.omniroute`, `.codex`, `secrets` compared by {@link segmentKey} (so `.ｅｎｖ`, `ſecrets`,
 * `SECRETS` and `.git.` are refused); `.env.*` files (e.g. `.env.local`) are refused too.
 *
 * @param raw the path as the caller sent it.
 * @returns the normalised relative path, e.g. `docs/notes.txt`.
 * @throws WorkspacePathError (an ExecutionFailure with code `invalid_path`) naming the rule.
 */
export function validateWorkspacePath(raw: unknown): string {
  if (typeof raw !== "string") throw new WorkspacePathError("type", "path must be a string");
  if (raw.length > 4 * MAX_PATH_LENGTH)
    throw new WorkspacePathError("too_long", `path is longer than ${MAX_PATH_LENGTH} characters`);
  const input = raw.normalize("NFC");
  if (input.trim() === "") throw new WorkspacePathError("empty", "path is empty");
  if (input.length > MAX_PATH_LENGTH)
    throw new WorkspacePathError("too_long", `path is longer than ${MAX_PATH_LENGTH} characters`);
  if (input.includes("\0")) throw new WorkspacePathError("nul", "path contains a NUL byte");
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(input))
    throw new WorkspacePathError("control", "path contains control or invisible characters");
  if (input.includes("\\"))
    throw new WorkspacePathError("backslash", "backslashes are not allowed");
  if (/^[A-Za-z]:/.test(input))
    throw new WorkspacePathError("drive_letter", "drive letters are not allowed");
  if (input.startsWith("/") || input.startsWith("~"))
    throw new WorkspacePathError("absolute", "absolute paths are not allowed");
  if (input.includes(":"))
    throw new WorkspacePathError("colon", "`:` is not allowed (drive letters, URLs, streams)");
  if (/%[0-9A-Fa-f]{2}/.test(input))
    throw new WorkspacePathError("percent_encoded", "percent-encoded characters are not allowed");
  for (const ch of input) {
    if (LOOKALIKES.has(ch))
      throw new WorkspacePathError(
        "lookalike",
        `U+${ch.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")} looks like a path separator or dot`,
      );
  }
  const folded = input.normalize("NFKC");
  if (countAscii(folded, "./\\:%") !== countAscii(input, "./\\:%"))
    throw new WorkspacePathError(
      "lookalike",
      "path contains Unicode characters that normalise to `.`, `/`, `\\`, `:` or `%`",
    );
  if (input.includes("..")) throw new WorkspacePathError("traversal", "`..` is not allowed");
  if (input.endsWith("/"))
    throw new WorkspacePathError("directory", "path names a directory (ends with `/`)");

  const segments = input.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.length === 0) throw new WorkspacePathError("empty", "path names no file");
  for (const segment of segments) {
    if (segment.length > MAX_SEGMENT_LENGTH)
      throw new WorkspacePathError(
        "too_long",
        `segment longer than ${MAX_SEGMENT_LENGTH} characters`,
      );
    if (segment.trim() === "")
      throw new WorkspacePathError("empty", "path has a segment made of spaces");
    const bare = segmentKey(segment);
    if (FORBIDDEN_SEGMENTS.includes(bare) || bare.startsWith(".env."))
      throw new WorkspacePathError("forbidden", `segment \`${segment}\` is not allowed`);
  }
  return segments.join("/");
}
