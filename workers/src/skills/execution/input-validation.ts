/**
 * Validation of execution input against a skill's input schema before the handler runs
 * (docs/execution.md#before-anything-is-written). Uses `@cfworker/json-schema`,
 * which runs in workerd (Ajv compiles with `new Function`, which Workers forbid), through
 * {@link SafeSchemaValidator}, which runs the schema's regular expressions in linear time
 * (docs/registry.md#patterns).
 */
import { InvalidInputError } from "../../errors.js";
import { warmSchemaPatterns } from "../registry/schema-patterns.js";
import type { Skill } from "../types.js";
import {
  clearSafePatterns,
  isPatternFormat,
  SafeSchemaValidator,
  safePatternCount,
} from "./safe-schema.js";

const validators = new Map<string, SafeSchemaValidator>();
const MAX_CACHED = 5_000;
/** Compiled patterns the cached validators may hold between them before the cache starts over. */
const MAX_PATTERNS_HELD = 2_000;

const keyOf = (skill: Skill) => `${skill.id}:${skill.updatedAt}`;

/**
 * Readies the validation of `skill`'s input: compiles the schema's patterns not compiled yet one
 * at a time, letting other requests run in between (docs/registry.md#patterns). Call before
 * {@link validateSkillInput}; a no-op once the skill's validator is built.
 */
export async function prepareInputValidation(skill: Skill): Promise<void> {
  if (!validators.has(keyOf(skill))) await warmSchemaPatterns(skill.schema.input);
}

function validatorFor(skill: Skill): SafeSchemaValidator {
  const key = keyOf(skill);
  let v = validators.get(key);
  if (!v) {
    if (validators.size >= MAX_CACHED || safePatternCount() >= MAX_PATTERNS_HELD) {
      validators.clear();
      clearSafePatterns();
    }
    v = new SafeSchemaValidator(skill.schema.input);
    validators.set(key, v);
  }
  return v;
}

/**
 * Checks `input` against `skill.schema.input`.
 * @throws InvalidInputError `invalid_skill_input` with `details: [{ field, message }]` (field as a JSON pointer under `input`);
 *   `invalid_schema_pattern` when a stored schema holds a pattern refused since it was installed.
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
    .map((e) => ({
      field: pointerToField(e.instanceLocation),
      message:
        e.keyword === "format" && isPatternFormat(formatOf(e.error))
          ? "String does not match pattern."
          : e.error,
    }));
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

/** The format name quoted in a `format` error of the validator (`… format "name".`). */
function formatOf(error: string): string | undefined {
  const start = error.indexOf('"');
  return start < 0 ? undefined : error.slice(start + 1, error.lastIndexOf('"'));
}
