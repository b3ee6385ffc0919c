/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, docs/custom-skills.md#verifying-requests):
 * a secret is `whsec_` + base64 of random bytes; a request carries `webhook-id`,
 * `webhook-timestamp` (seconds since the epoch) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` keyed with the decoded secret bytes. Web Crypto only (Node and Workers).
 */
import { InvalidInputError } from "../../errors.js";

/** Prefix of a Standard Webhooks secret. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** Bytes of randomness in a new secret (Standard Webhooks: 24 to 64). */
const SECRET_BYTES = 32;

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/**
 * Checks a Standard Webhooks secret given by an operator: `whsec_` + base64 of 24 to 64 bytes.
 * @param field the request field named in the error.
 * @throws InvalidInputError `invalid_webhook_secret` when it is missing or malformed.
 */
export function requireWebhookSecret(secret: string | null | undefined, field: string): void {
  let bytes = 0;
  if (secret?.startsWith(WEBHOOK_SECRET_PREFIX)) {
    try {
      bytes = fromBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length)).length;
    } catch {
      bytes = 0;
    }
  }
  if (bytes < 24 || bytes > 64) {
    throw new InvalidInputError(
      `${field} must be a Standard Webhooks secret: whsec_ followed by base64 of 24 to 64 bytes`,
      [{ field, message: secret ? "malformed" : "required with a webhook URL" }],
      "invalid_webhook_secret",
    );
  }
}

/** A new random signing secret, `whsec_<base64 of 32 bytes>`. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/**
 * The `webhook-signature` value of one request: `v1,<base64 signature>`.
 * @param secret `whsec_<base64>` (the prefix is optional).
 * @param id the `webhook-id` value; @param timestampS the `webhook-timestamp` value in seconds.
 * @param body the exact request body text.
 * @throws Error when the secret is not base64.
 */
export async function signWebhook(
  secret: string,
  id: string,
  timestampS: number,
  body: string,
): Promise<string> {
  const raw = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(raw),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode(`${id}.${timestampS}.${body}`),
  );
  return `v1,${toBase64(new Uint8Array(mac))}`;
}
