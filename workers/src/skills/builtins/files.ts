/**
 * Builtins `file_read` and `file_write` (docs/workspaces.md): files in a
 * per-API-key workspace kept in the database, every path validated before any I/O, sizes capped by
 * `SKILLS_MAX_FILE_BYTES`.
 */
import { z } from "zod";
import { ExecutionFailure } from "../../errors.js";
import type { HandlerContext, SkillHandler } from "../types.js";
import { base64ToBytes, bytesToBase64, utf8DecodeStrict, utf8Encode } from "./bytes.js";
import { inputSchemaOf } from "./input-schema.js";
import type { BuiltinDefinition, BuiltinDeps, BuiltinHandlerFactory } from "./types.js";
import { validateWorkspacePath } from "./workspace-path.js";
import { workspaceIdFor } from "./workspace-repository.js";

const encodingSchema = z
  .enum(["utf8", "base64"])
  .describe("`utf8` for text (default), `base64` for binary data.");
const pathSchema = z
  .string()
  .describe(
    "Path relative to your workspace, e.g. `notes/todo.md`. No absolute paths, `..`, backslashes or hidden secret folders.",
  );

/** Input of `file_read`. */
export const fileReadInput = z.object({
  path: pathSchema,
  encoding: encodingSchema.default("utf8"),
});

/** Input of `file_write`. */
export const fileWriteInput = z.object({
  path: pathSchema,
  content: z.string().describe("The data to write, in `encoding`."),
  encoding: encodingSchema.default("utf8"),
  append: z.boolean().default(false).describe("Append instead of replacing (default false)."),
  overwrite: z
    .boolean()
    .default(true)
    .describe("Replace an existing file (default true); false fails if it exists."),
});

/** Result of `file_read`: `content` is the file in the requested encoding. */
export interface FileReadResult {
  path: string;
  bytesRead: number;
  content: string;
  encoding: "utf8" | "base64";
}

/** Result of `file_write`: `bytesWritten` counts this call's bytes, `size` the whole file after it. */
export interface FileWriteResult {
  path: string;
  bytesWritten: number;
  size: number;
  created: boolean;
  encoding: "utf8" | "base64";
}

/** Declarations of the two file builtins (policy `auto`; docs/registry.md#builtins). */
export const fileDefinitions: BuiltinDefinition[] = [
  {
    name: "file_read",
    description:
      "Read a file from your private workspace. Returns its content as UTF-8 text or base64.",
    inputSchema: inputSchemaOf(fileReadInput),
    policy: "auto",
    mode: "auto",
    tags: ["file", "read", "workspace", "files"],
  },
  {
    name: "file_write",
    description:
      "Write a file in your private workspace (replace by default, or append). Content is UTF-8 text or base64.",
    inputSchema: inputSchemaOf(fileWriteInput),
    policy: "auto",
    mode: "auto",
    tags: ["file", "write", "save", "workspace", "files"],
  },
];

function parseInput<T>(schema: z.ZodType<T>, input: unknown, tool: string): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join(".") || "input").join(", ");
    throw new ExecutionFailure(`Invalid ${tool} input: ${where}`, { code: "invalid_input" });
  }
  return parsed.data;
}

/**
 * Builds the `file_read` and `file_write` handlers over `deps.workspaces`, capped by
 * `deps.config.SKILLS_MAX_FILE_BYTES`. The workspace is derived from `ctx.apiKeyId` only.
 * Handler errors are ExecutionFailure with codes `invalid_input`, `invalid_path`,
 * `file_not_found`, `file_exists`, `file_too_large`, `not_utf8`, `invalid_base64`.
 */
export const createFileHandlers: BuiltinHandlerFactory<BuiltinDeps> = (deps) => {
  const store = deps.workspaces;
  const maxBytes = deps.config.SKILLS_MAX_FILE_BYTES;

  const fileRead: SkillHandler = async (input, ctx: HandlerContext): Promise<FileReadResult> => {
    const args = parseInput(fileReadInput, input, "file_read");
    const path = validateWorkspacePath(args.path);
    const workspace = await workspaceIdFor(ctx.apiKeyId);
    const file = await store.read(workspace, path, maxBytes);
    if (!file) {
      throw new ExecutionFailure(`File \`${path}\` does not exist in your workspace`, {
        code: "file_not_found",
      });
    }
    let content: string;
    if (args.encoding === "base64") {
      content = bytesToBase64(file.bytes);
    } else {
      try {
        content = utf8DecodeStrict(file.bytes);
      } catch {
        throw new ExecutionFailure(
          `File \`${path}\` is not valid UTF-8; read it with encoding "base64"`,
          { code: "not_utf8" },
        );
      }
    }
    return { path, bytesRead: file.bytes.length, content, encoding: args.encoding };
  };

  const fileWrite: SkillHandler = async (input, ctx: HandlerContext): Promise<FileWriteResult> => {
    const args = parseInput(fileWriteInput, input, "file_write");
    const path = validateWorkspacePath(args.path);
    let bytes: Uint8Array;
    if (args.encoding === "base64") {
      try {
        bytes = base64ToBytes(args.content);
      } catch {
        throw new ExecutionFailure("content is not valid base64", { code: "invalid_base64" });
      }
    } else {
      bytes = utf8Encode(args.content);
    }
    const workspace = await workspaceIdFor(ctx.apiKeyId);
    const res = await store.write(workspace, path, bytes, {
      append: args.append,
      overwrite: args.overwrite,
      maxBytes,
    });
    return {
      path,
      bytesWritten: bytes.length,
      size: res.size,
      created: res.created,
      encoding: args.encoding,
    };
  };

  return { file_read: fileRead, file_write: fileWrite };
};
