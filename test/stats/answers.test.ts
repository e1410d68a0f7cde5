/**
 * The service's answers to the stats update (src/stats/answers.ts): which of the two 429s came, and
 * which outcome of the table (src/stats/outcome.ts, its words pinned by the generated
 * docs/troubleshooting.md) each failing answer is; then each answer as a run meets it, in process
 * against the service emulator on the TestClock: success, the refusals, the request limiter (no
 * strike) and the 6-hour refusal (a strike) with the fresh record read after it. Stops are
 * stops.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { NetworkError } from '../../src/http/transport.js'
import { serviceMessage } from '../../src/service.js'
import { answerFromStatusLine, kindOf429 } from '../../src/stats/answers.js'
import { STATS_OUTCOMES } from '../../src/stats/outcome.js'
import { PLACEHOLDER_WORDING, PLACEHOLDERS } from '../../scripts/docs.js'
import { answer, jsonAnswer, serviceError } from '../support/answers.js'
import {
  type Fault,
  FIFTH_STRIKE,
  jsonFault,
  limiterFault,
  recordFault,
  SIX_HOUR_REFUSAL,
  SIX_HOURS,
  type ServiceEmulator
} from '../../scripts/emulator/service.js'
import {
  BOT,
  emulatedBot,
  type EmulatedBot,
  HOUR,
  KEY,
  MINUTE,
  routes,
  statsInputs,
  statsRun,
  TestClock
} from '../support/inprocess.js'
import { annotations, expectCleanFailure, statsStep } from '../support/step.js'

/** Where every TestClock starts. */
const START = new TestClock().now()

// ---------------------------------------------------------------------------------------
// One answer at a time
// ---------------------------------------------------------------------------------------

describe('kindOf429 (service-behaviour.md: the two 429s of PATCH /bots/{id}/stats)', () => {
  const limiterHeaders = {
    'ratelimit-limit': '2',
    'ratelimit-remaining': '0',
    'ratelimit-reset': '1500'
  }
  it.each([
    ['the limiter by its Retry-After alone', answer(429, '', { 'retry-after': '1500' }), 'limiter'],
    [
      'the limiter by its retry_after alone',
      jsonAnswer(429, { success: false, error: 'Slow down.', status: 429, retry_after: 60 }),
      'limiter'
    ],
    [
      'the limiter by its "Too many requests" alone',
      serviceError(429, 'Too many requests, please try again later.'),
      'limiter'
    ],
    [
      'the 6-hour rule: only RateLimit-*',
      jsonAnswer(429, { success: false, error: 'Only once every 6 hours.' }, limiterHeaders),
      'six-hours'
    ],
    [
      'a cut-off answer with no Retry-After: taken as the rule that costs a strike',
      answer(429, ''),
      'six-hours'
    ]
  ] as const)('%s', (_, got, kind) => {
    expect(kindOf429(got)).toBe(kind)
  })
})

it('answerFromStatusLine: the status and headers that arrived, no body to read; nothing without a status line', () => {
  const headers = { 'content-type': 'application/json' }
  const cut = answerFromStatusLine(
    new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true, {
      status: 200,
      headers
    })
  )
  expect(cut).toEqual({ status: 200, headers, text: '', truncated: true, json: undefined })
  expect(serviceMessage(cut!), "the service's words were cut off with the body").toBeUndefined()
  expect(
    answerFromStatusLine(new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true))
  ).toBeUndefined()
})

