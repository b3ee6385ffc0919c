/**
 * The skills service (docs/registry.md): every registry read and write a front door makes —
 * install with validation, `enabled`/`mode` consistency on update, filtered and paginated
 * listing from the snapshot, reads with visibility, removal, resolving a skill reference, and
 * cache invalidation.
 */
import { canAccessOwned, type Principal } from "../auth/principal.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.js";
import {
  type HandlerInstall,
  prepareHandler,
  SPEC_HANDLER_NAMES,
} from "../skills/handlers/install.js";
import { newWebhookSecret } from "../skills/handlers/webhook-signing.js";
import type { SkillRegistry } from "../skills/registry/registry.js";
import { normalizeInputSchema } from "../skills/registry/schema-normalize.js";
import { checkSchemaPatterns } from "../skills/registry/schema-patterns.js";
import type { SkillPatch } from "../skills/registry/skill-repository.js";
import { isStrictVersion, parseSkillRef } from "../skills/registry/versions.js";
import type { HandlerSpec, Skill } from "../skills/types.js";
import { type Page, pageOf } from "./page.js";
import {
  checkTextFields,
  type InstalledWithHandler,
  type InstallSkillInput,
  type ListSkillsQuery,
  SKILL_NAME_PATTERN,
  type UpdateSkillInput,
} from "./skills-input.js";

export type {
  InstalledWithHandler,
  InstallSkillInput,
  ListSkillsQuery,
  UpdateSkillInput,
} from "./skills-input.js";
export {
  MAX_DESCRIPTION_CHARS,
  MAX_TAG_CHARS,
  MAX_TAGS,
  SKILL_NAME_PATTERN,
} from "./skills-input.js";

/** Skill management service. */
export class SkillsService {
  /**
   * @param registry the registry.
   * @param hasHandler tells whether a handler name is registered with the executor.
   * @param apiKeyExists tells whether an (unrevoked) API key id exists.
   * @param clock ms clock.
   */
  constructor(
    private readonly registry: SkillRegistry,
    private readonly hasHandler: (name: string) => boolean,
    private readonly apiKeyExists: (id: string) => Promise<boolean>,
    private readonly clock: () => number = Date.now,
    private readonly httpAllowlist: readonly string[] = [],
  ) {}

  /**
   * Installs a skill that carries its handler (docs/custom-skills.md): an HTTP endpoint or a
   * program for the sandbox host. Policy defaults to `auto`; the handler's `timeoutMs` is the
   * skill's unless the body sets one.
   * @throws InvalidInputError `url_not_allowed` or naming the failing `handler.*` field; and as
   *   {@link install}.
   */
  async installWithHandler(
    input: Omit<InstallSkillInput, "handlerCode">,
    spec: HandlerInstall,
  ): Promise<InstalledWithHandler> {
    const prepared = await prepareHandler(spec, this.httpAllowlist);
    const skill = await this.install(
      {
        ...input,
        handlerCode: prepared.handlerCode,
        timeoutMs: input.timeoutMs ?? prepared.timeoutMs ?? null,
      },
      { handler: prepared.handler, secret: prepared.secret },
    );
    return { skill, secret: prepared.secret };
  }

  /**
   * Replaces the signing secret of an HTTP-handler skill; the old one stops working at once.
   * @returns the new secret (shown this once).
   * @throws NotFoundError for an unknown id; InvalidInputError `not_http_handler` for other skills.
   */
  async rotateSecret(id: string): Promise<string> {
    const current = await this.registry.getFresh(id);
    if (!current) throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
    if (current.handler?.type !== "http") {
      throw new InvalidInputError(
        `Skill ${current.name}@${current.version} has no HTTP handler and no signing secret`,
        [{ field: "id", message: "not an HTTP-handler skill" }],
        "not_http_handler",
      );
    }
    const secret = newWebhookSecret();
    await this.registry.update(id, { handlerSecret: secret });
    return secret;
  }

