/**
 * The dashboard's view of a key's proxied token usage today and its daily token budget
 * (docs/limits.md#token-budgets), one row per counter (`data-tokens="<name>"`).
 */
import type { FC } from "hono/jsx";
import type { TokenUsageView } from "../services/usage.js";

/** Today's tokens, requests, rounds and owned calls of a key, against its budget. */
export const TokensToday: FC<{ view: TokenUsageView }> = ({ view }) => {
  const { today, dailyTokenBudget } = view;
  const rows: [string, string, number][] = [
    ["inputTokens", "Input tokens", today.inputTokens],
    ["outputTokens", "Output tokens", today.outputTokens],
    ["requests", "Proxied requests", today.requests],
    ["rounds", "Upstream rounds", today.rounds],
    ["ownedCalls", "Tool calls run by Skillgate", today.ownedCalls],
  ];
  return (
    <table aria-label="Tokens today">
      <thead>
        <tr>
          <th>Proxy usage on {today.day} (UTC)</th>
          <th class="num">Value</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, label, value]) => (
          <tr data-tokens={name}>
            <td>{label}</td>
            <td class="num" data-field="value">
              {value}
            </td>
          </tr>
        ))}
        <tr data-tokens="dailyTokenBudget">
          <td>Daily token budget (input plus output)</td>
          <td class="num" data-field="value">
            {dailyTokenBudget === null ? "no budget" : dailyTokenBudget}
          </td>
        </tr>
      </tbody>
    </table>
  );
};
