/**
 * The `dashboard_session_revocations` table behind the {@link SessionRevocationRepository} of the
 * operator service (drizzle over libSQL): ids of dashboard sessions ended by sign-out.
 */
import { eq, lt } from "drizzle-orm";
import type { SessionRevocationRepository } from "../../services/operator.js";
import type { Db } from "../client.js";
import { dashboardSessionRevocations as revocations } from "../schema.js";

/** Drizzle implementation of {@link SessionRevocationRepository}. */
export class DrizzleSessionRevocationRepository implements SessionRevocationRepository {
  constructor(private readonly db: Db) {}

  async revoke(sessionId: string, expiresAt: number, now: number): Promise<void> {
    await this.db.batch([
      this.db.delete(revocations).where(lt(revocations.expiresAt, now)),
      this.db
        .insert(revocations)
        .values({ sessionId, expiresAt })
        .onConflictDoNothing({ target: revocations.sessionId }),
    ]);
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: revocations.sessionId })
      .from(revocations)
      .where(eq(revocations.sessionId, sessionId))
      .limit(1);
    return rows.length > 0;
  }
}
