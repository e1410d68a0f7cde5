import { ActionError, StoppedError } from '../errors.js'
import { type HttpAnswer, type HttpRequest, NetworkError, retryAfterMs, send } from './transport.js'

/** How one kind of request is sent and retried. */
export interface Policy {
  /** For messages: what the request is. */
  readonly name: string
  /** Tries in all, the first included. */
  readonly attempts: number
  /** Answers that are retried (after their Retry-After, or a backoff). */
  readonly retryStatuses: readonly number[]
  /**
   * `any`: every network failure is retried; `undelivered`: only one that cannot have reached the
   * server.
   */
  readonly retryNetwork: 'any' | 'undelivered'
  /** Backoff before try n+1: a random delay between half and all of base * 2^(n-1), capped. */
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  /** A server asking for a longer wait than this ends the retries. */
  readonly maxRetryAfterMs: number
  /** Bytes of an answer kept; the rest is not read. */
  readonly maxBodyBytes: number
  /**
   * Sent only with at least this much of the step's time left (MIN_ATTEMPT_MS); like every attempt,
   * it is cut to the time left. Without it, an attempt goes with any time left.
   */
  readonly minAttemptMs?: number
}

/**
 * The least time the stats update is sent with. Each attempt gets `request-timeout`, cut to what is
 * left of the step's `timeout`, so a short `timeout` (at or below `request-timeout`) still sends
 * the update with whatever the record read left of it. Under a second, though, no real request (a
 * TCP and a TLS handshake, then the exchange, over the internet) can finish: one sent then would
 * almost surely be cut off after the service may have read it, an outcome no one can know, for an
 * update the service allows once per 6 hours. So below this it is not sent at all.
 */
export const MIN_ATTEMPT_MS = 1_000

/**
 * The defaults every policy builds on: reads retry any network failure, back off from half a second
 * doubling to five, honour a Retry-After of up to a minute, and keep 64 KB of an answer. Each
 * caller owns its policy, next to the request it sends: this client knows no caller by name.
 */
export const READ_DEFAULTS = {
  retryNetwork: 'any',
  baseDelayMs: 500,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
  maxBodyBytes: 64 * 1024
} as const satisfies Partial<Policy>

/** The statuses a read retries: the service's and the APIs' passing failures. */
export const SERVER_ERRORS = [500, 502, 503, 504] as const

export interface Clock {
  readonly now: () => number
  /** Waits `ms`, or less when `signal` aborts (the wait then just ends; the caller looks why). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  readonly random: () => number
}

export const realClock: Clock = {
  now: Date.now,
  sleep: (ms, signal) =>
    new Promise(resolve => {
      if (signal?.aborted) return resolve()
      // The timer is cleared on abort: a pending one would keep the step's process alive.
      const done = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      signal?.addEventListener('abort', done, { once: true })
    }),
  random: Math.random
}

/** Something that admits attempts one at a time, such as a rate-limit pacer. */
export interface Gate<Ticket> {
  acquire(): Promise<Ticket>
  /** Ends the attempt the ticket admitted, with its answer (undefined when none came). */
  release(ticket: Ticket, answer: HttpAnswer | undefined): void
}

/** 429s one gated request takes before it gives up. */
const GATED_429_LIMIT = 10

/** The step ran out of its time; an expected failure with the input to change. */
export class DeadlineError extends ActionError {}

export interface Limits {
  /** One attempt: connect, send, and read the whole answer. */
  readonly attemptTimeoutMs: number
  /** The whole step; no attempt or wait goes past it. */
  readonly totalMs: number
}

/** What a stage of a run needs: the requests, and the log. */
export interface Deps {
  readonly requests: Requests
  readonly log: (line: string) => void
}

/**
 * Every request goes through here, under the step's deadline and the run's stop signal. Once the
 * signal fires (SIGINT/SIGTERM), the request in flight is cut off, a wait ends, and nothing new is
 * sent: each ends with its StoppedError.
 */
export class Requests {
  private readonly deadlineAt: number

  constructor(
    readonly limits: Limits,
    readonly clock: Clock = realClock,
    readonly signal: AbortSignal = new AbortController().signal
  ) {
    this.deadlineAt = clock.now() + limits.totalMs
  }

  /**
   * Throws the stop once the run was stopped; `inFlight` when it cut off a request sent, with its
   * answer's status if it came.
   */
  throwIfStopped(inFlight = false, answeredStatus?: number): void {
    if (!this.signal.aborted) return
    const reason: unknown = this.signal.reason
    throw new StoppedError(
      reason instanceof StoppedError ? reason.signal : String(reason),
      inFlight,
      answeredStatus
    )
  }

