/**
 * Per-key limits and usage in the dashboard (docs/dashboard.md#limits-and-usage, the limits of
 * docs/rate-limits.md): the tables of a key's effective limits (its own override or the default,
 * marked) and of its usage today, the forms that edit a key's overrides and the default limits,
 * and the parsing of those forms' fields.
 */
import type { FC } from "hono/jsx";
import {
  type ExecutionLimits,
  type KeyLimitsView,
  LIMIT_NAMES,
  type LimitOverrides,
} from "../services/limits.js";
import { Csrf } from "./layout.js";

/** Name of one limit (`executionsPerMinute`, `concurrentSandboxRuns`, `dailySandboxSeconds`). */
export type LimitName = (typeof LIMIT_NAMES)[number];

/** Largest limit value the REST API takes (`PUT /api/keys/{id}/limits`), also held here. */
const MAX_LIMIT = 1_000_000_000;

/** Label of each limit, with its unit. */
export const LIMIT_LABELS: Record<LimitName, string> = {
  executionsPerMinute: "Executions per minute",
  concurrentSandboxRuns: "Concurrent sandbox runs",
  dailySandboxSeconds: "Daily sandbox seconds",
};

/** A limit value as text: the number, or "no limit" for null. */
export function limitText(value: number | null): string {
  return value === null ? "no limit" : String(value);
}

/** Seconds as text, at most 3 decimals (ms precision), e.g. `12.345 s`. */
function secondsText(seconds: number): string {
  return `${Number(seconds.toFixed(3))} s`;
}

/** What a submitted limits form holds: the parsed limits, or the messages of the failing fields. */
export type ParsedLimits =
  | { ok: true; limits: Partial<ExecutionLimits> }
  | { ok: false; errors: string[] };

/**
 * Parses the limit fields of a submitted form (one text field per limit name).
 * @param mode `override`: blank leaves the limit to the default (the field is left out), `none`
 *   is no limit for the key (null); `default`: blank or `none` is no limit (null).
 * @returns the limits, or one message per field that is not blank, `none` or a whole number from
 *   0 to 1,000,000,000 (then nothing is to change).
 */
export function parseLimitFields(
  form: Record<string, string>,
  mode: "override" | "default",
): ParsedLimits {
  const limits: Partial<ExecutionLimits> = {};
  const errors: string[] = [];
  for (const name of LIMIT_NAMES) {
    const raw = (form[name] ?? "").trim();
    if (raw === "") {
      if (mode === "default") limits[name] = null;
    } else if (raw.toLowerCase() === "none") {
      limits[name] = null;
    } else if (/^\d+$/.test(raw) && Number(raw) <= MAX_LIMIT) {
      limits[name] = Number(raw);
    } else {
      errors.push(
        `${LIMIT_LABELS[name]}: "${raw}" is not a whole number from 0 to ${MAX_LIMIT}, or "none"${
          mode === "override" ? ", or blank to follow the default" : ""
        }`,
      );
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, limits };
}

/** A key's overrides as form values: the number, `none` for null, blank when it follows the default. */
export function overrideValues(overrides: LimitOverrides): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of LIMIT_NAMES) {
    const v = overrides[name];
    out[name] = v === undefined ? "" : v === null ? "none" : String(v);
  }
  return out;
}

/** Default limits as form values: the number, blank for no limit. */
export function defaultValues(defaults: ExecutionLimits): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of LIMIT_NAMES) {
    const v = defaults[name];
    out[name] = v === null ? "" : String(v);
  }
  return out;
}

/** The messages of a refused form (`role="alert"`), or nothing. */
const FormErrors: FC<{ errors: string[]; what: string }> = ({ errors, what }) =>
  errors.length ? (
    <div class="flash err" role="alert">
      {what}
      <ul class="errors">
        {errors.map((e) => (
          <li>{e}</li>
        ))}
      </ul>
    </div>
  ) : null;

