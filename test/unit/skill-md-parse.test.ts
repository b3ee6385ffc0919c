import { describe, expect, it } from "vitest";
import {
  InvalidSkillMdError,
  parseSkillMd,
  versionFrom,
} from "../../workers/src/catalogs/skill-md.js";

const doc = (front: string, body = "# Use it\n\nSteps.") => `---\n${front}\n---\n\n${body}\n`;

function problem(text: string): InvalidSkillMdError {
  let caught: unknown;
  try {
    parseSkillMd(text);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(InvalidSkillMdError);
  const err = caught as InvalidSkillMdError;
  expect(err.status).toBe(422);
  expect(err.code).toBe("invalid_skill_md");
  return err;
}

describe("parseSkillMd", () => {
  it("reads name, description, version, tags and the body", () => {
    const md = parseSkillMd(
      doc(
        'name: pdf-tools\ndescription: "Fill and merge PDF forms"\nversion: 2.1.0\ntags: [pdf, forms]\nlicense: MIT',
      ),
    );
    expect(md).toMatchObject({
      name: "pdf-tools",
      description: "Fill and merge PDF forms",
      version: "2.1.0",
      tags: ["pdf", "forms"],
      body: "# Use it\n\nSteps.",
    });
    expect(md.frontmatter.license).toBe("MIT");
  });

  it("accepts CRLF line endings, a BOM and block scalars", () => {
    const text =
      "\uFEFF---\r\nname: 5h1w\r\ndescription: >\r\n  Who what\r\n  where\r\n---\r\nBody line\r\n";
    const md = parseSkillMd(text);
    expect(md).toMatchObject({
      name: "5h1w",
      description: "Who what where",
      body: "Body line",
      version: "1.0.0",
    });
  });

  it.each(["a", "pdf", "pdf-tools", "5h1w", "x1-y2-z3", "a".repeat(64)])(
    "accepts the name %s",
    (name) => {
      expect(parseSkillMd(doc(`name: ${name}\ndescription: d`)).name).toBe(name);
    },
  );

  it.each([
    "PDF-Tools",
    "-pdf",
    "pdf-",
    "pdf--tools",
    "pdf_tools",
    "pdf tools",
    "pdf.tools",
    "a".repeat(65),
    '""',
    "123abc!",
  ])("refuses the name %s", (name) => {
    const err = problem(doc(`name: ${name}\ndescription: d`));
    expect(err.details).toEqual([expect.objectContaining({ field: "name" })]);
  });

  it("enforces description length 1..1024", () => {
    expect(parseSkillMd(doc(`name: a\ndescription: ${"d".repeat(1024)}`)).description.length).toBe(
      1024,
    );
    expect(problem(doc(`name: a\ndescription: ${"d".repeat(1025)}`)).details).toEqual([
      expect.objectContaining({ field: "description" }),
    ]);
    expect(problem(doc("name: a")).details).toEqual([
      expect.objectContaining({ field: "description" }),
    ]);
    expect(problem(doc('name: a\ndescription: "  "')).message).toContain("description");
  });

  it("reads typed YAML scalars as the text written: name 404, version 1.10, numeric tags", () => {
    const md = parseSkillMd(
      doc("name: 404\ndescription: 42\nversion: 1.10\ntags: [1.10, 2, true, web]"),
    );
    expect(md).toMatchObject({
      name: "404",
      description: "42",
      version: "1.10.0",
      tags: ["1.10", "2", "true", "web"],
    });
    expect(parseSkillMd(doc("name: 2024\ndescription: d\nversion: 3")).version).toBe("3.0.0");
    expect(parseSkillMd(doc("name: true\ndescription: 0x1F")).description).toBe("0x1F");
    expect(
      parseSkillMd(doc("name: a\ndescription: d\nmetadata:\n  version: 2.50\n  tags: [1.0]")),
    ).toMatchObject({ version: "2.50.0", tags: ["1.0"] });
    expect(parseSkillMd(doc('name: a\ndescription: d\nversion: "1.10"')).version).toBe("1.10.0");
    expect(parseSkillMd(doc("base: &v 1.20\nname: a\ndescription: d\nversion: *v")).version).toBe(
      "1.20.0",
    );
  });

  it("treats null, ~ and empty values as missing, and mappings as invalid", () => {
    expect(problem(doc("name: null\ndescription: d")).details).toEqual([
      expect.objectContaining({ field: "name" }),
    ]);
    expect(problem(doc("name: a\ndescription: ~")).details).toEqual([
      expect.objectContaining({ field: "description" }),
    ]);
    expect(problem(doc("name:\ndescription:\n  nested: 1")).details).toEqual([
      expect.objectContaining({ field: "name" }),
      expect.objectContaining({ field: "description" }),
    ]);
  });

  it("refuses a missing frontmatter, bad YAML, a non-mapping and an empty body", () => {
    expect(problem("# Just markdown\n").message).toContain("no YAML frontmatter");
    expect(problem(doc("name: [unclosed\ndescription: d")).message).toContain("not valid YAML");
    expect(problem(doc("- a\n- b")).message).toContain("mapping");
    expect(problem(doc("name: a\ndescription: d", "   ")).details).toEqual([
      expect.objectContaining({ field: "body" }),
    ]);
  });
});

describe("versionFrom", () => {
  it.each([
    [{ version: "2.1.0" }, "2.1.0"],
    [{ version: "v3.0.1" }, "3.0.1"],
    [{ version: "1.2.3-beta.1" }, "1.2.3"],
    [{ metadata: { version: "0.4.0" } }, "0.4.0"],
    [{ version: "latest", metadata: { version: "0.5.0" } }, "0.5.0"],
    [{ version: 1.5 }, "1.0.0"],
    [{ version: "1.0" }, "1.0.0"],
    [{ version: "1.10" }, "1.10.0"],
    [{ version: "2" }, "2.0.0"],
    [{ version: "v2.3" }, "2.3.0"],
    [{ version: "1.2.3.4" }, "1.0.0"],
    [{ version: "latest" }, "1.0.0"],
    [{}, "1.0.0"],
  ])("%j → %s", (front, expected) => {
    expect(versionFrom(front as Record<string, unknown>)).toBe(expected);
  });
});