  /**
   * Sends a request under its policy. Returns the last answer (maybe a failure for the caller to
   * explain), or throws the last NetworkError or the StoppedError. `refuse` ends the retries of an
   * answer; a `gate` admits each attempt and waits out 429s.
   */
  async send<Ticket>(
    request: Omit<HttpRequest, 'timeoutMs' | 'maxBodyBytes' | 'signal'>,
    policy: Policy,
    {
      refuse,
      gate
    }: { refuse?: (answer: HttpAnswer) => Error | undefined; gate?: Gate<Ticket> } = {}
  ): Promise<HttpAnswer> {
    let limited = 0
    for (let failures = 0; ;) {
      this.throwIfStopped()
      const ticket = await gate?.acquire()
      this.throwIfStopped()
      let answer: HttpAnswer
      try {
        answer = await send({
          ...request,
          timeoutMs: this.attemptTimeout(policy),
          maxBodyBytes: policy.maxBodyBytes,
          signal: this.signal
        })
      } catch (error) {
        gate?.release(ticket as Ticket, undefined)
        // Cut off by a stop: in flight when it may have reached the server, answered when its
        // status line came.
        const network = error instanceof NetworkError ? error : undefined
        this.throwIfStopped(network?.delivered ?? true, network?.answered?.status)
        if (network === undefined) throw error
        // A read may go again after any network failure; a request that must not arrive twice
        // (the stats update) only when it cannot have reached the server.
        const retry = policy.retryNetwork === 'any' || !network.delivered
        if (!retry || ++failures >= policy.attempts) throw error
        await this.sleep(this.backoff(failures, policy), policy)
        continue
      }
      gate?.release(ticket as Ticket, answer)
      if (!policy.retryStatuses.includes(answer.status)) return answer
      const refused = refuse?.(answer)
      if (refused !== undefined) throw refused
      // A gate waits out each 429 itself; a run of them still ends, with the answer.
      if (answer.status === 429 && gate && ++limited < GATED_429_LIMIT) continue
      if (answer.status === 429 && gate) return answer
      if (++failures >= policy.attempts) return answer
      const asked = retryAfterMs(answer)
      if (asked !== undefined && asked > policy.maxRetryAfterMs) return answer
      await this.sleep(asked ?? this.backoff(failures, policy), policy)
    }
  }

  /**
   * For the run's own work between requests: throws the stop, or the deadline's error once no time
   * is left for `what`.
   */
  throwIfOver(what: string): void {
    this.throwIfStopped()
    if (this.remainingMs() <= 0) throw this.deadlineError(undefined, what)
  }

  /**
   * Waits, unless the wait would end past the step's deadline; the stop signal ends it with
   * StoppedError.
   */
  async sleep(ms: number, policy?: Policy): Promise<void> {
    this.throwIfStopped()
    if (this.clock.now() + ms > this.deadlineAt)
      throw this.deadlineError(policy, `a wait of ${Math.ceil(ms / 1000)} s`)
    await this.clock.sleep(ms, this.signal)
    this.throwIfStopped()
  }

  /** Time left before the step's deadline. */
  remainingMs(): number {
    return this.deadlineAt - this.clock.now()
  }

  /**
   * One attempt's time: `request-timeout`, cut to what is left of `timeout`. It is refused when no
   * time is left, or less than the policy's least (MIN_ATTEMPT_MS for the stats update).
   */
  private attemptTimeout(policy: Policy): number {
    const left = this.remainingMs()
    const least = policy.minAttemptMs ?? 0
    if (left <= 0 || left < least) {
      throw this.deadlineError(
        policy,
        least > 0 ? `an attempt of at least ${least / 1000} s` : 'another attempt'
      )
    }
    return Math.min(this.limits.attemptTimeoutMs, left)
  }

  private backoff(failures: number, policy: Policy): number {
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failures - 1))
    return Math.round(ceiling / 2 + (this.clock.random() * ceiling) / 2)
  }

  private deadlineError(policy: Policy | undefined, what: string): DeadlineError {
    const during = policy === undefined ? '' : ` during ${policy.name}`
    return new DeadlineError(
      `The step's time limit of ${Math.round(this.limits.totalMs / 1000)} s (input 'timeout') leaves no room for ${what}${during}. ` +
        'Raise timeout, or look at the network and the service.',
      { headline: 'out of time (timeout)' }
    )
  }
}
