import { CircuitState, ConsecutiveBreaker, TimeoutStrategy, circuitBreaker, handleAll, timeout, wrap, type IPolicy } from "cockatiel";

// A shared service (Redis, the queue's PostgreSQL) that stops answering must
// not hold requests: every call to it goes through its breaker (cockatiel),
// which gives up on a call after `timeoutMs` and, after `failures` failures in
// a row, refuses at once for `halfOpenAfterMs` before letting one call probe
// whether the service is back (docs/platform/reliability.md).

export type BreakerState = "closed" | "open" | "half_open";

const STATES: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: "closed",
  [CircuitState.Open]: "open",
  [CircuitState.HalfOpen]: "half_open",
  [CircuitState.Isolated]: "open",
};

/** Thrown instead of calling a service whose breaker is open: the caller answers at once. */
export class ServiceDown extends Error {
  constructor(
    readonly service: string,
    cause?: unknown,
  ) {
    super(`${service} is not answering`, { cause });
    this.name = "ServiceDown";
  }
}

export type BreakerOptions = { timeoutMs?: number; failures?: number; halfOpenAfterMs?: number };

export class Breaker {
  private readonly policy: IPolicy;
  private readonly breaker;

  constructor(
    readonly service: string,
    { timeoutMs = 250, failures = 3, halfOpenAfterMs = 1_000 }: BreakerOptions = {},
    onChange?: (state: BreakerState) => void,
  ) {
    this.breaker = circuitBreaker(handleAll, { halfOpenAfter: halfOpenAfterMs, breaker: new ConsecutiveBreaker(failures) });
    if (onChange) this.breaker.onStateChange((s) => onChange(STATES[s]));
    this.policy = wrap(this.breaker, timeout(timeoutMs, TimeoutStrategy.Aggressive));
  }

  get state(): BreakerState {
    return STATES[this.breaker.state];
  }

  /** Run one call of the service; any failure (a refusal, a timeout, the call's own error) is a ServiceDown. */
  async run<T>(call: () => PromiseLike<T>): Promise<T> {
    try {
      return await this.policy.execute(() => call());
    } catch (err) {
      throw err instanceof ServiceDown ? err : new ServiceDown(this.service, err);
    }
  }
}
