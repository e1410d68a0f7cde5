/**
 * The service's answers to the stats update (src/stats/answers.ts): which of the two 429s came,
 * the line that explains a refusal (each advice sentence pinned once, in its table) and the
 * strike with its likely cause; then each answer as a run meets it, in process against the
 * service emulator on the TestClock: success, the refusals, the request limiter (no strike) and
 * the 6-hour refusal (a strike) with the fresh record read after it. Stops are stops.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { keyAdvice, keyHeadline } from '../../src/keys.js'
import { NetworkError } from '../../src/http/transport.js'
import type { HttpAnswer } from '../../src/http/transport.js'
import { serviceMessage } from '../../src/service.js'
import { answerFromStatusLine, explainFailure, failureHeadline, kindOf429, strikeMessage } from '../../src/stats/answers.js'
import type { StatsBody } from '../../src/stats/outcome.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import { type Fault, jsonFault, limiterFault, recordFault, SIX_HOUR_REFUSAL, SIX_HOURS } from '../support/emulator.js'
import { BOT, emulatedBot, type EmulatedBot, HOUR, KEY, MINUTE, routes, statsInputs, statsRun, TestClock } from '../support/inprocess.js'
import type { ServiceEmulator } from '../support/emulator.js'
import { annotations, expectCleanFailure, statsStep } from '../support/step.js'

/** Where every TestClock starts. */
const START = new TestClock().now()

/** The advice for each refusal that is not about the key (keys.ts has those): pinned here, once. */
const ADVICE = {
  tolerance: (neither: boolean): string =>
    'The service accepts a server count only within max(50, 10%) of the count Discord reports for the bot, and refuses the ' +
    `whole update: nothing was stored${neither ? ', the command count neither' : ''}. Send the count your bot sees (its guild ` +
    'cache), or leave server-count out and set discord-token to read it from Discord.',
  ranges: 'Check command-count (0 to 1000) and server-count (0 to 10000000).',
  redirect:
    "A redirect is not followed: a request carrying the API key never goes to another address. Set base-url to the service's own address.",
  theirs:
    'The service failed on its side; nothing in the workflow needs to change. The update was not repeated (a second update ' +
    'could count as an early one); the next run will try again.',
  unexpected: 'This answer was not expected; the update was not repeated. Check base-url and the service status.'
}

// ---------------------------------------------------------------------------------------
// One answer at a time
// ---------------------------------------------------------------------------------------

describe('kindOf429 (service-behaviour.md: the two 429s of PATCH /bots/{id}/stats)', () => {
  const limiterHeaders = { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '1500' }
  it.each([
    ['the limiter by its Retry-After alone', answer(429, '', { 'retry-after': '1500' }), 'limiter'],
    [
      'the limiter by its retry_after alone',
      jsonAnswer(429, { success: false, error: 'Slow down.', status: 429, retry_after: 60 }),
      'limiter'
    ],
    ['the limiter by its "Too many requests" alone', serviceError(429, 'Too many requests, please try again later.'), 'limiter'],
    [
      'the 6-hour rule: only RateLimit-*',
      jsonAnswer(429, { success: false, error: 'Only once every 6 hours.' }, limiterHeaders),
      'six-hours'
    ],
    ['a cut-off answer with no Retry-After: taken as the rule that costs a strike', answer(429, ''), 'six-hours']
  ] as const)('%s', (_, got, kind) => {
    expect(kindOf429(got)).toBe(kind)
  })
})

it('answerFromStatusLine: the status and headers that arrived, no body to read; nothing without a status line', () => {
  const headers = { 'content-type': 'application/json' }
  const cut = answerFromStatusLine(new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true, { status: 200, headers }))
  expect(cut).toEqual({ status: 200, headers, text: '', truncated: true, json: undefined })
  expect(serviceMessage(cut!), "the service's words were cut off with the body").toBeUndefined()
  expect(answerFromStatusLine(new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true))).toBeUndefined()
})

