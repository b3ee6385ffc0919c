/**
 * Storage of the per-key workspaces of `file_read` / `file_write` (docs/workspaces.md): the
 * workspace name of a key, and the interface the file builtins read and write through (the
 * drizzle implementation is in `workers/src/db/repositories/workspace-files.ts`). Paths handed to
 * a repository are already validated by `validateWorkspacePath`.
 */
import { sha256Hex } from "../../auth/crypto.js";

/**
 * Workspace name of an API key (docs/workspaces.md#which-workspace):
 * `sha256(apiKeyId || "anonymous")` in hex, first 24 characters. A null, undefined or empty key
 * maps to the one shared `anonymous` workspace.
 */
export async function workspaceIdFor(apiKeyId: string | null | undefined): Promise<string> {
  const digest = await sha256Hex(apiKeyId ? apiKeyId : "anonymous");
  return digest.slice(0, 24);
}

/** Options of {@link WorkspaceRepository.write}. */
export interface WriteOptions {
  /** Append to an existing file instead of replacing it (creates the file when absent). */
  append: boolean;
  /** When false, refuse to replace an existing file (ignored when appending). */
  overwrite: boolean;
  /** Largest size the file may have after the write, in bytes. */
  maxBytes: number;
}

/** Outcome of {@link WorkspaceRepository.write}. */
export interface WriteResult {
  /** Size of the whole file after the write, in bytes. */
  size: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/** A file as read back: its raw bytes and stored size in bytes. */
export interface StoredFile {
  bytes: Uint8Array;
  size: number;
}

/** Reads and writes the files of one workspace at a time. */
export interface WorkspaceRepository {
  /**
   * Reads one file. @returns the file, or undefined when it does not exist in this workspace.
   * @throws ExecutionFailure `file_too_large` when the stored size exceeds `maxBytes` (checked
   *   before the content is decoded).
   */
  read(workspace: string, path: string, maxBytes: number): Promise<StoredFile | undefined>;
  /**
   * Writes `bytes` to a file: replace (default), create-only (`overwrite: false`) or append;
   * concurrent appends never lose data.
   * @throws ExecutionFailure `file_too_large` when the resulting file would exceed `maxBytes`,
   *   `file_exists` when `overwrite` is false and the file exists, `write_conflict` (retryable)
   *   when appends keep racing.
   */
  write(
    workspace: string,
    path: string,
    bytes: Uint8Array,
    opts: WriteOptions,
  ): Promise<WriteResult>;
}
