/**
 * The set-up MCP test files share on Node: a key of their own with one echo skill the MCP
 * endpoint lists for it (docs/mcp.md). Kept apart from `mcp.ts`, which also runs in workerd.
 */
import type { TestApp } from "./app.js";

/**
 * Creates the API key `keyName` on `app` and installs `skillName` for it: version 1.0.0, the
 * `echo-handler` builtin, one `text` string input. Output: the key (`key` is the bearer secret).
 * @throws Error when the key or the install is refused (an install answers 201).
 */
export async function keyWithEchoSkill(
  app: TestApp,
  keyName: string,
  skillName: string,
): Promise<{ key: string; id: string }> {
  const key = await app.api.createKey(keyName);
  const res = await app.api.post("/api/skills/install", {
    name: skillName,
    version: "1.0.0",
    description: "Echoes its input",
    handlerCode: "echo-handler",
    apiKeyId: key.id,
    schema: { input: { text: "string" } },
  });
  if (res.status !== 201)
    throw new Error(`installing ${skillName} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return key;
}
