/**
 * The `workspace_files` table behind the file builtins' {@link WorkspaceRepository}
 * (docs/workspaces.md: a Worker has no disk). Paths handed to this module must already be
 * validated by `validateWorkspacePath`; this module never interprets them.
 */
import { and, eq } from "drizzle-orm";
import { ExecutionFailure } from "../../errors.js";
import { base64ToBytes, bytesToBase64 } from "../../skills/builtins/bytes.js";
import type {
  StoredFile,
  WorkspaceRepository,
  WriteOptions,
  WriteResult,
} from "../../skills/builtins/workspace-repository.js";
import type { Db } from "../client.js";
import { workspaceFiles } from "../schema.js";

/** How many times an append is retried when another writer changed the file meanwhile. */
const APPEND_ATTEMPTS = 8;

/** Drizzle implementation of {@link WorkspaceRepository}; every call is scoped to one workspace. */
export class DrizzleWorkspaceRepository implements WorkspaceRepository {
  /**
   * @param db the registry database (table `workspace_files`).
   * @param clock ms since the epoch, for `created_at` / `updated_at`.
   */
  constructor(
    private readonly db: Db,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Reads one file.
   * @returns the file, or undefined when it does not exist in this workspace.
   * @throws ExecutionFailure `file_too_large` when the stored size exceeds `maxBytes` (checked
   *   before the content is decoded).
   */
  async read(workspace: string, path: string, maxBytes: number): Promise<StoredFile | undefined> {
    const rows = await this.db
      .select({ content: workspaceFiles.content, size: workspaceFiles.size })
      .from(workspaceFiles)
      .where(and(eq(workspaceFiles.workspace, workspace), eq(workspaceFiles.path, path)))
      .limit(1);
    const row = rows[0];
    if (!row) return undefined;
    if (row.size > maxBytes) {
      throw new ExecutionFailure(
        `File is ${row.size} bytes, over the ${maxBytes}-byte limit (SKILLS_MAX_FILE_BYTES)`,
        { code: "file_too_large" },
      );
    }
    return { bytes: base64ToBytes(row.content), size: row.size };
  }

  /**
   * Writes `bytes` to a file: replace (default), create-only (`overwrite: false`) or append.
   * Replace and create-only are single atomic statements; append is an optimistic
   * read-modify-write keyed on the row's `size` and `updated_at`, retried on a concurrent change.
   * @throws ExecutionFailure `file_too_large` when the resulting file would exceed `maxBytes`,
   *   `file_exists` when `overwrite` is false and the file exists, `write_conflict` when appends
   *   keep racing.
   */
  async write(
    workspace: string,
    path: string,
    bytes: Uint8Array,
    opts: WriteOptions,
  ): Promise<WriteResult> {
    if (!opts.append && bytes.length > opts.maxBytes) throw tooLarge(bytes.length, opts.maxBytes);
    if (opts.append) return this.append(workspace, path, bytes, opts.maxBytes);
    const now = this.clock();
    const values = {
      workspace,
      path,
      content: bytesToBase64(bytes),
      size: bytes.length,
      createdAt: now,
      updatedAt: now,
    };
    if (!opts.overwrite) {
      const res = await this.db.insert(workspaceFiles).values(values).onConflictDoNothing();
      if (res.rowsAffected === 0) {
        throw new ExecutionFailure(`File \`${path}\` already exists and overwrite is false`, {
          code: "file_exists",
        });
      }
      return { size: bytes.length, created: true };
    }
    const existed = await this.exists(workspace, path);
    await this.db
      .insert(workspaceFiles)
      .values(values)
      .onConflictDoUpdate({
        target: [workspaceFiles.workspace, workspaceFiles.path],
        set: { content: values.content, size: values.size, updatedAt: now },
      });
    return { size: bytes.length, created: !existed };
  }

  private async exists(workspace: string, path: string): Promise<boolean> {
    const rows = await this.db
      .select({ size: workspaceFiles.size })
      .from(workspaceFiles)
      .where(and(eq(workspaceFiles.workspace, workspace), eq(workspaceFiles.path, path)))
      .limit(1);
    return rows.length > 0;
  }

  private async append(
    workspace: string,
    path: string,
    bytes: Uint8Array,
    maxBytes: number,
  ): Promise<WriteResult> {
    const where = and(eq(workspaceFiles.workspace, workspace), eq(workspaceFiles.path, path));
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const rows = await this.db
        .select({
          content: workspaceFiles.content,
          size: workspaceFiles.size,
          updatedAt: workspaceFiles.updatedAt,
        })
        .from(workspaceFiles)
        .where(where)
        .limit(1);
      const row = rows[0];
      const now = this.clock();
      if (!row) {
        if (bytes.length > maxBytes) throw tooLarge(bytes.length, maxBytes);
        const res = await this.db
          .insert(workspaceFiles)
          .values({
            workspace,
            path,
            content: bytesToBase64(bytes),
            size: bytes.length,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing();
        if (res.rowsAffected === 1) return { size: bytes.length, created: true };
        continue;
      }
      const size = row.size + bytes.length;
      if (size > maxBytes) throw tooLarge(size, maxBytes);
      const old = base64ToBytes(row.content);
      const joined = new Uint8Array(size);
      joined.set(old, 0);
      joined.set(bytes, old.length);
      const res = await this.db
        .update(workspaceFiles)
        .set({ content: bytesToBase64(joined), size, updatedAt: Math.max(now, row.updatedAt + 1) })
        .where(
          and(
            where,
            eq(workspaceFiles.size, row.size),
            eq(workspaceFiles.updatedAt, row.updatedAt),
          ),
        );
      if (res.rowsAffected === 1) return { size, created: false };
    }
    throw new ExecutionFailure(`File \`${path}\` kept changing during the append; try again`, {
      code: "write_conflict",
      retryable: true,
    });
  }
}

function tooLarge(size: number, max: number): ExecutionFailure {
  return new ExecutionFailure(
    `File would be ${size} bytes, over the ${max}-byte limit (SKILLS_MAX_FILE_BYTES)`,
    { code: "file_too_large" },
  );
}
