import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import { workspaceFiles } from "../../workers/src/db/schema.js";
import type { AppDeps } from "../../workers/src/deps.js";
import { builtinDeps } from "../../workers/src/services/wiring/handlers.js";
import { createFileHandlers } from "../../workers/src/skills/builtins/files.js";
import { workspaceIdFor } from "../../workers/src/skills/builtins/workspace-repository.js";
import { openDb } from "../support/app.js";
import { expectFailure, fakeContext } from "../support/fakes/handler-context.js";

let deps: AppDeps;
let close: () => void;
let handlers: ReturnType<typeof createFileHandlers>;

beforeEach(async () => {
  const { client, db } = await openDb(":memory:");
  deps = { db, cache: new MemoryCache(), config: parseConfig({ SKILLS_MAX_FILE_BYTES: "1024" }) };
  handlers = createFileHandlers(builtinDeps(deps));
  close = () => client.close();
});
afterEach(() => close());

const read = (key: string | null, input: unknown) => handlers.file_read!(input, fakeContext(key));
const write = (key: string | null, input: unknown) => handlers.file_write!(input, fakeContext(key));

describe("workspace naming", () => {
  it("is sha256(apiKeyId).slice(0, 24), anonymous for a missing key", async () => {
    const hex = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 24);
    expect(await workspaceIdFor("key-123")).toBe(hex("key-123"));
    expect(await workspaceIdFor(null)).toBe(hex("anonymous"));
    expect(await workspaceIdFor("")).toBe(hex("anonymous"));
    expect((await workspaceIdFor("key-123")).length).toBe(24);
  });
});

