/**
 * The route groups of the Agent Skills catalog (docs/agent-skills.md): one entry per group of
 * REST routes, each with a name that follows the Agent Skills rules (lowercase letters, digits and
 * single hyphens, at most 64), a description saying what it does and when to use it (at most 1024
 * characters), and the paths it covers. A route no group claims gets an entry of its own named
 * after its first path segments, so a new route always appears in the catalog.
 */

/** Entry categories: the REST API, the command line, configuration. */
export type AgentSkillCategory = "api" | "cli" | "config";

/** One route group. */
export interface RouteGroup {
  name: string;
  title: string;
  description: string;
  /** True when the path (as in the OpenAPI document) belongs to the group. */
  matches(path: string): boolean;
}

const under =
  (...prefixes: string[]) =>
  (path: string) =>
    prefixes.some((p) => path === p || path.startsWith(`${p}/`));

/** The groups, in catalog order; the first that matches a path claims it. */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  {
    name: "skillgate-skill-executions",
    title: "Skillgate: run skills and read executions",
    description:
      "Run a registered Skillgate skill now (by name, name@version or name@constraint), read the execution history with filters, and approve or reject executions of hybrid skills that wait for approval. Use it to execute a skill explicitly or to audit what ran, with status, output, errors and durations.",
    matches: under("/api/skills/executions"),
  },
  {
    name: "skillgate-tool-injection",
    title: "Skillgate: inject skills as tools and run the returned tool calls",
    description:
      "Add the right Skillgate skills as tools to an OpenAI Chat, OpenAI Responses, Anthropic Messages or Gemini request before sending it upstream, then hand the provider's response back so that the tool calls Skillgate owns run and come back as provider-native follow-up messages. Use it when building a gateway or agent loop around an LLM provider.",
    matches: under("/api/skills/inject", "/api/skills/intercept"),
  },
  {
    name: "skillgate-skill-catalogs",
    title: "Skillgate: search and install catalog skills",
    description:
      "Search the SkillsMP marketplace and the skills.sh community catalog, and install a SKILL.md skill from the active catalog into the Skillgate registry (owned by the calling key). Use it to find and add instruction skills written by others.",
    matches: under("/api/skills/marketplace", "/api/skills/skillssh"),
  },
  {
    name: "skillgate-skill-registry",
    title: "Skillgate: manage the skill registry",
    description:
      "List, read, install, edit (enabled, mode, policy, tags, timeout, schema) and delete skills in the Skillgate registry, rotate the signing secret of an HTTP-handler skill, and drop its cache after editing the database by hand. Use it to register custom skills backed by a named handler, a signed HTTP endpoint or a sandboxed program, and to control when they are injected and who may trigger them.",
    matches: under("/api/skills"),
  },
  {
    name: "skillgate-mcp-servers",
    title: "Skillgate: import remote MCP servers as skills",
    description:
      "Import the tools of a remote MCP server (Streamable HTTP) as Skillgate skills named <server>__<tool>, list the imported servers, refresh one to add, update and remove its skills, and delete one with its skills (management token required). Use it to make an existing MCP server's tools available to every provider format Skillgate injects into.",
    matches: under("/api/mcp-servers"),
  },
  {
    name: "skillgate-api-keys",
    title: "Skillgate: API keys",
    description:
      "Create, list and revoke the API keys clients use to call Skillgate (management token required). Each key sees global skills and its own, and only its own executions. Use it to onboard a gateway, an agent or an MCP client.",
    matches: under("/api/keys"),
  },
  {
    name: "skillgate-settings",
    title: "Skillgate: settings and health",
    description:
      "Read and change Skillgate's settings (the skillsEnabled master switch, the customSkillExecution switch, the active catalog provider, the SkillsMP key) and check its health (details such as registered handlers with the management token). Use it to switch execution off in an emergency or to verify a deployment.",
    matches: under("/api/settings", "/api/health"),
  },
  {
    name: "skillgate-routing",
    title: "Skillgate: upstream call history and routing recommendations",
    description:
      "Report the outcome of upstream LLM calls (provider, model, success or error class, latency, task) and get a provider/model recommendation for a task from your own history, with the success rates and latency percentiles it used. Use it to pick the upstream that has worked best for a kind of task.",
    matches: under("/api/routing"),
  },
  {
    name: "skillgate-agent-skills",
    title: "Skillgate: the Agent Skills catalog of its own API",
    description:
      "List and read the SKILL.md entries that explain Skillgate's own REST API to agents, generated from its OpenAPI document. Use it to discover which Skillgate endpoints exist and how to call them.",
    matches: under("/api/agent-skills"),
  },
];

/** The group a path belongs to: a listed one, or one named after the path's first segments. */
export function groupOf(path: string): RouteGroup {
  const listed = ROUTE_GROUPS.find((g) => g.matches(path));
  if (listed) return listed;
  const segments = path
    .split("/")
    .filter((s) => s && !s.startsWith("{"))
    .slice(0, 2)
    .map((s) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, ""),
    )
    .filter(Boolean);
  const name = `skillgate-${segments.join("-") || "root"}`.slice(0, 64).replace(/-+$/, "");
  return {
    name,
    title: `Skillgate: ${path.split("/").filter(Boolean).slice(0, 2).join("/")}`,
    description: `Skillgate REST endpoints under ${path.split("/").slice(0, 3).join("/")}.`,
    matches: (p) => p === path,
  };
}
