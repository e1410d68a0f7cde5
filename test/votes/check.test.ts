/**
 * The vote-check mode (src/votes/check.ts): reading one answer, then runVotes against the
 * service emulator on the test's clock (a wait moves it on at once; a stop is fired by an event,
 * never by a timer). The report of an outcome is in report.test.ts.
 *
 * Contract: test/fixtures/service/interface.md and the service's OpenAPI document
 * (`GET /bots/{id}/voters/{user_id}`, the TooManyRequests answer).
 */
import { describe, expect, it } from 'vitest'
import { ActionError, StoppedError } from '../../src/errors.js'
import { Requests } from '../../src/http/client.js'
import type { HttpAnswer } from '../../src/http/transport.js'
import { keyAdvice, keyHeadline } from '../../src/keys.js'
import {
  readVote,
  runVotes,
  type Vote,
  type VoteOutcome,
  type VotePlan
} from '../../src/votes/check.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import {
  type BotSeed,
  type Fault,
  jsonFault,
  limiterFault,
  type RateLimit,
  type ServiceEmulator
} from '../../scripts/emulator/service.js'
import { BOT, emulatedBot, HOUR, KEY, TestClock } from '../support/inprocess.js'

/** 2023-09-10T11:30:00Z, the `lastVote` example of the OpenAPI document. */
const LAST_VOTE_MS = 1694345400000
/** Distinct, valid user IDs (18 digits). */
const user = (n: number): string => `9${String(n).padStart(17, '0')}`
const users = (count: number): string[] => Array.from({ length: count }, (_, i) => user(i + 1))

describe('readVote', () => {
  const U = user(7)
  const read = (given: HttpAnswer): Vote => readVote(given, U, { botId: BOT })
  const voted = (fields: Record<string, unknown>): HttpAnswer =>
    jsonAnswer(200, { voted: true, vote: 1, lastVote: null, ...fields })
  const counted = (votes: number | null, lastVote: Date | null = null): Vote => ({
    voted: true,
    votes,
    lastVote
  })

  it.each<[string, HttpAnswer, Vote]>([
    ['204 No Content: voted, with no count or time', answer(204), counted(null)],
    [
      '200 voted: its count and lastVote (epoch ms)',
      voted({ vote: 3, lastVote: LAST_VOTE_MS }),
      counted(3, new Date(LAST_VOTE_MS))
    ],
    [
      '200 not voted, a count of 0',
      jsonAnswer(200, { voted: false, vote: 0, lastVote: null }),
      { voted: false, votes: 0, lastVote: null }
    ],
    ['a negative count as unknown', voted({ vote: -1 }), counted(null)],
    ['a fractional count as unknown', voted({ vote: 2.5 }), counted(null)],
    ['a count written as a string as unknown', voted({ vote: '3' }), counted(null)],
    ['a lastVote no date can hold as none', voted({ lastVote: 1e20 }), counted(1)],
    [
      'the largest lastVote a date can hold',
      voted({ lastVote: 8.64e15 }),
      counted(1, new Date(8.64e15))
    ]
  ])('reads %s', (_, given, vote) => {
    expect(read(given)).toEqual(vote)
  })

  const failed = (status: number, said?: string) =>
    `Vote check for user ${U} failed: the service answered ${status}${said === undefined ? '' : ` with "${said}"`}.`
  const NOT_A_VOTE = `This is not a vote answer, so the user's vote is unknown (not taken as "not voted").`
  // Columns: the answer, the error's message (a RegExp matches it), and its headline (the key's
  // advice is pinned in service.test.ts).
  it.each<[string, HttpAnswer, string | RegExp, string?]>([
    [
      'a 200 without a "voted" field',
      jsonAnswer(200, { vote: 3 }),
      `${failed(200).slice(0, -1)} without a "voted" field. Check base-url.`
    ],
    [
      'a 200 HTML page (a wrong base-url)',
      answer(200, HTML_PAGE),
      /answered 200 without a "voted" field/
    ],
    [
      'a 5xx, quoting the service on one line',
      serviceError(500, 'first\nsecond'),
      `${failed(500, 'first second')} ${NOT_A_VOTE}`
    ],
    ['a 503 page, naming the status alone', answer(503, HTML_PAGE), `${failed(503)} ${NOT_A_VOTE}`],
    ...[201, 202, 403].map((status): [string, HttpAnswer, string] => [
      `a ${status} with a "voted" field: only 200 and 204 are vote answers`,
      jsonAnswer(status, { voted: false, vote: 0, lastVote: null }),
      `${failed(status)} ${NOT_A_VOTE}`
    ]),
    ...([401, 404, 410] as const).map((status): [string, HttpAnswer, string, string] => {
      const said = {
        401: 'Invalid API key.',
        404: 'Bot not found.',
        410: 'This API key has been revoked.'
      }[status]
      return [
        `a ${status}, with its advice`,
        serviceError(status, said),
        `${failed(status, said)} ${keyAdvice(status, said, BOT)}`,
        keyHeadline(status)!
      ]
    })
  ])('refuses %s, never reading it as "not voted"', (_, given, message, headline) => {
    expect(() => read(given)).toThrow(ActionError)
    const said = typeof message === 'string' ? message : expect.stringMatching(message)
    expect(() => read(given)).toThrow(expect.objectContaining({ message: said, headline }))
  })
})

