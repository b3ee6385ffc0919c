/**
 * Validation of execution input against a skill's input schema before the handler runs
 * (docs/execution.md#before-anything-is-written). Uses `@cfworker/json-schema`,
 * which runs in workerd (Ajv compiles with `new Function`, which Workers forbid).
 */
import { Validator } from "@cfworker/json-schema";
import { InvalidInputError } from "../../errors.js";
import type { Skill } from "../types.js";

const validators = new Map<string, Validator>();
const MAX_CACHED = 5_000;

function validatorFor(skill: Skill): Validator {
  const key = `${skill.id}:${skill.updatedAt}`;
  let v = validators.get(key);
  if (!v) {
    if (validators.size >= MAX_CACHED) validators.clear();
    v = new Validator(skill.schema.input as never, "2020-12", false);
    validators.set(key, v);
  }
  return v;
}

/**
 * Checks `input` against `skill.schema.input`.
 * @throws InvalidInputError `invalid_skill_input` with `details: [{ field, message }]` (field as a JSON pointer under `input`).
 */
export function validateSkillInput(skill: Skill, input: unknown): void {
  const result = validatorFor(skill).validate(input);
  if (result.valid) return;
  // The deepest errors are the useful ones; the validator lists the wrapping ones as well.
  const details = result.errors
    .filter(
      (e) =>
        !["properties", "allOf", "anyOf", "oneOf", "$ref"].includes(e.keyword) ||
        result.errors.length === 1,
    )
    .map((e) => ({ field: pointerToField(e.instanceLocation), message: e.error }));
  const first = details[0] ?? {
    field: "input",
    message: "does not match the skill's input schema",
  };
  throw new InvalidInputError(
    `Input for ${skill.name}@${skill.version} is invalid: ${first.field} ${first.message}`,
    details,
    "invalid_skill_input",
  );
}

/** `#/a/0/b` → `input.a.0.b` (JSON pointer unescaping per RFC 6901). */
function pointerToField(pointer: string): string {
  const parts = pointer
    .replace(/^#/, "")
    .split("/")
    .filter(Boolean)
    .map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));
  return ["input", ...parts].join(".");
}
