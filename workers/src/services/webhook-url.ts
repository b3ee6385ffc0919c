/**
 * The set-time check of an approval webhook URL (docs/approval-notifications.md#where-it-goes):
 * the outbound guard's literal rules (workers/src/outbound/guard.ts, docs/outbound.md#the-guard)
 * without resolving names — scheme http or https, no user name or password, none of the refused
 * special names (`localhost`, `.internal`, ...), and an IP literal only when it is public unicast.
 * Names are resolved and checked again at every delivery.
 */
import { InvalidInputError } from "../errors.js";
import { guardOutboundUrl, OutboundBlockedError } from "../outbound/guard.js";

/**
 * Checks `url`, given in the request field `field`.
 * @throws InvalidInputError `invalid_webhook_url` (400) naming the rule it breaks; the message
 *   never repeats the URL (it may carry credentials).
 */
export async function requireWebhookUrl(url: string, field: string): Promise<void> {
  try {
    await guardOutboundUrl(url);
  } catch (err) {
    if (!(err instanceof OutboundBlockedError)) throw err;
    const why = err.message.replace(/^Outbound request refused: /, "");
    throw new InvalidInputError(
      `${field} is not an allowed webhook target: ${why}`,
      [{ field, message: why, rule: err.reason }],
      "invalid_webhook_url",
    );
  }
}

/**
 * `url` as the API shows it: without a user name or password, should a URL stored before the
 * set-time check carry them (they are credentials). null stays null; an unparsable URL is shown
 * as stored.
 */
export function shownWebhookUrl(url: string | null): string | null {
  if (url === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username === "" && parsed.password === "") return url;
  parsed.username = "";
  parsed.password = "";
  return parsed.href;
}
