/**
 * `skillgate keys …`, `executions …`, `catalog …` and `settings …` (docs/cli.md).
 */
import type { Command } from "commander";
import { type ApiAnswer, apiPath, CliError, EXIT } from "./client.js";
import { type Ctx, ctxOf, qs } from "./context.js";
import { registerLimitsCommand } from "./limits-command.js";
import { fields, jsonText, print, printJson, table, withProgress } from "./output.js";
import { type ExecutionView, showExecution } from "./skills-commands.js";

const EXECUTION_COLUMNS: [string, (e: ExecutionView) => unknown][] = [
  ["created", (e) => e.createdAt],
  ["skill", (e) => `${e.skillName}@${e.version}`],
  ["status", (e) => (e.approval === "none" ? e.status : `${e.status} (${e.approval})`)],
  ["duration", (e) => (e.durationMs === null ? "-" : `${e.durationMs} ms`)],
  ["key", (e) => e.apiKeyId ?? "management"],
  ["id", (e) => e.id],
];

function executionQuery(o: Record<string, string | undefined>, page: string, limit: string) {
  return qs({
    status: o.status,
    skill: o.skill,
    sessionId: o.session,
    apiKeyId: o.apiKeyId,
    approval: o.approval,
    page,
    limit,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function watch(ctx: Ctx, o: Record<string, string | undefined>): Promise<void> {
  const interval = Math.max(200, Number(o.interval ?? 2000));
  const max = o.count === undefined ? Number.POSITIVE_INFINITY : Number(o.count);
  const seen = new Map<string, string>();
  const fetchPage = () =>
    ctx.client.get<ApiAnswer<"/api/skills/executions", "get">>(
      `/api/skills/executions${executionQuery(o, "1", "50")}`,
    );
  for (const e of (await fetchPage()).data) seen.set(e.id, e.status);
  if (!ctx.json) process.stderr.write("Watching for new executions (Ctrl-C to stop)…\n");
  let shown = 0;
  while (shown < max) {
    await sleep(interval);
    const page = await fetchPage();
    for (const e of [...page.data].reverse()) {
      if (seen.get(e.id) === e.status) continue;
      seen.set(e.id, e.status);
      if (ctx.json) process.stdout.write(`${jsonText(e)}\n`);
      else print(table([e], EXECUTION_COLUMNS).split("\n")[1]!);
      if (++shown >= max) break;
    }
  }
}

/** Registers `keys`, `executions`, `catalog` and `settings`. */
export function registerOpsCommands(program: Command): void {
  const keys = program.command("keys").description("API keys (management)");
  keys
    .command("create <name>")
    .description("create an API key; the key is printed once")
    .option("--expires <iso>", "expiry, ISO-8601 (e.g. 2027-01-01T00:00:00Z)")
    .action(async (name: string, o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const created = await ctx.client.post<ApiAnswer<"/api/keys", "post">>("/api/keys", {
        name,
        ...(o.expires ? { expiresAt: o.expires } : {}),
      });
      if (ctx.json) return printJson(created);
      print(
        `Created key ${created.apiKey.name} (${created.apiKey.id}). Store it now; it is not shown again:`,
      );
      print(created.key);
    });
  keys
    .command("list")
    .description("list API keys")
    .action(async (_o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const { data } = await ctx.client.get<ApiAnswer<"/api/keys", "get">>("/api/keys");
      if (ctx.json) return printJson({ data });
      print(
        table(
          data,
          [
            ["name", (k) => k.name],
            ["id", (k) => k.id],
            ["prefix", (k) => k.prefix],
            ["created", (k) => k.createdAt],
            ["last used", (k) => k.lastUsedAt ?? "never"],
            ["state", (k) => (k.revokedAt ? "revoked" : "active")],
          ],
          "No API keys. Create one with: skillgate keys create <name>",
        ),
      );
    });
  keys
    .command("revoke <id>")
    .description("revoke an API key")
    .action(async (id: string, _o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const res = await ctx.client.delete<ApiAnswer<"/api/keys/{id}", "delete">>(
        apiPath`/api/keys/${id}`,
      );
      if (ctx.json) return printJson(res);
      print(`Revoked key ${res.apiKey.name} (${res.apiKey.id})`);
    });
  registerLimitsCommand(keys);

  const executions = program.command("executions").description("execution history and approvals");
  const filterOptions = (c: Command) =>
    c
      .option("--status <status>", "pending | running | success | error | timeout")
      .option("--skill <name>", "name or name@version")
      .option("--session <id>", "session id")
      .option("--api-key-id <id>", "management: one key's executions")
      .option("--approval <state>", "none | required | approved | rejected | expired");
  filterOptions(executions.command("list").description("list executions, newest first"))
    .option("--page <n>", "page number", "1")
    .option("--limit <n>", "rows per page (max 200)", "20")
    .action(async (o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const page = await ctx.client.get<ApiAnswer<"/api/skills/executions", "get">>(
        `/api/skills/executions${executionQuery(o, o.page, o.limit)}`,
      );
      if (ctx.json) return printJson(page);
      print(table(page.data, EXECUTION_COLUMNS, "No executions match."));
      print(`page ${page.page} of ${Math.max(page.totalPages, 1)} · ${page.total} total`);
    });
  executions
    .command("show <id>")
    .description("show one execution with its input and output")
    .action(async (id: string, _o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const { execution } = await ctx.client.get<ApiAnswer<"/api/skills/executions/{id}", "get">>(
        apiPath`/api/skills/executions/${id}`,
      );
      showExecution(ctx, execution);
    });
  executions
    .command("approve <id>")
    .description("approve a pending hybrid execution; it runs now")
    .action(async (id: string, _o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const { execution } = await withProgress("Running the approved execution", () =>
        ctx.client.post<ApiAnswer<"/api/skills/executions/{id}/approve", "post">>(
          apiPath`/api/skills/executions/${id}/approve`,
        ),
      );
      process.exitCode = showExecution(ctx, execution);
    });
  executions
    .command("reject <id>")
    .description("reject a pending hybrid execution")
    .option("--reason <text>", "why (recorded in the error message)")
    .action(async (id: string, o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const { execution } = await ctx.client.post<
        ApiAnswer<"/api/skills/executions/{id}/reject", "post">
      >(apiPath`/api/skills/executions/${id}/reject`, o.reason ? { reason: o.reason } : {});
      if (ctx.json) return printJson({ execution });
      print(`Rejected ${execution.skillName}@${execution.version} (${execution.id})`);
    });
  filterOptions(executions.command("watch").description("follow new executions and status changes"))
    .option("--interval <ms>", "poll interval in ms", "2000")
    .option("--count <n>", "stop after this many events")
    .action(async (o, cmd: Command) => watch(ctxOf(cmd), o));

  const catalog = program
    .command("catalog")
    .description("search and install from the skill catalogs");
  const providerOf = async (ctx: Ctx, flag: string | undefined): Promise<string> => {
    if (flag) return flag;
    const res = await ctx.client
      .get<ApiAnswer<"/api/settings", "get">>("/api/settings")
      .catch(() => undefined);
    return res?.settings.activeProvider ?? "skillsmp";
  };
  catalog
    .command("search [query]")
    .description("search the active catalog provider")
    .option("--provider <p>", "skillsmp | skillssh (default: the active provider)")
    .option("--limit <n>", "results (max 100)", "20")
    .action(async (query: string | undefined, o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const provider = await providerOf(ctx, o.provider);
      const path = provider === "skillssh" ? "/api/skills/skillssh" : "/api/skills/marketplace";
      const page = await withProgress(`Searching ${provider}`, () =>
        ctx.client.get<
          ApiAnswer<"/api/skills/marketplace", "get"> | ApiAnswer<"/api/skills/skillssh", "get">
        >(`${path}${qs({ q: query ?? "", limit: o.limit })}`),
      );
      if (ctx.json) return printJson(page);
      print(
        table(
          page.data,
          [
            ["name", (s) => s.name],
            ["id", (s) => s.id],
            ["author", (s) => s.author],
            ["stars", (s) => s.stars],
            ["installs", (s) => s.installs],
          ],
          "No catalog skills match.",
        ),
      );
    });
  catalog
    .command("install <ref>")
    .description("install from the catalog: a github.com URL, or owner/repo/skill-id")
    .option("--provider <p>", "skillsmp | skillssh (default: the active provider)")
    .option("--api-key-id <id>", "management: install for this key")
    .action(async (ref: string, o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const provider = await providerOf(ctx, o.provider);
      const parts = ref.split("/").filter(Boolean);
      const isUrl = /^https?:\/\//.test(ref);
      if (!isUrl && parts.length < 3) {
        throw new CliError("ref must be a github.com URL or owner/repo/skill-id", EXIT.usage);
      }
      const owner = o.apiKeyId ? { apiKeyId: o.apiKeyId } : {};
      const body =
        provider === "skillssh"
          ? { id: ref, ...owner }
          : isUrl
            ? { githubUrl: ref, ...owner }
            : { source: `${parts[0]}/${parts[1]}`, skillId: parts.slice(2).join("/"), ...owner };
      const path =
        provider === "skillssh"
          ? "/api/skills/skillssh/install"
          : "/api/skills/marketplace/install";
      const res = await withProgress(`Installing ${ref} from ${provider}`, () =>
        ctx.client.post<
          | ApiAnswer<"/api/skills/marketplace/install", "post">
          | ApiAnswer<"/api/skills/skillssh/install", "post">
        >(path, body),
      );
      if (ctx.json) return printJson(res);
      print(
        `Installed ${res.skill.name}@${res.skill.version} (${res.skill.id}) from ${res.skillMd.url}`,
      );
    });

  const settings = program.command("settings").description("product settings (management)");
  settings
    .command("get")
    .description("show the settings")
    .action(async (_o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const res = await ctx.client.get<ApiAnswer<"/api/settings", "get">>("/api/settings");
      if (ctx.json) return printJson(res);
      print(fields(res.settings));
    });
  settings
    .command("set <name> <value>")
    .description(
      "set skillsEnabled (true|false), customSkillExecution (true|false), activeProvider (skillsmp|skillssh) or skillsmpApiKey (a key, or none)",
    )
    .action(async (name: string, value: string, _o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      let parsed: unknown;
      if (name === "skillsEnabled" || name === "customSkillExecution") {
        if (!["true", "false"].includes(value))
          throw new CliError(`${name} is true or false`, EXIT.usage);
        parsed = value === "true";
      } else if (name === "activeProvider" || name === "skillsmpApiKey") {
        parsed = name === "skillsmpApiKey" && value === "none" ? null : value;
      } else {
        throw new CliError(
          `Unknown setting "${name}" (skillsEnabled, customSkillExecution, activeProvider, skillsmpApiKey)`,
          EXIT.usage,
        );
      }
      const res = await ctx.client.put<ApiAnswer<"/api/settings", "put">>("/api/settings", {
        [name]: parsed,
      });
      if (ctx.json) return printJson(res);
      print(fields(res.settings));
    });
}
