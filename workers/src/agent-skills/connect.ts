/**
 * The `config` entry of the Agent Skills catalog (docs/agent-skills.md): how a client connects to
 * a Skillgate deployment over REST, MCP (docs/mcp.md) and A2A (docs/a2a.md). Fixed text: the
 * paths it names are the app's own (`/mcp`, `/a2a`, `/.well-known/agent-card.json`).
 */

/** Description of the entry (Agent Skills: what it does and when to use it). */
export const CONNECT_DESCRIPTION =
  "Connect an agent, an MCP client (Cursor, Claude Desktop, Claude Code, VS Code) or an A2A client to a Skillgate deployment: base URL, bearer authentication with an API key or the management token, the MCP endpoint and its tools, and the A2A agent card. Use it when setting up a client to reach Skillgate.";

/** Markdown body of the entry. */
export const CONNECT_BODY = `# Skillgate: connect a client

Skillgate serves three doors from one base URL (\`SKILLGATE_URL\`, e.g. \`http://127.0.0.1:20128\`
for \`npm start\`). Every call carries \`Authorization: Bearer <token>\`: an API key (created by an
operator with \`POST /api/keys\`) acts in its own scope — global skills and its own, its own
executions — and the management token acts on everything. A call without valid credentials gets
401 with \`WWW-Authenticate: Bearer\`.

## REST

The API is under \`/api\`; its OpenAPI document is at \`GET /openapi.json\` and the other entries of
this catalog describe each route group (\`GET /api/agent-skills\` lists them).

## MCP

Streamable HTTP at \`POST $SKILLGATE_URL/mcp\`, without sessions (every request stands alone; GET
answers 405). Clients that take a URL and headers:

\`\`\`json
{
  "mcpServers": {
    "skillgate": {
      "url": "http://127.0.0.1:20128/mcp",
      "headers": { "Authorization": "Bearer <API key>" }
    }
  }
}
\`\`\`

Claude Code: \`claude mcp add --transport http skillgate http://127.0.0.1:20128/mcp --header "Authorization: Bearer <API key>"\`.
Clients that only start local (stdio) servers reach it through a bridge such as \`mcp-remote\`
(\`npx mcp-remote http://127.0.0.1:20128/mcp --header "Authorization:\${AUTH}"\` with \`AUTH\` set to
\`Bearer <API key>\`).

Tools: \`skillgate_skills_list\`, \`skillgate_skills_enable\`, \`skillgate_skills_execute\`,
\`skillgate_skills_executions\`, \`skillgate_agent_skills_list\`, \`skillgate_agent_skills_get\` (the
prefix is the deployment's \`MCP_TOOL_PREFIX\`, \`skillgate_\` by default), and one tool per skill the
key can call, named as Skillgate injects it (\`reverse-text_v1_0_0\`, builtins by their own names).
A skill tool runs with the skill's executor policy: \`manual\` skills answer that an explicit
execution is needed (use \`skillgate_skills_execute\`), \`hybrid\` skills answer with the id of an
execution awaiting approval. Failures are tool results with \`isError: true\`.

## A2A

The agent card is at \`GET $SKILLGATE_URL/.well-known/agent-card.json\`; JSON-RPC requests go to
\`POST $SKILLGATE_URL/a2a\` with the bearer header (methods \`SendMessage\`, \`GetTask\`,
\`CancelTask\`, and the v0.3 names \`message/send\`, \`tasks/get\`, \`tasks/cancel\`). Skills:
\`list-capabilities\` (what this deployment offers the caller), \`memory_aware_routing\` (a provider
and model recommendation from the caller's own history) and any skill registered in code. Name the
skill in the message metadata (\`{ "skill": "list-capabilities" }\`) or in a data part.
`;
