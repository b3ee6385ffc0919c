/**
 * Parts of the skill pages (docs/dashboard.md#pages): the mode and policy toggles, the install
 * form, and the values the filters and forms accept.
 */
import type { FC } from "hono/jsx";
import type {
  Skill,
  InjectionMode as SkillMode,
  ExecutionPolicy as SkillPolicy,
  SkillOrigin as SourceProvider,
} from "../skills/types.js";
import { Csrf, Input, Select } from "./layout.js";

/** Injection modes a skill can be set to, in the order the forms list them. */
export const MODES: SkillMode[] = ["on", "auto", "off"];
/** Execution policies a skill can be set to, in the order the forms list them. */
export const POLICIES: SkillPolicy[] = ["auto", "hybrid", "manual"];
/** Sources the skill list can be filtered by. */
export const SOURCES: SourceProvider[] = ["builtin", "local", "skillsmp", "skillssh"];
/** Skills per page of the list. */
export const PAGE_SIZE = 50;

/** `v` when it is one of `allowed`, else undefined (a filter value from a query string). */
export function pick<T extends string>(
  v: string | undefined,
  allowed: readonly T[],
): T | undefined {
  return allowed.includes(v as T) ? (v as T) : undefined;
}

/** A form that sets the mode or the policy of one skill. */
export const Toggle: FC<{ skill: Skill; field: "mode" | "policy"; csrf: string }> = ({
  skill,
  field,
  csrf,
}) => (
  <form method="post" action={`/dashboard/skills/${skill.id}/${field}`} class="inline">
    <Csrf token={csrf} />
    <label for={`${field}-${skill.id}`} class="muted" style="font-weight:400">
      <span style="position:absolute;left:-9999px">{`${field} of ${skill.name}@${skill.version}`}</span>
    </label>
    <select id={`${field}-${skill.id}`} name={field}>
      {(field === "mode" ? MODES : POLICIES).map((o) => (
        <option value={o} selected={o === skill[field]}>
          {o}
        </option>
      ))}
    </select>
    <button
      type="submit"
      class="secondary"
      aria-label={`Set ${field} of ${skill.name}@${skill.version}`}
    >
      Set
    </button>
  </form>
);

/** Field values of the install form (as posted, for redisplay after an error). */
export interface InstallValues {
  [k: string]: string | undefined;
}

/** The install form, with the errors of the last attempt. */
export const InstallForm: FC<{
  values: InstallValues;
  handlers: string[];
  csrf: string;
  errors: string[];
}> = ({ values, handlers, csrf, errors }) => (
  <form method="post" action="/dashboard/skills/new" class="card" aria-label="Install a skill">
    <Csrf token={csrf} />
    {errors.length ? (
      <div class="flash err" role="alert">
        The skill was not installed:
        <ul class="errors">
          {errors.map((e) => (
            <li>{e}</li>
          ))}
        </ul>
      </div>
    ) : null}
    <div class="grid2">
      <div>
        <Input name="name" label="Name" value={values.name} required placeholder="reverse-text" />
        <Input
          name="version"
          label="Version (MAJOR.MINOR.PATCH)"
          value={values.version ?? "1.0.0"}
          required
        />
        <Select name="handlerCode" label="Handler" value={values.handlerCode} options={handlers} />
        <Input name="description" label="Description" value={values.description} />
        <Input name="tags" label="Tags (comma-separated)" value={values.tags} />
        <Input
          name="timeoutMs"
          label="Timeout (ms, blank = default)"
          type="number"
          value={values.timeoutMs}
        />
        <Select name="mode" label="Mode" value={values.mode ?? "on"} options={MODES} />
        <Select name="policy" label="Policy" value={values.policy ?? "auto"} options={POLICIES} />
        <Input name="apiKeyId" label="Owner API key id (blank = global)" value={values.apiKeyId} />
      </div>
      <div class="field">
        <label for="f-inputSchema">Input JSON schema</label>
        <textarea id="f-inputSchema" name="inputSchema" rows={18}>
          {values.inputSchema ?? '{\n  "type": "object",\n  "properties": {}\n}'}
        </textarea>
      </div>
    </div>
    <button type="submit">Install</button>
  </form>
);
