/**
 * The vote-check mode: reading one answer (both answer styles of the service), the checks
 * and their pacing against a loopback node:http server that answers exactly as each test
 * needs, the mode in process against the service emulator (a stop, a dry run's key check,
 * fail-if-not-voted, the two 410 texts), and the mode's report (outputs and summary).
 *
 * Contract: test/fixtures/service/interface.md and the service's OpenAPI document
 * (`GET /bots/{id}/voters/{user_id}`, the TooManyRequests answer).
 */
import * as http from 'node:http'
import * as core from '@actions/core'
import { describe, expect, it, vi } from 'vitest'
import { ActionError, StoppedError } from '../../src/errors.js'
import type { HttpAnswer } from '../../src/http/transport.js'
import { type Clock, Requests, realClock } from '../../src/http/client.js'
import type { VoteSettings } from '../../src/settings.js'
import { readVote, runVotes, type Vote, type VoteOutcome, type VotePlan } from '../../src/votes/check.js'
import { renderSummary, reportVotes, writeOutputs } from '../../src/votes/report.js'
import { type BotSeed, jsonFault, type ServiceEmulator } from '../support/emulator.js'
import { BOT, botInputs, emulatedBot, HOUR, KEY, settingsFor, TestClock, votesRun } from '../support/inprocess.js'
import { capturedStdout, runnerFiles } from '../support/step.js'
import { listenForTest } from '../support/server.js'

/** 2023-09-10T11:30:00Z, the `lastVote` example of the OpenAPI document. */
const LAST_VOTE_MS = 1694345400000
const TOO_MANY = 'Too many requests, please try again later.'

/** Distinct, valid user IDs (18 digits). */
const user = (n: number): string => `9${String(n).padStart(17, '0')}`
const users = (count: number): string[] => Array.from({ length: count }, (_, i) => user(i + 1))

// ---------------------------------------------------------------------------------------
// readVote
// ---------------------------------------------------------------------------------------