describe('explainFailure: one line, the status, the service quoted, the advice that fits', () => {
  const REVOKED = 'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.'
  const TOO_FAR = 'Server count is too far from the actual server count.'
  const COMMANDS = 'Commands count must be between 0 and 1,000.'
  const html = (status: number, page = HTML_PAGE): HttpAnswer => answer(status, page, { 'content-type': 'text/html' })
  it.each<[string, HttpAnswer, StatsBody, string]>([
    ['400 on the server count', serviceError(400, TOO_FAR), { server_count: 99999 }, ADVICE.tolerance(false)],
    [
      '400 on the server count, a command count beside it',
      serviceError(400, TOO_FAR),
      { command_count: 12, server_count: 99999 },
      ADVICE.tolerance(true)
    ],
    [
      '400 on the server count, not JSON',
      answer(400, 'Bad Request', { 'content-type': 'text/plain' }),
      { server_count: 99999 },
      ADVICE.tolerance(false)
    ],
    ['400 on the command count', serviceError(400, COMMANDS), { command_count: 1001 }, ADVICE.ranges],
    ['400 on the command count, both sent', serviceError(400, COMMANDS), { command_count: 1001, server_count: 1260 }, ADVICE.ranges],
    ['400 to a command count, no words', html(400), { command_count: 12 }, ADVICE.ranges],
    ['401', serviceError(401, 'Invalid API key.'), { command_count: 12 }, keyAdvice(401, 'Invalid API key.', BOT)!],
    ['404', serviceError(404, 'Bot not found.'), { command_count: 12 }, keyAdvice(404, 'Bot not found.', BOT)!],
    ['410', serviceError(410, REVOKED), { command_count: 12 }, keyAdvice(410, REVOKED, BOT)!],
    ['300', answer(300), { command_count: 12 }, ADVICE.redirect],
    ['399', answer(399), { command_count: 12 }, ADVICE.redirect],
    ['500, quoted', serviceError(500, 'Could not fetch server count.'), { server_count: 1260 }, ADVICE.theirs],
    ['502, an HTML page', html(502), { command_count: 12 }, ADVICE.theirs],
    ['503, no words', answer(503), { command_count: 12 }, ADVICE.theirs],
    ['299', answer(299), { command_count: 12 }, ADVICE.unexpected],
    ['403, an HTML page', html(403, '<html>Forbidden</html>'), { command_count: 12 }, ADVICE.unexpected],
    ['499', answer(499), { command_count: 12 }, ADVICE.unexpected]
  ])('%s', (_, got, body, advice) => {
    const said = serviceMessage(got)
    const message = explainFailure(got, said, { botId: BOT, body })
    expect(message).toBe(`Stats update failed: the service answered ${got.status}${said === undefined ? '' : ` with "${said}"`}. ${advice}`)
    expect(message, 'one line, none of a page').not.toMatch(/[\r\n<>]/)
  })

  it('quotes the words, and says what a page was without showing it', () => {
    expect(explainFailure(serviceError(401, 'Invalid API key.'), 'Invalid API key.', { botId: BOT, body: {} })).toMatch(
      /^Stats update failed: the service answered 401 with "Invalid API key\."\. /
    )
    expect(explainFailure(html(502), serviceMessage(html(502)), { botId: BOT, body: {} })).toContain('non-JSON answer (text/html')
  })
})

it.each([
  [400, 'count refused by discord.place'],
  [401, keyHeadline(401)],
  [404, keyHeadline(404)],
  [410, keyHeadline(410)],
  [300, 'redirect not followed'],
  [399, 'redirect not followed'],
  [500, 'discord.place failed on its side'],
  [299, 'unexpected answer (299)'],
  [499, 'unexpected answer (499)']
])('failureHeadline(%d): %s', (status, words) => {
  expect(failureHeadline(status)).toBe(words)
})