describe("file_write / file_read", () => {
  it("round-trips UTF-8 text in a nested path", async () => {
    const w = await write("k1", { path: "notes/2024/plan.md", content: "héllo ✓" });
    expect(w).toEqual({
      path: "notes/2024/plan.md",
      bytesWritten: 10,
      size: 10,
      created: true,
      encoding: "utf8",
    });
    const r = await read("k1", { path: "./notes//2024/plan.md" });
    expect(r).toEqual({
      path: "notes/2024/plan.md",
      bytesRead: 10,
      content: "héllo ✓",
      encoding: "utf8",
    });
  });

  it("round-trips binary through base64 and refuses to read it as UTF-8", async () => {
    const bytes = Buffer.from([0, 255, 128, 10, 0xc3]);
    await write("k1", { path: "bin/blob", content: bytes.toString("base64"), encoding: "base64" });
    const r = (await read("k1", { path: "bin/blob", encoding: "base64" })) as {
      content: string;
      bytesRead: number;
    };
    expect(r.bytesRead).toBe(5);
    expect(Buffer.from(r.content, "base64").equals(bytes)).toBe(true);
    expect((await expectFailure(read("k1", { path: "bin/blob" }))).code).toBe("not_utf8");
  });

  it("appends, replaces by default, and refuses to replace when overwrite is false", async () => {
    await write("k1", { path: "log.txt", content: "a" });
    const appended = await write("k1", { path: "log.txt", content: "bc", append: true });
    expect(appended).toMatchObject({ bytesWritten: 2, size: 3, created: false });
    expect(await read("k1", { path: "log.txt" })).toMatchObject({ content: "abc" });
    await write("k1", { path: "log.txt", content: "z" });
    expect(await read("k1", { path: "log.txt" })).toMatchObject({ content: "z", bytesRead: 1 });
    const refused = await expectFailure(
      write("k1", { path: "log.txt", content: "y", overwrite: false }),
    );
    expect(refused.code).toBe("file_exists");
    expect(await read("k1", { path: "log.txt" })).toMatchObject({ content: "z" });
    expect(await write("k1", { path: "new.txt", content: "n", overwrite: false })).toMatchObject({
      created: true,
    });
  });

  it("appends to a file that does not exist yet, and concurrent appends all land", async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        write("k1", { path: "multi.txt", content: String(i), append: true }),
      ),
    );
    const r = (await read("k1", { path: "multi.txt" })) as { content: string };
    expect([...r.content].sort().join("")).toBe("0123456789");
  });

  it("caps file size at SKILLS_MAX_FILE_BYTES for writes and appends", async () => {
    expect(
      (await expectFailure(write("k1", { path: "big", content: "x".repeat(1025) }))).code,
    ).toBe("file_too_large");
    await write("k1", { path: "edge", content: "x".repeat(1024) });
    expect(
      (await expectFailure(write("k1", { path: "edge", content: "y", append: true }))).code,
    ).toBe("file_too_large");
    expect(await read("k1", { path: "edge" })).toMatchObject({ bytesRead: 1024 });
  });

  it("reports a missing file and bad base64 as tool errors", async () => {
    expect((await expectFailure(read("k1", { path: "nope.txt" }))).code).toBe("file_not_found");
    const bad = await expectFailure(
      write("k1", { path: "x", content: "not base64!!", encoding: "base64" }),
    );
    expect(bad.code).toBe("invalid_base64");
  });

  it("refuses invalid paths before touching the database", async () => {
    for (const path of ["../x", ".git/config", "/etc/passwd", "a\\b", "%2e%2e/x"]) {
      expect((await expectFailure(write("k1", { path, content: "x" }))).code).toBe("invalid_path");
      expect((await expectFailure(read("k1", { path }))).code).toBe("invalid_path");
    }
    expect(await deps.db.select().from(workspaceFiles)).toEqual([]);
  });

  it("names one file whether its path is written precomposed (NFC) or decomposed (NFD)", async () => {
    const nfc = "r\u00E9sum\u00E9/\u00C5ngstr\u00F6m.txt";
    const nfd = nfc.normalize("NFD");
    expect(nfd).not.toBe(nfc);
    const w = await write("k1", { path: nfc, content: "first" });
    expect(w).toMatchObject({ path: nfc, created: true });
    expect(await read("k1", { path: nfd })).toMatchObject({ path: nfc, content: "first" });
    const again = await write("k1", { path: nfd, content: "second" });
    expect(again).toMatchObject({ path: nfc, created: false });
    expect(await read("k1", { path: nfc })).toMatchObject({ content: "second" });
    const rows = await deps.db.select({ path: workspaceFiles.path }).from(workspaceFiles);
    expect(rows.map((r) => r.path)).toEqual([nfc]);
  });

  it("refuses forbidden names spelled with compatibility characters, writing nothing", async () => {
    for (const path of [
      ".\uFF45\uFF4E\uFF56",
      "\u017Fecrets/key",
      ".\u00DFh/id_rsa",
      ".GIT/HEAD",
    ]) {
      expect((await expectFailure(write("k1", { path, content: "x" }))).code).toBe("invalid_path");
      expect((await expectFailure(read("k1", { path }))).code).toBe("invalid_path");
    }
    expect(await deps.db.select().from(workspaceFiles)).toEqual([]);
  });

  it("keeps keys' workspaces apart", async () => {
    await write("key-a", { path: "shared-name.txt", content: "from A" });
    await write("key-b", { path: "shared-name.txt", content: "from B" });
    expect(await read("key-a", { path: "shared-name.txt" })).toMatchObject({ content: "from A" });
    expect(await read("key-b", { path: "shared-name.txt" })).toMatchObject({ content: "from B" });
    await write("key-a", { path: "only-a.txt", content: "secret" });
    expect((await expectFailure(read("key-b", { path: "only-a.txt" }))).code).toBe(
      "file_not_found",
    );
    expect((await expectFailure(read(null, { path: "only-a.txt" }))).code).toBe("file_not_found");
    const rows = await deps.db.select({ workspace: workspaceFiles.workspace }).from(workspaceFiles);
    expect(new Set(rows.map((r) => r.workspace))).toEqual(
      new Set([await workspaceIdFor("key-a"), await workspaceIdFor("key-b")]),
    );
  });
});
