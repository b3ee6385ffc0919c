/**
 * Example: a team's own Skillgate Worker with an in-process handler (docs/library.md). Deploy it
 * with a `wrangler.toml` like the repository's, whose `main` points at this file.
 */
import { createSkillgateWorker, ExecutionFailure, type SkillHandler } from "skillgate/worker";

/** The per-key limiter's Durable Object class, bound as `KEY_LIMITER` in `wrangler.toml`. */
export { KeyLimiter } from "skillgate/worker";

/** Reverses `input.text`. */
const reverseText: SkillHandler = async (input) => {
  const text = (input as { text?: unknown } | null)?.text;
  if (typeof text !== "string")
    throw new ExecutionFailure("text must be a string", { code: "invalid_input" });
  return { text: [...text].reverse().join("") };
};

export default createSkillgateWorker({ handlers: { "reverse-text": reverseText } });
