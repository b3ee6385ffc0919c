/**
 * `npm run agent-skills`: writes the Agent Skills catalog of Skillgate's own API to `skills/`
 * (docs/agent-skills.md), one folder per entry with its SKILL.md, and removes folders of entries
 * that no longer exist. Run it after changing a route; a test fails while the files differ.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENT_SKILLS_DIR, agentSkillFiles } from "./agent-skills-files.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const files = agentSkillFiles();
const keep = new Set([...files.keys()].map((p) => p.split("/")[1]));
const dir = join(root, AGENT_SKILLS_DIR);
mkdirSync(dir, { recursive: true });
for (const entry of readdirSync(dir, { withFileTypes: true })) {
  if (entry.isDirectory() && !keep.has(entry.name)) {
    rmSync(join(dir, entry.name), { recursive: true, force: true });
    console.log(`removed ${AGENT_SKILLS_DIR}/${entry.name}`);
  }
}
for (const [path, text] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
console.log(`wrote ${files.size} entries to ${AGENT_SKILLS_DIR}/`);
