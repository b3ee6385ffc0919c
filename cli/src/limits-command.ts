/**
 * `skillgate keys limits <id>` (docs/cli.md, docs/rate-limits.md): shows a key's execution limits
 * and its usage today, and changes the key's own limits.
 */
import type { Command } from "commander";
import { type ApiAnswer, type ApiSchema, apiPath, CliError, EXIT } from "./client.js";
import { ctxOf } from "./context.js";
import { fields, print, printJson } from "./output.js";

/** A key's limits, its own overrides and its usage today (the `ApiKeyLimits` schema). */
type KeyLimitsView = ApiSchema<"ApiKeyLimits">;
type LimitName = keyof ApiSchema<"ExecutionLimits">;

const OPTIONS: [flag: string, name: LimitName, what: string][] = [
  ["--executions-per-minute <n>", "executionsPerMinute", "executions per minute"],
  ["--concurrent-sandbox-runs <n>", "concurrentSandboxRuns", "sandbox runs at once"],
  ["--daily-sandbox-seconds <n>", "dailySandboxSeconds", "sandbox seconds per UTC day"],
];

/** Parses a limit option: a non-negative integer, `none` (no limit) or `default`. */
function parseLimit(flag: string, raw: string): number | null | "default" {
  if (raw === "none") return null;
  if (raw === "default") return "default";
  if (!/^\d+$/.test(raw)) {
    throw new CliError(
      `${flag} takes a non-negative integer, "none" or "default"; got ${raw}`,
      EXIT.usage,
    );
  }
  return Number(raw);
}

function show(view: KeyLimitsView): void {
  const own = (name: LimitName) => (name in view.overrides ? "" : " (default)");
  const limit = (name: LimitName) => `${view.limits[name] ?? "none"}${own(name)}`;
  print(
    fields({
      "executions per minute": limit("executionsPerMinute"),
      "concurrent sandbox runs": limit("concurrentSandboxRuns"),
      "daily sandbox seconds": limit("dailySandboxSeconds"),
      ...Object.fromEntries(Object.entries(view.usage).map(([k, v]) => [`usage ${k}`, v])),
    }),
  );
}

/** Registers `keys limits` on the `keys` command. */
export function registerLimitsCommand(keys: Command): void {
  const cmd = keys
    .command("limits <id>")
    .description(
      'show a key\'s execution limits and usage today; options set the key\'s own limits (n, "none" = no limit, "default" = follow the defaults)',
    )
    .option("--reset", "drop the key's own limits (follow the defaults)");
  for (const [flag, , what] of OPTIONS) cmd.option(flag, what);
  cmd.action(async (id: string, o: Record<string, string | boolean | undefined>, c: Command) => {
    const ctx = ctxOf(c);
    const path = apiPath`/api/keys/${id}`;
    const current = (await ctx.client.get<ApiAnswer<"/api/keys/{id}", "get">>(path)).limits;
    const given = OPTIONS.filter(([, name]) => typeof o[name] === "string");
    let view = current;
    if (o.reset || given.length > 0) {
      const overrides: KeyLimitsView["overrides"] = o.reset ? {} : { ...current.overrides };
      for (const [flag, name] of given) {
        const value = parseLimit(flag.split(" ")[0]!, o[name] as string);
        if (value === "default") delete overrides[name];
        else overrides[name] = value;
      }
      view = (
        await ctx.client.put<ApiAnswer<"/api/keys/{id}/limits", "put">>(`${path}/limits`, overrides)
      ).limits;
    }
    if (ctx.json) return printJson({ limits: view });
    show(view);
  });
}
