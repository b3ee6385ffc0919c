/**
 * The protocol between the Skillgate API and its sandbox host: the shapes of requests and
 * answers (types.ts) with their zod schemas (schemas.ts), request signing and verification
 * (signing.ts), the host's error codes (errors.ts), the `browser` builtin's shapes (browse.ts) and
 * the outbound address rules shared by the API and the host's egress proxy (address-policy.ts),
 * and the words both sides use for a network failure (network-error.ts). No Node APIs: it runs in
 * workerd too.
 */
export * from "./address-policy.js";
export * from "./browse.js";
export * from "./errors.js";
export * from "./network-error.js";
export * from "./schemas.js";
export * from "./signing.js";
export * from "./types.js";
