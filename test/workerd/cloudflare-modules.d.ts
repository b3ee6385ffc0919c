/**
 * Types of the runtime modules the workerd tests import (provided by workerd and
 * `@cloudflare/vitest-plugin`), limited to what the tests use. Declared here instead of pulling
 * `@cloudflare/workers-types` into the one project-wide TypeScript program, whose globals clash
 * with the DOM and Node types the rest of the repository uses.
 */
declare module "cloudflare:workers" {
  /** One key of a KV `list()` answer; `expiration` is in seconds since the epoch. */
  export interface KvListKey {
    name: string;
    expiration?: number;
  }

  /** The Workers KV namespace API the tests touch. */
  export interface TestKvNamespace {
    get(key: string, type: "json"): Promise<unknown>;
    get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
    get(key: string): Promise<string | null>;
    put(
      key: string,
      value: string | ArrayBuffer | ArrayBufferView,
      options?: { expirationTtl?: number },
    ): Promise<void>;
    delete(key: string): Promise<void>;
    list(options?: { prefix?: string }): Promise<{ keys: KvListKey[] }>;
  }

  /** Bindings of the workerd test project (test/workerd/vitest.config.ts and wrangler.toml). */
  export const env: {
    SKILLS_KV: TestKvNamespace;
    LIBSQL_URL: string;
    MGMT_TOKEN: string;
    [name: string]: unknown;
  };

  /** Loopback stubs of the main Worker's exports (workers/src/runtime/worker/index.ts). */
  export const exports: {
    default: {
      fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
      /** Runs the `scheduled` handler; settles when it has finished. */
      scheduled(options?: { scheduledTime?: Date | number; cron?: string }): Promise<unknown>;
    };
  };
}

declare module "cloudflare:test" {
  /** An `ExecutionContext` for calling a handler directly. */
  export function createExecutionContext(): {
    waitUntil(promise: Promise<unknown>): void;
    passThroughOnException(): void;
  };
  /** Waits for every promise passed to the context's `waitUntil()`. */
  export function waitOnExecutionContext(ctx: unknown): Promise<void>;
}
