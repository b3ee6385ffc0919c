/**
 * The MCP management tools (docs/mcp.md#management-tools), named `<prefix>skills_list`,
 * `<prefix>skills_enable`, `<prefix>skills_execute` and `<prefix>skills_executions` with the
 * configured prefix (`MCP_TOOL_PREFIX`, default `skillgate_`). Each validates its arguments with
 * zod (the same schema gives the tool's `inputSchema`) and calls the services; the caller's scope
 * is the REST API's (docs/api.md#acting-for-a-key): an API key lists, toggles, runs and reads only
 * what it owns or can see; the management token sees everything and may act for a key. Each tool
 * names the key scope it needs (docs/api.md#scopes), as the REST route doing the same does:
 * listing skills and reading executions `read`, executing `execute`, enabling or disabling
 * `skills:write` (editing a skill).
 */
import { z } from "zod";
import { actingKey, type Principal } from "../auth/principal.js";
import type { Scope } from "../auth/scopes.js";
import { ForbiddenError, NotFoundError } from "../errors.js";
import type { FrontDoorServices } from "../services/index.js";
import type { Skill } from "../skills/types.js";

/** What a tool runs with. */
export interface ToolContext {
  services: FrontDoorServices;
  principal: Principal;
}

/** A tool whose arguments are a zod object. */
export interface ManagementTool {
  /** Name without the prefix. */
  name: string;
  title: string;
  description: string;
  args: z.ZodObject;
  /** MCP annotation `readOnlyHint`. */
  readOnly: boolean;
  /**
   * The key scope a call needs (docs/api.md#scopes); an API key without it is refused with
   * `missing_scope` and does not see the tool in `tools/list`. Undefined: any authenticated caller.
   */
  scope?: Scope;
  /** Runs the tool with validated arguments. @throws AppError for failures (rendered as isError). */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>>;
}

const ApiKeyId = z
  .string()
  .min(1)
  .max(200)
  .describe("management token only: act for (or filter by) this API key id");

const ListArgs = z
  .object({
    apiKeyId: ApiKeyId.optional().describe(
      "only skills owned by this API key (an API key may name only itself)",
    ),
    name: z.string().max(200).optional().describe("case-insensitive substring of the skill name"),
    enabled: z.boolean().optional().describe("only enabled (true) or disabled (false) skills"),
    page: z.number().int().min(1).default(1).describe("page number, from 1"),
    limit: z.number().int().min(1).max(200).default(50).describe("page size (at most 200)"),
  })
  .strict();

const EnableArgs = z
  .object({
    skillId: z.string().min(1).max(200).describe("the skill's id (from the list tool)"),
    enabled: z.boolean().describe("true enables (mode on when it was off), false sets mode off"),
  })
  .strict();

const ExecuteArgs = z
  .object({
    skillName: z
      .string()
      .min(1)
      .max(300)
      .describe("name, name@version or name@<constraint> (e.g. reverse-text@^1.0.0)"),
    input: z.record(z.string(), z.unknown()).default({}).describe("the skill's input"),
    sessionId: z.string().min(1).max(200).optional().describe("conversation id to record"),
    apiKeyId: ApiKeyId.optional(),
  })
  .strict();

const ExecutionsArgs = z
  .object({
    limit: z.number().int().min(1).max(100).default(50).describe("how many (at most 100)"),
    status: z.enum(["pending", "running", "success", "error", "timeout"]).optional(),
    skill: z.string().max(300).optional().describe("name or name@version"),
    sessionId: z.string().max(200).optional(),
    apiKeyId: ApiKeyId.optional(),
  })
  .strict();

/** What the execute tool tells the model about an execution that awaits approval. */
function pendingMessage(id: string): string {
  return `Execution ${id} awaits approval (policy floor of its handler): an operator or the owning key approves it with POST /api/skills/executions/${id}/approve, then it runs.`;
}

/** A key sees global skills and its own; management sees all. */
function visibleTo(principal: Principal, skill: Skill): boolean {
  return (
    principal.kind === "management" ||
    skill.apiKeyId === null ||
    skill.apiKeyId === principal.apiKeyId
  );
}

/** The four management tools (see the module docs). */
export const MANAGEMENT_TOOLS: readonly ManagementTool[] = [
  {
    name: "skills_list",
    title: "List skills",
    description:
      "Lists the registered skills you can see (global ones and your key's own), name ascending, highest version first. Filters: name substring, enabled, owner key (management). Paginated: page, limit.",
    args: ListArgs,
    readOnly: true,
    scope: "read",
    async run(raw, { services, principal }) {
      const args = ListArgs.parse(raw);
      const page = await services.skills.list({
        name: args.name,
        enabled: args.enabled,
        visibleTo: principal.kind === "key" ? principal.apiKeyId : undefined,
        owner: args.apiKeyId === undefined ? undefined : actingKey(principal, args.apiKeyId),
        page: args.page,
        limit: args.limit,
      });
      return { ...page };
    },
  },
  {
    name: "skills_enable",
    title: "Enable or disable a skill",
    description:
      "Enables or disables a skill by id. Disabling sets mode off: the skill is then never injected and cannot run. An API key may toggle only the skills it owns; global skills need the management token.",
    args: EnableArgs,
    readOnly: false,
    scope: "skills:write",
    async run(raw, { services, principal }) {
      const args = EnableArgs.parse(raw);
      const current = await services.skills.byId(args.skillId);
      if (!current || !visibleTo(principal, current))
        throw new NotFoundError(`Skill ${args.skillId} not found`, "skill_not_found");
      if (principal.kind === "key" && current.apiKeyId !== principal.apiKeyId)
        throw new ForbiddenError(
          "Only the management token may enable or disable a global skill",
          "management_required",
        );
      const skill = await services.skills.update(args.skillId, { enabled: args.enabled });
      return { skill };
    },
  },
  {
    name: "skills_execute",
    title: "Execute a skill",
    description:
      "Runs a registered skill now as an explicit execution and returns the finished execution: status success, error (with errorMessage and the program's output) or timeout. The skill's stored executor policy does not apply, but the policy floors do, as for every model's call: a skill whose handler runs shell commands (execute_command) is refused, and one whose handler runs code (eval_code) is recorded as pending until an operator approves it.",
    args: ExecuteArgs,
    readOnly: false,
    scope: "execute",
    async run(raw, { services, principal }) {
      const args = ExecuteArgs.parse(raw);
      const apiKeyId = actingKey(principal, args.apiKeyId);
      // The MCP door hands the model view of the executions service: the floors apply there.
      const execution = await services.executions.run(args.skillName, args.input, {
        apiKeyId,
        sessionId: args.sessionId ?? null,
      });
      if (execution.status === "pending" && execution.approval === "required")
        return { execution, message: pendingMessage(execution.id) };
      return { execution };
    },
  },
  {
    name: "skills_executions",
    title: "Recent executions",
    description:
      "Execution history, newest first: your key's own executions (management: all, or one key's with apiKeyId). Success rows carry durationMs and output, failures errorMessage and errorCode. limit defaults to 50, at most 100.",
    args: ExecutionsArgs,
    readOnly: true,
    scope: "read",
    async run(raw, { services, principal }) {
      const args = ExecutionsArgs.parse(raw);
      const apiKeyId =
        principal.kind === "key" ? actingKey(principal, args.apiKeyId) : args.apiKeyId;
      const page = await services.executions.list({
        apiKeyId,
        status: args.status,
        skill: args.skill,
        sessionId: args.sessionId,
        page: 1,
        limit: args.limit,
      });
      return { ...page };
    },
  },
];