/** An answer as `send` returns it. */
function answer(status: number, body: unknown = undefined, headers: Record<string, string> = {}): HttpAnswer {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
  let json: unknown
  try {
    json = /^\s*[[{]/.test(text) ? (JSON.parse(text) as unknown) : undefined
  } catch {
    json = undefined
  }
  return { status, headers, text, truncated: false, json }
}

const serviceError = (status: number, error: string): unknown => ({ success: false, error, status })

function refusal(a: HttpAnswer, userId = user(7)): ActionError {
  try {
    const vote = readVote(a, userId, { botId: BOT })
    throw new Error(`expected an error, got a vote: ${JSON.stringify(vote)}`)
  } catch (error) {
    expect(error).toBeInstanceOf(ActionError)
    return error as ActionError
  }
}

describe('readVote', () => {
  const U = user(7)

  it('drops a lastVote no date can hold, rather than failing on it later', () => {
    expect(readVote(answer(200, { voted: true, vote: 1, lastVote: 1e20 }), U, { botId: BOT }).lastVote).toBeNull()
  })

  it('reads 204 No Content as voted, with no count or time', () => {
    expect(readVote(answer(204), U, { botId: BOT })).toEqual({ voted: true, votes: null, lastVote: null })
  })

  it('reads 200 JSON with voted: true, its vote count and lastVote (epoch ms)', () => {
    const vote = readVote(answer(200, { voted: true, vote: 3, lastVote: LAST_VOTE_MS }), U, { botId: BOT })
    expect(vote.voted).toBe(true)
    expect(vote.votes).toBe(3)
    expect(vote.lastVote).toBeInstanceOf(Date)
    expect(vote.lastVote?.getTime()).toBe(LAST_VOTE_MS)
    expect(vote.lastVote?.toISOString()).toBe('2023-09-10T11:30:00.000Z')
  })

  it('reads 200 JSON with voted: false as not voted', () => {
    expect(readVote(answer(200, { voted: false, vote: 0, lastVote: null }), U, { botId: BOT })).toEqual({
      voted: false,
      votes: 0,
      lastVote: null
    })
  })

  it('refuses a 200 without a "voted" field', () => {
    const error = refusal(answer(200, { vote: 3, lastVote: LAST_VOTE_MS }))
    expect(error.message).toContain(U)
    expect(error.message).not.toMatch(/[\r\n]/)
  })

  it('refuses a 200 with an HTML body (a wrong base-url), never reading it as "not voted"', () => {
    const error = refusal(answer(200, '<!doctype html><html><body><h1>Welcome</h1></body></html>'))
    expect(error.message).toContain(U)
    expect(error.message).not.toMatch(/[\r\n]/)
  })

  const failures: [status: number, said: string, hint: RegExp | undefined][] = [
    [401, 'Invalid API key.', /api-key/],
    [404, 'Bot not found.', /bot-id/],
    // A key revoked for strikes on an earlier run (service-behaviour.md 5); the fifth strike's text is below.
    [410, 'This API key has been revoked.', /revoked the key after five updates were refused as early/],
    [500, 'Internal server error.', undefined],
    [403, 'Forbidden.', undefined],
    [503, 'Service unavailable.', undefined]
  ]

  it.each(failures)('refuses %i with a one-line message naming the user and quoting the service', (status, said, hint) => {
    const error = refusal(answer(status, serviceError(status, said)), U)
    expect(error.message).toContain(U)
    expect(error.message).toContain(said)
    expect(error.message).toContain(String(status))
    expect(error.message).not.toMatch(/[\r\n]/)
    if (hint !== undefined) expect(error.message).toMatch(hint)
  })

  it.each([401, 404, 410, 500, 403])('refuses %i without a JSON body too', status => {
    const error = refusal(answer(status, '<html>nope</html>'), U)
    expect(error.message).toContain(U)
    expect(error.message).not.toMatch(/[\r\n]/)
  })

  it('keeps a multi-line service error on one line', () => {
    const error = refusal(answer(500, serviceError(500, 'first line\nsecond line')), U)
    expect(error.message).not.toMatch(/[\r\n]/)
  })

  it('keeps the largest time a date can hold as the last vote', () => {
    expect(readVote(answer(200, { voted: true, vote: 1, lastVote: 8.64e15 }), U, { botId: BOT }).lastVote?.toISOString()).toBe(
      '+275760-09-13T00:00:00.000Z'
    )
  })

  it.each([
    ['a negative count', -1],
    ['a fraction', 2.5],
    ['a string', '3'],
    ['null', null]
  ])('reads %s as the vote count as unknown (null), keeping the vote', (_, vote) => {
    expect(readVote(answer(200, { voted: true, vote, lastVote: null }), U, { botId: BOT })).toEqual({
      voted: true,
      votes: null,
      lastVote: null
    })
  })

  it.each([201, 202, 404, 500])('refuses a %i even when its body has a "voted" field: only 200 and 204 are vote answers', status => {
    const error = refusal(answer(status, { voted: false, vote: 0, lastVote: null }), U)
    expect(error.message).toMatch(new RegExp(`^Vote check for user ${U} failed: the service answered ${status}\\.`))
  })

  it('names the status alone when the service said nothing, and says the vote is unknown, not "not voted"', () => {
    expect(refusal(answer(500, '<html>nope</html>'), U).message).toBe(
      `Vote check for user ${U} failed: the service answered 500. This is not a vote answer, so the user's vote is unknown (not taken as "not voted").`
    )
  })

  it('says a 200 without a "voted" field is not a vote answer, and to check base-url', () => {
    expect(refusal(answer(200, { vote: 3 }), U).message).toBe(
      `Vote check for user ${U} failed: the service answered 200 without a "voted" field. Check base-url.`
    )
  })
})

// ---------------------------------------------------------------------------------------
// realClock
// ---------------------------------------------------------------------------------------

describe('realClock.sleep', () => {
  it('ends early, with its timer cleared, when the signal aborts', async () => {
    // Timers that never fire unless told: only the abort can end the sleep.
    vi.useFakeTimers()
    try {
      const stop = new AbortController()
      const sleeping = realClock.sleep(60_000, stop.signal).then(() => 'ended')
      expect(vi.getTimerCount(), 'the sleep set its timer').toBe(1)
      expect(await Promise.race([sleeping, Promise.resolve('sleeping')]), 'the sleep waits for its timer').toBe('sleeping')
      stop.abort()
      expect(await sleeping).toBe('ended')
      expect(vi.getTimerCount(), 'the abort cleared the timer: none is left to keep the process alive').toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })
})

// ---------------------------------------------------------------------------------------
// runVotes against a loopback server
// ---------------------------------------------------------------------------------------

/** The request helper on a given clock, with a deadline far away, under the run's stop signal. */
function requestsOn(clock: Clock, attemptTimeoutMs = 5_000, signal?: AbortSignal): Requests {
  return new Requests({ attemptTimeoutMs, totalMs: 1e12 }, clock, signal)
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0)

interface Seen {
  method: string
  path: string
  userId: string | undefined
  headers: http.IncomingHttpHeaders
  /** This user's request number, from 1. */
  nth: number
}

/**
 * An answer (`delayMs` holds it back that long, so that answers take different times), a dropped
 * connection, or none at all: a `hang` is never answered, so only the client can end its request.
 */
type Reply = { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number } | 'destroy' | 'hang'

interface VoteServer {
  url: string
  requests: Seen[]
  maxInFlight: () => number
  /** TCP connections accepted. */
  connections: () => number
  forUser: (id: string) => Seen[]
}

/** A node:http server on 127.0.0.1 at a free port; `handler` answers each vote check. */
async function startServer(handler: (seen: Seen) => Reply): Promise<VoteServer> {
  const requests: Seen[] = []
  const perUser = new Map<string, number>()
  let inFlight = 0
  let maxInFlight = 0
  let connections = 0
  const server = http.createServer((req, res) => {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    let done = false
    const finish = (): void => {
      if (!done) inFlight -= 1
      done = true
    }
    res.on('close', finish)
    req.resume()
    req.on('end', () => {
      const urlPath = (req.url ?? '/').split('?')[0] ?? '/'
      const userId = new RegExp(`^/api/bots/${BOT}/voters/(\\d+)$`).exec(urlPath)?.[1]
      const nth = (perUser.get(userId ?? '') ?? 0) + 1
      perUser.set(userId ?? '', nth)
      const seen: Seen = { method: req.method ?? '', path: urlPath, userId, headers: req.headers, nth }
      requests.push(seen)
      const reply: Reply =
        req.method === 'GET' && userId !== undefined ? handler(seen) : { status: 404, body: serviceError(404, 'Not found.') }
      if (reply === 'hang') return
      const respond = (): void => {
        if (reply === 'destroy') {
          finish()
          req.socket.destroy()
          return
        }
        const headers: Record<string, string> = { ...reply.headers }
        let text = ''
        if (reply.body !== undefined) {
          headers['Content-Type'] ??= 'application/json; charset=utf-8'
          text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
        }
        res.writeHead(reply.status, headers).end(reply.status === 204 ? undefined : text)
      }
      const delay = reply === 'destroy' ? 0 : (reply.delayMs ?? 0)
      if (delay > 0) setTimeout(respond, delay)
      else respond()
    })
  })
  server.on('connection', () => (connections += 1))
  const port = await listenForTest(server)
  return {
    url: `http://127.0.0.1:${port}/api`,
    requests,
    maxInFlight: () => maxInFlight,
    connections: () => connections,
    forUser: id => requests.filter(r => r.userId === id)
  }
}

interface Run {
  outcome: VoteOutcome
  sleeps: number[]
  logs: string[]
  now: () => number
}

/**
 * Runs the checks on the test's clock: a wait records the delay asked for and moves the clock
 * to its end at once (no real time passes), unless the run's stop signal ended it. The checks go
 * one at a time, so no check is in flight during a wait.
 */
async function run(
  server: VoteServer,
  userIds: string[],
  over: Partial<VotePlan> = {},
  clock = new TestClock(),
  signal?: AbortSignal
): Promise<Run> {
  const logs: string[] = []
  const plan: VotePlan = {
    baseUrl: server.url,
    botId: BOT,
    apiKey: KEY,
    userIds,
    rateLimitWaitMs: 60_000,
    failIfNotVoted: false,
    dryRun: false,
    ...over
  }
  const requests = requestsOn(clock, 2_000, signal)
  const outcome = await runVotes(plan, { requests, log: line => logs.push(line) })
  for (const line of logs) expect(line).not.toContain(KEY)
  if (outcome.error !== undefined) expect(outcome.error.message).not.toContain(KEY)
  return { outcome, sleeps: clock.waits, logs, now: clock.now }
}

/** A reply sent after a delay. */
function later(reply: Reply, delayMs: number): Reply {
  return typeof reply === 'string' ? reply : { ...reply, delayMs }
}

const yes = (vote = 1, lastVote: number | null = LAST_VOTE_MS): Reply => ({ status: 200, body: { voted: true, vote, lastVote } })
const no = (vote = 0, lastVote: number | null = null): Reply => ({ status: 200, body: { voted: false, vote, lastVote } })

/** Every user is either checked or listed as unchecked, never both, never lost. */
function expectAccounted(outcome: VoteOutcome, userIds: string[]): void {
  const checked = [...outcome.votes.keys()]
  for (const id of outcome.unchecked) expect(checked).not.toContain(id)
  expect([...checked, ...outcome.unchecked].sort()).toEqual([...userIds].sort())
}

describe('runVotes', () => {
  it('checks mixed users in both answer styles and keeps the input order', async () => {
    const [a, b, c, d, e] = users(5) as [string, string, string, string, string]
    const older = LAST_VOTE_MS - 30 * 3_600_000
    // Answers that take different times still come back in the order of the input.
    const replies = new Map<string, Reply>([
      [a, { status: 204, delayMs: 60 }],
      [b, later(no(0, null), 45)],
      [c, later(yes(3, LAST_VOTE_MS), 30)],
      [d, later(no(2, older), 15)],
      [e, { status: 204 }]
    ])
    const server = await startServer(seen => replies.get(seen.userId!)!)
    const { outcome, sleeps } = await run(server, [a, b, c, d, e])

    expect(outcome.error).toBeUndefined()
    expect(outcome.unchecked).toEqual([])
    expect(outcome.rateLimited).toBe(0)
    expect([...outcome.votes.keys()]).toEqual([a, b, c, d, e])
    const expected: [string, Vote][] = [
      [a, { voted: true, votes: null, lastVote: null }],
      [b, { voted: false, votes: 0, lastVote: null }],
      [c, { voted: true, votes: 3, lastVote: new Date(LAST_VOTE_MS) }],
      [d, { voted: false, votes: 2, lastVote: new Date(older) }],
      [e, { voted: true, votes: null, lastVote: null }]
    ]
    expect([...outcome.votes]).toEqual(expected)
    expect([200, 204]).toContain(outcome.status)
    expect(sleeps).toEqual([])
  })

  it('sends one GET per user, with the bare key, and never a PATCH', async () => {
    const ids = users(6)
    const server = await startServer(seen => (Number(seen.userId!.slice(-1)) % 2 === 0 ? yes() : no()))
    const { outcome } = await run(server, ids)

    expect(outcome.error).toBeUndefined()
    expect(outcome.votes.size).toBe(6)
    expect(server.requests.map(r => r.path).sort()).toEqual(ids.map(id => `/api/bots/${BOT}/voters/${id}`).sort())
    for (const request of server.requests) {
      expect(request.method).toBe('GET')
      expect(request.headers.authorization).toBe(KEY)
      expect(request.headers['user-agent']).toMatch(/discord-place-bot-stats\/\d+\.\d+\.\d+/)
    }
    expect(server.requests.filter(r => r.method === 'PATCH')).toEqual([])
  })

  it('retries a 503, after one backoff sleep', async () => {
    const [a] = users(1) as [string]
    const server = await startServer(seen =>
      seen.nth === 1 ? { status: 503, body: serviceError(503, 'Service unavailable.') } : yes(4, LAST_VOTE_MS)
    )
    const { outcome, sleeps } = await run(server, [a])

    expect(outcome.error).toBeUndefined()
    expect(server.forUser(a)).toHaveLength(2)
    expect(outcome.votes.get(a)).toEqual({ voted: true, votes: 4, lastVote: new Date(LAST_VOTE_MS) })
    expect(outcome.status).toBe(200)
    expect(sleeps).toHaveLength(1)
    expect(sleeps[0]).toBeGreaterThan(0)
    expect(sleeps[0]).toBeLessThan(30_000)
  })

  it('retries after a network failure (the server drops the connection)', async () => {
    const [a, b] = users(2) as [string, string]
    const server = await startServer(seen => (seen.userId === a && seen.nth === 1 ? 'destroy' : yes()))
    const { outcome, sleeps } = await run(server, [a, b])

    expect(outcome.error).toBeUndefined()
    expect(server.forUser(a)).toHaveLength(2)
    expect(server.forUser(b)).toHaveLength(1)
    expect([...outcome.votes.keys()]).toEqual([a, b])
    expect(outcome.votes.get(a)?.voted).toBe(true)
    expect(sleeps).toHaveLength(1)
    expect(sleeps[0]).toBeGreaterThan(0)
  })

  it('fails after 3 consecutive 503s, with growing backoff, listing the user as unchecked', async () => {
    const [a, b] = users(2) as [string, string]
    const server = await startServer(seen =>
      seen.userId === a && seen.nth <= 3 ? { status: 503, body: serviceError(503, 'Service unavailable.') } : yes()
    )
    const { outcome, sleeps, logs } = await run(server, [a, b])

    expect(outcome.error).toBeInstanceOf(ActionError)
    expect(outcome.error?.message).toContain(a)
    expect(outcome.error?.message).toContain('503')
    expect(outcome.error?.message).not.toMatch(/[\r\n]/)
    expect(server.forUser(a)).toHaveLength(3)
    expect(outcome.votes.has(a)).toBe(false)
    expect(outcome.unchecked).toContain(a)
    expectAccounted(outcome, [a, b])
    expect(sleeps).toHaveLength(2)
    expect(sleeps[0]).toBeGreaterThan(0)
    expect(sleeps[1]).toBeGreaterThanOrEqual(sleeps[0]!)
    expect(logs.join('\n')).toContain(a)
  })

  it('fails after repeated network failures, listing the user as unchecked', async () => {
    const [a] = users(1) as [string]
    const server = await startServer(() => 'destroy')
    const { outcome, sleeps } = await run(server, [a])

    expect(outcome.error).toBeInstanceOf(ActionError)
    expect(outcome.error?.message).toContain(a)
    expect(outcome.unchecked).toEqual([a])
    expect(outcome.votes.size).toBe(0)
    expect(server.forUser(a).length).toBeGreaterThanOrEqual(2)
    expect(server.forUser(a).length).toBeLessThanOrEqual(5)
    expect(sleeps.length).toBe(server.forUser(a).length - 1)
  })

  it('never answers a 429 at once, even one asking for no wait, and gives up after a run of them', async () => {
    const [a] = users(1) as [string]
    const server = await startServer(() => ({
      status: 429,
      headers: { 'Retry-After': '0', 'RateLimit-Limit': '100', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '0' },
      body: { success: false, error: TOO_MANY, status: 429, retry_after: 0 }
    }))
    const { outcome, sleeps } = await run(server, [a])

    expect(server.forUser(a)).toHaveLength(10)
    expect(outcome.error?.message).toMatch(/answered 429/)
    expect(outcome.unchecked).toEqual([a])
    expect(sleeps.every(ms => ms >= 1_000)).toBe(true)
    expect(sleeps.length).toBeGreaterThanOrEqual(9)
  })

  it('waits Retry-After on a 429, then retries', async () => {
    const [a] = users(1) as [string]
    const server = await startServer(seen =>
      seen.nth === 1
        ? {
            status: 429,
            headers: { 'Retry-After': '2', 'RateLimit-Limit': '100', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '2' },
            body: { success: false, error: TOO_MANY, status: 429, retry_after: 2 }
          }
        : no(0, null)
    )
    const { outcome, sleeps } = await run(server, [a])

    expect(outcome.error).toBeUndefined()
    expect(outcome.rateLimited).toBe(1)
    expect(server.forUser(a)).toHaveLength(2)
    expect(outcome.votes.get(a)).toEqual({ voted: false, votes: 0, lastVote: null })
    expect(sleeps).toContain(2_000)
    expect(sum(sleeps)).toBeLessThan(3_000)
  })

  it.each([
    ['the Retry-After header alone', { 'Retry-After': '3' }, { success: false, error: TOO_MANY, status: 429 }],
    ['retry_after in the body alone', {}, { success: false, error: TOO_MANY, status: 429, retry_after: 3 }]
  ])('waits a 429 out from %s', async (_label, headers, body) => {
    const [a] = users(1) as [string]
    const server = await startServer(seen => (seen.nth === 1 ? { status: 429, headers, body } : yes()))
    const { outcome, sleeps } = await run(server, [a])

    expect(outcome.error).toBeUndefined()
    expect(outcome.rateLimited).toBe(1)
    expect(sleeps).toContain(3_000)
    expect(sum(sleeps)).toBeLessThan(4_000)
  })

  it('fails, listing the users not checked, when the rate limit asks for more than rate-limit-wait', async () => {
    const ids = users(3)
    const server = await startServer(() => ({
      status: 429,
      headers: { 'Retry-After': '60' },
      body: { success: false, error: TOO_MANY, status: 429, retry_after: 60 }
    }))
    const { outcome, sleeps } = await run(server, ids, { rateLimitWaitMs: 10_000 })

    expect(outcome.error).toBeInstanceOf(ActionError)
    expect(outcome.error?.message).toMatch(/wait of 60 s more, beyond the rate-limit-wait of 10 s/)
    expect(outcome.status, "the 429's status").toBe(429)
    expect(outcome.rateLimited).toBe(1)
    expect(outcome.unchecked).toEqual(ids)
    expect(outcome.votes.size).toBe(0)
    expect(sleeps, 'a wait past rate-limit-wait is not slept').toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('stops on a 404 (bot not found) with an error, never a "not voted"', async () => {
    const [a, b, c, d] = users(4) as [string, string, string, string]
    const server = await startServer(seen => (seen.userId === b ? { status: 404, body: serviceError(404, 'Bot not found.') } : no()))
    const { outcome } = await run(server, [a, b, c, d])

    expect(outcome.error).toBeInstanceOf(ActionError)
    expect(outcome.error?.message).toContain('bot-id')
    expect(outcome.error?.message).toContain('Bot not found.')
    expect(outcome.error?.message).toContain(b)
    expect(outcome.votes.has(b)).toBe(false)
    expect(outcome.unchecked).toContain(b)
    expect(outcome.status === 404 || outcome.status === 200).toBe(true)
    expectAccounted(outcome, [a, b, c, d])
    // Not retried, and the run stopped: the users after it were not asked about.
    expect(server.forUser(b)).toHaveLength(1)
    expect(server.forUser(c)).toHaveLength(0)
    expect(server.forUser(d)).toHaveLength(0)
    expect(outcome.unchecked).toEqual([b, c, d])
  })

  it.each([
    [401, 'Invalid API key.', /api-key/],
    [410, 'API key revoked.', /Generate a new key/]
  ])('stops on %i without retrying it', async (status, said, hint) => {
    const ids = users(3)
    const server = await startServer(() => ({ status, body: serviceError(status, said) }))
    const { outcome } = await run(server, ids)

    expect(outcome.error).toBeInstanceOf(ActionError)
    expect(outcome.error?.message).toMatch(hint)
    expect(outcome.error?.message).toContain(said)
    expect(outcome.votes.size).toBe(0)
    expect(outcome.unchecked).toEqual(ids)
    expect(server.requests).toHaveLength(1)
  })

  it.each([
    ['with the live rate-limit headers', true],
    ['without rate-limit headers', false]
  ])('checks one user at a time, in order, on one kept-alive connection (%s)', async (_label, headered) => {
    const ids = users(12)
    // The live service's window (100 checks per 5 minutes), far from spent here.
    let served = 0
    const server = await startServer(() => {
      served += 1
      const headers: Record<string, string> = headered
        ? { 'RateLimit-Limit': '100', 'RateLimit-Remaining': String(100 - served), 'RateLimit-Reset': '300' }
        : {}
      return { status: 200, headers, body: { voted: true, vote: 1, lastVote: null }, delayMs: 10 }
    })
    const { outcome, sleeps } = await run(server, ids)

    expect(outcome.error).toBeUndefined()
    expect([...outcome.votes.keys()]).toEqual(ids)
    expect(server.requests.map(r => r.userId)).toEqual(ids)
    expect(server.maxInFlight(), 'one check in flight at a time').toBe(1)
    expect(server.connections(), 'one connection for all the checks').toBe(1)
    expect(sleeps).toEqual([])
  })

  describe('pacing by a rate limit of 5 checks per 2-second window', () => {
    const LIMIT = 5
    const WINDOW_MS = 2_000

    /** The service's fixed-window limiter, on the same virtual clock as the checks. */
    async function limitedServer(
      now: () => number
    ): Promise<{ server: VoteServer; windows: { start: number; count: number; refused: number }[] }> {
      const windows: { start: number; count: number; refused: number }[] = []
      const server = await startServer(() => {
        const t = now()
        let window = windows.at(-1)
        if (window === undefined || t >= window.start + WINDOW_MS) {
          window = { start: t, count: 0, refused: 0 }
          windows.push(window)
        }
        window.count += 1
        const reset = String(Math.ceil((window.start + WINDOW_MS - t) / 1000))
        const remaining = Math.max(0, LIMIT - window.count)
        const headers = { 'RateLimit-Limit': String(LIMIT), 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': reset }
        if (window.count > LIMIT) {
          window.refused += 1
          return {
            status: 429,
            headers: { ...headers, 'Retry-After': reset },
            body: { success: false, error: TOO_MANY, status: 429, retry_after: Number(reset) },
            delayMs: 5
          }
        }
        return { status: 200, headers, body: { voted: true, vote: 1, lastVote: null }, delayMs: 5 }
      })
      return { server, windows }
    }

    it('checks 12 users in the minimum time, waiting only for the resets, without a 429', async () => {
      const ids = users(12)
      const clock = new TestClock()
      const start = clock.now()
      const { server, windows } = await limitedServer(clock.now)
      const { outcome, sleeps } = await run(server, ids, {}, clock)

      expect(outcome.error).toBeUndefined()
      expect(outcome.unchecked).toEqual([])
      expect([...outcome.votes.keys()]).toEqual(ids)
      expect(outcome.rateLimited, 'no 429: RateLimit-Remaining: 0 was waited out').toBe(0)
      expect(windows.map(w => [w.count, w.refused])).toEqual([
        [5, 0],
        [5, 0],
        [2, 0]
      ])
      // 12 checks at 5 per window: the third window starts at 2 * 2 s, and the checks start it.
      expect(sleeps).toEqual([WINDOW_MS, WINDOW_MS])
      expect(clock.now() - start).toBe(2 * WINDOW_MS)
      expect(server.connections(), 'one connection across the windows').toBe(1)
    })

    it('counts every wait against rate-limit-wait: a second wait past it ends the run, listing the users not checked', async () => {
      const ids = users(12)
      const clock = new TestClock()
      const { server } = await limitedServer(clock.now)
      const { outcome, sleeps, logs } = await run(server, ids, { rateLimitWaitMs: 3_000 }, clock)

      expect(outcome.error?.message).toMatch(/wait of 2 s more, beyond the rate-limit-wait of 3 s/)
      expect(sleeps, 'the first wait fits, the second would pass 3 s in all and is not slept').toEqual([WINDOW_MS])
      expect([...outcome.votes.keys()]).toEqual(ids.slice(0, 10))
      expect(outcome.unchecked).toEqual(ids.slice(10))
      expect(server.requests, 'nothing sent after the decision').toHaveLength(10)
      expect(logs).toContain(`Not checked: ${ids.slice(10).join(', ')}`)
    })
  })

  /** A 200 vote answer with the given rate-limit headers. */
  const headed = (headers: Record<string, string>): Reply => ({ status: 200, headers, body: { voted: true, vote: 1, lastVote: null } })

  /** Rate-limit headers: checks left in the window, and the seconds to its end (none when undefined). */
  const rateLimit = (remaining: string, reset?: string): Reply =>
    headed(reset === undefined ? { 'RateLimit-Remaining': remaining } : { 'RateLimit-Remaining': remaining, 'RateLimit-Reset': reset })

  it.each<[string, Reply[], number[]]>([
    [
      'waits for the earliest window end any answer of the window gave (a reset in whole seconds is never early)',
      [rateLimit('2', '5'), rateLimit('1', '3'), rateLimit('0', '4'), rateLimit('9', '10')],
      [3_000]
    ],
    [
      'takes a higher RateLimit-Remaining as a new window, and waits for its reset, not the old one',
      // A window ending in 2 s was already over: more checks are left than before, in a window ending in 10 s.
      // The old 2 s would send a check into the spent window.
      [rateLimit('3', '2'), rateLimit('5', '10'), rateLimit('0', '10'), yes()],
      [10_000]
    ],
    ['looks again after a second when a spent window gives no reset time', [rateLimit('0'), yes()], [1_000]],
    ['ignores rate-limit headers that are not numbers', [rateLimit('', 'soon'), rateLimit('', 'soon'), rateLimit('', 'soon')], []],
    [
      'reads a RateLimit-Reset not written in plain seconds (1e3) as unknown: a spent window is looked at again after a second',
      // Read as 1,000 s, it would ask for a wait past rate-limit-wait and end the run.
      [rateLimit('0', '1e3'), yes()],
      [1_000]
    ],
    [
      'a window of one check: every answer that spends it is waited out, one that comes just as the last window ended included',
      // The second answer spends the new window: the third check waits for its end.
      [rateLimit('0', '2'), rateLimit('0', '2'), rateLimit('0', '2')],
      [2_000, 2_000]
    ],
    ['waits for a window end that only a later answer of the window gave', [rateLimit('5'), rateLimit('0', '3'), yes()], [3_000]],
    ['reads a RateLimit-Reset in fractions of a second', [rateLimit('0', '1.25'), yes()], [1_250]]
  ])('%s', async (_, replies, waits) => {
    const ids = users(replies.length)
    // One check at a time: the nth request gets the nth answer.
    const server = await startServer(() => replies[server.requests.length - 1]!)
    const { outcome, sleeps } = await run(server, ids)

    expect(outcome.error).toBeUndefined()
    expect(outcome.votes.size).toBe(ids.length)
    expect(sleeps).toEqual(waits)
  })

  it('keeps the earliest window end when a retried 5xx leaves RateLimit-Remaining as it was (the service does not count it)', async () => {
    const ids = users(3)
    // The window really ends 1.9 s after the first answer; each answer rounds what is left up to whole seconds.
    const unavailable = (remaining: string, reset: string): Reply => ({
      status: 503,
      headers: { 'RateLimit-Remaining': remaining, 'RateLimit-Reset': reset },
      body: serviceError(503, 'Service unavailable.')
    })
    // The first user's check: two 503s (not counted: Remaining stays 2), then its answer; the second user's spends the window.
    const replies = [unavailable('2', '2'), unavailable('2', '2'), rateLimit('1', '1'), rateLimit('0', '1'), yes()]
    const server = await startServer(() => replies[server.requests.length - 1]!)
    const clock = new TestClock()
    const start = clock.now()
    const { outcome, sleeps } = await run(server, ids, {}, clock)

    expect(outcome.error).toBeUndefined()
    expect([...outcome.votes.keys()]).toEqual(ids)
    expect(server.forUser(ids[0]!)).toHaveLength(3)
    // Two backoffs, then the wait for the window: the third check goes out at the earliest end given, 2 s after
    // the first answer. The second 503, with as many checks left, is in the same window: it does not drop that end.
    expect(sleeps).toHaveLength(3)
    expect(clock.now() - start).toBe(2_000)
  })

  it('waits for as long as rate-limit-wait allows, to the millisecond', async () => {
    const [a, b] = users(2) as [string, string]
    const server = await startServer(seen => (seen.userId === a ? headed({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3' }) : yes()))
    const { outcome, sleeps } = await run(server, [a, b], { rateLimitWaitMs: 3_000 })

    expect(outcome.error).toBeUndefined()
    expect(sleeps).toEqual([3_000])
    expect(outcome.result).toBe('voted')
  })

  it('a run that checked every user lists nobody as not checked', async () => {
    const server = await startServer(() => yes())
    const { outcome, logs } = await run(server, users(2))

    expect(outcome).toMatchObject({ result: 'voted', unchecked: [], error: undefined })
    expect(logs.join('\n')).not.toMatch(/Not checked/)
  })

  it('a failure that is not a stop keeps its own message, without the count of answered checks', async () => {
    const [a, b] = users(2) as [string, string]
    const server = await startServer(seen => (seen.userId === b ? { status: 404, body: serviceError(404, 'Bot not found.') } : yes()))
    const { outcome } = await run(server, [a, b])

    expect(outcome.error?.message).toBe(
      `Vote check for user ${b} failed: the service answered 404 with "Bot not found.". ` +
        `The service lists no bot with ID ${BOT}. Check bot-id, and that the bot is listed on discord.place.`
    )
    expect(outcome.unchecked).toEqual([b])
  })

  it.each([
    ['every user voted: no failure', [true, true], undefined],
    [
      'two users did not vote: both named',
      [false, false],
      (ids: string[]) => `Not voted in the last 24 hours: ${ids.join(', ')} (fail-if-not-voted is true).`
    ]
  ])('fail-if-not-voted: %s', async (_, voted, message) => {
    const ids = users(2)
    const server = await startServer(seen => (voted[ids.indexOf(seen.userId!)] ? yes() : no()))
    const { outcome } = await run(server, ids, { failIfNotVoted: true })

    expect(outcome.error?.message).toBe(message?.(ids))
  })

  it('without a key sends nothing, whatever dry-run says', async () => {
    const server = await startServer(() => yes())
    const { outcome, logs } = await run(server, users(2), { apiKey: undefined, dryRun: false })

    expect(server.requests).toEqual([])
    expect(outcome).toMatchObject({ result: 'dry-run', unchecked: [], error: undefined })
    expect(logs).toEqual([`Dry run: nothing sent. A real run would check the votes of ${users(2).join(', ')}.`])
  })

  it('ends a wait for the window at once when the signal aborts, and sends nothing more', async () => {
    const ids = users(3)
    const server = await startServer(() => headed({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '60' }))
    const stop = new AbortController()
    const clock = new TestClock()
    const start = clock.now()
    // The stop lands once the wait for the window has begun. The test's clock moves a wait's
    // whole length unless the run's stop signal ended it.
    const wait = clock.sleep
    clock.sleep = (ms, signal) => {
      stop.abort(new StoppedError('SIGTERM'))
      return wait(ms, signal)
    }
    const { outcome, sleeps } = await run(server, ids, { rateLimitWaitMs: 600_000 }, clock, stop.signal)

    expect(sleeps, 'the wait for the window began').toEqual([60_000])
    expect(clock.now() - start, 'not the 60-second window: the stop ended the wait').toBe(0)
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). 1 vote check(s) had been answered; ' +
        'no result is reported for an unfinished check.'
    )
    expect(outcome.result).toBe('failed')
    expect(server.requests, 'no check after the abort').toHaveLength(1)
    expect([...outcome.votes.keys()]).toEqual(ids.slice(0, 1))
    expect(outcome.unchecked).toEqual(ids.slice(1))
  })

  it('a stop while a check is in flight names the user whose check was cut off, and sends no other check', async () => {
    const ids = users(3)
    const stop = new AbortController()
    // The stop lands once the second check has reached the service; its answer never comes.
    const server = await startServer(seen => {
      if (seen.userId !== ids[1]) return yes()
      stop.abort(new StoppedError('SIGTERM'))
      return 'hang'
    })
    const { outcome } = await run(server, ids, {}, new TestClock(), stop.signal)

    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). 1 vote check(s) had been answered, ' +
        `and the check of user ${ids[1]} was sent but cut off before its answer; no result is reported for an unfinished check.`
    )
    expect(outcome.result).toBe('failed')
    expect(server.requests.map(r => r.userId)).toEqual(ids.slice(0, 2))
    expect([...outcome.votes.keys()]).toEqual(ids.slice(0, 1))
    expect(outcome.unchecked).toEqual(ids.slice(1))
  })

  it("fails with the step's time limit, not a long sleep, when a 429's wait passes the deadline", async () => {
    const [a, b] = users(2) as [string, string]
    const server = await startServer(() => ({
      status: 429,
      headers: { 'Retry-After': '300' },
      body: { success: false, error: TOO_MANY, status: 429, retry_after: 300 }
    }))
    const clock = new TestClock()
    const requests = new Requests({ attemptTimeoutMs: 2_000, totalMs: 30_000 }, clock)
    const logs: string[] = []
    const plan: VotePlan = {
      baseUrl: server.url,
      botId: BOT,
      apiKey: KEY,
      userIds: [a, b],
      rateLimitWaitMs: 600_000,
      failIfNotVoted: false,
      dryRun: false
    }
    const outcome = await runVotes(plan, { requests, log: line => logs.push(line) })

    expect(outcome.error?.message).toMatch(/time limit of 30 s \(input 'timeout'\)/)
    expect(outcome.status).toBe(429)
    expect(outcome.unchecked).toEqual([a, b])
    expect(clock.waits).toEqual([])
    expect(server.requests).toHaveLength(1)
  })
})

// ---------------------------------------------------------------------------------------
// The mode in process, against the service emulator
// ---------------------------------------------------------------------------------------

/** The test's bot with two users, one who voted an hour ago and one who never did, and one vote check a minute. */
function emulated(clock: TestClock, seed: Partial<BotSeed> = {}): Promise<ServiceEmulator> {
  const [voter, other] = users(2) as [string, string]
  return emulatedBot(clock, {
    seed: { voters: { [voter]: { vote: 4, lastVote: new Date(clock.now() - HOUR) }, [other]: { vote: 0, lastVote: null } }, ...seed },
    service: { rateLimits: { votes: { limit: 1, windowMs: 60_000 } } }
  })
}

const paths = (emulator: ServiceEmulator): string[] => emulator.requests.map(r => `${r.method} ${r.path}`)

describe('the vote-check mode against the emulator', () => {
  it('a dry run with a key checks the key (GET /bots/{id}/voters/{bot id}) and nobody else; no status is reported', async () => {
    const clock = new TestClock()
    const emulator = await emulated(clock)
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': users(2).join(' '), 'dry-run': 'true' }), { clock })
    expect(paths(emulator)).toEqual([`GET /bots/${BOT}/voters/${BOT}`])
    expect(emulator.requests[0]!.headers['authorization']).toBe(KEY)
    expect(outcome).toMatchObject({ result: 'dry-run', keyCheck: { state: 'valid' }, status: undefined, error: undefined })
    expect(outcome.votes.size).toBe(0)
    expect(outcome.unchecked).toEqual([])
  })

  it('a bug during a dry run is not reported as an expected failure: it is thrown', async () => {
    const clock = new TestClock()
    const emulator = await emulated(clock)
    const bug = new Error('a bug')
    const running = votesRun(botInputs(emulator, { 'user-id': user(1), 'dry-run': 'true' }), {
      clock,
      onLog: line => {
        if (line.startsWith('Checking the API key')) throw bug
      }
    })
    await expect(running).rejects.toBe(bug)
  })

  it('a dry run with a wrong key fails now, with the key advice', async () => {
    const clock = new TestClock()
    const emulator = await emulated(clock, { apiKey: 'the-real-key-000000' })
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': user(1), 'dry-run': 'true' }), { clock })
    expect(paths(emulator)).toEqual([`GET /bots/${BOT}/voters/${BOT}`])
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 401 with "Invalid API key\."\. The API key was refused/)
  })

  it('a dry run without a key sends nothing at all', async () => {
    const clock = new TestClock()
    const emulator = await emulated(clock)
    const { outcome } = await votesRun({ 'bot-id': BOT, 'base-url': emulator.url, 'user-id': user(1), 'dry-run': 'true' }, { clock })
    expect(emulator.requests).toEqual([])
    expect(outcome).toMatchObject({ result: 'dry-run', keyCheck: undefined, error: undefined })
  })

  it.each([
    ['false', undefined],
    ['true', `Not voted in the last 24 hours: ${user(2)} (fail-if-not-voted is true).`]
  ])('fail-if-not-voted: %s keeps the result not-voted, and fails the step only when true', async (fail, error) => {
    const clock = new TestClock()
    const emulator = await emulated(clock)
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': users(2).join(','), 'fail-if-not-voted': fail }), { clock })
    expect(emulator.received('votes')).toHaveLength(2)
    expect(outcome.result).toBe('not-voted')
    expect(outcome.unchecked).toEqual([])
    expect(outcome.error?.message).toBe(error)
  })

  it.each([
    [
      'the text of a key revoked earlier',
      { apiKey: 'the-new-key-000000', revokedKeys: [KEY] },
      undefined,
      /revoked the key after five updates were refused as early within 6 hours \(strikes\), on this run or an earlier one/,
      /regenerat|This update was the fifth/
    ],
    [
      'the five-strikes text',
      {},
      'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.',
      /This update was the fifth refused as early within 6 hours \(strikes\)/,
      /regenerat/
    ],
    [
      'a text the service does not send',
      {},
      'Your API key has been revoked.',
      /revoked the key after five updates were refused as early/,
      /regenerat/
    ]
  ])('a 410 with %s gets its own advice', async (_, seed, text, advice, other) => {
    const clock = new TestClock()
    const emulator = await emulated(clock, seed)
    // The service's own 410 for a key revoked earlier, or this text in its place.
    if (text !== undefined) emulator.inject('votes', jsonFault(410, { success: false, error: text, status: 410 }))
    const ids = users(2)
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': ids.join(',') }), { clock })
    expect(emulator.received('votes'), 'a 410 is not retried, and the run stops').toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', status: 410, unchecked: ids })
    expect(outcome.error?.message).toMatch(advice)
    expect(outcome.error?.message).not.toMatch(other)
  })

  it('a dry run whose key was revoked for strikes fails with the strikes advice', async () => {
    const clock = new TestClock()
    const emulator = await emulated(clock, { apiKey: 'the-new-key-000000', revokedKeys: [KEY] })
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': user(1), 'dry-run': 'true' }), { clock })
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 410 with "This API key has been revoked\."\./)
    expect(outcome.error?.message).toMatch(/Generate a new key on the bot's manage page on discord\.place \(if not done yet\)/)
  })

  it('a dry run whose key was regenerated on the manage page fails with the 401 advice, which names that case', async () => {
    const clock = new TestClock()
    const emulator = await emulated(clock)
    emulator.regenerateKey(BOT, 'the-new-key-000000')
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': user(1), 'dry-run': 'true' }), { clock })
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 401 with "Invalid API key\."\. .*regenerated or deleted/)
  })
})

// ---------------------------------------------------------------------------------------
// The report of a vote check: summary (HTML) and outputs
// ---------------------------------------------------------------------------------------

/** When the report was written: the times in the summary are relative to it. */
const AT = new Date('2026-11-24T12:00:00Z')

function voteSettings(userIds: string[], over: Record<string, string> = {}): VoteSettings {
  return settingsFor<VoteSettings>({ mode: 'vote-check', 'bot-id': BOT, 'api-key': KEY, 'user-id': userIds.join(', '), ...over })
}

function throughCore(settings: VoteSettings, outcome: VoteOutcome): string {
  return core.summary.emptyBuffer().addRaw(renderSummary(settings, outcome)).stringify()
}

/** The inner HTML of each cell of the table row that names `id`. */
function rowOf(page: string, id: string): string[] {
  const rows = [...page.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(match => match[1]!).filter(row => row.includes(id))
  expect(rows, `one row for ${id}`).toHaveLength(1)
  return [...rows[0]!.matchAll(/<t[dh]>([\s\S]*?)<\/t[dh]>/g)].map(match => match[1]!)
}

function headlineOf(page: string): string {
  const found = /<h3>([\s\S]*?)<\/h3>/.exec(page)
  expect(found, 'a headline').not.toBeNull()
  return found![1]!
}

/** An outcome as runVotes returns it: its result follows from the votes, as there. */
function outcomeOf(votes: [string, Vote][], unchecked: string[] = [], error?: ActionError, over: Partial<VoteOutcome> = {}): VoteOutcome {
  const result = error !== undefined ? 'failed' : votes.every(([, vote]) => vote.voted) ? 'voted' : 'not-voted'
  return { result, votes: new Map(votes), status: 200, rateLimited: 0, unchecked, keyCheck: undefined, error, at: AT, ...over }
}

describe('the summary of a vote check', () => {
  const [a, b, c] = users(3) as [string, string, string]

  it('lists every user with yes/no, the vote count and the last vote time', () => {
    const settings = voteSettings([a, b, c])
    const page = throughCore(
      settings,
      outcomeOf([
        [a, { voted: true, votes: 3, lastVote: new Date(LAST_VOTE_MS) }],
        [b, { voted: false, votes: 0, lastVote: null }],
        [c, { voted: true, votes: null, lastVote: null }]
      ])
    )

    const rowA = rowOf(page, a)
    expect(rowA[0]).toBe(`<code>${a}</code>`)
    expect(rowA[1]).toBe('yes')
    expect(rowA[2]).toBe('3')
    expect(rowA[3]).toContain('2023-09-10')
    expect(rowA[3]).toContain('11:30')
    const rowB = rowOf(page, b)
    expect(rowB[1]).toBe('no')
    expect(rowB[2]).toBe('0')
    expect(rowB[3]).toBe('')
    const rowC = rowOf(page, c)
    expect(rowC[1]).toBe('yes')
    expect(rowC.slice(2)).toEqual(['', ''])
    // Every row of the users' table has as many cells as its header.
    const header = rowOf(page, 'Voted in the last 24 hours')
    expect(header).toEqual(['User', 'Voted in the last 24 hours', 'Votes', 'Last vote'])
    for (const row of [rowA, rowB, rowC]) expect(row).toHaveLength(header.length)
    expect(page).not.toContain(KEY)
  })

  it('shows users left unchecked as "not checked", and escapes the failure text', () => {
    const settings = voteSettings([a, b, c])
    const failure = 'Vote check for user 1 failed: the service answered 500 with "<b>boom</b> | *x*".'
    const page = throughCore(
      settings,
      outcomeOf([[a, { voted: true, votes: 1, lastVote: new Date(LAST_VOTE_MS) }]], [b, c], new ActionError(failure))
    )

    expect(rowOf(page, a)[1]).toBe('yes')
    expect(rowOf(page, b)[1]).toBe('not checked')
    expect(rowOf(page, c)[1]).toBe('not checked')
    expect(page).not.toContain('<b>')
    expect(page).toContain('&lt;b&gt;boom&lt;/b&gt;')
    expect(page).toContain('❌ <strong>Error:</strong>')
    expect(headlineOf(page)).toContain('failed: 2 user(s) not checked')
    expect(page).not.toContain(KEY)
  })

  it.each([
    ['every user voted', outcomeOf([[a, { voted: true, votes: 1, lastVote: null }]]), /^✅ .*: voted$/],
    ['a user has not voted', outcomeOf([[a, { voted: false, votes: 0, lastVote: null }]]), /^⭕ .*: not voted in the last 24 hours$/],
    ['a dry run', outcomeOf([], [], undefined, { result: 'dry-run', status: undefined }), /^🧪 .*: dry run: nobody checked$/]
  ])('has a headline naming the bot, linked to its page, and the outcome (%s)', (_, outcome, words) => {
    const headline = headlineOf(throughCore(voteSettings([a]), outcome))
    expect(headline).toContain(`<a href="https://discord.place/bots/${BOT}">Bot ${BOT}</a>`)
    expect(headline).toMatch(words)
  })

  it('names the bot without a link for another base-url', () => {
    const headline = headlineOf(throughCore(voteSettings([a], { 'base-url': 'http://127.0.0.1:8080' }), outcomeOf([])))
    expect(headline).toContain(`Bot ${BOT}`)
    expect(headline).not.toContain('<a ')
  })

  it('a dry run lists the users a real run would check', () => {
    const page = throughCore(voteSettings([a, b]), outcomeOf([], [], undefined, { result: 'dry-run', status: undefined }))
    expect(page).toContain(`A real run would check 2 user(s): <code>${a}</code>, <code>${b}</code>.`)
    expect(page).not.toContain('<table>')
  })
})

describe('the headline of a vote check the service refused', () => {
  it.each<[string, (emulator: ServiceEmulator) => void, Partial<BotSeed>, Record<string, string>, string]>([
    ['a key regenerated on the manage page', emulator => emulator.regenerateKey(BOT, 'the-new-key-000000'), {}, {}, 'API key refused'],
    ['a key revoked for strikes', () => {}, { apiKey: 'the-new-key-000000', revokedKeys: [KEY] }, {}, 'API key revoked (strikes)'],
    ['a bot the service does not list', () => {}, {}, { 'bot-id': '223456789012345679' }, 'bot not listed on discord.place']
  ])('%s: names the cause and the users not checked', async (_, change, seed, more, cause) => {
    const clock = new TestClock()
    const emulator = await emulated(clock, seed)
    change(emulator)
    const given = botInputs(emulator, { 'user-id': users(2).join(','), ...more })
    const { outcome } = await votesRun(given, { clock })
    expect(emulator.received('votes'), 'the refusal ends the run').toHaveLength(1)
    const settings = voteSettings(users(2), { 'base-url': emulator.url, ...more })
    expect(headlineOf(throughCore(settings, outcome))).toBe(
      `❌ Vote check for Bot ${settings.botId}: failed: ${cause}; 2 user(s) not checked`
    )
  })
})

describe('the outputs of a vote check', () => {
  const [a, b] = users(2) as [string, string]

  /** Runs writeOutputs into a fresh GITHUB_OUTPUT file and reads it back. */
  function outputs(outcome: VoteOutcome): Record<string, string> {
    const files = runnerFiles()
    writeOutputs(outcome)
    return files.outputs()
  }

  it('writes voted, result, votes (JSON per interface.md) and last-vote for one user', () => {
    const out = outputs(outcomeOf([[a, { voted: true, votes: 3, lastVote: new Date(LAST_VOTE_MS) }]]))
    expect(out['result']).toBe('voted')
    expect(out['voted']).toBe('true')
    expect(out['status']).toBe('200')
    expect(out['last-vote']).toBe('2023-09-10T11:30:00.000Z')
    expect(JSON.parse(out['votes']!)).toEqual({ [a]: { voted: true, votes: 3, last_vote: '2023-09-10T11:30:00.000Z' } })
  })

  it('writes voted: false and result not-voted when any user has not voted; no last-vote with several users', () => {
    const out = outputs(
      outcomeOf([
        [a, { voted: true, votes: 3, lastVote: new Date(LAST_VOTE_MS) }],
        [b, { voted: false, votes: 0, lastVote: null }]
      ])
    )
    expect(out['result']).toBe('not-voted')
    expect(out['voted']).toBe('false')
    expect(out['last-vote'] ?? '').toBe('')
    expect(JSON.parse(out['votes']!)).toEqual({
      [a]: { voted: true, votes: 3, last_vote: '2023-09-10T11:30:00.000Z' },
      [b]: { voted: false, votes: 0, last_vote: null }
    })
  })

  it('a failed run writes result failed and the votes it has, but no voted, which would speak for users not checked', () => {
    const out = outputs(outcomeOf([[a, { voted: true, votes: 3, lastVote: null }]], [b], new ActionError('stopped')))
    expect(out['result']).toBe('failed')
    expect(out['voted']).toBeUndefined()
    expect(JSON.parse(out['votes']!)).toEqual({ [a]: { voted: true, votes: 3, last_vote: null } })
  })

  it('a dry run writes its result and no status: the key check is not a vote check', () => {
    const out = outputs(outcomeOf([], [], undefined, { result: 'dry-run', status: undefined, keyCheck: { state: 'valid' } }))
    expect(out).toEqual({ result: 'dry-run' })
  })

  it('fail-if-not-voted: the report keeps result not-voted and voted false, and returns the failure', async () => {
    const clock = new TestClock()
    const emulator = await emulated(clock)
    const given = botInputs(emulator, { 'user-id': users(2).join(','), 'fail-if-not-voted': 'true' })
    const { outcome } = await votesRun(given, { clock })
    const files = runnerFiles()
    const printed = capturedStdout()
    let failure: string | undefined
    try {
      failure = await reportVotes(voteSettings(users(2), { 'base-url': emulator.url, 'fail-if-not-voted': 'true' }), { ...outcome, at: AT })
    } finally {
      printed.stop()
    }
    expect(failure).toBe(`Not voted in the last 24 hours: ${user(2)} (fail-if-not-voted is true).`)
    expect(files.outputs()).toMatchObject({ result: 'not-voted', voted: 'false', status: '200' })
    expect(printed.text()).toContain(`User ${user(2)}: has not voted in the last 24 hours`)
    const summary = files.summary()
    expect(headlineOf(summary)).toMatch(/⭕ .*: 1 of 2 users have not voted in the last 24 hours/)
    expect(summary).toContain('Not voted in the last 24 hours')
  })
})

describe('a bug in vote mode', () => {
  it('is thrown, for main.ts to report as a bug, never turned into an expected failure (as in stats mode)', async () => {
    const settings = settingsFor<VoteSettings>({ mode: 'vote-check', 'bot-id': BOT, 'api-key': KEY, 'user-id': '223456789012345678' })
    const requests = new Requests({ attemptTimeoutMs: 1_000, totalMs: 10_000 }, new TestClock())
    requests.send = async () => {
      throw new TypeError('a planted bug')
    }
    await expect(runVotes(settings, { requests, log: () => {} })).rejects.toThrow(TypeError)
  })
})
