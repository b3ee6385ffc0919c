/**
 * The Agent Skills catalog of Skillgate's own API (docs/agent-skills.md): SKILL.md entries
 * generated from the OpenAPI document the app serves, one per route group (groups.ts), plus one
 * `config` entry on connecting a client (REST, MCP, A2A). Served at `GET /api/agent-skills`, by
 * the MCP tools `<prefix>agent_skills_list` / `<prefix>agent_skills_get`, listed by the A2A agent,
 * and written to `skills/` by `npm run agent-skills`; a test fails when the files drift.
 *
 * Every entry is a valid SKILL.md under the Agent Skills rules (name 1–64 lowercase letters,
 * digits and single hyphens, matching its folder; description 1–1024 characters).
 */
import { stringify } from "yaml";
import { CONNECT_BODY, CONNECT_DESCRIPTION } from "./connect.js";
import { type AgentSkillCategory, groupOf, ROUTE_GROUPS } from "./groups.js";
import { type OpenApiDocument, type Operation, operationsOf } from "./openapi.js";
import { renderGroup } from "./render.js";

/** One catalog entry. */
export interface AgentSkill {
  name: string;
  description: string;
  category: AgentSkillCategory;
  /** The Markdown body after the frontmatter. */
  body: string;
  /** The whole SKILL.md: YAML frontmatter, a blank line, the body. */
  markdown: string;
}

/** An entry without its text, as lists show it. */
export type AgentSkillSummary = Pick<AgentSkill, "name" | "description" | "category">;

function skillMd(
  name: string,
  description: string,
  category: AgentSkillCategory,
  body: string,
  apiVersion: string,
): string {
  const frontmatter = stringify(
    {
      name,
      description,
      metadata: { category, source: "Skillgate OpenAPI document", "api-version": apiVersion },
    },
    { lineWidth: 0 },
  );
  return `---\n${frontmatter}---\n\n${body.trimEnd()}\n`;
}

/**
 * Builds the catalog from an OpenAPI document (pure: the same document gives the same text).
 * @returns entries in catalog order: the listed route groups, groups of unlisted routes by name,
 *   then the `config` entry.
 */
export function buildAgentSkills(doc: OpenApiDocument): AgentSkill[] {
  const apiVersion = doc.info?.version ?? "0.0.0";
  const byGroup = new Map<string, { title: string; description: string; ops: Operation[] }>();
  for (const op of operationsOf(doc)) {
    const group = groupOf(op.path);
    let entry = byGroup.get(group.name);
    if (!entry) {
      entry = { title: group.title, description: group.description, ops: [] };
      byGroup.set(group.name, entry);
    }
    entry.ops.push(op);
  }
  const listed = ROUTE_GROUPS.map((g) => g.name);
  const unlisted = [...byGroup.keys()].filter((n) => !listed.includes(n)).sort();
  const names = [...listed, ...unlisted];
  const out: AgentSkill[] = [];
  for (const name of names) {
    const group = byGroup.get(name);
    if (!group) continue;
    const body = renderGroup(doc, group.title, group.description, group.ops);
    out.push({
      name,
      description: group.description,
      category: "api",
      body,
      markdown: skillMd(name, group.description, "api", body, apiVersion),
    });
  }
  out.push({
    name: "skillgate-connect",
    description: CONNECT_DESCRIPTION,
    category: "config",
    body: CONNECT_BODY,
    markdown: skillMd("skillgate-connect", CONNECT_DESCRIPTION, "config", CONNECT_BODY, apiVersion),
  });
  return out;
}

/**
 * The catalog service: builds the entries once from the document `source` returns (on first use,
 * when every route is registered) and answers lists and reads.
 */
export class AgentSkillsCatalog {
  private entries: AgentSkill[] | null = null;

  /** @param source returns the app's OpenAPI document. */
  constructor(private readonly source: () => OpenApiDocument) {}

  /** Every entry, in catalog order. */
  all(): readonly AgentSkill[] {
    this.entries ??= buildAgentSkills(this.source());
    return this.entries;
  }

  /** Entries of one category (or all), as summaries. */
  list(category?: AgentSkillCategory): AgentSkillSummary[] {
    return this.all()
      .filter((e) => category === undefined || e.category === category)
      .map(({ name, description, category: c }) => ({ name, description, category: c }));
  }

  /** The entry called `name`, or undefined. */
  get(name: string): AgentSkill | undefined {
    return this.all().find((e) => e.name === name);
  }
}
