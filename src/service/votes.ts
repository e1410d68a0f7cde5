import { ActionError } from '../errors.js'
import { excerpt, type HttpAnswer, NetworkError, retryAfterMs } from '../http.js'
import { type Gate, POLICIES, type Requests } from '../requests.js'
import { USER_AGENT } from '../version.js'

/** One user's vote, as the `votes` output reports it. */
export interface Vote {
  readonly voted: boolean
  /** The user's vote count, when the service reports it. */
  readonly votes: number | null
  readonly lastVote: Date | null
}

export interface VotePlan {
  readonly baseUrl: string
  readonly botId: string
  readonly apiKey: string
  readonly userIds: readonly string[]
  /** The longest time, in all, spent waiting for the service's rate limit. */
  readonly rateLimitWaitMs: number
  /** Checks in flight at once. */
  readonly concurrency?: number
}

export interface VoteOutcome {
  /** Answers by user ID, in the order of the input. */
  readonly votes: ReadonlyMap<string, Vote>
  /** HTTP status of the last answer. */
  readonly status: number | undefined
  /** Rate-limit answers (429) met on the way. */
  readonly rateLimited: number
  readonly error: ActionError | undefined
  /** Users left unchecked when the run had to stop. */
  readonly unchecked: readonly string[]
}

export interface VoteDeps {
  readonly requests: Requests
  readonly log: (line: string) => void
}

const DEFAULT_CONCURRENCY = 6
const MIN_429_WAIT_MS = 1_000
/** The largest time a Date holds (ECMAScript: 8.64e15 ms from 1970). */
const MAX_DATE_MS = 8.64e15

/**
 * Checks each user's vote. Paced by the service's rate limit (the live service allows 100
 * checks per 5 minutes per bot): the `RateLimit-Remaining`/`RateLimit-Reset` headers of
 * every answer say when to hold back, so a 429 is rare; when one comes, its `Retry-After`
 * or `retry_after` is waited out and the check retried. Waiting is bounded by
 * `rateLimitWaitMs`; what is not checked by then is reported, not guessed.
 */
export async function checkVotes(plan: VotePlan, deps: VoteDeps): Promise<VoteOutcome> {
  // Once a check fails the run's answer is decided: the checks still waiting (for the
  // limiter's window, or a retry's backoff) end at once and send nothing more.
  const stop = new AbortController()
  const limiter = new WindowPacer(deps.requests, plan.rateLimitWaitMs, stop.signal)
  const votes = new Map<string, Vote>()
  const queue = [...plan.userIds]
  let status: number | undefined
  let failure: ActionError | undefined

  const worker = async (): Promise<void> => {
    while (failure === undefined) {
      const userId = queue.shift()
      if (userId === undefined) return
      try {
        const answer = await checkOne(plan, userId, limiter, deps.requests, stop.signal)
        status = answer.status
        votes.set(userId, readVote(answer, userId, plan))
      } catch (error) {
        failure ??= error instanceof ActionError ? error : new ActionError(String(error))
        stop.abort(new ActionError('Vote checks stopped after an earlier failure.'))
        queue.unshift(userId)
      }
    }
  }
  const workers = Math.min(plan.concurrency ?? DEFAULT_CONCURRENCY, plan.userIds.length)
  await Promise.all(Array.from({ length: workers }, worker))

  const ordered = new Map(plan.userIds.filter(id => votes.has(id)).map(id => [id, votes.get(id)!]))
  const unchecked = plan.userIds.filter(id => !votes.has(id))
  if (failure !== undefined && unchecked.length > 0) {
    deps.log(`Not checked: ${unchecked.join(', ')}`)
  }
  // The last answer the pacer saw, a 429 included, else the last one read.
  return { votes: ordered, status: limiter.lastStatus ?? status, rateLimited: limiter.rateLimited, error: failure, unchecked }
}

