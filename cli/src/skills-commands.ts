/**
 * `skillgate skills …`, `skillgate exec` and `skillgate catalog …` (docs/cli.md).
 */
import type { Command } from "commander";
import semver from "semver";
import { type ApiAnswer, type ApiSchema, apiPath, CliError, EXIT } from "./client.js";
import { type Ctx, ctxOf, jsonArg, qs, readText } from "./context.js";
import { fields, print, printJson, table, withProgress } from "./output.js";

/** A skill as the API returns it (the `Skill` schema). */
type SkillView = ApiSchema<"Skill">;

/** An execution as the API returns it (the `Execution` schema). */
export type ExecutionView = ApiSchema<"Execution">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Resolves an id or `name[@version]` to one skill (the highest version when none is named).
 * @throws CliError (not found) when nothing matches.
 */
async function resolveSkill(ctx: Ctx, ref: string): Promise<SkillView> {
  if (UUID.test(ref))
    return (await ctx.client.get<ApiAnswer<"/api/skills/{id}", "get">>(apiPath`/api/skills/${ref}`))
      .skill;
  const [name, version] = ref.split("@");
  const page = await ctx.client.get<ApiAnswer<"/api/skills", "get">>(
    `/api/skills${qs({ q: name, limit: 200 })}`,
  );
  const matches = page.data
    .filter((s) => s.name === name && (!version || s.version === version))
    .sort((a, b) => semver.rcompare(a.version, b.version));
  if (!matches[0]) {
    throw new CliError(`No skill ${ref}. List them with: skillgate skills list`, EXIT.notFound);
  }
  return matches[0];
}

const SKILL_COLUMNS: [string, (s: SkillView) => unknown][] = [
  ["name", (s) => s.name],
  ["version", (s) => s.version],
  ["mode", (s) => s.mode],
  ["policy", (s) => s.policy],
  ["source", (s) => s.sourceProvider],
  ["owner", (s) => s.apiKeyId ?? "global"],
  ["id", (s) => s.id],
];

function showSkill(ctx: Ctx, skill: SkillView): void {
  if (ctx.json) {
    printJson({ skill });
    return;
  }
  print(
    fields({
      id: skill.id,
      name: skill.name,
      version: skill.version,
      description: skill.description,
      mode: skill.mode,
      policy: skill.policy,
      handler: skill.handlerCode,
      source: skill.sourceProvider,
      owner: skill.apiKeyId ?? "global",
      tags: skill.tags.join(", ") || "-",
      timeout: skill.timeoutMs === null ? "default" : `${skill.timeoutMs} ms`,
    }),
  );
}

/** Prints an execution; returns the exit code its status implies. */
export function showExecution(ctx: Ctx, e: ExecutionView): number {
  if (ctx.json) printJson({ execution: e });
  else {
    print(
      fields({
        id: e.id,
        skill: `${e.skillName}@${e.version}`,
        status: e.status,
        approval: e.approval,
        duration: e.durationMs === null ? "-" : `${e.durationMs} ms`,
        attempts: e.attempts,
        key: e.apiKeyId ?? "management",
        session: e.sessionId,
        created: e.createdAt,
        error: e.errorCode ? `${e.errorCode}: ${e.errorMessage ?? ""}` : "-",
      }),
    );
    print(
      `input${e.inputTruncated ? " (truncated)" : ""}:\n${JSON.stringify(e.input ?? null, null, 2)}`,
    );
    print(
      `output${e.outputTruncated ? " (truncated)" : ""}:\n${JSON.stringify(e.output ?? null, null, 2)}`,
    );
  }
  return e.status === "error" || e.status === "timeout" ? EXIT.executionFailed : EXIT.ok;
}

/**
 * What `skills install <file>` sends: a SKILL.md file goes to `POST /api/skills/skill-md/install`
 * as text (the API validates it; docs/cli.md#commands), anything else must be a JSON install body
 * for `POST /api/skills/install`.
 */
function installRequest(file: string): { path: string; body: Record<string, unknown> } {
  const content = readText(file);
  if (file.toLowerCase().endsWith(".md") || content.trimStart().startsWith("---")) {
    return { path: "/api/skills/skill-md/install", body: { content } };
  }
  const body = jsonArg(`@${file}`, file);
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new CliError(`${file} must hold a JSON object (the install body)`, EXIT.usage);
  }
  return { path: "/api/skills/install", body: body as Record<string, unknown> };
}

