/**
 * The one registry of Skillgate's error codes, shared by the API (`workers/`) and the sandbox
 * host (`sandbox-host/`, through `@skillgate/sandbox-protocol`): every code an HTTP answer can
 * carry in `{ error: { code, message, details? } }`, with its HTTP status, whether the same
 * request may succeed when sent again later, and a public message. No runtime dependencies: it
 * runs in workerd and Node.
 */
export * from "./codes.js";
export * from "./registry.js";