/** One user's check, under the vote policy (retries for 5xx and network errors) and the pacer. */
async function checkOne(
  plan: VotePlan,
  userId: string,
  limiter: WindowPacer,
  requests: Requests,
  signal: AbortSignal
): Promise<HttpAnswer> {
  try {
    return await requests.send(
      {
        method: 'GET',
        url: `${plan.baseUrl}/bots/${plan.botId}/voters/${userId}`,
        headers: { Authorization: plan.apiKey, 'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': USER_AGENT }
      },
      POLICIES.vote,
      { gate: limiter, signal }
    )
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    throw new ActionError(`Vote check for user ${userId} failed: ${error.message} (${POLICIES.vote.attempts} tries).`)
  }
}

/** Reads one answer: 204 is "voted" (the original description), 200 JSON says it in `voted`. */
export function readVote(answer: HttpAnswer, userId: string, plan: Pick<VotePlan, 'botId'>): Vote {
  if (answer.status === 204) return { voted: true, votes: null, lastVote: null }
  const body = answer.json as { voted?: unknown; vote?: unknown; lastVote?: unknown; error?: unknown } | undefined
  if (answer.status === 200 && typeof body?.voted === 'boolean') {
    const votes = typeof body.vote === 'number' && Number.isInteger(body.vote) && body.vote >= 0 ? body.vote : null
    const lastVote = typeof body.lastVote === 'number' && Math.abs(body.lastVote) <= MAX_DATE_MS ? new Date(body.lastVote) : null
    return { voted: body.voted, votes, lastVote }
  }
  const said = typeof body?.error === 'string' ? ` with "${excerpt(body.error)}"` : ''
  const prefix = `Vote check for user ${userId} failed: the service answered ${answer.status}${said}.`
  switch (answer.status) {
    case 200:
      throw new ActionError(`${prefix.slice(0, -1)} without a "voted" field. Check base-url.`)
    case 401:
      throw new ActionError(
        `${prefix} The API key was refused: the api-key secret is wrong or outdated; copy the current key from the bot's manage page on discord.place.`
      )
    case 404:
      throw new ActionError(`${prefix} The service lists no bot with ID ${plan.botId}: check bot-id.`)
    case 410:
      throw new ActionError(`${prefix} The API key was revoked; generate a new one on the bot's manage page on discord.place.`)
    default:
      throw new ActionError(`${prefix} This is not a vote answer, so the user's vote is unknown (not taken as "not voted").`)
  }
}

/** A check's place in a rate-limit window, from acquire() to settle(). */
export interface Ticket {
  readonly window: number
  /** 1 for the window's first check of ours, 2 for the second, ... */
  readonly seq: number
}

/**
 * Shares the service's rate-limit window between concurrent checks. While a window is
 * unknown (at the start, after a reset) one check goes alone; its answer's `RateLimit-Limit`
 * and `RateLimit-Remaining` tell the window's size and what others already used of it. From
 * then on the checks of ours in the window are counted here, exactly, rather than read
 * back from headers that lag behind the checks in flight; the window is spent when the
 * count (or a lower `RateLimit-Remaining`) says so, and every check waits for `RateLimit-Reset`.
 */
export class WindowPacer implements Gate<Ticket> {
  /** 429 answers met. */
  rateLimited = 0
  private window = 0
  private limit: number | undefined
  /** Checks others made in this window before ours. */
  private used = 0
  private sent = 0
  /** The lowest `RateLimit-Remaining` an answer in this window gave. */
  private lowest = Number.POSITIVE_INFINITY
  /** When the current window ends; unknown (infinite) until an answer tells. */
  private windowEndsAt = Number.POSITIVE_INFINITY
  private inFlight = 0
  /** Time spent waiting for the rate limit, and until when it is counted. */
  private waited = 0
  private waitedUntil = 0
  /** The status of the last answer settled, a 429 included. */
  lastStatus: number | undefined
  /** Checks waiting for an answer in flight to tell them the window. */
  private waiting: (() => void)[] = []

  /** `signal`: a check failed; waiting checks wake at once and give up rather than send. */
  constructor(
    private readonly requests: Pick<Requests, 'clock' | 'sleep'>,
    private readonly maxWaitMs: number,
    private readonly signal?: AbortSignal
  ) {
    signal?.addEventListener('abort', () => this.wakeAll(), { once: true })
  }

