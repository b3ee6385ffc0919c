/**
 * A2A test helpers: the official `@a2a-js/sdk` client (JSON-RPC transport, protocol 1.0) with a
 * bearer token on every request, messages that name a skill, and raw protocol 0.3 JSON-RPC calls.
 * Usable on Node and in workerd (pass `fetch` to route requests through the Worker entry).
 */
import { SendMessageRequest, type Task } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";

/** A fetch that adds `Authorization: Bearer <token>`. */
export function bearerFetch(token: string, base: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return base(input, { ...init, headers });
  };
}

/** An SDK client for the agent at `base`, found through its card. */
export function connectA2A(base: string, token: string, fetchImpl: typeof fetch = fetch) {
  const authFetch = bearerFetch(token, fetchImpl);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
    }),
  );
  return factory.createFromUrl(base);
}

/** A protocol 1.0 `SendMessage` request naming `skill`. */
export function skillMessage(
  skill: string,
  opts: { text?: string; data?: Record<string, unknown>; returnImmediately?: boolean } = {},
): SendMessageRequest {
  const parts: object[] = [{ text: opts.text ?? `run ${skill}` }];
  if (opts.data) parts.push({ data: opts.data });
  return SendMessageRequest.fromJSON({
    message: {
      role: "ROLE_USER",
      messageId: crypto.randomUUID(),
      parts,
      metadata: { skill },
    },
    configuration: { returnImmediately: opts.returnImmediately ?? false },
  });
}

/** Sends a message and returns the task (fails the test when the agent answered a message). */
export async function sendForTask(client: Client, request: SendMessageRequest): Promise<Task> {
  const result = await client.sendMessage(request);
  if (!("status" in result)) throw new Error("expected a task, got a message");
  return result;
}

/** The data part of a task's first artifact. */
export function artifactData(task: Task): any {
  for (const part of task.artifacts[0]?.parts ?? []) {
    if (part.content?.$case === "data") return part.content.value;
  }
  return undefined;
}

/** A raw JSON-RPC call to `<base>/a2a` (protocol 0.3 unless `version` is given). */
export async function rawRpc(
  base: string,
  token: string | null,
  method: string,
  params: unknown,
  opts: { version?: string; fetch?: typeof fetch } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (opts.version) headers["A2A-Version"] = opts.version;
  const res = await (opts.fetch ?? fetch)(`${base}/a2a`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: crypto.randomUUID(), method, params }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body, headers: res.headers };
}

/** A protocol 0.3 `message/send` params object naming `skill`. */
export function legacyMessage(skill: string, text = `run ${skill}`) {
  return {
    message: {
      kind: "message",
      role: "user",
      messageId: crypto.randomUUID(),
      parts: [{ kind: "text", text }],
      metadata: { skill },
    },
  };
}
