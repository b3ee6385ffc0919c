/**
 * The parts of an OpenAPI 3.1 document the Agent Skills generator reads (OpenAPI Specification
 * 3.1.0: Paths, Operation, Parameter, Request Body and Schema objects), with narrowing helpers over
 * plain JSON so that any document the app serves can be read without casts.
 */

/** A JSON object. */
export type Obj = Record<string, unknown>;

/** The document: `info`, `paths` and `components`. */
export interface OpenApiDocument {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, unknown>;
  components?: unknown;
}

/** One operation with its method and path. */
export interface Operation {
  method: string;
  path: string;
  operationId: string | undefined;
  summary: string;
  description: string | undefined;
  parameters: Parameter[];
  body: { required: boolean; schema: Obj } | undefined;
  /** Status code → description, in code order. */
  responses: [string, string][];
}

/** A path, query or header parameter. */
export interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Obj;
  description: string | undefined;
}

/** HTTP methods an OpenAPI path item may hold, in the order they are listed. */
export const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** True for a plain JSON object. */
export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * Follows a local `$ref` (`#/components/...`) until a schema without one (at most 16 hops).
 * @returns the target, or `{}` for an unknown or circular reference.
 */
export function deref(doc: OpenApiDocument, node: unknown): Obj {
  let cur: unknown = node;
  for (let hops = 0; hops < 16; hops++) {
    if (!isObj(cur)) return {};
    const ref = cur.$ref;
    if (typeof ref !== "string") return cur;
    let target: unknown = doc;
    for (const part of ref.replace(/^#\//, "").split("/")) {
      target = isObj(target) ? target[part.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
    }
    cur = target;
  }
  return {};
}

function parameterOf(doc: OpenApiDocument, raw: unknown): Parameter | undefined {
  const p = deref(doc, raw);
  const name = str(p.name);
  const where = str(p.in);
  if (!name || !where) return undefined;
  const schema = deref(doc, p.schema);
  return {
    name,
    in: where,
    required: p.required === true,
    schema,
    description: str(p.description) ?? str(schema.description),
  };
}

/** Every operation of the document, in path order, then method order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    if (!isObj(rawItem)) continue;
    for (const method of METHODS) {
      const op = rawItem[method];
      if (!isObj(op)) continue;
      const params = [
        ...(Array.isArray(rawItem.parameters) ? rawItem.parameters : []),
        ...(Array.isArray(op.parameters) ? op.parameters : []),
      ]
        .map((p) => parameterOf(doc, p))
        .filter((p): p is Parameter => p !== undefined);
      const rb = deref(doc, op.requestBody);
      const content = isObj(rb.content) ? rb.content["application/json"] : undefined;
      const body = isObj(content)
        ? { required: rb.required === true, schema: deref(doc, content.schema) }
        : undefined;
      const responses = Object.entries(isObj(op.responses) ? op.responses : {})
        .map(([code, r]): [string, string] => [code, str(deref(doc, r).description) ?? ""])
        .sort(([a], [b]) => a.localeCompare(b));
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: str(op.operationId),
        summary: str(op.summary) ?? `${method.toUpperCase()} ${path}`,
        description: str(op.description),
        parameters: params,
        body,
        responses,
      });
    }
  }
  return out;
}
