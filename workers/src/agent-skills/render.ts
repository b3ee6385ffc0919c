/**
 * Markdown of one Agent Skills entry from the operations of its route group (docs/agent-skills.md):
 * an endpoint table, then per operation its parameters, request body fields, a curl example built
 * from the schema (examples, defaults, enum values, placeholders) and its response codes, then
 * the error envelope. Everything is derived from the OpenAPI document, so the text follows the API.
 */
import { deref, isObj, type Obj, type OpenApiDocument, type Operation } from "./openapi.js";

/** Pipes and line breaks would break a Markdown table cell. */
function cell(text: string | undefined): string {
  return (text ?? "").replaceAll("|", "\\|").replace(/\s*\n\s*/g, " ");
}

/** A short type label: `string`, `integer ≥ 1`, `"a" \| "b"`, `array of string`, `object`. */
export function typeLabel(doc: OpenApiDocument, raw: unknown, depth = 0): string {
  const s = deref(doc, raw);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const alts = [s.anyOf, s.oneOf].find(Array.isArray);
  if (alts && depth < 3) return alts.map((a) => typeLabel(doc, a, depth + 1)).join(" or ");
  const type = Array.isArray(s.type)
    ? s.type.join(" or ")
    : typeof s.type === "string"
      ? s.type
      : "";
  if (type === "array" && depth < 3) return `array of ${typeLabel(doc, s.items, depth + 1)}`;
  if (type === "") return "any JSON value";
  const bounds: string[] = [];
  if (typeof s.minimum === "number") bounds.push(`≥ ${s.minimum}`);
  if (typeof s.maximum === "number") bounds.push(`≤ ${s.maximum}`);
  if (typeof s.maxLength === "number") bounds.push(`≤ ${s.maxLength} chars`);
  return bounds.length ? `${type} (${bounds.join(", ")})` : type;
}

/** An example value for a schema: its example, default, first enum value, or a placeholder. */
function exampleOf(doc: OpenApiDocument, raw: unknown, name: string, depth = 0): unknown {
  const s = deref(doc, raw);
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "integer" || type === "number") return typeof s.minimum === "number" ? s.minimum : 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "object" || isObj(s.properties))
    return depth < 2 ? bodyExample(doc, s, depth + 1) : {};
  if (type === "string") return `<${name}>`;
  return {};
}

/** An example object with the required properties (and those that carry an example). */
function bodyExample(doc: OpenApiDocument, schema: Obj, depth = 0): Obj {
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const out: Obj = {};
  for (const [name, raw] of Object.entries(props)) {
    const p = deref(doc, raw);
    if (required.includes(name) || p.example !== undefined)
      out[name] = exampleOf(doc, p, name, depth);
  }
  return out;
}

/** Shell single-quoting. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function curlExample(doc: OpenApiDocument, op: Operation): string {
  const path = op.path.replace(/\{([^}]+)\}/g, "<$1>");
  const query = op.parameters
    .filter((p) => p.in === "query" && p.required)
    .map((p) => `${p.name}=${String(exampleOf(doc, p.schema, p.name))}`);
  const url = `$SKILLGATE_URL${path}${query.length ? `?${query.join("&")}` : ""}`;
  const lines = [
    `curl -s -X ${op.method} "${url}"`,
    `  -H "authorization: Bearer $SKILLGATE_TOKEN"`,
  ];
  if (op.body) {
    lines.push(`  -H "content-type: application/json"`);
    lines.push(`  -d ${shellQuote(JSON.stringify(bodyExample(doc, op.body.schema)))}`);
  }
  return ["```sh", lines.join(" \\\n"), "```"].join("\n");
}

function operationSection(doc: OpenApiDocument, op: Operation): string {
  const out = [`### \`${op.method} ${op.path}\` — ${op.summary}`, ""];
  if (op.description) out.push(op.description, "");
  if (op.operationId) out.push(`Operation id: \`${op.operationId}\`.`, "");
  if (op.parameters.length > 0) {
    out.push(
      "Parameters:",
      "",
      "| name | in | type | required | description |",
      "|---|---|---|---|---|",
    );
    for (const p of op.parameters) {
      out.push(
        `| \`${p.name}\` | ${p.in} | ${cell(typeLabel(doc, p.schema))} | ${p.required ? "yes" : "no"} | ${cell(p.description)} |`,
      );
    }
    out.push("");
  }
  if (op.body) {
    const props = isObj(op.body.schema.properties) ? op.body.schema.properties : {};
    const required = Array.isArray(op.body.schema.required) ? op.body.schema.required : [];
    out.push(`Request body (\`application/json\`${op.body.required ? ", required" : ""}):`, "");
    if (Object.keys(props).length > 0) {
      out.push("| field | type | required | description |", "|---|---|---|---|");
      for (const [name, raw] of Object.entries(props)) {
        const p = deref(doc, raw);
        const desc = typeof p.description === "string" ? p.description : "";
        out.push(
          `| \`${name}\` | ${cell(typeLabel(doc, p))} | ${required.includes(name) ? "yes" : "no"} | ${cell(desc)} |`,
        );
      }
    } else out.push(`A JSON value of type ${typeLabel(doc, op.body.schema)}.`);
    out.push("");
  }
  out.push("Example:", "", curlExample(doc, op), "");
  out.push("Responses:", "", "| status | meaning |", "|---|---|");
  for (const [code, description] of op.responses) out.push(`| ${code} | ${cell(description)} |`);
  out.push("");
  return out.join("\n");
}

/**
 * The Markdown body of an entry.
 * @param title heading; @param intro what the group is for and when to use it.
 */
export function renderGroup(
  doc: OpenApiDocument,
  title: string,
  intro: string,
  ops: readonly Operation[],
): string {
  const out = [`# ${title}`, "", intro, ""];
  out.push(
    "Calls go to a Skillgate deployment (`SKILLGATE_URL`, e.g. `http://127.0.0.1:20128`) with",
    "`Authorization: Bearer <token>`: an API key acts in its own scope, the management token on",
    "everything. The OpenAPI document of the deployment is at `GET /openapi.json`.",
    "",
    "## Endpoints",
    "",
    "| method | path | summary |",
    "|---|---|---|",
  );
  for (const op of ops) out.push(`| ${op.method} | \`${op.path}\` | ${cell(op.summary)} |`);
  out.push("", "## Operations", "");
  for (const op of ops) out.push(operationSection(doc, op));
  out.push(
    "## Errors",
    "",
    'Every error answers `{ "error": { "code", "message", "details"? } }` with the status listed',
    "for the operation: 400 invalid input (`details` names the failing fields; `invalid_json` for a",
    "body that does not parse), 401 missing or invalid credentials, 403 acting for another key, 404",
    "unknown or invisible ids, 409 conflicts, 503 when skills execution is switched off or the",
    "sandbox host is unreachable. A skill execution that ran and failed is not an HTTP error: it",
    "answers 200 with the execution, whose `status` is `error` or `timeout`.",
    "",
  );
  return out.join("\n");
}
