import { describe, expect, it } from "vitest";
import {
  validateWorkspacePath,
  WorkspacePathError,
} from "../../workers/src/skills/builtins/workspace-path.js";

/** [input, reason] pairs that must be refused before any I/O. */
const REFUSED: Array<[unknown, string]> = [
  ["", "empty"],
  ["   ", "empty"],
  [42, "type"],
  [null, "type"],
  ["/etc/passwd", "absolute"],
  ["//server/share", "absolute"],
  ["~/notes.txt", "absolute"],
  ["C:\\Windows\\win.ini", "backslash"],
  ["C:/Windows/win.ini", "drive_letter"],
  ["c:notes.txt", "drive_letter"],
  ["file:///etc/passwd", "colon"],
  ["notes.txt:stream", "colon"],
  ["..\\secret.txt", "backslash"],
  ["a\\b.txt", "backslash"],
  ["..", "traversal"],
  ["../x", "traversal"],
  ["a/../b", "traversal"],
  ["a/b/..", "traversal"],
  ["a/..hidden", "traversal"],
  ["x..y", "traversal"],
  ["....//x", "traversal"],
  ["%2e%2e/x", "percent_encoded"],
  ["%2E%2E%2Fx", "percent_encoded"],
  ["a%2fb", "percent_encoded"],
  ["%252e%252e/x", "percent_encoded"],
  ["a%00.txt", "percent_encoded"],
  ["\uFF0E\uFF0E/x", "lookalike"],
  ["\u2024\u2024/x", "lookalike"],
  ["\u2025/x", "lookalike"],
  ["a\u2215b", "lookalike"],
  ["a\uFF0Fb", "lookalike"],
  ["a\uFE68b", "lookalike"],
  ["\u3002\u3002/x", "lookalike"],
  ["\uFE52\uFE52/x", "lookalike"],
  ["a\u00B7b", "lookalike"],
  ["\u2026/x", "lookalike"],
  ["\uFE55x", "lookalike"],
  ["note\u0000.txt", "nul"],
  ["note\u0007.txt", "control"],
  ["a\u200Bb", "control"],
  ["a\u202Eb", "control"],
  ["a/", "directory"],
  ["./", "directory"],
  [".", "empty"],
  ["./.", "empty"],
  [".env", "forbidden"],
  [".ENV", "forbidden"],
  ["config/.env", "forbidden"],
  [".env.local", "forbidden"],
  [".Env.Production", "forbidden"],
  [".git/config", "forbidden"],
  [".GIT/HEAD", "forbidden"],
  [".git./config", "forbidden"],
  [".git /config", "forbidden"],
  ["home/.ssh/id_rsa", "forbidden"],
  [".omniroute/db.json", "forbidden"],
  [".codex/auth.json", "forbidden"],
  ["secrets", "forbidden"],
  ["SECRETS/key.pem", "forbidden"],
  ["app/Secrets/token", "forbidden"],
  ["a".repeat(256), "too_long"],
  [`${"abc/".repeat(300)}x`, "too_long"],
];

/** [input, normalised] pairs that must be accepted. */
const ACCEPTED: Array<[string, string]> = [
  ["notes.txt", "notes.txt"],
  ["docs/plan.md", "docs/plan.md"],
  ["a/b/c/d/e/f.json", "a/b/c/d/e/f.json"],
  ["./report.csv", "report.csv"],
  ["a//b.txt", "a/b.txt"],
  ["a/./b.txt", "a/b.txt"],
  [".hidden", ".hidden"],
  [".config/app.toml", ".config/app.toml"],
  ["env/config.txt", "env/config.txt"],
  ["my.env.example", "my.env.example"],
  ["gitlog.txt", "gitlog.txt"],
  ["secrets.txt", "secrets.txt"],
  ["data/secrets-policy.md", "data/secrets-policy.md"],
  ["file.", "file."],
  ["日本語/ファイル.txt", "日本語/ファイル.txt"],
  ["données/été.txt", "données/été.txt"],
  ["100%.txt", "100%.txt"],
  ["a b/c d.txt", "a b/c d.txt"],
];

describe("validateWorkspacePath", () => {
  it.each(REFUSED)("refuses %j (%s)", (input, reason) => {
    let caught: unknown;
    try {
      validateWorkspacePath(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WorkspacePathError);
    expect((caught as WorkspacePathError).reason).toBe(reason);
    expect((caught as WorkspacePathError).code).toBe("invalid_path");
    expect((caught as WorkspacePathError).message).toMatch(/^Invalid workspace path: /);
  });

  it.each(ACCEPTED)("accepts %j as %j", (input, normalised) => {
    expect(validateWorkspacePath(input)).toBe(normalised);
  });
});
