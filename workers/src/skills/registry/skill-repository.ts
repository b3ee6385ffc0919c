/**
 * Storage of skills, as the registry needs it (docs/registry.md). The registry keeps its cache and
 * rules; an implementation only reads and writes rows (the drizzle one is in
 * `workers/src/db/repositories/skills.ts`). Timestamps are ms since the epoch.
 */
import type {
  ExecutionPolicy,
  HandlerSpec,
  InjectionMode,
  Skill,
  SkillOrigin,
  SkillSchema,
} from "../types.js";

/** A skill as it is written: every stored field, timestamps in ms since the epoch. */
export interface SkillRecord {
  id: string;
  name: string;
  version: string;
  description: string;
  schema: SkillSchema;
  /** Handler name (API field `handlerCode`). */
  handlerCode: string;
  /** The HTTP, code or MCP handler a skill carries (docs/custom-skills.md); null otherwise. */
  handler: HandlerSpec | null;
  /** Signing secret of an HTTP handler (write-only: never part of a {@link Skill}). */
  handlerSecret: string | null;
  instructions: string | null;
  enabled: boolean;
  mode: InjectionMode;
  policy: ExecutionPolicy;
  sourceProvider: SkillOrigin;
  sourceRef: string | null;
  tags: string[];
  installCount: number;
  timeoutMs: number | null;
  /** Auto-upgrade of sandbox runs; null = the handler's default. */
  autoUpgrade: boolean | null;
  apiKeyId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The fields an edit may change (`updatedAt` is set by the registry). */
export type SkillPatch = Partial<
  Pick<
    SkillRecord,
    | "description"
    | "schema"
    | "enabled"
    | "mode"
    | "policy"
    | "tags"
    | "installCount"
    | "timeoutMs"
    | "autoUpgrade"
    | "handlerSecret"
    | "updatedAt"
  >
>;

/** Reads and writes skill rows. */
export interface SkillRepository {
  /** Every skill of every owner, any order. */
  all(): Promise<Skill[]>;
  /** One skill by id, read from storage (never a cache). */
  get(id: string): Promise<Skill | undefined>;
  /**
   * Inserts a skill. @returns the stored skill, or undefined when the owner already has this
   * `name@version` (nothing is written then).
   */
  insert(record: SkillRecord): Promise<Skill | undefined>;
  /** Updates the given fields. @returns the updated skill, or undefined for an unknown id. */
  update(id: string, patch: SkillPatch): Promise<Skill | undefined>;
  /** Deletes a skill (its executions go with it). @returns false for an unknown id. */
  delete(id: string): Promise<boolean>;
  /** The signing secret of an HTTP-handler skill; null when it has none or does not exist. */
  handlerSecret(id: string): Promise<string | null>;
  /** Adds one to a skill's install count. @returns the updated skill, or undefined for an unknown id. */
  incrementInstallCount(id: string): Promise<Skill | undefined>;
  /** Ids of every skill installed from one catalog item (`origin` + `sourceRef`), any owner. */
  idsFromSource(origin: SkillOrigin, sourceRef: string): Promise<string[]>;
  /**
   * Writes the builtin skills: inserts missing ones; for existing ones refreshes only the fields
   * declared in code (description, schema, tags, handler), keeping an operator's choices.
   */
  upsertBuiltins(records: readonly SkillRecord[]): Promise<void>;
}