  get stopped(): boolean {
    return this.signal?.aborted ?? false
  }

  private wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake()
  }

  private now(): number {
    return this.requests.clock.now()
  }

  private get remaining(): number | undefined {
    if (this.limit === undefined) return Number.isFinite(this.windowEndsAt) ? 0 : undefined
    return Math.min(this.limit - this.used - this.sent, this.lowest)
  }

  /** Waits until the window allows one more check, and takes it. */
  async acquire(): Promise<Ticket> {
    for (;;) {
      if (this.stopped) throw new ActionError('Vote checks stopped after an earlier failure.')
      const remaining = this.remaining
      if (remaining === undefined ? this.inFlight === 0 : remaining > 0) break
      if (remaining === undefined) {
        // Another check is learning the window: wait for its answer.
        await new Promise<void>(resolve => this.waiting.push(resolve))
        continue
      }
      // Spent. Without a reset time, look again in a second.
      const end = Number.isFinite(this.windowEndsAt) ? this.windowEndsAt : this.now() + 1_000
      const window = this.window
      const wait = end - this.now()
      if (wait > 0) {
        // Checks waiting for the same window wait together: the budget counts that time once.
        const added = Math.max(0, end - Math.max(this.now(), this.waitedUntil))
        if (this.waited + added > this.maxWaitMs) {
          throw new ActionError(
            `The service's rate limit would need a wait of ${Math.ceil(wait / 1000)} s more, beyond the ` +
              `rate-limit-wait of ${Math.round(this.maxWaitMs / 1000)} s.`
          )
        }
        this.waited += added
        this.waitedUntil = Math.max(this.waitedUntil, end)
        await this.requests.sleep(wait, undefined, this.signal)
        if (this.stopped) continue
      }
      // The first check to wake opens the new window; the others join it.
      if (this.window === window && this.now() >= end) this.newWindow()
    }
    this.sent += 1
    this.inFlight += 1
    return { window: this.window, seq: this.sent }
  }

  /**
   * Ends a check; learns the window from its answer, if one came. Answers from an earlier
   * window only free their place. A reset in whole seconds is never early, so the
   * earliest end any answer gives is the best.
   */
  settle(ticket: Ticket, answer: HttpAnswer | undefined): void {
    this.inFlight -= 1
    if (answer !== undefined) this.lastStatus = answer.status
    if (answer !== undefined && ticket.window === this.window) {
      const header = (name: string): number => Number(answer.headers[name] ?? Number.NaN)
      const [limit, remaining, reset] = [header('ratelimit-limit'), header('ratelimit-remaining'), header('ratelimit-reset')]
      if (this.limit === undefined) {
        // Without rate-limit headers there is nothing to pace by: 429s are waited out instead.
        const size = Number.isFinite(limit) ? limit : Number.isFinite(remaining) ? remaining + ticket.seq : Number.POSITIVE_INFINITY
        this.limit = size
        this.used = Number.isFinite(remaining) ? Math.max(0, size - remaining - ticket.seq) : 0
      }
      if (Number.isFinite(remaining)) this.lowest = Math.min(this.lowest, remaining)
      if (Number.isFinite(reset)) this.windowEndsAt = Math.min(this.windowEndsAt, this.now() + reset * 1000)
      if (answer.status === 429) {
        this.rateLimited += 1
        // At least a second, whatever the answer asks: a 429 must never be answered at once.
        this.blockFor(Math.max(MIN_429_WAIT_MS, retryAfterMs(answer) ?? MIN_429_WAIT_MS))
      }
    }
    this.wakeAll()
  }

  /** Holds every check until a wait the service asked for has passed. */
  blockFor(ms: number): void {
    this.lowest = 0
    this.limit ??= 0
    const asked = this.now() + ms
    this.windowEndsAt = Number.isFinite(this.windowEndsAt) ? Math.max(this.windowEndsAt, asked) : asked
  }

  private newWindow(): void {
    this.window += 1
    this.limit = undefined
    this.used = 0
    this.sent = 0
    this.lowest = Number.POSITIVE_INFINITY
    this.windowEndsAt = Number.POSITIVE_INFINITY
  }
}