const NOW = new TestClock().now()
/**
 * user(1) voted an hour ago, user(2) never did, user(3) 30 hours ago (not in the last 24); anyone
 * else never did.
 */
const VOTERS: BotSeed['voters'] = {
  [user(1)]: { vote: 4, lastVote: new Date(NOW - HOUR) },
  [user(2)]: { vote: 0, lastVote: null },
  [user(3)]: { vote: 2, lastVote: new Date(NOW - 30 * HOUR) }
}

const NO_CONTENT: Fault = { kind: 'answer', status: 204, body: '' }
const RESET: Fault = { kind: 'reset' }
const unavailable = (headers: Record<string, string> = {}): Fault =>
  jsonFault(503, { success: false, error: 'Service unavailable.', status: 503 }, headers)
/** The limiter's 429, asking for `seconds` in Retry-After and retry_after. */
const tooMany = (seconds: number, headers: Record<string, string> = {}): Fault =>
  limiterFault({ retry_after: seconds }, { 'Retry-After': String(seconds), ...headers })
/**
 * A vote answer with these rate-limit headers: checks left in the window, and the seconds to its
 * end.
 */
const limited = (remaining: string, reset?: string): Fault =>
  jsonFault(
    200,
    { voted: true, vote: 1, lastVote: null },
    { 'RateLimit-Remaining': remaining, ...(reset && { 'RateLimit-Reset': reset }) }
  )
/** The headers of a spent window that ends now. */
const SPENT_NOW = { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '0' }
/** A 503 with checks left (the limiter does not count it). */
const UNCOUNTED = unavailable({ 'RateLimit-Remaining': '2', 'RateLimit-Reset': '2' })
const NOT_FOUND = jsonFault(404, { success: false, error: 'Bot not found.', status: 404 })
const FIVE_PER_2S: RateLimit = { limit: 5, windowMs: 2_000 }

function planFor(baseUrl: string, userIds: string[], over: Partial<VotePlan> = {}): VotePlan {
  return {
    baseUrl,
    botId: BOT,
    apiKey: KEY,
    userIds,
    rateLimitWaitMs: 60_000,
    failIfNotVoted: false,
    dryRun: false,
    ...over
  }
}

interface Setup {
  /** Answers in place of the emulator's own, one per vote check in turn. */
  faults?: Fault[]
  /** The vote limiter; the live one (100 checks per 5 minutes) by default. */
  limit?: RateLimit
  seed?: Partial<BotSeed>
  plan?: Partial<VotePlan>
  /** The step's time limit; far away by default. */
  totalMs?: number
  /** Arms the run's stop: `stop` fires it. */
  arm?: (stop: () => void, emulator: ServiceEmulator, clock: TestClock) => void
}

/**
 * runVotes on a TestClock against the emulator, under the run's stop signal; the key must never
 * show in its log or error.
 */
async function check(userIds: string[], setup: Setup = {}) {
  const clock = new TestClock()
  const rateLimits = setup.limit === undefined ? {} : { votes: setup.limit }
  const emulator = await emulatedBot(clock, {
    seed: { voters: VOTERS, ...setup.seed },
    service: { rateLimits }
  })
  for (const fault of setup.faults ?? []) emulator.inject('votes', fault)
  const run = new AbortController()
  setup.arm?.(() => run.abort(new StoppedError('SIGTERM')), emulator, clock)
  const logs: string[] = []
  const requests = new Requests(
    { attemptTimeoutMs: 2_000, totalMs: setup.totalMs ?? 1e12 },
    clock,
    run.signal
  )
  const outcome = await runVotes(planFor(emulator.url, userIds, setup.plan), {
    requests,
    log: line => logs.push(line)
  })
  expect([...logs, outcome.error?.message].join('\n')).not.toContain(KEY)
  const sent = emulator.received('votes')
  return {
    outcome,
    logs,
    clock,
    emulator,
    sent,
    rateLimited: sent.filter(r => r.status === 429).length
  }
}