describe('which outcome a failing answer to the update is: its headline, and the words that tell it apart', () => {
  it.each<{ status: number; said?: string; serverCount?: boolean; headline: string; says: string }>(
    [
      {
        status: 400,
        said: 'Server count is too far from the actual server count.',
        serverCount: true,
        headline: 'count refused by discord.place',
        says: 'within max(50, 10%)'
      },
      {
        status: 400,
        serverCount: true,
        headline: 'count refused by discord.place',
        says: 'within max(50, 10%)'
      },
      {
        status: 400,
        said: 'Commands count must be between 0 and 1,000.',
        serverCount: true,
        headline: 'count refused by discord.place',
        says: 'Check command-count (0 to 1000)'
      },
      {
        status: 400,
        headline: 'count refused by discord.place',
        says: 'Check command-count (0 to 1000)'
      },
      {
        status: 401,
        said: 'Invalid API key.',
        headline: 'API key refused',
        says: 'The API key was refused'
      },
      {
        status: 404,
        said: 'Bot not found.',
        headline: 'bot not listed on discord.place',
        says: 'lists no bot'
      },
      {
        status: 410,
        said: FIFTH_STRIKE,
        headline: 'API key revoked (strikes)',
        says: 'This update was the fifth refused'
      },
      {
        status: 410,
        said: 'This API key has been revoked.',
        headline: 'API key revoked (strikes)',
        says: 'after five updates were refused'
      },
      {
        status: 410,
        headline: 'API key revoked (strikes)',
        says: 'after five updates were refused'
      },
      { status: 300, headline: 'redirect not followed', says: 'A redirect is not followed' },
      { status: 399, headline: 'redirect not followed', says: 'A redirect is not followed' },
      { status: 500, headline: 'discord.place failed on its side', says: 'failed on its side' },
      { status: 502, headline: 'discord.place failed on its side', says: 'failed on its side' },
      { status: 403, headline: 'unexpected answer (403)', says: 'This answer was not expected' },
      { status: 499, headline: 'unexpected answer (499)', says: 'This answer was not expected' }
    ]
  )(
    '$status saying $said, a server count sent: $serverCount: $headline',
    async ({ status, said, serverCount, headline, says }) => {
      const clock = new TestClock()
      const emulator = await emulatedBot(clock)
      emulator.inject(
        'stats',
        said === undefined
          ? { kind: 'answer', status, body: '' }
          : jsonFault(status, { success: false, error: said, status })
      )
      const inputs: Record<string, string> = serverCount ? { 'server-count': '1260' } : {}
      const { outcome } = await statsRun(
        statsInputs(emulator, { 'cooldown-check': 'false', ...inputs }),
        { clock }
      )
      expect(outcome).toMatchObject({ result: 'failed', status, error: { headline } })
      expect(outcome.error?.message).toContain(says)
    }
  )
})

it("the strike's error: no empty quote without the words; the cause, the workflow finding, the next update and a stop in that order", () => {
  const facts = { ...PLACEHOLDERS, said: undefined, workflow: '<workflow>', stopped: '<stop>' }
  expect(STATS_OUTCOMES['strike-unknown'].says(facts, PLACEHOLDER_WORDING)).toMatch(
    /^Stats update refused as too early \(429\): .* Likely cause: .* <workflow> The next update is accepted from <time>\. The update was not retried\. <stop>$/
  )
  expect(
    STATS_OUTCOMES['strike-unknown'].says(
      {
        ...facts,
        next: undefined,
        workflow: undefined,
        stopped: undefined
      },
      PLACEHOLDER_WORDING
    )
  ).toMatch(/\)\. When the next update is accepted is unknown\. The update was not retried\.$/)
})

// ---------------------------------------------------------------------------------------
// Each answer as a run meets it
// ---------------------------------------------------------------------------------------

