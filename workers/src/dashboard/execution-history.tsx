/**
 * Tables of an execution's detail page (docs/dashboard.md): its attempts with placement, limits
 * and upgrade reason (docs/execution.md#auto-upgrade), and the deliveries of its approval
 * notification (docs/approval-notifications.md). Nothing is shown for an empty list.
 */
import type { FC } from "hono/jsx";
import type { Execution } from "../skills/types.js";
import { when } from "./layout.js";

/** The attempts of `e`, one row each. */
export const AttemptsTable: FC<{ e: Execution }> = ({ e }) =>
  e.attemptLog.length === 0 ? null : (
    <div class="card" data-field="attempts">
      <h2 style="margin-top:0">Attempts</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>#</th>
              <th>Placement</th>
              <th>Time limit</th>
              <th>Memory</th>
              <th>Outcome</th>
              <th>Duration</th>
              <th>Upgraded after</th>
            </tr>
          </thead>
          <tbody>
            {e.attemptLog.map((a) => (
              <tr>
                <td>{a.attempt}</td>
                <td>{a.placement}</td>
                <td>{a.timeoutMs} ms</td>
                <td>{a.memoryMb === null ? "—" : `${a.memoryMb} MB`}</td>
                <td>{a.errorCode ? `${a.status} (${a.errorCode})` : a.status}</td>
                <td>{a.durationMs} ms</td>
                <td>{a.upgradeReason ? a.upgradeReason.replace(/_/g, " ") : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );

/** The approval-notification deliveries of `e`, one row per attempt. */
export const NotificationsTable: FC<{ e: Execution }> = ({ e }) =>
  e.notifications.length === 0 ? null : (
    <div class="card" data-field="notifications">
      <h2 style="margin-top:0">Approval notifications</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>#</th>
              <th>Sent</th>
              <th>Target</th>
              <th>Answer</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {e.notifications.map((n) => (
              <tr>
                <td>{n.attempt}</td>
                <td>{when(n.at)} UTC</td>
                <td>
                  <code>{n.target}</code>
                </td>
                <td>{n.ok ? `delivered (${n.status})` : `failed: ${n.error ?? "unknown"}`}</td>
                <td>{n.durationMs} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
