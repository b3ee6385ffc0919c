/**
 * Operator operations shared by the dashboard (docs/dashboard.md): sign-in, the session signing
 * secret, execution history scoped to the caller, approvals, and chart aggregates. A key sees
 * only its own executions; another key's id answers as not found (no existence leak).
 */

import type { ApiKeyService } from "./auth/api-keys.js";
import { sha256Hex } from "./auth/crypto.js";
import { authenticate } from "./auth/middleware.js";
import type { Principal } from "./auth/principal.js";
import type { Config } from "./config.js";
import type { Db } from "./db/client.js";
import { NotFoundError } from "./errors.js";
import { ExecutionStats, type ExecutionSummary } from "./skills/execution-stats.js";
import type { ExecutionFilter } from "./skills/execution-store.js";
import type { Executor } from "./skills/executor.js";
import type { SkillRegistry } from "./skills/registry.js";
import { type Page, pageOf } from "./skills/skill-service.js";
import type { Execution } from "./skills/types.js";

/** Execution filters an operator may set (the key scope comes from the principal). */
export type OperatorExecutionFilter = Omit<ExecutionFilter, "apiKeyId"> & {
  /** Management only: one key's executions. */
  apiKeyId?: string;
};

/** Dashboard-facing operations over the other services. */
export class OperatorService {
  private readonly stats: ExecutionStats;

  constructor(
    db: Db,
    private readonly config: Config,
    private readonly apiKeys: ApiKeyService,
    private readonly registry: SkillRegistry,
    private readonly executor: Executor,
  ) {
    this.stats = new ExecutionStats(db);
  }

  /** The principal of a management token or API key, or undefined when it matches nothing. */
  signIn(token: string): Promise<Principal | undefined> {
    return authenticate(token, this.config.MGMT_TOKEN, this.apiKeys);
  }

  /** Whether a signed-in principal is still valid (a key not revoked nor expired since). */
  async stillValid(principal: Principal): Promise<boolean> {
    if (principal.kind === "management") return this.config.MGMT_TOKEN !== undefined;
    return this.apiKeys.exists(principal.apiKeyId);
  }

  /**
   * Secret for signing session cookies: `DASHBOARD_SESSION_SECRET`, else one derived from the
   * management token (rotating the token ends every session); undefined when neither is set.
   */
  async sessionSecret(): Promise<string | undefined> {
    if (this.config.DASHBOARD_SESSION_SECRET) return this.config.DASHBOARD_SESSION_SECRET;
    if (!this.config.MGMT_TOKEN) return undefined;
    return sha256Hex(`skillgate-dashboard-session\n${this.config.MGMT_TOKEN}`);
  }

  private scope(principal: Principal, requested: string | undefined): string | undefined {
    return principal.kind === "key" ? principal.apiKeyId : requested;
  }

  /** A page of executions the principal may see, newest first (expired approvals ended first). */
  async executions(
    principal: Principal,
    filter: OperatorExecutionFilter,
    page: number,
    limit: number,
  ): Promise<Page<Execution>> {
    await this.executor.store.expireApprovals(this.config.APPROVAL_TTL_MS);
    const apiKeyId = this.scope(principal, filter.apiKeyId);
    const f: ExecutionFilter = { ...filter, apiKeyId };
    const [data, total] = await Promise.all([
      this.executor.store.list(f, limit, (page - 1) * limit),
      this.executor.store.count(f),
    ]);
    return pageOf(data, total, page, limit);
  }

  /** One execution the principal may see. @throws NotFoundError `execution_not_found` otherwise. */
  async execution(principal: Principal, id: string): Promise<Execution> {
    const execution = await this.executor.getExecution(id);
    if (!execution || (principal.kind === "key" && execution.apiKeyId !== principal.apiKeyId)) {
      throw new NotFoundError(`Execution ${id} not found`, "execution_not_found");
    }
    return execution;
  }

  /**
   * Approves a pending hybrid execution; it runs now (docs/policies.md#approval).
   * @throws NotFoundError for an invisible execution or a deleted skill; ConflictError when not pending.
   */
  async approve(principal: Principal, id: string): Promise<Execution> {
    await this.executor.store.expireApprovals(this.config.APPROVAL_TTL_MS);
    const pending = await this.execution(principal, id);
    const skill =
      (await this.registry.snapshot()).getById(pending.skillId) ??
      (await this.registry.getFresh(pending.skillId));
    if (!skill) {
      throw new NotFoundError(`Skill of execution ${id} no longer exists`, "skill_not_found");
    }
    return this.executor.approve(pending, skill);
  }

  /** Rejects a pending hybrid execution; it ends as error. @throws as {@link approve}. */
  async reject(principal: Principal, id: string, reason?: string): Promise<Execution> {
    await this.executor.store.expireApprovals(this.config.APPROVAL_TTL_MS);
    return this.executor.reject(await this.execution(principal, id), reason);
  }

  /**
   * Chart aggregates over the 24 hours ending now: executions per hour by status, and median /
   * p95 duration and error rate per skill.
   */
  charts(principal: Principal, now: number): Promise<ExecutionSummary> {
    return this.stats.summary(this.scope(principal, undefined), now, 24);
  }
}