describe('the answer to the update', () => {
  it.each([
    ['204 No Content', { kind: 'answer', status: 204, body: '' }],
    [
      '201 with a text body',
      { kind: 'answer', status: 201, headers: { 'Content-Type': 'text/plain' }, body: 'ok' }
    ]
  ] as const)('takes any 2xx as success: %s', async (_, fault) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', fault)
    const run = await statsStep(statsInputs(emulator), clock)
    expect(run.failure).toBeUndefined()
    expect(run.outputs).toMatchObject({ result: 'updated', status: String(fault.status) })
  })

  const strikes = [1, 2, 3, 4].map(n => new Date(START - n * 10 * MINUTE))
  it.each<{
    name: string
    bot?: EmulatedBot
    fault?: Fault
    inputs?: Record<string, string>
    status: number
    /** The service's words as the error quotes them; none when it said nothing. */
    said?: string
    /** The summary's headline, and how the advice after the service's answer opens. */
    headline: string
    advice: string
  }>([
    {
      name: 'a redirect (300)',
      fault: { kind: 'answer', status: 300, body: '' },
      status: 300,
      headline: 'redirect not followed',
      advice: 'A redirect is not followed: '
    },
    {
      name: 'a server count outside the tolerance (400)',
      bot: { seed: { realServerCount: 5000 } },
      inputs: { 'command-count': '', 'server-count': '1260' },
      status: 400,
      said:
        'The server count provided (1260) is too far off from the actual server count. It cannot differ by more than 500 ' +
        'from the actual server count, which is 5000.',
      headline: 'count refused by discord.place',
      // Only a server count was sent: the advice says nothing of a command count.
      advice:
        'The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot, and refuses the ' +
        'whole update: nothing was stored. '
    },
    {
      name: 'a wrong key (401)',
      bot: { seed: { apiKey: 'another-key' } },
      status: 401,
      said: 'Invalid API key.',
      headline: 'API key refused',
      advice: 'The API key was refused: '
    },
    {
      name: 'an unknown bot (404)',
      bot: { seed: { id: '999999999999999999' } },
      status: 404,
      said: 'Bot not found.',
      headline: 'bot not listed on discord.place',
      advice: `The service lists no bot with ID ${BOT}. `
    },
    {
      name: 'the 5th early update, which revokes the key (410)',
      bot: { ago: HOUR, seed: { strikes } },
      status: 410,
      said: FIFTH_STRIKE,
      headline: 'API key revoked (strikes)',
      advice: 'This update was the fifth refused as early'
    },
    {
      name: 'a key revoked for strikes on an earlier run, a new one generated since (410)',
      bot: { seed: { apiKey: 'new-key', revokedKeys: [KEY] } },
      status: 410,
      said: 'This API key has been revoked.',
      headline: 'API key revoked (strikes)',
      advice: 'The service revoked the key after five updates'
    },
    {
      name: 'a failure on its side (500)',
      fault: jsonFault(500, {
        success: false,
        error: 'Could not fetch server count.',
        status: 500
      }),
      status: 500,
      said: 'Could not fetch server count.',
      headline: 'discord.place failed on its side',
      advice: 'The service failed on its side; '
    },
    {
      name: 'a 5xx that names a wait, not the request limiter (503)',
      fault: jsonFault(
        503,
        { success: false, error: 'Try later.', status: 503, retry_after: 30 },
        { 'Retry-After': '30' }
      ),
      status: 503,
      said: 'Try later.',
      headline: 'discord.place failed on its side',
      advice: 'The service failed on its side; '
    },
    {
      name: 'an HTML error page (502), none of it shown',
      fault: {
        kind: 'answer',
        status: 502,
        headers: { 'Content-Type': 'text/html' },
        body: `<html>${'<p>upstream</p>'.repeat(400)}</html>`
      },
      status: 502,
      said: 'a non-JSON answer (text/html, 6013 bytes)',
      headline: 'discord.place failed on its side',
      advice: 'The service failed on its side; '
    }
  ])(
    "fails on $name: the outputs, and the outcome's words and headline",
    async ({ bot, fault, inputs, status, said, headline, advice }) => {
      const clock = new TestClock()
      const emulator = await emulatedBot(clock, bot)
      if (fault !== undefined) emulator.inject('stats', fault)
      const run = await statsStep(
        statsInputs(emulator, { 'cooldown-check': 'false', ...inputs }),
        clock
      )
      const message = expectCleanFailure(run)
      expect(emulator.received('stats'), 'never repeated').toHaveLength(1)
      expect(run.outcome).toMatchObject({ status, nextUpdateAt: undefined })
      const answered = `Stats update failed: the service answered ${status}${said === undefined ? '' : ` with "${said}"`}. `
      expect(message.slice(0, answered.length)).toBe(answered)
      expect(message.slice(answered.length, answered.length + advice.length)).toBe(advice)
      expect(message).not.toMatch(/[<\r\n]/)
      expect(run.summary).not.toContain('upstream')
      expect(run.outputs).toMatchObject({ result: 'failed', status: String(status) })
      expect(run.summary).toContain(`<tr><td>Answer</td><td>${status}`)
      expect(/^<h3>❌ [^\n]*: failed: ([^<]*)<\/h3>/.exec(run.summary)?.[1]).toBe(headline)
    }
  )

  it("shows the service's control characters as escapes and its HTML escaped, in the error and the summary", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const words = 'bad \u001b[31mred\u001b[0m \u0007\u0000 <img src=x onerror=alert(1)> | *bold*'
    emulator.inject('stats', jsonFault(400, { success: false, error: words, status: 400 }))
    const run = await statsStep(statsInputs(emulator), clock)
    const message = expectCleanFailure(run)
    // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
    const raw = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/
    expect(message).not.toMatch(raw)
    expect(run.summary).not.toMatch(raw)
    expect(message).toContain('bad \\x1b[31mred\\x1b[0m \\x07\\x00 ')
    expect(run.summary).not.toContain('<img')
    expect(run.summary).toContain('&lt;img src=x onerror=alert(1)&gt; | *bold*')
  })
})

