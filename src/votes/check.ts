import { ActionError, StoppedError } from '../errors.js'
import { type HttpAnswer, NetworkError, retryAfterMs } from '../http/transport.js'
import {
  type Gate,
  type Policy,
  READ_DEFAULTS,
  SERVER_ERRORS,
  type Requests,
  type Deps
} from '../http/client.js'
import { checkKey, type KeyCheck, keyAdvice, keyHeadline } from '../keys.js'
import { isVoteAnswer, keyedHeaders, serviceError } from '../service.js'
import type { VoteSettings } from '../settings.js'

/**
 * Vote checks wait out 429s through their pacer, bounded by rate-limit-wait; 5xx and lost
 * connections are retried.
 */
export const VOTE_POLICY: Policy = {
  ...READ_DEFAULTS,
  name: 'a vote check',
  attempts: 3,
  retryStatuses: [429, ...SERVER_ERRORS]
}

/** One user's vote, as the `votes` output reports it. */
export interface Vote {
  readonly voted: boolean
  /** The user's vote count, when the service reports it. */
  readonly votes: number | null
  readonly lastVote: Date | null
}

export type VoteResult = 'voted' | 'not-voted' | 'dry-run' | 'failed'

export interface VoteOutcome {
  /**
   * `voted` and `not-voted` speak for every user; a run that did not check every user is `failed`.
   */
  readonly result: VoteResult
  /** Answers by user ID, in the order of the input. */
  readonly votes: ReadonlyMap<string, Vote>
  /** HTTP status of the last vote check's answer (a 429 or a 5xx that was retried included). */
  readonly status: number | undefined
  /** Rate-limit answers (429) met on the way. */
  readonly rateLimited: number
  /** Users left unchecked when the run had to stop. */
  readonly unchecked: readonly string[]
  /** The key check of a dry run with a key. */
  readonly keyCheck: KeyCheck | undefined
  readonly error: ActionError | undefined
  /**
   * When the outcome was decided, by the runner's clock: times are shown relative to it (as in
   * stats mode).
   */
  readonly at: Date
}

/** What checking needs from the settings. */
export type VotePlan = Pick<
  VoteSettings,
  'baseUrl' | 'botId' | 'userIds' | 'rateLimitWaitMs' | 'failIfNotVoted' | 'dryRun'
> & {
  readonly apiKey: string | undefined
}

/**
 * The least wait after a 429, whatever the answer asks for (even none): a refused check sent again
 * at once would only be refused again.
 */
const MIN_429_WAIT_MS = 1_000
/**
 * How long a spent window without a `RateLimit-Reset` is given before the next try: with no end to
 * wait for, the pacer looks again after this rather than guessing the window's length.
 */
const UNKNOWN_RESET_WAIT_MS = 1_000
/** The largest time a Date holds (ECMAScript: 8.64e15 ms from 1970). */
const MAX_DATE_MS = 8.64e15

/**
 * The vote-check mode: checks each user's vote, one at a time on one kept-alive connection, paced
 * by the service's rate limit (100 checks per 5 minutes per bot). Not in parallel: parallel checks
 * would only reach the limit sooner and then wait as long, and one at a time each answer's
 * `RateLimit-Remaining` is exact. Waiting is bounded by `rateLimitWaitMs` in all; what is not
 * checked by then is reported, not guessed. The first failure, or a stop, ends the run. A dry run
 * checks nobody, but checks the key when it has one.
 */