/** A key's effective limits: each with its value, whether it is the key's override or the default, and the default. */
export const EffectiveLimits: FC<{ view: KeyLimitsView; defaults: ExecutionLimits }> = ({
  view,
  defaults,
}) => (
  <div class="scroll">
    <table aria-label="Effective limits">
      <thead>
        <tr>
          <th>Limit</th>
          <th class="num">Enforced</th>
          <th>Source</th>
          <th class="num">Default</th>
        </tr>
      </thead>
      <tbody>
        {LIMIT_NAMES.map((name) => {
          const own = name in view.overrides;
          return (
            <tr data-limit={name}>
              <td>{LIMIT_LABELS[name]}</td>
              <td class="num" data-field="effective">
                {limitText(view.limits[name])}
              </td>
              <td data-field="source" data-source={own ? "override" : "default"}>
                {own ? (
                  <span class="badge pending">override (this key)</span>
                ) : (
                  <span class="badge">default</span>
                )}
              </td>
              <td class="num" data-field="default">
                {limitText(defaults[name])}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  </div>
);

/** A key's usage today (UTC) against its limits; the live counters are this instance's. */
export const UsageToday: FC<{ view: KeyLimitsView }> = ({ view }) => {
  const { usage, limits } = view;
  const budget = limits.dailySandboxSeconds;
  return (
    <div class="scroll">
      <table aria-label="Usage today">
        <thead>
          <tr>
            <th>Usage on {usage.day} (UTC)</th>
            <th class="num">Value</th>
            <th>Against</th>
          </tr>
        </thead>
        <tbody>
          <tr data-usage="executionsToday">
            <td>Executions today</td>
            <td class="num" data-field="value">
              {usage.executionsToday}
            </td>
            <td class="muted">counted from the key's executions created today</td>
          </tr>
          <tr data-usage="executionsThisMinute">
            <td>Executions this minute (this instance)</td>
            <td class="num" data-field="value">
              {usage.executionsThisMinute}
            </td>
            <td>{limitText(limits.executionsPerMinute)} per minute</td>
          </tr>
          <tr data-usage="concurrentSandboxRuns">
            <td>Sandbox runs going now (this instance)</td>
            <td class="num" data-field="value">
              {usage.concurrentSandboxRuns}
            </td>
            <td>{limitText(limits.concurrentSandboxRuns)} at once</td>
          </tr>
          <tr data-usage="sandboxRunsToday">
            <td>Sandbox runs today</td>
            <td class="num" data-field="value">
              {usage.sandboxRunsToday}
            </td>
            <td class="muted">every runtime, from the database</td>
          </tr>
          <tr data-usage="sandboxSecondsToday">
            <td>Sandbox seconds used today</td>
            <td class="num" data-field="value">
              {secondsText(usage.sandboxSecondsToday)}
            </td>
            <td rowspan={3}>
              {budget === null ? "no daily budget" : `daily budget ${secondsText(budget)}`}
            </td>
          </tr>
          <tr data-usage="reservedSandboxSeconds">
            <td>Sandbox seconds reserved by runs going</td>
            <td class="num" data-field="value">
              {secondsText(usage.reservedSandboxSeconds)}
            </td>
          </tr>
          <tr data-usage="remainingSandboxSeconds">
            <td>Sandbox seconds left today</td>
            <td class="num" data-field="value">
              {usage.remainingSandboxSeconds === null
                ? "unlimited"
                : secondsText(usage.remainingSandboxSeconds)}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
};

/** One text field per limit, labelled with what blank and `none` mean. */
const LimitFields: FC<{
  values: Record<string, string>;
  mode: "override" | "default";
  defaults: ExecutionLimits;
}> = ({ values, mode, defaults }) => (
  <div class="filters">
    {LIMIT_NAMES.map((name) => (
      <div class="field">
        <label for={`f-limit-${name}`}>{LIMIT_LABELS[name]}</label>
        <input
          id={`f-limit-${name}`}
          name={name}
          type="text"
          inputmode="numeric"
          value={values[name] ?? ""}
          placeholder={mode === "override" ? `default (${limitText(defaults[name])})` : "no limit"}
          aria-describedby="limits-help"
        />
      </div>
    ))}
  </div>
);

/** The form that replaces a key's overrides (`PUT /api/keys/{id}/limits` semantics). */
export const KeyLimitsForm: FC<{
  keyId: string;
  keyName: string;
  values: Record<string, string>;
  defaults: ExecutionLimits;
  csrf: string;
  errors: string[];
}> = ({ keyId, keyName, values, defaults, csrf, errors }) => (
  <form
    method="post"
    action={`/dashboard/keys/${keyId}/limits`}
    class="card"
    aria-label={`Limits of key ${keyName}`}
  >
    <Csrf token={csrf} />
    <FormErrors errors={errors} what="The key's limits were not changed:" />
    <LimitFields values={values} mode="override" defaults={defaults} />
    <p id="limits-help" class="muted">
      A whole number sets the key's own limit (0 blocks what the limit counts); <code>none</code>{" "}
      means no limit for this key; blank follows the default.
    </p>
    <button type="submit">Save limits of {keyName}</button>
  </form>
);

/** The form that sets the default limits (`PUT /api/settings` `defaultLimits`). */
export const DefaultLimitsForm: FC<{
  values: Record<string, string>;
  defaults: ExecutionLimits;
  csrf: string;
  errors: string[];
}> = ({ values, defaults, csrf, errors }) => (
  <form method="post" action="/dashboard/settings/limits" class="card" aria-label="Default limits">
    <Csrf token={csrf} />
    <FormErrors errors={errors} what="The default limits were not changed:" />
    <dl aria-label="Default limits now" style="margin-bottom:12px">
      {LIMIT_NAMES.map((name) => (
        <>
          <dt>{LIMIT_LABELS[name]}</dt>
          <dd data-default={name}>{limitText(defaults[name])}</dd>
        </>
      ))}
    </dl>
    <LimitFields values={values} mode="default" defaults={defaults} />
    <p id="limits-help" class="muted">
      Every key without its own value for a limit is held to these. A whole number sets the limit (0
      blocks what it counts); blank or <code>none</code> means no limit.
    </p>
    <button type="submit">Save default limits</button>
  </form>
);
