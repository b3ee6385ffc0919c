/**
 * MCP tools over the Agent Skills catalog (docs/agent-skills.md): `<prefix>agent_skills_list`
 * (summaries, optionally of one category, paginated) and `<prefix>agent_skills_get` (one entry
 * with its whole SKILL.md; the text content of the result is the SKILL.md itself).
 */
import { z } from "zod";
import type { AgentSkillsCatalog } from "../agent-skills/catalog.js";
import { NotFoundError } from "../errors.js";
import { pageOf } from "../services/page.js";
import type { ManagementTool } from "./management-tools.js";

const ListArgs = z
  .object({
    category: z.enum(["api", "cli", "config"]).optional().describe("only entries of this category"),
    page: z.number().int().min(1).default(1).describe("page number, from 1"),
    limit: z.number().int().min(1).max(200).default(50).describe("page size (at most 200)"),
  })
  .strict();

const GetArgs = z
  .object({ name: z.string().min(1).max(64).describe("entry name, e.g. skillgate-connect") })
  .strict();

/** The two catalog tools over `catalog`. */
export function agentSkillsTools(catalog: AgentSkillsCatalog): ManagementTool[] {
  return [
    {
      name: "agent_skills_list",
      title: "List Skillgate's Agent Skills",
      description:
        "Lists the SKILL.md entries that explain Skillgate's own REST API and how to connect to it (name, description, category api | cli | config). Read one with the agent_skills_get tool.",
      args: ListArgs,
      readOnly: true,
      scope: "read",
      async run(raw) {
        const args = ListArgs.parse(raw);
        const all = catalog.list(args.category);
        const start = (args.page - 1) * args.limit;
        return {
          ...pageOf(all.slice(start, start + args.limit), all.length, args.page, args.limit),
        };
      },
    },
    {
      name: "agent_skills_get",
      title: "Read one of Skillgate's Agent Skills",
      description:
        "Returns one SKILL.md entry of Skillgate's Agent Skills catalog: endpoints, parameters, examples and error codes of a route group, or how to connect a client.",
      args: GetArgs,
      readOnly: true,
      scope: "read",
      async run(raw) {
        const { name } = GetArgs.parse(raw);
        const entry = catalog.get(name);
        if (!entry)
          throw new NotFoundError(`Agent skill ${name} not found`, "agent_skill_not_found");
        return { ...entry };
      },
    },
  ];
}
