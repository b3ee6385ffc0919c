/**
 * Example: a team's own Skillgate on Node with an in-process handler (docs/library.md).
 *
 *   npx tsx examples/node-handlers/server.ts
 *
 * then install a skill that names the handler and run it:
 *
 *   curl -s $API/api/skills/install -H "$MGMT" -H "$JSON" -d '{"name":"reverse-text","version":"1.0.0",
 *     "schema":{"input":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
 *     "handlerCode":"reverse-text"}'
 *   curl -s $API/api/skills/executions -H "$MGMT" -H "$JSON" -d '{"skillName":"reverse-text","input":{"text":"abc"}}'
 */
import { ExecutionFailure, type SkillHandler, startSkillgate } from "skillgate/node";

/** Reverses `input.text`; fails with a clear error when it is missing. */
const reverseText: SkillHandler = async (input) => {
  const text = (input as { text?: unknown } | null)?.text;
  if (typeof text !== "string")
    throw new ExecutionFailure("text must be a string", { code: "invalid_input" });
  return { text: [...text].reverse().join("") };
};

const server = await startSkillgate({ handlers: { "reverse-text": reverseText } });
const stop = () => {
  server.close().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
