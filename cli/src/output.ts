/**
 * Output of the `skillgate` CLI: aligned tables for people, JSON for scripts (`--json`), and a
 * progress line on stderr during long operations when stderr is a terminal. Text from the server
 * (skill descriptions, error messages, outputs) never reaches the terminal with control
 * characters in it (docs/cli.md#output): a terminal would run escape sequences written there.
 */

/**
 * Control characters a terminal acts on, or that hide or reorder text: C0 except tab and line
 * feed (ESC, BEL, carriage return, backspace, ...), DEL, C1 (including the one-byte CSI U+009B),
 * and the Unicode bidirectional controls (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
 */
const TERMINAL_CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same characters in JSON text: JSON.stringify escapes C0 itself, but not DEL, C1 or bidi. */
const JSON_UNESCAPED_CONTROLS = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `s` without the control characters of {@link TERMINAL_CONTROLS} (tab and line feed stay). */
export function stripControls(s: string): string {
  return s.replace(TERMINAL_CONTROLS, "");
}

/**
 * `v` as JSON text (two-space indent when `indent`) that holds no raw control character: the
 * ones JSON.stringify leaves raw are written as `\uXXXX` escapes, so the JSON parses to the same
 * value and a terminal shows it inert.
 */
export function jsonText(v: unknown, indent?: number): string {
  return (JSON.stringify(v, null, indent) ?? "null").replace(
    JSON_UNESCAPED_CONTROLS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A column: header and how to read the cell from a row. */
export type Column<T> = [header: string, cell: (row: T) => unknown];

function text(v: unknown): string {
  if (v === null || v === undefined) return "-";
  if (typeof v === "string") return v;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** Renders rows as an aligned table (an empty-state line when there are none). */
export function table<T>(rows: readonly T[], columns: Column<T>[], empty = "(none)"): string {
  if (rows.length === 0) return empty;
  const cells = rows.map((r) => columns.map(([, f]) => text(f(r)).replace(/\s+/g, " ")));
  const widths = columns.map(([h], i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(columns.map(([h]) => h.toUpperCase())), ...cells.map(line)].join("\n");
}

/** Renders an object as `key: value` lines. */
export function fields(obj: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(obj).map((k) => k.length));
  return Object.entries(obj)
    .map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${text(v)}`)
    .join("\n");
}

/** Writes a line to stdout, without control characters ({@link stripControls}). */
export function print(s: string): void {
  process.stdout.write(`${stripControls(s)}\n`);
}

/** Writes JSON (two-space indent) to stdout, control characters escaped ({@link jsonText}). */
export function printJson(v: unknown): void {
  process.stdout.write(`${jsonText(v, 2)}\n`);
}

/** Writes an error line to stderr, without control characters ({@link stripControls}). */
export function printError(message: string): void {
  process.stderr.write(`error: ${stripControls(message)}\n`);
}

/**
 * Runs `work` with a progress line (`label…` and elapsed seconds) on stderr when stderr is a
 * terminal; cleared when the work ends.
 */
export async function withProgress<T>(label: string, work: () => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return work();
  const start = Date.now();
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  let i = 0;
  const timer = setInterval(() => {
    const s = ((Date.now() - start) / 1000).toFixed(1);
    process.stderr.write(`\r${frames[i++ % frames.length]} ${label}… ${s}s`);
  }, 100);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    process.stderr.write("\r\x1b[K");
  }
}