export async function runVotes(plan: VotePlan, deps: Deps): Promise<VoteOutcome> {
  const { apiKey } = plan
  const outcome = (result: VoteResult, fields: Partial<VoteOutcome> = {}): VoteOutcome => ({
    result,
    votes: new Map<string, Vote>(),
    status: undefined,
    rateLimited: 0,
    unchecked: [],
    keyCheck: undefined,
    error: undefined,
    at: new Date(deps.requests.clock.now()),
    ...fields
  })
  if (plan.dryRun || apiKey === undefined) {
    deps.log(
      `Dry run: nothing sent. A real run would check the votes of ${plan.userIds.join(', ')}.`
    )
    if (apiKey === undefined) return outcome('dry-run')
    const at = new Date(deps.requests.clock.now())
    try {
      return outcome('dry-run', { keyCheck: await checkKey({ ...plan, apiKey }, deps), at })
    } catch (error) {
      if (error instanceof ActionError) return outcome('failed', { error, at })
      throw error
    }
  }
  const pacer = new HeaderPacer(deps.requests, plan.rateLimitWaitMs)
  const votes = new Map<string, Vote>()
  let failure: ActionError | undefined
  for (const userId of plan.userIds) {
    try {
      const url = `${plan.baseUrl}/bots/${plan.botId}/voters/${userId}`
      const answer = await deps.requests.send(
        { method: 'GET', url, headers: keyedHeaders(apiKey) },
        VOTE_POLICY,
        { gate: pacer }
      )
      votes.set(userId, readVote(answer, userId, plan))
    } catch (error) {
      failure = failureOf(error, userId, votes.size)
      break
    }
  }
  const unchecked = plan.userIds.filter(id => !votes.has(id))
  if (failure !== undefined && unchecked.length > 0)
    deps.log(`Not checked: ${unchecked.join(', ')}`)
  const missing = [...votes].filter(([, vote]) => !vote.voted).map(([id]) => id)
  // fail-if-not-voted fails the run but keeps its result `not-voted`.
  const result = resultOf(failure, missing)
  if (result === 'not-voted' && plan.failIfNotVoted) {
    failure = new ActionError(
      `Not voted in the last 24 hours: ${missing.join(', ')} (fail-if-not-voted is true).`
    )
  }
  return outcome(result, {
    votes,
    status: pacer.lastStatus,
    rateLimited: pacer.rateLimited,
    unchecked,
    error: failure
  })
}

/** `voted` and `not-voted` need every user's answer, so a run that ended early is `failed`. */
function resultOf(failure: ActionError | undefined, missing: readonly string[]): VoteResult {
  if (failure !== undefined) return 'failed'
  if (missing.length > 0) return 'not-voted'
  return 'voted'
}

/**
 * The expected failure a check ended with; anything else is a bug, thrown for main.ts to report as
 * one (as in stats mode).
 */
function failureOf(error: unknown, userId: string, answered: number): ActionError {
  if (error instanceof StoppedError) {
    const cut = error.inFlight
      ? `, and the check of user ${userId} was sent but cut off before its answer`
      : ''
    return new ActionError(
      `${error.message} ${answered} vote check(s) had been answered${cut}; no result is reported for an unfinished check.`
    )
  }
  if (error instanceof NetworkError) {
    return new ActionError(
      `Vote check for user ${userId} failed: ${error.message} (${VOTE_POLICY.attempts} tries).`
    )
  }
  if (error instanceof ActionError) return error
  throw error
}

/** Reads one answer: 204 is "voted" (the original description), 200 JSON says it in `voted`. */
export function readVote(answer: HttpAnswer, userId: string, plan: Pick<VotePlan, 'botId'>): Vote {
  if (answer.status === 204) return { voted: true, votes: null, lastVote: null }
  const body = answer.json
  if (answer.status === 200 && isVoteAnswer(body)) {
    const votes =
      typeof body.vote === 'number' && Number.isInteger(body.vote) && body.vote >= 0
        ? body.vote
        : null
    const lastVote =
      typeof body.lastVote === 'number' && Math.abs(body.lastVote) <= MAX_DATE_MS
        ? new Date(body.lastVote)
        : null
    return { voted: body.voted, votes, lastVote }
  }
  const text = serviceError(answer)
  const said = text === undefined ? '' : ` with "${text}"`
  const prefix = `Vote check for user ${userId} failed: the service answered ${answer.status}${said}.`
  if (answer.status === 200)
    throw new ActionError(`${prefix.slice(0, -1)} without a "voted" field. Check base-url.`)
  const advice = keyAdvice(answer.status, text, plan.botId)
  if (advice !== undefined)
    throw new ActionError(`${prefix} ${advice}`, { headline: keyHeadline(answer.status) })
  throw new ActionError(
    `${prefix} This is not a vote answer, so the user's vote is unknown (not taken as "not voted").`
  )
}

