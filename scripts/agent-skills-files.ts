/**
 * The files `npm run agent-skills` writes: `skills/<name>/SKILL.md` for every entry of the Agent
 * Skills catalog (docs/agent-skills.md), generated from the OpenAPI document of an app built with
 * the product's defaults (an in-memory database; nothing is read from it).
 */
import { createClient } from "@libsql/client";
import { createApp } from "../workers/src/app.js";
import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import { parseConfig } from "../workers/src/config.js";
import { createDb } from "../workers/src/db/client.js";

/** Folder of the catalog, relative to the repository root. */
export const AGENT_SKILLS_DIR = "skills";

/**
 * The generated files: path relative to the repository root → text.
 * @returns one `skills/<name>/SKILL.md` per entry, in catalog order.
 */
export function agentSkillFiles(): Map<string, string> {
  const client = createClient({ url: ":memory:" });
  try {
    const { agentSkills } = createApp({
      db: createDb(client),
      cache: new MemoryCache(),
      config: parseConfig({}),
    });
    return new Map(
      agentSkills.all().map((e) => [`${AGENT_SKILLS_DIR}/${e.name}/SKILL.md`, e.markdown]),
    );
  } finally {
    client.close();
  }
}
