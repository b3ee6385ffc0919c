/**
 * The protocol between the Skillgate API and its sandbox host: the shapes of requests and
 * answers (types.ts) with their zod schemas (schemas.ts), request signing and verification
 * (signing.ts) and the host's error codes (errors.ts). No Node APIs: it runs in workerd too.
 */
export * from "./errors.js";
export * from "./schemas.js";
export * from "./signing.js";
export * from "./types.js";