it.each<[string, (emulator: ServiceEmulator) => void, number | undefined]>([
  [
    'the live limiter: its whole 30 minutes',
    emulator => emulator.spendLimit('stats', BOT, 2),
    30 * MINUTE
  ],
  [
    'the wait it names, never RateLimit-Reset',
    emulator =>
      emulator.inject(
        'stats',
        limiterFault({ retry_after: 120 }, { 'Retry-After': '120', 'RateLimit-Reset': '1800' })
      ),
    120_000
  ],
  [
    'none when it names no wait, whatever RateLimit-Reset says',
    emulator => emulator.inject('stats', limiterFault({}, { 'RateLimit-Reset': '1500' })),
    undefined
  ]
])(
  "the request limiter's 429 is rate-limited, no strike, not retried; the next update: %s",
  async (_, limit, wait) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    limit(emulator)
    const run = await statsStep(statsInputs(emulator), clock)
    expect(run.failure).toBeUndefined()
    expect(run.outcome).toMatchObject({ result: 'rate-limited', status: 429, error: undefined })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(emulator.bot(BOT).strikes).toEqual([])
    expect(run.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    expect(run.outputs['next-update-at'] ?? '').toBe(
      wait === undefined ? '' : new Date(START + wait).toISOString()
    )
  }
)

