/**
 * What every `skillgate` command needs: the API client built from the global options
 * (`--url`/`SKILLGATE_URL`, `--token`/`SKILLGATE_TOKEN`), whether to print JSON, and reading
 * JSON values inline or from a file (`@path`).
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { CliError, EXIT, SkillgateClient } from "./client.js";

/** Global options of the program. */
export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** Per-command context. */
export interface Ctx {
  client: SkillgateClient;
  json: boolean;
}

/** Default server URL when neither `--url` nor `SKILLGATE_URL` is set. */
export const DEFAULT_URL = "http://127.0.0.1:20128";

/** Builds the context from the root program's options. */
export function ctxOf(cmd: Command): Ctx {
  const o = cmd.optsWithGlobals<GlobalOptions>();
  return {
    client: new SkillgateClient({
      url: o.url ?? process.env.SKILLGATE_URL ?? DEFAULT_URL,
      token: o.token ?? process.env.SKILLGATE_TOKEN,
    }),
    json: o.json === true,
  };
}

/** Reads a file's text. @throws CliError (usage) naming the file when it cannot be read. */
export function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new CliError(`Cannot read ${path}: ${(err as Error).message}`, EXIT.usage);
  }
}

/**
 * Parses a JSON argument given inline or as `@file`.
 * @throws CliError (usage) with the parse error.
 */
export function jsonArg(value: string, what: string): unknown {
  const textValue = value.startsWith("@") ? readText(value.slice(1)) : value;
  try {
    return JSON.parse(textValue);
  } catch (err) {
    throw new CliError(`${what} is not valid JSON: ${(err as Error).message}`, EXIT.usage);
  }
}

/** Builds a query string from defined values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
