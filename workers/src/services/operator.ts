/**
 * Operator operations of the dashboard (docs/dashboard.md): sign-in, the session signing secret,
 * execution history scoped to the caller, approvals, and chart aggregates. A key sees only its
 * own executions; another key's id answers as not found (no existence leak). Built over the keys
 * and executions services and the executions repository.
 */

import { sha256Hex } from "../auth/crypto.js";
import type { Principal } from "../auth/principal.js";
import type { Cache } from "../cache/types.js";
import type { ExecutionSummary } from "../skills/execution/execution-stats.js";

export type {
  ExecutionSummary,
  HourlyBucket,
  SkillStat,
} from "../skills/execution/execution-stats.js";

import type {
  ExecutionFilter,
  ExecutionRepository,
} from "../skills/execution/execution-repository.js";
import type { Execution } from "../skills/types.js";
import type { ExecutionsService } from "./executions.js";
import type { ApiKeyService } from "./keys.js";
import type { Page } from "./page.js";

const HOUR_MS = 3_600_000;

/** Seconds a computed chart aggregate is kept (the KV minimum; a change of stamp replaces it sooner). */
export const CHARTS_CACHE_TTL_S = 60;

/** Execution filters an operator may set (the key scope comes from the principal). */
export type OperatorExecutionFilter = Omit<ExecutionFilter, "apiKeyId"> & {
  /** Management only: one key's executions. */
  apiKeyId?: string;
};

/** Where the ids of dashboard sessions ended by sign-out are kept (docs/dashboard.md#signing-in-and-sessions). */
export interface SessionRevocationRepository {
  /**
   * Records that the session `sessionId`, valid until `expiresAt` (ms since epoch), has ended;
   * drops the records of sessions that expired before `now` (ms) on the way.
   */
  revoke(sessionId: string, expiresAt: number, now: number): Promise<void>;
  /** True when `sessionId` was ended by sign-out. */
  isRevoked(sessionId: string): Promise<boolean>;
}

/** What the operator service is built from. */
export interface OperatorServiceOptions {
  /** `MGMT_TOKEN`; without it management sign-in is refused. */
  mgmtToken: string | undefined;
  /** `DASHBOARD_SESSION_SECRET`. */
  sessionSecret: string | undefined;
  keys: ApiKeyService;
  executions: ExecutionsService;
  /** The executions repository (chart aggregates). */
  repository: ExecutionRepository;
  /** The KV-style cache (chart aggregates). */
  cache: Cache;
  /** Dashboard sessions ended by sign-out. */
  sessionRevocations: SessionRevocationRepository;
  /** Handler names registered with the executor (the install form offers them). */
  handlerNames: () => string[];
  /** The app's clock (ms since epoch). */
  clock: () => number;
}

/** Dashboard-facing operations over the other services. */
export class OperatorService {
  constructor(private readonly opts: OperatorServiceOptions) {}

  /**
   * The same service over the model view of the executions service
   * ({@link ExecutionsService.forModels}): its `approve` is refused with `model_call_refused`.
   */
  forModels(): OperatorService {
    return new OperatorService({ ...this.opts, executions: this.opts.executions.forModels() });
  }

  /** The principal of a management token or API key, or undefined when it matches nothing. */
  signIn(token: string): Promise<Principal | undefined> {
    return this.opts.keys.authenticate(token);
  }

  /** Whether a signed-in principal is still valid (a key not revoked nor expired since). */
  async stillValid(principal: Principal): Promise<boolean> {
    if (principal.kind === "management") return this.opts.mgmtToken !== undefined;
    return this.opts.keys.exists(principal.apiKeyId);
  }

  /**
   * Ends the dashboard session `sessionId` (valid until `expiresAt`, ms since epoch) on the
   * server: a copy of its cookie no longer signs anyone in (docs/dashboard.md#signing-in-and-sessions).
   */
  endSession(sessionId: string, expiresAt: number): Promise<void> {
    return this.opts.sessionRevocations.revoke(sessionId, expiresAt, this.opts.clock());
  }

  /** False when the dashboard session `sessionId` was ended by sign-out. */
  async sessionActive(sessionId: string): Promise<boolean> {
    return !(await this.opts.sessionRevocations.isRevoked(sessionId));
  }

  /**
   * Secret for signing session cookies: `DASHBOARD_SESSION_SECRET`, else one derived from the
   * management token (rotating the token ends every session); undefined when neither is set.
   */
  async sessionSecret(): Promise<string | undefined> {
    if (this.opts.sessionSecret) return this.opts.sessionSecret;
    if (!this.opts.mgmtToken) return undefined;
    return sha256Hex(`skillgate-dashboard-session\n${this.opts.mgmtToken}`);
  }

  /** The current time, ms since epoch (session expiry and chart windows). */
  now(): number {
    return this.opts.clock();
  }

  /** Handler names a custom skill may use, sorted. */
  handlerNames(): string[] {
    return [...this.opts.handlerNames()].sort();
  }

  private scope(principal: Principal, requested: string | undefined): string | undefined {
    return principal.kind === "key" ? principal.apiKeyId : requested;
  }

  /** A page of executions the principal may see, newest first (expired approvals ended first). */
  executions(
    principal: Principal,
    filter: OperatorExecutionFilter,
    page: number,
    limit: number,
  ): Promise<Page<Execution>> {
    const apiKeyId = this.scope(principal, filter.apiKeyId);
    return this.opts.executions.list({ ...filter, apiKeyId, page, limit });
  }

  /** One execution the principal may see. @throws NotFoundError `execution_not_found` otherwise. */
  execution(principal: Principal, id: string): Promise<Execution> {
    return this.opts.executions.get(principal, id);
  }

  /**
   * Approves a pending hybrid execution; it runs now (docs/policies.md#approval).
   * @throws NotFoundError for an invisible execution or a deleted skill; ConflictError when not pending.
   */
  approve(principal: Principal, id: string): Promise<Execution> {
    return this.opts.executions.approve(principal, id);
  }

  /** Rejects a pending hybrid execution; it ends as error. @throws as {@link approve}. */
  reject(principal: Principal, id: string, reason?: string): Promise<Execution> {
    return this.opts.executions.reject(principal, id, reason);
  }

  /**
   * Chart aggregates over the 24 hours ending with the current hour: executions per hour by
   * status, and median / p95 duration and error rate per skill (docs/dashboard.md#charts).
   * Cached per caller scope, hour and execution change stamp (the latest `updatedAt`), so a new
   * or changed execution shows at once; a deletion shows within {@link CHARTS_CACHE_TTL_S}.
   */
  async charts(principal: Principal, now: number): Promise<ExecutionSummary> {
    const apiKeyId = this.scope(principal, undefined);
    const stamp = await this.opts.repository.changeStamp();
    const hour = Math.floor(now / HOUR_MS);
    const key = `dashboard:charts:v1:${apiKeyId ?? "*"}:${hour}:${stamp}`;
    const cached = await this.opts.cache.get<ExecutionSummary>(key);
    if (cached) return cached;
    const summary = await this.opts.repository.summary(apiKeyId, now, 24);
    await this.opts.cache.put(key, summary, CHARTS_CACHE_TTL_S);
    return summary;
  }
}