/** Registers `skills`, `exec` and `catalog`. */
export function registerSkillCommands(program: Command): void {
  const skills = program.command("skills").description("list, inspect, install and manage skills");

  skills
    .command("list")
    .description("list skills (management)")
    .option("-q, --query <text>", "search names, descriptions and tags")
    .option("--mode <mode>", "on | auto | off")
    .option("--source <source>", "builtin | local | skillsmp | skillssh")
    .option("--api-key-id <id>", "only skills owned by this key")
    .option("--page <n>", "page number", "1")
    .option("--limit <n>", "rows per page (max 200)", "50")
    .action(async (o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const page = await ctx.client.get<ApiAnswer<"/api/skills", "get">>(
        `/api/skills${qs({ q: o.query, mode: o.mode, source: o.source, apiKeyId: o.apiKeyId, page: o.page, limit: o.limit })}`,
      );
      if (ctx.json) return printJson(page);
      print(table(page.data, SKILL_COLUMNS, "No skills match."));
      print(`page ${page.page} of ${Math.max(page.totalPages, 1)} · ${page.total} total`);
    });

  skills
    .command("show <skill>")
    .description("show a skill by id or name[@version]")
    .action(async (ref: string, _o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      showSkill(ctx, await resolveSkill(ctx, ref));
    });

  skills
    .command("install <file>")
    .description("install a skill from a JSON install body or a SKILL.md file")
    .option("--mode <mode>", "on | auto | off")
    .option("--policy <policy>", "auto | hybrid | manual")
    .option("--api-key-id <id>", "owner key (default: global)")
    .action(async (file: string, o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const { path, body } = installRequest(file);
      if (o.mode) body.mode = o.mode;
      if (o.policy) body.policy = o.policy;
      if (o.apiKeyId) body.apiKeyId = o.apiKeyId;
      const { skill } = await withProgress(`Installing ${String(body.name ?? file)}`, () =>
        ctx.client.post<
          | ApiAnswer<"/api/skills/install", "post">
          | ApiAnswer<"/api/skills/skill-md/install", "post">
        >(path, body),
      );
      if (ctx.json) return printJson({ skill });
      print(`Installed ${skill.name}@${skill.version} (${skill.id})`);
    });

  const setMode = (name: string, describe: string, mode?: string) =>
    skills
      .command(mode ? `${name} <skill>` : `${name} <skill> <mode>`)
      .description(describe)
      .action(async (ref: string, ...rest: unknown[]) => {
        const command = rest[rest.length - 1] as Command;
        const target = mode ?? (rest[0] as string);
        if (!["on", "auto", "off"].includes(target)) {
          throw new CliError(`mode must be on, auto or off (got "${target}")`, EXIT.usage);
        }
        const ctx = ctxOf(command);
        const skill = await resolveSkill(ctx, ref);
        const updated = await ctx.client.put<ApiAnswer<"/api/skills/{id}", "put">>(
          apiPath`/api/skills/${skill.id}`,
          {
            mode: target,
          },
        );
        if (ctx.json) return printJson(updated);
        print(`${updated.skill.name}@${updated.skill.version}: mode ${updated.skill.mode}`);
      });
  setMode("enable", "turn a skill on (mode on)", "on");
  setMode("disable", "turn a skill off (mode off)", "off");
  setMode("mode", "set a skill's mode: on | auto | off");

  skills
    .command("delete <skill>")
    .description("delete a skill version and its history")
    .action(async (ref: string, _o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const skill = await resolveSkill(ctx, ref);
      await ctx.client.delete(apiPath`/api/skills/${skill.id}`);
      if (ctx.json) return printJson({ deleted: skill.id });
      print(`Deleted ${skill.name}@${skill.version}`);
    });

  program
    .command("exec <skill>")
    .description("run a skill now (name, name@version or name@<constraint>)")
    .option("-i, --input <json>", "input as JSON, or @file", "{}")
    .option("--session <id>", "session id recorded with the execution")
    .option("--api-key-id <id>", "management: run as this key")
    .action(async (skillName: string, o, cmd: Command) => {
      const ctx = ctxOf(cmd);
      const input = jsonArg(o.input, "--input");
      const { execution } = await withProgress(`Running ${skillName}`, () =>
        ctx.client.post<ApiAnswer<"/api/skills/executions", "post">>("/api/skills/executions", {
          skillName,
          input,
          ...(o.session ? { sessionId: o.session } : {}),
          ...(o.apiKeyId ? { apiKeyId: o.apiKeyId } : {}),
        }),
      );
      process.exitCode = showExecution(ctx, execution);
    });
}
