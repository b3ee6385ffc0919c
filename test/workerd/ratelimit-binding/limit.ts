/** The `simple.limit` of the test project's `EXECUTION_RATE_LIMITER` binding (executions per key per 60 s). */
export const BINDING_LIMIT = 3;