describe('strikeMessage: the strike, its likely cause and what to do (each sentence pinned here)', () => {
  const at = new Date('2026-11-25T12:00:00Z')
  const base = { answer: 'You can only update stats once every 6 hours.', overlap: undefined, nextUpdateAt: undefined, at }
  const group = `concurrency: group: discord-place-stats-${BOT}, cancel-in-progress: false`
  const STRIKE =
    'Stats update refused as too early (429: "You can only update stats once every 6 hours."): the service counted a strike ' +
    'against the API key, and 5 strikes within 6 hours revoke it.'
  const UNKNOWN =
    'Likely cause: overlapping runs, or an update from elsewhere (the bot itself, another workflow) after this run read the ' +
    `record. Schedule this at most once every 6 hours, keep cooldown-check: true, and put every stats job for this bot in one concurrency group (${group}).`

  it.each([
    [
      'overlap',
      "Likely cause: overlapping runs. Another run updated the counts at 11:59 UTC, after this run read the bot's record: runs " +
        'that overlap (a deploy and the schedule at once) both pass the check. Put the stats job of every workflow for this bot ' +
        `in one concurrency group (${group}) so that they queue.`
    ],
    [
      'unverified',
      'Likely cause: discord.place has not verified the bot yet, and its submission counts as an update, so any update within 6 ' +
        'hours of submitting it is refused. Keep cooldown-check: true, which holds updates until the bot is verified.'
    ],
    [
      'unchecked',
      'Likely cause: it was sent without reading the record first (cooldown-check: false), less than 6 hours after the last ' +
        'update (or after the bot was submitted, if it is not verified yet). Keep cooldown-check: true.'
    ],
    ['unknown', UNKNOWN]
  ] as const)('the cause %s', (strikeCause, cause) => {
    const overlap = strikeCause === 'overlap' ? new Date('2026-11-25T11:59:00Z') : undefined
    expect(strikeMessage({ ...base, strikeCause, overlap }, BOT)).toBe(
      `${STRIKE} ${cause} When the next update is accepted is unknown. The update was not retried.`
    )
  })

  it('no empty quote without the words; the workflow finding, the next update and a stop, each in its place', () => {
    const stop =
      "The step was stopped by SIGTERM (a cancelled workflow or a time limit). It came while the bot's record was read after the refusal."
    const message = strikeMessage(
      { ...base, answer: undefined, strikeCause: 'unknown', nextUpdateAt: new Date('2026-11-25T17:00:00Z') },
      BOT,
      stop,
      'The workflow that ran this step (w.yml, job stats) shows why: x.'
    )
    expect(message).toBe(
      `${STRIKE.replace(': "You can only update stats once every 6 hours."', '')} ${UNKNOWN} The workflow that ran this step ` +
        `(w.yml, job stats) shows why: x. The next update is accepted from 17:00 UTC, 5 h after this run. The update was not retried. ${stop}`
    )
  })
})

// ---------------------------------------------------------------------------------------
// Each answer as a run meets it
// ---------------------------------------------------------------------------------------

