/**
 * A client that sends oversized bodies from its own process (run with tsx), as a real caller
 * does: a client inside the server's process shares its event loop and its timing, and never
 * sees the race between the server's answer and the bytes it is still sending.
 *
 * Argument: a JSON {@link OversizeJob}. Prints one JSON line: an array of {@link OversizeResult},
 * one per try.
 */
import { request as httpRequest } from "node:http";
import OpenAI from "openai";

/** What to send, and how. */
export interface OversizeJob {
  /** `fetch-length`: Node fetch with a string body (Content-Length); `fetch-stream`: Node fetch
   * with a stream body (chunked); `openai`: the openai SDK's Chat Completions call through the
   * proxy; `http-chunked`: node:http, chunks made as they are sent (for bodies of 100 MB+). */
  mode: "fetch-length" | "fetch-stream" | "openai" | "http-chunked";
  url: string;
  path: string;
  token: string;
  /** Bytes of filler between `head` and `tail`. */
  bytes: number;
  head?: string;
  tail?: string;
  contentType?: string;
  /** Further request headers (`http-chunked`). */
  headers?: Record<string, string>;
  tries: number;
}

/** One try: the answer's status with its error code and message, or the client's failure. */
export interface OversizeResult {
  status?: number;
  code?: string;
  message?: string;
  failure?: string;
}

/** Code and message of an error body in any shape the app answers with (Skillgate, providers). */
function errorOf(text: string): { code?: string; message?: string } {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const code = body.error?.code;
    return {
      code: typeof code === "string" ? code : undefined,
      message: typeof body.error?.message === "string" ? body.error.message : undefined,
    };
  } catch {
    return { message: text.slice(0, 200) };
  }
}

function failureOf(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return `${e.message} (${e.cause?.code ?? e.cause?.message ?? "no cause"})`;
}

async function viaFetch(job: OversizeJob): Promise<OversizeResult> {
  const text = `${job.head ?? ""}${"a".repeat(job.bytes)}${job.tail ?? ""}`;
  let body: BodyInit = text;
  if (job.mode === "fetch-stream") {
    const bytes = new TextEncoder().encode(text);
    let offset = 0;
    body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, offset + 65_536));
        offset += 65_536;
      },
    });
  }
  try {
    const res = await fetch(job.url + job.path, {
      method: "POST",
      headers: {
        authorization: `Bearer ${job.token}`,
        "content-type": job.contentType ?? "application/json",
      },
      body,
      duplex: "half",
    } as RequestInit);
    return { status: res.status, ...errorOf(await res.text()) };
  } catch (err) {
    return { failure: failureOf(err) };
  }
}

async function viaOpenai(job: OversizeJob): Promise<OversizeResult> {
  const client = new OpenAI({ apiKey: job.token, baseURL: `${job.url}/v1`, maxRetries: 0 });
  try {
    await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "a".repeat(job.bytes) }],
    });
    return { status: 200 };
  } catch (err) {
    if (err instanceof OpenAI.APIError && err.status !== undefined)
      return { status: err.status, code: err.code ?? undefined, message: err.message };
    return { failure: failureOf(err) };
  }
}

function viaHttpChunked(job: OversizeJob): Promise<OversizeResult> {
  return new Promise((resolve) => {
    const url = new URL(job.path, job.url);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: "POST",
      headers: {
        authorization: `Bearer ${job.token}`,
        "content-type": job.contentType ?? "application/json",
        "transfer-encoding": "chunked",
        ...job.headers,
      },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode, ...errorOf(text) }));
      res.on("error", (err) => resolve({ status: res.statusCode, failure: failureOf(err) }));
    });
    req.on("error", (err) => {
      if (!answered) resolve({ failure: failureOf(err) });
    });
    const chunk = "a".repeat(65_536);
    let sent = 0;
    const pump = (): void => {
      while (sent < job.bytes) {
        if (answered || req.destroyed) return;
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      req.end(job.tail ?? "");
    };
    req.write(job.head ?? "");
    pump();
  });
}

const job = JSON.parse(process.argv[2]!) as OversizeJob;
const results: OversizeResult[] = [];
for (let i = 0; i < job.tries; i++) {
  if (job.mode === "openai") results.push(await viaOpenai(job));
  else if (job.mode === "http-chunked") results.push(await viaHttpChunked(job));
  else results.push(await viaFetch(job));
}
console.log(JSON.stringify(results));
