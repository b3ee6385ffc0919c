import { describe, expect, it } from "vitest";
import {
  FORBIDDEN_SEGMENTS,
  segmentKey,
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
  // Forbidden names written with compatibility characters or other letter cases.
  [".\uFF45\uFF4E\uFF56", "forbidden"], // .ｅｎｖ (full-width letters)
  ["\u017Fecrets", "forbidden"], // ſecrets (long s)
  ["config/.\uFF25\uFF2E\uFF36", "forbidden"], // .ＥＮＶ
  ["\uFF33\uFF25\uFF23\uFF32\uFF25\uFF34\uFF33/key.pem", "forbidden"], // ＳＥＣＲＥＴＳ
  ["\u{1D42C}\u{1D41E}\u{1D41C}\u{1D42B}\u{1D41E}\u{1D42D}\u{1D42C}", "forbidden"], // mathematical bold
  [".\u017F\u017Fh/id_rsa", "forbidden"], // .ſſh
  [".g\u0131t/config", "forbidden"], // dotless i
  [".\u00DFh/known_hosts", "forbidden"], // .ßh folds to .ssh
  [".\u1E9Eh", "forbidden"], // capital sharp s
  [".\uFF47\uFF49\uFF54/HEAD", "forbidden"], // .ｇｉｔ
  [".env\u3000", "forbidden"], // ideographic space at the end
  [".env\u00A0/x", "forbidden"], // no-break space at the end
  [".\uFF45nv.local", "forbidden"], // .ｅnv.local
  [".omni\uFF52oute/db.json", "forbidden"],
  [".CODE\uFF58/auth.json", "forbidden"],
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
  // Stored in NFC: a decomposed name becomes the precomposed one.
  ["cafe\u0301.txt", "caf\u00E9.txt"],
  ["caf\u00E9.txt", "caf\u00E9.txt"],
  ["A\u030Angstro\u0308m/n\u0303.md", "\u00C5ngstr\u00F6m/\u00F1.md"],
  ["\u1100\u1161.txt", "\uAC00.txt"], // Hangul jamo compose
  // Compatibility characters that do not spell a forbidden name stay as written (NFC only).
  [
    "\uFF53\uFF45\uFF43\uFF52\uFF45\uFF54\uFF53.txt",
    "\uFF53\uFF45\uFF43\uFF52\uFF45\uFF54\uFF53.txt",
  ],
  ["\u017F\u017Fh", "\u017F\u017Fh"],
  ["\uFB01le.txt", "\uFB01le.txt"], // ﬁ ligature
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

describe("segmentKey", () => {
  it("folds compatibility forms and letter case onto the forbidden names", () => {
    expect(segmentKey(".\uFF45\uFF4E\uFF56")).toBe(".env");
    expect(segmentKey("\u017Fecrets")).toBe("secrets");
    expect(segmentKey("SECRE\uFF34S.. ")).toBe("secrets");
    expect(segmentKey(".\u1E9Esh")).toBe(".sssh"); // capital sharp s folds to "ss"
  });

  it("maps every forbidden name, in upper case and full width, to itself", () => {
    const fullWidth = (s: string) =>
      [...s]
        .map((ch) => (/[a-z]/.test(ch) ? String.fromCodePoint(ch.codePointAt(0)! + 0xfee0) : ch))
        .join("");
    for (const name of FORBIDDEN_SEGMENTS) {
      expect(segmentKey(name.toUpperCase())).toBe(name);
      expect(segmentKey(fullWidth(name))).toBe(name);
      expect(() => validateWorkspacePath(`dir/${fullWidth(name.toUpperCase())}`)).toThrow(
        WorkspacePathError,
      );
    }
  });
});
