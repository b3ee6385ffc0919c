/**
 * Output of the `skillgate` CLI: aligned tables for people, JSON for scripts (`--json`), and a
 * progress line on stderr during long operations when stderr is a terminal.
 */

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

/** Writes a line to stdout. */
export function print(s: string): void {
  process.stdout.write(`${s}\n`);
}

/** Writes JSON (two-space indent) to stdout. */
export function printJson(v: unknown): void {
  process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
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
