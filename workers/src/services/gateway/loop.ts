/**
 * The gateway's one round loop (docs/proxy.md#the-loop), for JSON and streamed answers alike:
 * call the upstream (through the renderer, which reads the round as JSON or as events) → extract
 * the calls → run the owned ones with interception's policies (`skill_search` answered here, its
 * finds declared for the next rounds) → append the assistant turn and the provider-native results
 * → call again, until the model answers without an owned call, the turn
 * also holds client calls (a mixed turn, handed to the client), or a limit (rounds, time budget)
 * is reached; then the renderer writes the last answer. Every step is reported as a
 * {@link GatewayEvent} to the renderer and the observers.
 */
import type { JsonObject } from "../../formats/types.js";
import { sumUsage } from "../../formats/wire.js";
import { checkArguments } from "./limits.js";
import { rememberMixedTurn, splitMixedTurn } from "./mixed-turn.js";
import { appendTurn, clientHistoryLength } from "./prepare.js";
import { requestSignal } from "./signals.js";
import type { GatewayEvent, GatewayRenderer, RoundContext } from "./types.js";
import { UpstreamFailure } from "./upstream.js";

/**
 * Runs the rounds of `ctx` with `renderer` until the answer ends (see the module docs); reports
 * each event to `observe` too. A client that went away stops it with its abort reason.
 * @throws the abort reason of `renderer.signal` once the client went away; unexpected errors.
 */
export async function runRounds(
  ctx: RoundContext,
  renderer: GatewayRenderer,
  observe: (event: GatewayEvent) => void,
): Promise<void> {
  const { adapter, budget, req } = ctx;
  const emit = (event: GatewayEvent) => {
    renderer.event(event);
    observe(event);
  };
  const skillsSignal = requestSignal([renderer.signal, budget.signal]);
  const executions: string[] = [];
  let request = ctx.prepared.request;
  let usage: unknown;
  for (let round = 1; ; round++) {
    let afterSkills = false;
    const fail = (err: UpstreamFailure) => {
      renderer.fail({
        round,
        status: err.status,
        message: err.message,
        code: err.code,
        executions,
        afterSkills,
      });
      emit({ type: "end", round, status: err.status });
    };
    let response: Awaited<ReturnType<GatewayRenderer["readRound"]>>;
    let calls: ReturnType<typeof adapter.extractCalls>;
    try {
      response = await renderer.readRound(request, round);
      if (response === undefined) return;
      calls = adapter.extractCalls(response);
      checkArguments(calls, ctx.limits.maxArgumentsChars);
    } catch (err) {
      if (renderer.signal.aborted) throw renderer.signal.reason;
      if (err instanceof UpstreamFailure) return fail(err);
      throw err;
    }
    const roundUsage = response[adapter.usageField];
    if (roundUsage !== undefined) usage = sumUsage(usage, roundUsage);
    emit({ type: "round", round, response, calls, usage: roundUsage });
    const finish = async (
      shown: JsonObject,
      clientCalls: ReadonlySet<number>,
      limit?: "rounds" | "time",
    ) => {
      await renderer.finish({ round, response: shown, clientCalls, limit, usage, executions });
      emit({ type: "end", round, status: 200, limit });
    };
    if (calls.length === 0) return finish(response, new Set());
    const limit =
      round >= ctx.maxRounds
        ? "rounds"
        : budget.expired || ctx.clock() - ctx.started >= ctx.timeBudgetMs
          ? "time"
          : undefined;
    if (limit) {
      console.warn(
        `[skillgate] proxy ${req.format}: ${limit} limit reached after ${round} rounds; last answer returned as is`,
      );
      return finish(response, new Set(calls.map((c) => c.index)), limit);
    }
    emit({ type: "skills-start", round, calls: calls.length });
    let result: Awaited<ReturnType<RoundContext["intercept"]>>;
    const ran: string[] = [];
    const answered: { callId: string; executionId: string | null }[] = [];
    try {
      result = await ctx.intercept(response, skillsSignal, round);
      for (const r of result.toolResults) {
        if (r.executionId) ran.push(r.executionId);
        answered.push({ callId: r.callId, executionId: r.executionId ?? null });
      }
      executions.push(...ran);
    } finally {
      emit({ type: "skills-end", round, executions: ran, owned: answered });
    }
    afterSkills = true;
    if (renderer.signal.aborted) throw renderer.signal.reason;
    if (budget.expired)
      return fail(
        new UpstreamFailure(
          504,
          `The time budget of ${ctx.timeBudgetMs} ms ran out while skills ran; they were cancelled`,
          "time_budget_exceeded",
        ),
      );
    const owned = new Set(result.toolResults.map((r) => r.callId));
    const clientCalls = new Set(calls.filter((c) => !owned.has(c.callId)).map((c) => c.index));
    if (owned.size === 0) return finish(result.response, clientCalls);
    if (clientCalls.size > 0) {
      const split = splitMixedTurn(
        adapter,
        result.response,
        owned,
        result.messages,
        clientHistoryLength(adapter, req.body),
      );
      if (split) {
        await rememberMixedTurn(ctx.store, split.keys, split.entry);
        return finish(split.response, clientCalls);
      }
    }
    emit({ type: "continue", round, response });
    // The forced round is over: the next one lets the model answer (docs/proxy.md#the-loop).
    request = adapter.relaxToolChoice(
      appendTurn(
        adapter,
        await ctx.offerFound(request, result.toolResults),
        adapter.replayTurn(response),
        result.messages,
      ),
    );
  }
}
