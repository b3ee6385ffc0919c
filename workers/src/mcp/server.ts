/**
 * The MCP server of one request (docs/mcp.md): built for the authenticated caller with the official
 * SDK (the low-level `Server` of `@modelcontextprotocol/sdk`: its `McpServer` wrapper would declare
 * `tools.listChanged: true`, which a stateless server cannot honour), answering `tools/list` and
 * `tools/call`.
 *
 * Tools, in `tools/list` order:
 * 1. the management tools (`<prefix>skills_list`, ...; management-tools.ts) and any extra tools
 *    the app adds (the Agent Skills catalog tools);
 * 2. the caller's skills (skills/interception/caller-tools.ts, via the tools service), named and described as injection emits them,
 *    with the portable input schema. A call runs with interception's executor policies
 *    (skills/interception/model-call.ts): `manual` → an error result saying an explicit execution is needed,
 *    `hybrid` → a pending-approval result with the execution id.
 * 3. `skill_search` (docs/mcp.md#skill-search), before the skill tools, when the
 *    `SKILLS_SEARCH_TOOL` setting offers it: its result names skill tools of this list.
 * Key scopes (docs/api.md#scopes): a management tool needs the scope it names, a skill tool
 * `execute`. An API key lacking it gets an error result `missing_scope` (nothing runs) and does not
 * see the tool in `tools/list`; the management token holds every scope.
 * The list is read from the registry snapshot of the request, so it follows registry changes
 * without a restart; it is paginated with an opaque cursor ({@link TOOLS_PAGE_SIZE} a page).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";
import { hasScope, missingScope, requireScope } from "../auth/scopes.js";
import { AppError, InvalidInputError } from "../errors.js";
import {
  MCP_LINK,
  SKILL_SEARCH_AUTO_ABOVE,
  SKILL_SEARCH_LISTING,
  type ToolsService,
} from "../services/tools.js";
import { logPrefix } from "../telemetry/request-context.js";
import type { ManagementTool, ToolContext } from "./management-tools.js";
import { errorResult, okResult, skillCallResult } from "./results.js";

/** Server name and version in the `initialize` answer. */
export const MCP_SERVER_INFO = { name: "skillgate", title: "Skillgate", version: "0.1.0" };

/** Tools per `tools/list` page. */
export const TOOLS_PAGE_SIZE = 500;

/** Instructions in the `initialize` and `server/discover` answers. */
export const MCP_INSTRUCTIONS =
  "Skillgate exposes its skill registry. The tools named after skills run those skills with " +
  "their executor policies (a manual skill needs an explicit execution, a hybrid one waits for " +
  "approval). The management tools list, enable and explicitly execute skills and read the " +
  "execution history; the Agent Skills tools describe Skillgate's own REST API.";

/**
 * A `tools/call` request as far as the method: the params are validated by the SDK's server
 * (`Server.setRequestHandler` checks `CallToolRequestSchema` and throws -32602 Invalid params).
 */
const ToolsCallEnvelope = z.looseObject({ method: z.literal("tools/call") });

/** Options of {@link createMcpServer}. */
export interface McpServerOptions extends ToolContext {
  /** Prefix of the management tool names (`MCP_TOOL_PREFIX`). */
  toolPrefix: string;
  /** Management tools and the app's extra tools, names without the prefix. */
  tools: readonly ManagementTool[];
}

const described = new WeakMap<ManagementTool, Map<string, Tool>>();

/** The `tools/list` entry of a management tool (memoised per tool and prefix). */
function toolOf(prefix: string, t: ManagementTool): Tool {
  let perPrefix = described.get(t);
  if (!perPrefix) {
    perPrefix = new Map();
    described.set(t, perPrefix);
  }
  const hit = perPrefix.get(prefix);
  if (hit) return hit;
  const tool = describeTool(prefix, t);
  perPrefix.set(prefix, tool);
  return tool;
}

function describeTool(prefix: string, t: ManagementTool): Tool {
  const schema = z.toJSONSchema(t.args, { io: "input" }) as Record<string, unknown>;
  const { $schema: _drop, ...inputSchema } = schema;
  return {
    name: `${prefix}${t.name}`,
    title: t.title,
    description: t.description,
    inputSchema: { ...inputSchema, type: "object" },
    annotations: { title: t.title, readOnlyHint: t.readOnly, openWorldHint: false },
  };
}

/**
 * Runs a management tool after checking the caller's scope, turning scope, validation and service
 * errors into error results.
 */
async function runManagementTool(
  tool: ManagementTool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  try {
    if (tool.scope) requireScope(ctx.principal, tool.scope);
    return okResult(await tool.run(args, ctx));
  } catch (err) {
    if (err instanceof z.ZodError) {
      const details = err.issues.map((i) => ({
        field: i.path.length ? i.path.join(".") : "arguments",
        message: i.message,
      }));
      return errorResult(
        new InvalidInputError(
          `Invalid arguments: ${details.map((d) => `${d.field} (${d.message})`).join(", ")}`,
          details,
        ),
      );
    }
    if (!(err instanceof AppError))
      console.error(`${logPrefix()}MCP tool ${tool.name} failed:`, err);
    return errorResult(err);
  }
}