/** A rate-limit header as a number of seconds or checks; NaN when absent or not a number. */
function headerNumber(answer: HttpAnswer, name: string): number {
  const value = answer.headers[name]
  return typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN
}

/**
 * Paces checks sent one at a time by the rate-limit headers of their answers: every attempt
 * (retries included) is admitted by acquire() and its answer read by settle(). After an answer that
 * leaves nothing in the window (`RateLimit-Remaining: 0`, or a 429) the next attempt waits until
 * the window ends; waits add up against `maxWaitMs`, end at the step's deadline, and end at once
 * when the run is stopped.
 */
class HeaderPacer implements Gate<void> {
  /** 429 answers met. */
  rateLimited = 0
  /** The status of the last answer, a 429 included. */
  lastStatus: number | undefined
  /** No attempt goes out before this time. */
  private holdUntil = 0
  /**
   * When the current window ends: the earliest end any of its answers gave. A reset in whole
   * seconds is rounded up, never early, and is counted from when its answer was read, after the
   * server sent it; so each answer's end is at or after the real one, and the earliest is the
   * closest. It is unknown (infinite) until an answer tells.
   */
  private windowEndsAt = Number.POSITIVE_INFINITY
  /** The last answer's `RateLimit-Remaining`; NaN when it had none. */
  private lastRemaining = Number.NaN
  /** Time spent waiting for the rate limit, which `maxWaitMs` bounds. */
  private waited = 0

  constructor(
    private readonly requests: Pick<Requests, 'clock' | 'sleep'>,
    private readonly maxWaitMs: number
  ) {}

  /** Waits until the window allows the next attempt. */
  async acquire(): Promise<void> {
    const wait = this.holdUntil - this.requests.clock.now()
    if (wait <= 0) return
    // The bound is checked before the wait starts: a wait that would pass it could not end in a
    // check, so the run ends at once and reports the users left as not checked.
    if (this.waited + wait > this.maxWaitMs) {
      throw new ActionError(
        `The service's rate limit would need a wait of ${Math.ceil(wait / 1000)} s more, beyond the ` +
          `rate-limit-wait of ${Math.round(this.maxWaitMs / 1000)} s.`
      )
    }
    this.waited += wait
    await this.requests.sleep(wait, VOTE_POLICY)
  }

  /** Reads an attempt's answer, if one came: how much of the window is left, and when it ends. */
  release(_ticket: void, answer: HttpAnswer | undefined): void {
    if (answer === undefined) return
    this.lastStatus = answer.status
    const now = this.requests.clock.now()
    const [remaining, reset] = [
      headerNumber(answer, 'ratelimit-remaining'),
      headerNumber(answer, 'ratelimit-reset')
    ]
    // A new window began: the one known has ended, or more checks are left than the last answer
    // said, which only a reset can do. A comparison with NaN (an answer without the header) is
    // false, so a missing figure does not start a window by itself.
    if (now >= this.windowEndsAt || remaining > this.lastRemaining)
      this.windowEndsAt = Number.POSITIVE_INFINITY
    this.lastRemaining = remaining
    // `RateLimit-Reset` is seconds from now: the window's end is the earliest any answer gave.
    if (Number.isFinite(reset)) this.windowEndsAt = Math.min(this.windowEndsAt, now + reset * 1000)
    const refused = answer.status === 429
    // Checks left in the window, or no figure at all: the next check goes at once.
    if (!refused && remaining !== 0) return
    // Spent: wait for the window's end, or, without one, look again after a short wait.
    const known = Number.isFinite(this.windowEndsAt)
    let until = known ? this.windowEndsAt : now + UNKNOWN_RESET_WAIT_MS
    if (refused) {
      this.rateLimited += 1
      // A 429 also asks for its own wait (see retryAfterMs), which is never under a second.
      until = Math.max(until, now + Math.max(MIN_429_WAIT_MS, retryAfterMs(answer) ?? 0))
    }
    // A later answer never shortens a wait an earlier one asked for.
    this.holdUntil = Math.max(this.holdUntil, until)
  }
}