/** Stops the run once its first wait has begun (the test's clock then does not move). */
const stopOnWait: Setup['arm'] = (stop, _, clock) => {
  const wait = clock.sleep
  clock.sleep = (ms, signal) => (stop(), wait(ms, signal))
}

describe('runVotes', () => {
  it('checks each user in input order with a GET and the bare key, one at a time on one connection; both answer styles', async () => {
    const ids = [user(4), user(1), user(2), user(3)]
    const { outcome, logs, clock, emulator, sent } = await check(ids, { faults: [NO_CONTENT] })

    expect(outcome).toEqual({
      result: 'not-voted',
      votes: new Map([
        [user(4), { voted: true, votes: null, lastVote: null }],
        [user(1), { voted: true, votes: 4, lastVote: new Date(NOW - HOUR) }],
        [user(2), { voted: false, votes: 0, lastVote: null }],
        [user(3), { voted: false, votes: 2, lastVote: new Date(NOW - 30 * HOUR) }]
      ]),
      status: 200,
      rateLimited: 0,
      unchecked: [],
      keyCheck: undefined,
      error: undefined,
      at: new Date(NOW)
    })
    expect([...outcome.votes.keys()]).toEqual(ids)
    expect(
      emulator.requests.map(r => `${r.method} ${r.path}`),
      'GETs only, no update'
    ).toEqual(ids.map(id => `GET /bots/${BOT}/voters/${id}`))
    for (const r of sent)
      expect(r.headers).toMatchObject({
        authorization: KEY,
        'user-agent': expect.stringMatching(/discord-place-bot-stats\/\d+\.\d+\.\d+/)
      })
    // Node's agent never pipelines: checks on one connection go one at a time.
    expect(new Set(sent.map(r => r.connection)).size).toBe(1)
    expect(clock.waits).toEqual([])
    expect(logs, 'nobody listed as not checked').toEqual([])
  })

  // The backoffs of the vote policy on the test's clock (random 0.5): 375 ms, then 750 ms.
  it.each<[string, number, Setup, number[]]>([
    ['retries a 503 after a backoff', 1, { faults: [unavailable()] }, [375]],
    ['retries a lost connection', 2, { faults: [RESET] }, [375]],
    [
      'waits out a 429 from its Retry-After header',
      1,
      { faults: [limiterFault({}, { 'Retry-After': '3' })] },
      [3_000]
    ],
    [
      'waits out a 429 from retry_after in its body',
      1,
      { faults: [limiterFault({ retry_after: 3 })] },
      [3_000]
    ],
    [
      'never answers a 429 at once, even one asking for no wait',
      1,
      { faults: [tooMany(0, SPENT_NOW)] },
      [1_000]
    ],
    // A reset in whole seconds is rounded up, never early: the earliest end given is the closest.
    [
      'waits for the earliest window end given',
      4,
      { faults: [limited('2', '5'), limited('1', '3'), limited('0', '4')] },
      [3_000]
    ],
    // More checks left than before: a new window, ending in 10 s; the old end (2 s) would send into
    // the spent window.
    [
      'takes a higher Remaining as a new window',
      4,
      { faults: [limited('3', '2'), limited('5', '10'), limited('0', '10')] },
      [10_000]
    ],
    [
      'waits for a window end only a later answer gave',
      3,
      { faults: [limited('5'), limited('0', '3')] },
      [3_000]
    ],
    [
      'looks again a second after a spent window with no end, then goes on',
      3,
      { faults: [limited('0')] },
      [1_000]
    ],
    [
      'ignores rate-limit headers that are not numbers',
      3,
      { faults: [limited('', 'x'), limited('', 'x'), limited('', 'x')] },
      []
    ],
    // Read as 1,000 s, it would ask for a wait past rate-limit-wait and end the run.
    [
      'reads a RateLimit-Reset not in plain seconds (1e3) as unknown',
      2,
      { faults: [limited('0', '1e3')] },
      [1_000]
    ],
    [
      'reads a RateLimit-Reset in fractions of a second',
      2,
      { faults: [limited('0', '1.25')] },
      [1_250]
    ],
    // The second answer comes just as the first window ended, and spends the new one.
    [
      'waits out each spent window of one',
      3,
      { faults: [limited('0', '2'), limited('0', '2'), limited('0', '2')] },
      [2_000, 2_000]
    ],
    // The window ends 2 s after the first answer; 503s are not counted (Remaining stays 2) and must
    // not drop that end.
    [
      'keeps the end through retried 5xx',
      3,
      { faults: [UNCOUNTED, UNCOUNTED, limited('1', '1'), limited('0', '1')] },
      [375, 750, 875]
    ],
    [
      'waits as long as rate-limit-wait allows, to the ms',
      2,
      { faults: [limited('0', '3')], plan: { rateLimitWaitMs: 3_000 } },
      [3_000]
    ],
    [
      "paces 12 checks through the limiter's 5 per 2 s: only its resets waited",
      12,
      { limit: FIVE_PER_2S },
      [2_000, 2_000]
    ]
  ])('%s', async (_, count, setup, waits) => {
    const ids = users(count)
    const { outcome, clock, emulator, sent, rateLimited } = await check(ids, setup)

    expect(outcome).toMatchObject({ error: undefined, unchecked: [], rateLimited })
    expect([...outcome.votes.keys()]).toEqual(ids)
    expect(
      sent.filter(r => r.status === 200),
      'one vote answer per user; every other request a retry'
    ).toHaveLength(count)
    expect(clock.waits).toEqual(waits)
    expect(
      emulator.windowLog.filter(w => w.refused > 0),
      'no 429 from the limiter'
    ).toEqual([])
  })

  const THREE_503S = { faults: [unavailable(), unavailable(), unavailable()] }
  const OVER_WAIT =
    "The service's rate limit would need a wait of 60 s more, beyond the rate-limit-wait of 10 s."
  const STOPPED =
    /^The step was stopped by SIGTERM\b.*\. 1 vote check\(s\) had been answered; no result/
  const CUT_OFF = new RegExp(
    `had been answered, and the check of user ${user(2)} was sent but cut off before its answer; no`
  )
  const LOST = /^Vote check for user 9\d+ failed: .+ \(3 tries\)\.$/
  const TEN_429S: Setup = { faults: Array<Fault>(10).fill(tooMany(0, SPENT_NOW)) }
  const PACED_3S: Setup = { limit: FIVE_PER_2S, plan: { rateLimitWaitMs: 3_000 } }
  /**
   * Stops the run once the service has the second check, which it never answers: an event, not a
   * timer.
   */
  const IN_FLIGHT: Setup = {
    faults: [NO_CONTENT],
    arm: (stop, emulator) => emulator.inject('votes', { kind: 'hang', seen: stop })
  }

  // Each row: users, setup, checks sent, users answered, the last status, waits, the error.
  it.each<{
    label: string
    count: number
    setup: Setup
    sentCount: number
    answered: number
    status: number | undefined
    waits: number[]
    message: string | RegExp
  }>([
    {
      label: 'three 503s: the vote is unknown',
      count: 2,
      setup: THREE_503S,
      sentCount: 3,
      answered: 0,
      status: 503,
      waits: [375, 750],
      message: /answered 503 with "/
    },
    {
      label: 'three lost connections',
      count: 2,
      setup: { faults: [RESET, RESET, RESET] },
      sentCount: 3,
      answered: 0,
      status: undefined,
      waits: [375, 750],
      message: LOST
    },
    {
      label: 'a 404 for the second user, not retried',
      count: 3,
      setup: { faults: [NO_CONTENT, NOT_FOUND] },
      sentCount: 2,
      answered: 1,
      status: 404,
      waits: [],
      message: /Check bot-id/
    },
    {
      label: 'a 401 (a wrong key)',
      count: 2,
      setup: { plan: { apiKey: 'dp_wrong-key_000000' } },
      sentCount: 1,
      answered: 0,
      status: 401,
      waits: [],
      message: /secret passed as api-key/
    },
    {
      label: 'a 410 (a key revoked for strikes)',
      count: 2,
      setup: { seed: { apiKey: 'dp_new-key_0000000', revokedKeys: [KEY] } },
      sentCount: 1,
      answered: 0,
      status: 410,
      waits: [],
      message: /five updates/
    },
    {
      label: 'a 429 asking past rate-limit-wait',
      count: 3,
      setup: { faults: [tooMany(60)], plan: { rateLimitWaitMs: 10_000 } },
      sentCount: 1,
      answered: 0,
      status: 429,
      waits: [],
      message: OVER_WAIT
    },
    {
      label: 'two waits past rate-limit-wait in all',
      count: 12,
      setup: PACED_3S,
      sentCount: 10,
      answered: 10,
      status: 200,
      waits: [2_000],
      message: /2 s more/
    },
    {
      label: 'a run of 429s, each waited a second',
      count: 1,
      setup: TEN_429S,
      sentCount: 10,
      answered: 0,
      status: 429,
      waits: Array<number>(9).fill(1_000),
      message: /answered 429/
    },
    {
      label: "a 429 whose wait passes the step's time limit",
      count: 2,
      setup: { faults: [tooMany(50)], totalMs: 30_000 },
      sentCount: 1,
      answered: 0,
      status: 429,
      waits: [],
      message: /time limit of 30 s/
    },
    {
      label: 'a stop during a wait for the window',
      count: 3,
      setup: { limit: { limit: 1, windowMs: 60_000 }, arm: stopOnWait },
      sentCount: 1,
      answered: 1,
      status: 200,
      waits: [60_000],
      message: STOPPED
    },
    {
      label: 'a stop with a check in flight, naming it',
      count: 3,
      setup: IN_FLIGHT,
      sentCount: 2,
      answered: 1,
      status: 204,
      waits: [],
      message: CUT_OFF
    }
  ])(
    'fails on $label, listing the users not checked',
    async ({ count, setup, sentCount, answered, status, waits, message }) => {
      const ids = users(count)
      const { outcome, logs, clock, sent, rateLimited } = await check(ids, setup)

      expect(outcome).toMatchObject({
        result: 'failed',
        status,
        rateLimited,
        unchecked: ids.slice(answered)
      })
      expect([...outcome.votes.keys()]).toEqual(ids.slice(0, answered))
      expect(sent, 'nothing sent after the failure').toHaveLength(sentCount)
      expect(clock.waits).toEqual(waits)
      expect(logs).toEqual([`Not checked: ${ids.slice(answered).join(', ')}`])
      if (typeof message === 'string') expect(outcome.error?.message).toBe(message)
      else expect(outcome.error?.message).toMatch(message)
    }
  )

  it.each([
    [false, [user(1), user(2)], 'not-voted', undefined],
    [true, [user(1)], 'voted', undefined],
    [
      true,
      [user(1), user(2), user(3)],
      'not-voted',
      `Not voted in the last 24 hours: ${user(2)}, ${user(3)} (fail-if-not-voted is true).`
    ]
  ])(
    'fail-if-not-voted %s, users %j: %s, failing only when true and someone has not voted',
    async (failIfNotVoted, ids, result, error) => {
      const { outcome } = await check(ids, { plan: { failIfNotVoted } })
      expect(outcome).toMatchObject({ result, unchecked: [] })
      expect(outcome.error?.message).toBe(error)
    }
  )

  const DRY = { dryRun: true }
  it.each<{
    label: string
    setup: Setup
    result: VoteOutcome['result']
    keyCheck: VoteOutcome['keyCheck']
    asked: string[]
  }>([
    {
      label: 'without a key, dry-run false: nothing sent',
      setup: { plan: { apiKey: undefined } },
      result: 'dry-run',
      keyCheck: undefined,
      asked: []
    },
    {
      label: 'a dry run without a key: nothing sent',
      setup: { plan: { ...DRY, apiKey: undefined } },
      result: 'dry-run',
      keyCheck: undefined,
      asked: []
    },
    {
      label: 'a dry run: the key checked, nobody else',
      setup: { plan: DRY },
      result: 'dry-run',
      keyCheck: { state: 'valid' },
      asked: [BOT]
    },
    {
      label: 'a dry run with a wrong key: fails now',
      setup: { plan: DRY, seed: { apiKey: 'the-real-key-000000' } },
      result: 'failed',
      keyCheck: undefined,
      asked: [BOT]
    }
  ])('$label; no vote status', async ({ setup, result, keyCheck, asked }) => {
    const ids = users(2)
    const { outcome, logs, sent } = await check(ids, setup)
    expect(outcome).toMatchObject({
      result,
      keyCheck,
      status: undefined,
      rateLimited: 0,
      unchecked: []
    })
    expect(outcome.error).toEqual(result === 'failed' ? expect.any(ActionError) : undefined)
    expect(outcome.votes.size).toBe(0)
    expect(sent.map(r => [r.path, r.headers.authorization])).toEqual(
      asked.map(id => [`/bots/${BOT}/voters/${id}`, KEY])
    )
    expect(logs[0]).toBe(
      `Dry run: nothing sent. A real run would check the votes of ${ids.join(', ')}.`
    )
  })

  it.each([
    ['a vote check', false],
    ["a dry run's key check", true]
  ])(
    'a bug in %s is thrown, for main.ts to report as one, never an expected failure',
    async (_, dryRun) => {
      const requests = new Requests({ attemptTimeoutMs: 1_000, totalMs: 10_000 }, new TestClock())
      const bug = new TypeError('a planted bug')
      requests.send = () => Promise.reject(bug)
      await expect(
        runVotes(planFor('http://127.0.0.1:9', [user(1)], { dryRun }), { requests, log: () => {} })
      ).rejects.toBe(bug)
    }
  )
})
