/**
 * Free space of the disk under the embedded database (Node only; docs/execution.md#a-full-disk):
 * `statfs` of the folder that holds the database file, so that health can say when writes are
 * about to be refused for a full disk.
 */
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { StorageProbe } from "../../services/health.js";

/** The file path of a `file:` libSQL URL (`file:/abs/db`, `file:rel/db`, `file:///abs/db`). */
function filePath(url: string): string {
  const rest = url.slice("file:".length).split("?")[0] ?? "";
  return rest.startsWith("//") ? fileURLToPath(`file:${rest}`) : rest;
}

/**
 * A {@link StorageProbe} over the disk holding the database of `url`; undefined for a URL that is
 * not an embedded file (`:memory:`, a server over HTTP). Free bytes are those available to an
 * unprivileged process (`bavail` × block size).
 */
export function fileStorageProbe(url: string): StorageProbe | undefined {
  if (!url.startsWith("file:")) return undefined;
  const dir = dirname(filePath(url));
  return {
    async freeBytes() {
      const s = await statfs(dir);
      return Number(s.bavail) * Number(s.bsize);
    },
  };
}