  /**
   * Installs a skill (`POST /api/skills/install`; docs/registry.md#installing).
   * @throws InvalidInputError naming the failing field (name, version, schema, handlerCode, apiKeyId);
   *   `invalid_schema_pattern` for a schema regular expression refused (docs/registry.md#patterns).
   * @throws ConflictError `reserved_name` for builtin names, `skill_exists` for a duplicate.
   */
  async install(
    input: InstallSkillInput,
    carried: { handler: HandlerSpec; secret: string | null } | null = null,
  ): Promise<Skill> {
    if (!SKILL_NAME_PATTERN.test(input.name)) {
      throw new InvalidInputError("name must match ^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$", [
        { field: "name", message: "invalid skill name" },
      ]);
    }
    checkTextFields(input);
    if (!isStrictVersion(input.version)) {
      throw new InvalidInputError("version must be MAJOR.MINOR.PATCH (e.g. 1.0.0)", [
        { field: "version", message: "must match ^\\d+\\.\\d+\\.\\d+$" },
      ]);
    }
    if (this.registry.isReservedName(input.name)) {
      throw new ConflictError(
        `"${input.name}" is a builtin skill name and is reserved`,
        "reserved_name",
      );
    }
    if (carried === null && SPEC_HANDLER_NAMES.has(input.handlerCode)) {
      throw new InvalidInputError(
        `Handler "${input.handlerCode}" needs a handler spec: install with \`handler\` instead`,
        [{ field: "handlerCode", message: "install with `handler`" }],
      );
    }
    if (!this.hasHandler(input.handlerCode)) {
      throw new InvalidInputError(`No handler named "${input.handlerCode}" is registered`, [
        { field: "handlerCode", message: "unknown handler" },
      ]);
    }
    if (input.apiKeyId !== null && !(await this.apiKeyExists(input.apiKeyId))) {
      throw new InvalidInputError(`API key ${input.apiKeyId} does not exist`, [
        { field: "apiKeyId", message: "unknown API key" },
      ]);
    }
    const inputSchema = normalizeInputSchema(input.schema?.input);
    await checkSchemaPatterns(inputSchema, "schema.input");
    const mode = input.mode ?? "on";
    const now = this.clock();
    return this.registry.insert({
      id: crypto.randomUUID(),
      name: input.name,
      version: input.version,
      description: input.description ?? "",
      schema: {
        input: inputSchema,
        ...(input.schema?.output ? { output: input.schema.output } : {}),
      },
      handlerCode: input.handlerCode,
      handler: carried?.handler ?? null,
      handlerSecret: carried?.secret ?? null,
      instructions: input.instructions ?? null,
      enabled: mode !== "off",
      mode,
      policy: input.policy ?? "auto",
      sourceProvider: input.sourceProvider ?? "local",
      sourceRef: input.sourceRef ?? null,
      tags: input.tags ?? [],
      installCount: 1,
      timeoutMs: input.timeoutMs ?? null,
      autoUpgrade: input.autoUpgrade ?? null,
      apiKeyId: input.apiKeyId,
      createdAt: now,
      updatedAt: now,
    });
  }

  /**
   * Applies an edit (docs/registry.md#editing-and-removing: `enabled` and `mode` stay consistent —
   * `enabled: true` on an `off` skill gives `on`, `enabled: false` gives `off`, a contradictory
   * pair is a 400).
   * @throws NotFoundError for an unknown id; InvalidInputError for an empty or contradictory body.
   */
  async update(id: string, patch: UpdateSkillInput): Promise<Skill> {
    if (Object.keys(patch).length === 0) {
      throw new InvalidInputError("The body must set at least one editable field", [
        { field: "body", message: "empty" },
      ]);
    }
    if (
      patch.enabled !== undefined &&
      patch.mode !== undefined &&
      patch.enabled !== (patch.mode !== "off")
    ) {
      throw new InvalidInputError(`enabled: ${patch.enabled} contradicts mode: "${patch.mode}"`, [
        { field: "enabled", message: "contradicts mode" },
      ]);
    }
    checkTextFields(patch);
    const current = await this.registry.getFresh(id);
    if (!current) throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
    let mode = patch.mode ?? current.mode;
    if (patch.mode === undefined && patch.enabled !== undefined) {
      if (patch.enabled && current.mode === "off") mode = "on";
      if (!patch.enabled) mode = "off";
    }
    const row: SkillPatch = { mode, enabled: mode !== "off" };
    if (patch.policy !== undefined) row.policy = patch.policy;
    if (patch.description !== undefined) row.description = patch.description;
    if (patch.tags !== undefined) row.tags = patch.tags;
    if (patch.timeoutMs !== undefined) row.timeoutMs = patch.timeoutMs;
    if (patch.autoUpgrade !== undefined) row.autoUpgrade = patch.autoUpgrade;
    if (patch.schema !== undefined) {
      const input =
        patch.schema.input !== undefined
          ? normalizeInputSchema(patch.schema.input)
          : current.schema.input;
      if (patch.schema.input !== undefined) await checkSchemaPatterns(input, "schema.input");
      const output = patch.schema.output ?? current.schema.output;
      row.schema = { input, ...(output ? { output } : {}) };
    }
    return this.registry.update(id, row);
  }