/**
 * A JSON-RPC error raised by a handler: the SDK sends `code` and `message` as they are. (The SDK's
 * `McpError` puts "MCP error <code>: " in front of its message, and the client's `McpError` adds
 * the same prefix again when it reads the answer.)
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** The name of the `skill_search` tool. */
const SKILL_SEARCH_TOOL = SKILL_SEARCH_LISTING.name;

/** The `tools/list` entry of `skill_search`. */
const SKILL_SEARCH_LISTED: Tool = {
  name: SKILL_SEARCH_TOOL,
  title: "Search skills",
  description: SKILL_SEARCH_LISTING.description,
  inputSchema: { ...SKILL_SEARCH_LISTING.inputSchema, type: "object" } as Tool["inputSchema"],
  annotations: { title: "Search skills", readOnlyHint: true, openWorldHint: false },
};

/** Skill tools above which `auto` lists `skill_search`: one request's AUTO places. */
const SEARCH_AUTO_ABOVE = SKILL_SEARCH_AUTO_ABOVE;

/**
 * True when `skill_search` is listed for a caller with `count` skill tools: setting `on`, or
 * `auto` with more than {@link SEARCH_AUTO_ABOVE}; never with `off`.
 */
function listsSearch(tools: ToolsService, count: number): boolean {
  const mode = tools.skillSearch.searchMode;
  return mode === "on" || (mode === "auto" && count > SEARCH_AUTO_ABOVE);
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const n = /^\d{1,9}$/.test(cursor) ? Number(cursor) : Number.NaN;
  if (!Number.isInteger(n)) throw new ProtocolError(ErrorCode.InvalidParams, "Invalid cursor");
  return n;
}

/**
 * Builds the server for one request and caller. Connect it to a transport, handle the request,
 * then close it (the server is stateless: nothing outlives the request).
 */
export function createMcpServer(opts: McpServerOptions): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: MCP_INSTRUCTIONS,
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  const { services, principal, toolPrefix } = opts;
  const apiKeyId = principal.kind === "key" ? principal.apiKeyId : null;
  const byName = new Map(opts.tools.map((t) => [`${toolPrefix}${t.name}`, t]));
  const fixedTools = opts.tools
    .filter((t) => !t.scope || hasScope(principal, t.scope))
    .map((t) => toolOf(toolPrefix, t));
  const mayRunSkills = hasScope(principal, "execute");

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = parseCursor(request.params?.cursor);
    const skillTools = mayRunSkills
      ? (await services.tools.callerTools(apiKeyId)).list.filter((t) => !byName.has(t.name))
      : [];
    const search = mayRunSkills && listsSearch(services.tools, skillTools.length);
    const listed = search
      ? [...fixedTools, SKILL_SEARCH_LISTED].filter(
          (t, i, all) => all.findIndex((u) => u.name === t.name) === i,
        )
      : fixedTools;
    const skillList = search ? skillTools.filter((t) => t.name !== SKILL_SEARCH_TOOL) : skillTools;
    const total = listed.length + skillList.length;
    const tools: Tool[] = [];
    for (let i = start; i < Math.min(total, start + TOOLS_PAGE_SIZE); i++) {
      if (i < listed.length) {
        tools.push(listed[i]!);
        continue;
      }
      const t = skillList[i - listed.length]!;
      tools.push({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { title: `${t.skill.name} ${t.skill.version}` },
        _meta: {
          "skillgate/skill": `${t.skill.name}@${t.skill.version}`,
          "skillgate/policy": t.skill.policy,
        },
      });
    }
    const next = start + TOOLS_PAGE_SIZE;
    return next < total ? { tools, nextCursor: String(next) } : { tools };
  });

  // Registered with a schema that checks the method only: the SDK's server then validates the
  // params itself and answers a malformed call (`name: {}`) with -32602 Invalid params, where a
  // strict schema here would fail before it and answer -32603 Internal error.
  server.setRequestHandler(ToolsCallEnvelope, async (raw) => {
    const request = CallToolRequestSchema.parse(raw);
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const managed = byName.get(name);
    if (managed) return runManagementTool(managed, args, opts);
    // Checked before the name is resolved, so a key without `execute` learns nothing of the skills.
    if (!mayRunSkills) return errorResult(missingScope("execute"));
    if (name === SKILL_SEARCH_TOOL && services.tools.skillSearch.searchMode !== "off") {
      const tools = await services.tools.callerTools(apiKeyId);
      if (listsSearch(services.tools, tools.list.length)) {
        const outcome = await services.tools.skillSearch.search(args, {
          apiKeyId,
          sessionId: null,
        });
        return skillCallResult(SKILL_SEARCH_TOOL, outcome);
      }
    }
    const skill = await services.tools.resolveTool(apiKeyId, name);
    if (!skill) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    // Learning from traffic: a call of a skill the key's latest search (or the selection named
    // in `_meta`) offered teaches selection; it runs beside the call, never delaying it.
    const selectionId = request.params._meta?.["skillgate/selectionId"];
    const linkIds = typeof selectionId === "string" ? [selectionId, MCP_LINK] : [MCP_LINK];
    const [outcome] = await Promise.all([
      services.tools.callAsModel(skill, args, { apiKeyId, sessionId: null }),
      services.tools.feedback.learnFromLinkedCall(apiKeyId, skill, linkIds),
    ]);
    return skillCallResult(`${skill.name}@${skill.version}`, outcome);
  });

  return server;
}