describe('the 6-hour refusal: a strike, never retried, its likely cause from the fresh read', () => {
  const unchecked = { 'cooldown-check': 'false' }
  /** On the log line the run writes as the refusal comes back (or as it sends), `then`. */
  const on = (start: string, then: () => void) => (line: string) => {
    if (line.startsWith(start)) then()
  }
  it.each<{
    name: string
    bot?: EmulatedBot
    inputs?: Record<string, string>
    refusal?: true
    onLog?: (emulator: ServiceEmulator, clock: TestClock) => (line: string) => void
    reads: number[]
    found: { strikeCause: string; overlap?: number; nextUpdateAt?: number }
  }>([
    {
      name: 'sent unchecked: unchecked, the next update from the fresh read',
      bot: { ago: 2 * HOUR },
      inputs: unchecked,
      reads: [200],
      found: { strikeCause: 'unchecked', nextUpdateAt: START - 2 * HOUR + SIX_HOURS + MINUTE }
    },
    {
      name: 'the fresh read shows a later update: overlap, at its time',
      refusal: true,
      onLog: emulator =>
        on('Sending PATCH', () => emulator.inject('record', recordFault(BOT, new Date(START)))),
      reads: [200, 200],
      found: { strikeCause: 'overlap', overlap: START, nextUpdateAt: START + SIX_HOURS + MINUTE }
    },
    {
      name: 'the fresh read shows the same update: unknown, no next update from the past',
      refusal: true,
      reads: [200, 200],
      found: { strikeCause: 'unknown' }
    },
    {
      name: 'the fresh read fails: unknown, no next update from the first read',
      refusal: true,
      onLog: emulator =>
        on('The service answered 429', () => {
          for (let i = 0; i < 3; i++)
            emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
        }),
      reads: [200, 503, 503, 503],
      found: { strikeCause: 'unknown' }
    },
    {
      name: "the step's time runs out before the fresh read: nothing more is read",
      bot: { ago: 2 * HOUR },
      inputs: unchecked,
      onLog: (_, clock) => on('The service answered 429', () => clock.advance(HOUR)),
      reads: [],
      found: { strikeCause: 'unchecked' }
    },
    {
      name: "a bot not verified yet (the first day): the fresh read's own 403 names it",
      // The live service stamps a new bot's command count with its creation time
      // (service-behaviour.md).
      bot: {
        seed: { verified: false, createdAt: new Date(START - HOUR), commandsUpdatedAt: undefined }
      },
      inputs: unchecked,
      reads: [403],
      found: { strikeCause: 'unverified' }
    },
    {
      name: "a gateway's 403 in the service's shape on the fresh read does not name the first day",
      bot: { seed: { commandsUpdatedAt: new Date(START - HOUR) } },
      inputs: unchecked,
      onLog: emulator =>
        on('The service answered 429', () =>
          emulator.inject(
            'record',
            jsonFault(403, { success: false, error: 'Access denied by policy', status: 403 })
          )
        ),
      reads: [403],
      found: { strikeCause: 'unchecked' }
    }
  ])('$name', async ({ bot, inputs, refusal, onLog, reads, found }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, bot)
    if (refusal) emulator.inject('stats', SIX_HOUR_REFUSAL)
    const { outcome } = await statsRun(statsInputs(emulator, inputs), {
      clock,
      onLog: onLog?.(emulator, clock)
    })
    expect(emulator.received('stats'), 'never retried').toHaveLength(1)
    expect(emulator.received('record').map(r => r.status)).toEqual(reads)
    expect(outcome).toMatchObject({
      result: 'cooldown',
      status: 429,
      strikeCause: found.strikeCause
    })
    expect(outcome.overlap?.getTime()).toBe(found.overlap)
    expect(outcome.nextUpdateAt?.getTime()).toBe(found.nextUpdateAt)
    expect(outcome.error?.message).toMatch(/^Stats update refused as too early/)
  })

  it('is one red step: the error alone, no annotation repeats it, the headline says a strike was counted', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    const run = await statsStep(statsInputs(emulator, unchecked), clock)
    expect(routes(emulator)).toEqual(['PATCH /stats', 'GET '])
    expect(emulator.bot(BOT).strikes, 'the strike this run cost').toHaveLength(1)
    expect(run.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    expect(run.failure).toBe(run.outcome.error?.message)
    expect(annotations(run, 'error')).toEqual([])
    expect(annotations(run, 'warning').filter(w => /strike/i.test(w))).toEqual([])
    expect(run.summary).toMatch(
      /<h3>🛑 [^<]*(<a [^>]*>[^<]*<\/a>)?[^<]*: refused: strike counted<\/h3>/
    )
    expect(run.summary).toContain(`<strong>Error:</strong> ${run.failure!.slice(0, 40)}`)
  })
})