  /** Lists skills from the snapshot with filters and pagination (docs/api.md#pagination). */
  async list(query: ListSkillsQuery): Promise<Page<Skill>> {
    const snapshot = await this.registry.snapshot();
    const q = query.q?.trim().toLowerCase();
    const name = query.name?.trim().toLowerCase();
    const matches: Skill[] = [];
    for (const skill of snapshot.listingOrder()) {
      if (query.visibleTo !== undefined && !snapshot.isVisible(skill, query.visibleTo)) continue;
      if (query.owner !== undefined && skill.apiKeyId !== query.owner) continue;
      if (query.mode && skill.mode !== query.mode) continue;
      if (query.policy && skill.policy !== query.policy) continue;
      if (query.source && skill.sourceProvider !== query.source) continue;
      if (q && !matchesText(skill, q)) continue;
      if (name && !skill.name.toLowerCase().includes(name)) continue;
      if (query.enabled !== undefined && skill.enabled !== query.enabled) continue;
      matches.push(skill);
    }
    const start = (query.page - 1) * query.limit;
    return pageOf(
      matches.slice(start, start + query.limit),
      matches.length,
      query.page,
      query.limit,
    );
  }

  /** A skill the caller may read. @throws NotFoundError `skill_not_found` otherwise (no existence leak). */
  async get(id: string, principal: Principal): Promise<Skill> {
    const skill = await this.registry.getFresh(id);
    if (!skill || (skill.apiKeyId !== null && !canAccessOwned(principal, skill.apiKeyId))) {
      throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
    }
    return skill;
  }

  /**
   * Unregisters a skill (its executions go with it).
   * @throws NotFoundError `skill_not_found` for an unknown id.
   */
  remove(id: string): Promise<void> {
    return this.registry.remove(id);
  }

  /**
   * Resolves `name`, `name@version` or `name@<constraint>` for a caller (docs/registry.md#versions).
   * @throws NotFoundError `skill_not_found`.
   */
  async resolveRef(ref: string, apiKeyId: string | null): Promise<Skill> {
    const { name, constraint } = parseSkillRef(ref);
    const skill = (await this.registry.snapshot()).resolve(name, constraint, apiKeyId);
    if (!skill) throw new NotFoundError(`Skill ${ref} not found`, "skill_not_found");
    return skill;
  }

  /** A skill by id as it stands now, whoever owns it (the snapshot, else storage). */
  async byId(id: string): Promise<Skill | undefined> {
    return (await this.registry.snapshot()).getById(id) ?? (await this.registry.getFresh(id));
  }

  /** Loads the registry (so the first request does not wait for it). */
  async load(): Promise<void> {
    await this.registry.snapshot();
  }

  /** Drops the registry cache (after editing the database by hand). */
  invalidateCache(): Promise<void> {
    return this.registry.invalidateCache();
  }
}

function matchesText(skill: Skill, q: string): boolean {
  return (
    skill.name.toLowerCase().includes(q) ||
    skill.description.toLowerCase().includes(q) ||
    skill.tags.some((t) => t.toLowerCase().includes(q))
  );
}
