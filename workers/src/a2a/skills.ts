/**
 * A2A skills (docs/a2a.md#messages-and-skills): the skills Skillgate's agent offers, dispatched by id. Two ship
 * with the product — `list-capabilities` (what this deployment offers the caller) and
 * `memory_aware_routing` (a provider/model recommendation from the caller's own upstream call
 * history) — and code embedding Skillgate adds its own with `registerA2ASkill`.
 */
import type { AgentSkillsCatalog } from "../agent-skills/catalog.js";
import type { Scope } from "../auth/scopes.js";
import { InvalidInputError } from "../errors.js";
import { WIRE_FORMATS } from "../formats/index.js";
import { DEFAULT_WINDOW_HOURS, MAX_WINDOW_HOURS } from "../routing/recommend.js";
import type { FrontDoorServices } from "../services/index.js";

/** What a skill receives from the caller's message. */
export interface A2ASkillInput {
  /** The text parts of the message, joined by blank lines. */
  text: string;
  /** The fields of the message's data parts (merged, first wins), without `skill`. */
  data: Record<string, unknown>;
}

/** Where a skill runs. */
export interface A2ASkillContext {
  services: FrontDoorServices;
  /** The calling key; null for the management token. */
  apiKeyId: string | null;
  taskId: string;
  contextId: string;
  /** Fires when the task is canceled; a skill should stop. */
  signal: AbortSignal;
}

/** A skill's answer: a text for people and structured data for programs. */
export interface A2ASkillResult {
  text: string;
  data?: Record<string, unknown>;
}

/** A skill as registered (its card fields and its handler). */
export interface A2ASkillDefinition {
  /** Id the caller names (1–64 of letters, digits, `_`, `-`). */
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  /** Media types; default `text/plain` and `application/json`. */
  inputModes?: string[];
  outputModes?: string[];
  /**
   * The key scope a caller needs to run the skill, beyond `read` which every A2A call needs
   * (docs/api.md#scopes). A key without it gets a rejected task saying which scope is missing.
   */
  scope?: Scope;
  /**
   * Runs the skill. Throw an AppError (e.g. InvalidInputError) for a clear failure message; the
   * task then ends as `failed` with that message.
   */
  run(input: A2ASkillInput, ctx: A2ASkillContext): Promise<A2ASkillResult>;
}

const SKILL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The skills of one app, in registration order. */
export class A2ASkillRegistry {
  private readonly skills = new Map<string, A2ASkillDefinition>();

  /**
   * Registers a skill (docs/a2a.md#custom-skills).
   * @throws InvalidInputError for an invalid id or an id already registered.
   */
  registerA2ASkill(skill: A2ASkillDefinition): void {
    if (!SKILL_ID.test(skill.id))
      throw new InvalidInputError(`A2A skill id must match ${SKILL_ID.source}: "${skill.id}"`);
    if (this.skills.has(skill.id))
      throw new InvalidInputError(`A2A skill "${skill.id}" is already registered`);
    this.skills.set(skill.id, skill);
  }

  /** The skill registered as `id`. */
  get(id: string): A2ASkillDefinition | undefined {
    return this.skills.get(id);
  }

  /** Every skill, in registration order. */
  list(): A2ASkillDefinition[] {
    return [...this.skills.values()];
  }
}

/** Options of the builtin skills. */
export interface BuiltinA2AOptions {
  agentSkills: AgentSkillsCatalog;
  toolPrefix: string;
  registry: A2ASkillRegistry;
}

/** `list-capabilities`: the caller's skills, the formats, the Agent Skills entries, the doors. */
export function listCapabilitiesSkill(opts: BuiltinA2AOptions): A2ASkillDefinition {
  return {
    id: "list-capabilities",
    name: "List capabilities",
    description:
      "Describes what this Skillgate deployment offers the caller: the skills it can call (tool names, versions, policies), the provider formats of injection and interception, the Agent Skills entries of its API, its MCP endpoint and tool prefix, and the A2A skills.",
    tags: ["skillgate", "capabilities", "discovery"],
    examples: ["What can this deployment do for me?"],
    async run(_input, ctx) {
      const tools = (await ctx.services.tools.callerTools(ctx.apiKeyId)).list;
      const skills = tools.map((t) => ({
        toolName: t.name,
        name: t.skill.name,
        version: t.skill.version,
        description: t.description,
        mode: t.skill.mode,
        policy: t.skill.policy,
        source: t.skill.sourceProvider,
      }));
      const data = {
        skills,
        formats: [...WIRE_FORMATS],
        agentSkills: opts.agentSkills.list(),
        mcp: { endpoint: "/mcp", toolPrefix: opts.toolPrefix },
        a2aSkills: opts.registry.list().map((s) => ({ id: s.id, description: s.description })),
      };
      const text = [
        `${skills.length} skills callable as tools: ${skills.map((s) => s.toolName).join(", ") || "none"}.`,
        `Formats: ${data.formats.join(", ")}.`,
        `Agent Skills entries: ${data.agentSkills.map((e) => e.name).join(", ")}.`,
        `MCP at /mcp (tool prefix ${opts.toolPrefix || "none"}); A2A skills: ${data.a2aSkills.map((s) => s.id).join(", ")}.`,
      ].join("\n");
      return { text, data };
    },
  };
}

/** `memory_aware_routing`: a recommendation from the caller's own history (routing/recommend.ts). */
export const memoryAwareRoutingSkill: A2ASkillDefinition = {
  id: "memory_aware_routing",
  name: "Memory-aware routing",
  description:
    "Recommends an upstream provider and model for a described task from the caller's own upstream call history (success rate, latency p50/p95 and error classes per provider/model over a recent window), with the numbers it used. With no history it says so instead of recommending.",
  tags: ["routing", "llm", "history"],
  examples: ['{"task": "summarise a long contract", "windowHours": 48}'],
  async run(input, ctx) {
    const task = typeof input.data.task === "string" ? input.data.task : input.text;
    const rawWindow = input.data.windowHours ?? DEFAULT_WINDOW_HOURS;
    if (
      typeof rawWindow !== "number" ||
      !Number.isFinite(rawWindow) ||
      rawWindow < 1 ||
      rawWindow > MAX_WINDOW_HOURS
    ) {
      throw new InvalidInputError(`windowHours must be a number from 1 to ${MAX_WINDOW_HOURS}`);
    }
    const result = await ctx.services.routing.recommend(ctx.apiKeyId, task, rawWindow);
    const text = result.recommendation
      ? `Use ${result.recommendation.provider}/${result.recommendation.model}: ${result.recommendation.reason}`
      : (result.reason ?? "No recommendation");
    return { text, data: { task, ...result } };
  },
};