describe('the answer to the update', () => {
  it.each([
    ['204 No Content', { kind: 'answer', status: 204, body: '' }],
    ['201 with a text body', { kind: 'answer', status: 201, headers: { 'Content-Type': 'text/plain' }, body: 'ok' }]
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
    said: string
    advice: string
  }>([
    { name: 'a redirect (300)', fault: { kind: 'answer', status: 300, body: '' }, status: 300, said: '', advice: ADVICE.redirect },
    {
      name: 'a server count outside the tolerance (400)',
      bot: { seed: { realServerCount: 5000 } },
      inputs: { 'command-count': '', 'server-count': '1260' },
      status: 400,
      said: '',
      advice: ADVICE.tolerance(false)
    },
    { name: 'a wrong key (401)', bot: { seed: { apiKey: 'another-key' } }, status: 401, said: 'Invalid API key.', advice: '' },
    { name: 'an unknown bot (404)', bot: { seed: { id: '999999999999999999' } }, status: 404, said: 'Bot not found.', advice: '' },
    {
      name: 'the 5th early update, which revokes the key (410)',
      bot: { ago: HOUR, seed: { strikes } },
      status: 410,
      said: 'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.',
      advice: ''
    },
    {
      name: 'a key revoked for strikes on an earlier run, a new one generated since (410)',
      bot: { seed: { apiKey: 'new-key', revokedKeys: [KEY] } },
      status: 410,
      said: 'This API key has been revoked.',
      advice: ''
    },
    {
      name: 'a failure on its side (500)',
      fault: jsonFault(500, { success: false, error: 'Could not fetch server count.', status: 500 }),
      status: 500,
      said: 'Could not fetch server count.',
      advice: ADVICE.theirs
    },
    {
      name: 'a 5xx that names a wait, not the request limiter (503)',
      fault: jsonFault(503, { success: false, error: 'Try later.', status: 503, retry_after: 30 }, { 'Retry-After': '30' }),
      status: 503,
      said: 'Try later.',
      advice: ADVICE.theirs
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
      said: '',
      advice: ADVICE.theirs
    }
  ])('fails on $name: the outputs, the headline and the advice that fits', async ({ bot, fault, inputs, status, said, advice }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, bot)
    if (fault !== undefined) emulator.inject('stats', fault)
    const run = await statsStep(statsInputs(emulator, { 'cooldown-check': 'false', ...inputs }), clock)
    const message = expectCleanFailure(run)
    expect(emulator.received('stats'), 'never repeated').toHaveLength(1)
    expect(run.outcome).toMatchObject({ status, nextUpdateAt: undefined })
    expect(message).toContain(said === '' ? `answered ${status}` : `answered ${status} with "${said}". `)
    expect(message.endsWith(advice === '' ? keyAdvice(status, said, BOT)! : advice), 'the advice').toBe(true)
    expect(message).not.toMatch(/[<\r\n]/)
    expect(run.summary).not.toContain('upstream')
    expect(run.outputs).toMatchObject({ result: 'failed', status: String(status) })
    expect(run.summary).toContain(`<tr><td>Answer</td><td>${status}`)
    expect(run.summary).toMatch(new RegExp(`^<h3>❌ [^\\n]*: failed: ${failureHeadline(status).replace(/[()]/g, '\\$&')}</h3>`))
  })

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
  ['the live limiter: its whole 30 minutes', emulator => emulator.spendLimit('stats', BOT, 2), 30 * MINUTE],
  [
    'the wait it names, never RateLimit-Reset',
    emulator => emulator.inject('stats', limiterFault({ retry_after: 120 }, { 'Retry-After': '120', 'RateLimit-Reset': '1800' })),
    120_000
  ],
  [
    'none when it names no wait, whatever RateLimit-Reset says',
    emulator => emulator.inject('stats', limiterFault({}, { 'RateLimit-Reset': '1500' })),
    undefined
  ]
])("the request limiter's 429 is rate-limited, no strike, not retried; the next update: %s", async (_, limit, wait) => {
  const clock = new TestClock()
  const emulator = await emulatedBot(clock)
  limit(emulator)
  const run = await statsStep(statsInputs(emulator), clock)
  expect(run.failure).toBeUndefined()
  expect(run.outcome).toMatchObject({ result: 'rate-limited', status: 429, error: undefined })
  expect(emulator.received('stats')).toHaveLength(1)
  expect(emulator.bot(BOT).strikes).toEqual([])
  expect(run.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
  expect(run.outputs['next-update-at'] ?? '').toBe(wait === undefined ? '' : new Date(START + wait).toISOString())
})

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
      onLog: emulator => on('Sending PATCH', () => emulator.inject('record', recordFault(BOT, new Date(START)))),
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
          for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
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
      // The live service stamps a new bot's command count with its creation time (service-behaviour.md).
      bot: { seed: { verified: false, createdAt: new Date(START - HOUR), commandsUpdatedAt: undefined } },
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
          emulator.inject('record', jsonFault(403, { success: false, error: 'Access denied by policy', status: 403 }))
        ),
      reads: [403],
      found: { strikeCause: 'unchecked' }
    }
  ])('$name', async ({ bot, inputs, refusal, onLog, reads, found }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, bot)
    if (refusal) emulator.inject('stats', SIX_HOUR_REFUSAL)
    const { outcome } = await statsRun(statsInputs(emulator, inputs), { clock, onLog: onLog?.(emulator, clock) })
    expect(emulator.received('stats'), 'never retried').toHaveLength(1)
    expect(emulator.received('record').map(r => r.status)).toEqual(reads)
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, strikeCause: found.strikeCause })
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
    expect(run.summary).toMatch(/<h3>🛑 [^<]*(<a [^>]*>[^<]*<\/a>)?[^<]*: refused: strike counted<\/h3>/)
    expect(run.summary).toContain(`<strong>Error:</strong> ${run.failure!.slice(0, 40)}`)
  })
})