describe("stale-after: a passing failure of the service, judged by the listing's age", () => {
  const FAILED_500 = jsonFault(500, {
    success: false,
    error: 'Could not fetch server count.',
    status: 500
  })
  const RESET: Fault = { kind: 'reset' }
  it.each<{
    name: string
    ago: number
    faults?: Fault[]
    bot?: EmulatedBot
    inputs?: Record<string, string>
    result: string
    stats: number
  }>([
    {
      name: 'a 5xx, the listing younger: deferred',
      ago: 47 * HOUR + 59 * MINUTE,
      faults: [FAILED_500],
      result: 'deferred',
      stats: 1
    },
    {
      name: 'a 5xx, the listing exactly stale-after old: stale',
      ago: 48 * HOUR,
      faults: [FAILED_500],
      result: 'failed',
      stats: 1
    },
    {
      name: 'the limiter, the listing younger: rate-limited',
      ago: 7 * HOUR,
      faults: [limiterFault()],
      result: 'rate-limited',
      stats: 1
    },
    {
      name: 'the limiter, the listing older: stale',
      ago: 53 * HOUR,
      faults: [limiterFault()],
      result: 'failed',
      stats: 1
    },
    // A timeout never leads to a resend (the service may still be working on the update).
    {
      name: 'no answer in time, the re-read showing the update did not arrive, younger: deferred',
      ago: 8 * HOUR,
      faults: [{ kind: 'hang' }],
      result: 'deferred',
      stats: 1
    },
    {
      name: 'no answer to the resend the record allowed, younger: deferred',
      ago: 7 * HOUR,
      faults: [RESET, RESET],
      result: 'deferred',
      stats: 2
    },
    {
      name: "the owner's failure (a wrong key) fails at once",
      ago: 7 * HOUR,
      bot: { seed: { apiKey: 'another-key' } },
      result: 'failed',
      stats: 1
    },
    {
      name: 'no record read (cooldown-check: false): a 5xx fails',
      ago: 7 * HOUR,
      faults: [FAILED_500],
      inputs: { 'cooldown-check': 'false' },
      result: 'failed',
      stats: 1
    }
  ])('$name', async ({ ago, faults = [], bot, inputs, result, stats }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago, ...bot })
    for (const fault of faults) emulator.inject('stats', fault)
    // A hang ends at request-timeout, on the real clock.
    const timeout: Record<string, string> = faults.some(fault => fault.kind === 'hang')
      ? { 'request-timeout': '1' }
      : {}
    const run = await statsStep(
      statsInputs(emulator, { 'stale-after': '48', ...timeout, ...inputs }),
      clock
    )
    expect(emulator.received('stats'), 'never repeated after an answer').toHaveLength(stats)
    expect(run.outputs.result).toBe(result)
    expect(run.outcome.staleAfter).toBe(inputs === undefined && bot === undefined ? 48 : undefined)
    const last = inputs === undefined ? new Date(START - ago).toISOString() : undefined
    expect(run.outputs['last-updated-at']).toBe(last)
    if (result === 'failed') {
      expect(expectCleanFailure(run).startsWith('discord.place has not taken an update for')).toBe(
        bot === undefined && inputs === undefined
      )
    } else {
      expect(run.failure).toBeUndefined()
      expect(annotations(run, 'warning'), 'one warning names the failure and the age').toEqual([
        expect.stringContaining(
          `The listing was updated ${Math.floor(ago / HOUR)} h ago, under stale-after: 48, so the step succeeds.`
        )
      ])
    }
  })

  it("the stale run's error and headline: how long, since when, and the failure that stopped this run", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 53 * HOUR })
    emulator.inject('stats', FAILED_500)
    const run = await statsStep(statsInputs(emulator, { 'stale-after': '48' }), clock)
    expect(run.outcome.error?.headline).toBe('no update for 53 h')
    expect(run.failure).toMatch(
      /^discord\.place has not taken an update for 53 h \(last at \S+ \S+ UTC, 2 days before this run\), stale-after: 48\. This run's update failed too: the service answered 500 with "Could not fetch server count\."\./
    )
  })

  it("the limiter's 429 on a stale listing: the failure named is the limiter's answer", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 53 * HOUR })
    emulator.inject('stats', limiterFault())
    const run = await statsStep(statsInputs(emulator, { 'stale-after': '48' }), clock)
    expect(run.failure).toContain(
      `This run's update failed too: the service answered 429 with "Too many requests, please try again later.". It is not sent again;`
    )
  })
})
