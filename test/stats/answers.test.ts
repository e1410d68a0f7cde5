/**
 * The service's answers to the stats update (src/stats/answers.ts) and what a run makes of each:
 * which of the two 429s came, the one line that explains a refusal and what to do, the strike
 * with its likely cause; then, in process against the service emulator on a clock the test
 * controls, each answer as a run meets it: success, a redirect, the refusals (400, 401, 404,
 * 410), a failure on the service's side, the request limiter's 429 (no strike) and the 6-hour
 * refusal (a strike), with the fresh record read after it. Where the step's report matters, the
 * run is read back as a workflow sees it (statsStep).
 */
import { describe, expect, it } from 'vitest'
import { NetworkError } from '../../src/http/transport.js'
import type { HttpAnswer } from '../../src/http/transport.js'
import { serviceMessage } from '../../src/service.js'
import { answerFromStatusLine, explainFailure, failureHeadline, kindOf429, strikeMessage } from '../../src/stats/answers.js'
import type { StatsBody } from '../../src/stats/outcome.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import { jsonFault, limiterFault, SIX_HOUR_REFUSAL, SIX_HOURS } from '../support/emulator.js'
import { BOT, emulatedBot, HOUR, KEY, MINUTE, routes, statsInputs, statsRun, TestClock } from '../support/inprocess.js'
import { annotations, expectCleanFailure, statsStep } from '../support/step.js'

/** Where every TestClock starts. */
const START = new TestClock().now()

// ---------------------------------------------------------------------------------------
// One answer at a time
// ---------------------------------------------------------------------------------------

describe('kindOf429 (service-behaviour.md: the two 429s of PATCH /bots/{id}/stats)', () => {
  const limiterHeaders = { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '1500' }

  it('the request limiter: Retry-After, retry_after and "Too many requests"', () => {
    const body = { success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 1500 }
    expect(kindOf429(jsonAnswer(429, body, { ...limiterHeaders, 'retry-after': '1500' }))).toBe('limiter')
    expect(kindOf429(answer(429, '', { 'retry-after': '1500' }))).toBe('limiter')
    expect(kindOf429(serviceError(429, 'Too many requests, please try again later.'))).toBe('limiter')
  })

  it('the 6-hour rule: no Retry-After, no retry_after, only the limiter RateLimit-* headers', () => {
    expect(
      kindOf429(jsonAnswer(429, { success: false, error: 'You can only update stats once every 6 hours.', status: 429 }, limiterHeaders))
    ).toBe('six-hours')
    // A cut-off answer without Retry-After: taken as the rule that costs a strike.
    expect(kindOf429(answer(429, ''))).toBe('six-hours')
  })

  it('the request limiter by its retry_after alone (no Retry-After header, another text)', () => {
    expect(kindOf429(jsonAnswer(429, { success: false, error: 'Slow down.', status: 429, retry_after: 60 }))).toBe('limiter')
  })
})

describe('answerFromStatusLine (a received status line is an answer, interface.md)', () => {
  it('is the status and headers that arrived, with no body to read', () => {
    const headers = { 'content-type': 'application/json' }
    const cut = new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true, { status: 200, headers })
    expect(answerFromStatusLine(cut)).toEqual({ status: 200, headers, text: '', truncated: true, json: undefined })
    // Nothing to describe: the service's words were cut off with the body.
    expect(serviceMessage(answerFromStatusLine(cut)!)).toBeUndefined()
  })

  it('is no answer when no status line came back', () => {
    expect(answerFromStatusLine(new NetworkError('the connection failed (ECONNRESET)', 'ECONNRESET', true))).toBeUndefined()
  })
})

describe('explainFailure', () => {
  const plan = (body: StatsBody): { botId: string; body: StatsBody } => ({ botId: BOT, body })
  const explain = (got: HttpAnswer, body: StatsBody): string => explainFailure(got, serviceMessage(got), plan(body))

  const TOLERANCE = 'max(50, 10%)'

  describe.each([
    [400, 'Server count is too far from the actual server count.', { server_count: 99999 }],
    [400, 'Commands count must be between 0 and 1,000.', { command_count: 12 }],
    [401, 'Invalid API key.', { command_count: 12 }],
    [404, 'Bot not found.', { command_count: 12 }],
    [
      410,
      'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.',
      { command_count: 12 }
    ],
    [500, 'Could not fetch server count.', { server_count: 1260 }]
  ])('for %d', (status, text, body) => {
    const message = explain(serviceError(status, text), body)

    it('names the status and quotes the service', () => {
      expect(message).toContain(String(status))
      expect(message).toContain(`"${text}"`)
    })

    it('is one line', () => {
      expect(message).not.toMatch(/[\r\n]/)
    })
  })

  it('400 on the server count explains the tolerance', () => {
    const message = explain(serviceError(400, 'Server count is too far from the actual server count.'), { server_count: 99999 })
    expect(message).toContain(TOLERANCE)
  })

  it('400 on the server count explains the tolerance even without a JSON body', () => {
    const message = explain(answer(400, 'Bad Request', { 'content-type': 'text/plain' }), { server_count: 99999 })
    expect(message).toContain(TOLERANCE)
  })

  it.each([
    ['only a command count was sent', { command_count: 1001 }],
    ['both counts were sent', { command_count: 1001, server_count: 1260 }]
  ])('400 on the command count does not talk about the server tolerance (%s)', (_label, body) => {
    const message = explain(serviceError(400, 'Commands count must be between 0 and 1,000.'), body)
    expect(message).not.toContain(TOLERANCE)
    expect(message).not.toMatch(/tolerance|within max/i)
    expect(message).toMatch(/command-count/)
  })

  it('401 points at the api-key secret', () => {
    const message = explain(serviceError(401, 'Invalid API key.'), { command_count: 12 })
    expect(message).toMatch(/api-key/)
    expect(message).toMatch(/secret/)
  })

  it('404 points at bot-id', () => {
    const message = explain(serviceError(404, 'Bot not found.'), { command_count: 12 })
    expect(message).toMatch(/bot-id/)
    expect(message).toContain(BOT)
  })

  it('410 says to generate a new key and respect the 6 hours', () => {
    const message = explain(
      serviceError(410, 'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.'),
      { command_count: 12 }
    )
    expect(message).toMatch(/revoked/i)
    expect(message).toMatch(/generate a new (API )?key on the bot's manage page/i)
    expect(message).toMatch(/6 hours/)
  })

  it('500 says the fault is on the service side', () => {
    const message = explain(serviceError(500, 'Could not fetch server count.'), { server_count: 1260 })
    expect(message).toMatch(/service/)
    expect(message).not.toContain(TOLERANCE)
    expect(message).not.toMatch(/api-key|bot-id/)
  })

  it('without any text from the service, names the status alone', () => {
    expect(explain(answer(502, ''), { command_count: 12 })).toMatch(/^Stats update failed: the service answered 502\. The service failed/)
  })

  it("400 to a command count alone, without the service's words: the ranges of both inputs, not the server tolerance", () => {
    const message = explain(answer(400, '<html><body>Bad Request</body></html>', { 'content-type': 'text/html' }), { command_count: 12 })
    expect(message).not.toContain(TOLERANCE)
    expect(message).toMatch(/Check command-count \(0 to 1000\) and server-count \(0 to 10000000\)\.$/)
  })

  it('400 on the server count says what to send instead, naming discord-token, and that nothing was stored', () => {
    const message = explain(serviceError(400, 'The server count provided (99999) is too far off.'), { server_count: 99999 })
    expect(message).toMatch(/refuses the whole update: nothing was stored\. /)
    expect(message).toMatch(
      /Send the count your bot sees \(its guild cache\), or leave server-count out and set discord-token to read it from Discord\.$/
    )
  })

  it('400 on the server count with a command count beside it: the command count was not stored either', () => {
    const message = explain(serviceError(400, 'The server count provided (99999) is too far off.'), {
      command_count: 12,
      server_count: 99999
    })
    expect(message).toMatch(/nothing was stored, the command count neither\./)
  })

  it.each([300, 301, 308, 399])('a redirect (%d) is not followed, and base-url should be the service itself', status => {
    const message = explain(answer(status, ''), { command_count: 12 })
    expect(message).toMatch(/A redirect is not followed: a request carrying the API key never goes to another address\./)
    expect(message).toMatch(/Set base-url to the service's own address\.$/)
  })

  it('a 5xx: nothing to change, not repeated, the next run tries again', () => {
    const message = explain(answer(503, ''), { command_count: 12 })
    expect(message).toMatch(/nothing in the workflow needs to change/)
    expect(message).toMatch(/The update was not repeated \(a second update could count as an early one\); the next run will try again\.$/)
  })

  it.each([403, 405, 413, 422])('an answer the service does not give (%d): not expected, not repeated, check base-url', status => {
    const message = explain(answer(status, '<html>Forbidden</html>', { 'content-type': 'text/html' }), { command_count: 12 })
    expect(message).toMatch(/This answer was not expected; the update was not repeated\. Check base-url and the service status\.$/)
    expect(message).not.toMatch(/on its side|redirect/)
  })

  it('an HTML error page gives a short message without the page', () => {
    const got = answer(502, HTML_PAGE, { 'content-type': 'text/html' })
    const message = explain(got, { command_count: 12 })
    expect(message).toContain('502')
    expect(message).toContain('non-JSON answer (text/html')
    expect(message).not.toMatch(/[<>]/)
    expect(message.length).toBeLessThan(500)
  })
})

describe('failureHeadline: the few words of a failed update', () => {
  it.each([
    [400, 'count refused by discord.place'],
    [401, 'API key refused'],
    [404, 'bot not listed on discord.place'],
    [410, 'API key revoked (strikes)'],
    [300, 'redirect not followed'],
    [308, 'redirect not followed'],
    [399, 'redirect not followed'],
    [500, 'discord.place failed on its side'],
    [503, 'discord.place failed on its side'],
    [299, 'unexpected answer (299)'],
    [400 + 18, 'unexpected answer (418)'],
    [499, 'unexpected answer (499)']
  ])('%d: %s', (status, words) => {
    expect(failureHeadline(status)).toBe(words)
  })
})

describe('strikeMessage: the strike, its cause and what to do', () => {
  const at = new Date('2026-11-25T12:00:00Z')
  const base = { answer: 'You can only update stats once every 6 hours.', overlap: undefined, nextUpdateAt: undefined, at }

  it('names the strike and the five-strike rule, quoting the service; an unknown next update says so', () => {
    const message = strikeMessage({ ...base, strikeCause: 'unknown' }, BOT)
    expect(message).toMatch(
      /^Stats update refused as too early \(429: "You can only update stats once every 6 hours\."\): the service counted a strike against the API key, and 5 strikes within 6 hours revoke it\. /
    )
    expect(message).toMatch(/ When the next update is accepted is unknown\. The update was not retried\.$/)
  })

  it('without the service’s words, no empty quote', () => {
    expect(strikeMessage({ ...base, answer: undefined, strikeCause: 'unknown' }, BOT)).toMatch(
      /^Stats update refused as too early \(429\): /
    )
  })

  it.each([
    [
      'unverified',
      /Likely cause: discord\.place has not verified the bot yet, and its submission counts as an update, so any update within 6 hours of submitting it is refused\. Keep cooldown-check: true, which holds updates until the bot is verified\./
    ],
    [
      'unchecked',
      /Likely cause: it was sent without reading the record first \(cooldown-check: false\), less than 6 hours after the last update \(or after the bot was submitted, if it is not verified yet\)\. Keep cooldown-check: true\./
    ],
    [
      'unknown',
      new RegExp(
        `Likely cause: overlapping runs, or an update from elsewhere .* one concurrency group \\(concurrency: group: discord-place-stats-${BOT}, cancel-in-progress: false\\)\\.`
      )
    ]
  ] as const)('the cause %s', (cause, words) => {
    expect(strikeMessage({ ...base, strikeCause: cause }, BOT)).toMatch(words)
  })

  it('overlap: when the other run updated, in UTC, and the group to share', () => {
    const message = strikeMessage({ ...base, strikeCause: 'overlap', overlap: new Date('2026-11-25T11:59:00Z') }, BOT)
    expect(message).toContain(
      "Likely cause: overlapping runs. Another run updated the counts at 11:59 UTC, after this run read the bot's record"
    )
  })

  it('the next update, the workflow finding and a stop, each in its place', () => {
    const message = strikeMessage(
      { ...base, strikeCause: 'unknown', nextUpdateAt: new Date('2026-11-25T17:00:00Z') },
      BOT,
      "The step was stopped by SIGTERM (a cancelled workflow or a time limit). It came while the bot's record was read after the refusal.",
      'The workflow that ran this step (w.yml, job stats) shows why: x.'
    )
    expect(message).toMatch(
      / The workflow that ran this step \(w\.yml, job stats\) shows why: x\. The next update is accepted from 17:00 UTC, 5 h after this run\. The update was not retried\. The step was stopped by SIGTERM \(a cancelled workflow or a time limit\)\. It came while the bot's record was read after the refusal\.$/
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
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5' }), clock)
    expect(run.failure).toBeUndefined()
    expect(run.outputs).toMatchObject({ result: 'updated', status: String(fault.status) })
  })

  it('a 300 is no success: failed, with the redirect advice', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'answer', status: 300, body: '' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 300 })
    expect(outcome.error?.message).toMatch(/A redirect is not followed/)
  })

  it.each([
    {
      name: 'a wrong key (401)',
      seed: { apiKey: 'another-key' },
      status: '401',
      expected: [/"Invalid API key\."/, /does not hold this bot's current key/, /regenerated or deleted/],
      headline: 'API key refused'
    },
    {
      name: 'an unknown bot (404)',
      seed: { id: '999999999999999999' },
      status: '404',
      expected: [/"Bot not found\."/, /Check bot-id/],
      headline: 'bot not listed on discord.place'
    },
    {
      name: 'a server count outside the tolerance (400)',
      seed: { realServerCount: 5000 },
      status: '400',
      expected: [/max\(50, 10%\)/],
      headline: 'count refused by discord.place'
    },
    {
      name: 'the 5th early update, which revokes the key (410)',
      seed: { serversUpdatedAt: new Date(START - HOUR), strikes: [1, 2, 3, 4].map(n => new Date(START - n * 10 * MINUTE)) },
      status: '410',
      expected: [/fifth refused as early within 6 hours \(strikes\), so the service revoked the key/, /Generate a new key.*6 hours apart/],
      headline: 'API key revoked (strikes)'
    }
  ])('fails clearly on $name, writing the known outputs, the headline saying why', async ({ seed, status, expected, headline }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed })
    const run = await statsStep(statsInputs(emulator, { 'command-count': '', 'server-count': '1260', 'cooldown-check': 'false' }), clock)
    const message = expectCleanFailure(run)
    expect(emulator.received('stats')).toHaveLength(1)
    for (const pattern of expected) expect(message).toMatch(pattern)
    expect(run.outputs).toMatchObject({ result: 'failed', status, 'server-count': '1260' })
    expect(run.summary).toContain(`<tr><td>Answer</td><td>${status}`)
    expect(run.summary).toMatch(new RegExp(`^<h3>❌ [^\\n]*: failed: ${headline.replace(/[()]/g, '\\$&')}</h3>`))
  })

  it.each([
    [401, 'a wrong key', { apiKey: 'another-key' }, /The API key was refused/],
    // service-behaviour.md 5: revoked for strikes on an earlier run, and a new key generated since.
    [410, 'a key revoked for strikes earlier', { apiKey: 'new-key', revokedKeys: [KEY] }, /on this run or an earlier one/]
  ])('%s (%s): failed, status kept, the advice that fits', async (status, _, seed, advice) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status })
    expect(outcome.error?.message).toMatch(advice)
    expect(emulator.received('stats')).toHaveLength(1)
  })

  it('the fifth strike: 410 with the strikes text gets the strikes advice, not the replaced-key one', async () => {
    const clock = new TestClock()
    const strikes = [1, 2, 3, 4].map(i => new Date(clock.now() - i * MINUTE))
    const emulator = await emulatedBot(clock, { ago: HOUR, seed: { strikes } })
    const { outcome } = await statsRun(statsInputs(emulator, { 'cooldown-check': 'false' }), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 410 })
    expect(outcome.error?.message).toMatch(/This update was the fifth refused as early within 6 hours \(strikes\)/)
    expect(outcome.error?.message).toMatch(/Generate a new key on the bot's manage page on discord\.place \(if not done yet\)/)
    // Revoked at the fifth strike: the bot has no key until the owner generates one.
    expect(emulator.bot(BOT).apiKey).toBeUndefined()
  })

  it('a key regenerated on the manage page is answered 401 (not revoked): the advice names a regenerated key', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.regenerateKey(BOT, 'the-new-key-0000000')
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 401 })
    expect(outcome.error?.message).toMatch(
      /"Invalid API key\."\. The API key was refused: .*regenerated or deleted on the bot's manage page/
    )
    expect(outcome.error?.message).not.toMatch(/revoked/)
  })

  it('quotes the service on a 500 and says the problem is on its side', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', jsonFault(500, { success: false, error: 'Could not fetch server count.', status: 500 }))
    const run = await statsStep(statsInputs(emulator, { 'command-count': '', 'server-count': '1204' }), clock)
    expect(expectCleanFailure(run)).toMatch(/500 with "Could not fetch server count\.".*on its side/)
    expect(emulator.received('stats')).toHaveLength(1)
    expect(run.outputs).toMatchObject({ result: 'failed', status: '500' })
  })

  it('a 5xx that names a wait is a failure on the service’s side, not the request limiter', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', jsonFault(503, { success: false, error: 'Try later.', status: 503, retry_after: 30 }, { 'Retry-After': '30' }))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 503, nextUpdateAt: undefined })
    expect(outcome.error?.message).toMatch(/The service failed on its side/)
    expect(emulator.received('stats')).toHaveLength(1)
  })

  it('turns an HTML error page into a short message, and shows none of the page', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${'<p>upstream</p>'.repeat(400)}</body></html>`
    emulator.inject('stats', { kind: 'answer', status: 502, headers: { 'Content-Type': 'text/html' }, body: page })
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5' }), clock)
    const message = expectCleanFailure(run)
    expect(message).toContain('502')
    expect(message).toContain('non-JSON answer (text/html')
    expect(message).not.toContain('<')
    expect(run.summary).not.toContain('upstream')
    expect(emulator.received('stats')).toHaveLength(1)
  })

  it("shows raw control characters in the service's error text as escapes, in the error and the summary", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', jsonFault(400, { success: false, error: 'bad \u001b[31mred\u001b[0m \u0007\u0000 count', status: 400 }))
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5' }), clock)
    const message = expectCleanFailure(run)
    // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
    const raw = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/
    expect(message).not.toMatch(raw)
    expect(run.summary).not.toMatch(raw)
    expect(message).toContain('bad \\x1b[31mred\\x1b[0m \\x07\\x00 count')
  })

  it('escapes HTML in the service error text in the summary', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', jsonFault(400, { success: false, error: '<img src=x onerror=alert(1)> | *bold*', status: 400 }))
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5' }), clock)
    expectCleanFailure(run)
    expect(run.summary).not.toContain('<img')
    expect(run.summary).toContain('&lt;img src=x onerror=alert(1)&gt; | *bold*')
  })
})

describe("the request limiter's 429: turned away, no strike", () => {
  it("the request limiter's 429: rate-limited, no strike, next update from its Retry-After", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.spendLimit('stats', BOT, 2)
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'rate-limited', status: 429, error: undefined })
    expect(emulator.bot(BOT).strikes).toEqual([])
    expect(emulator.received('stats')).toHaveLength(1)
    // The limiter's window was opened now: its Retry-After is the whole 30 minutes.
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() + 30 * MINUTE)
  })

  it('a limiter 429 with retry_after is rate-limited, next-update-at from the wait it names (not RateLimit-Reset), not retried', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    // The limiter's window ends in 30 minutes; the wait it names is 2 minutes. next-update-at
    // follows the named wait, never RateLimit-Reset (interface.md).
    emulator.inject(
      'stats',
      limiterFault(
        { retry_after: 120 },
        { 'Retry-After': '120', 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1800' }
      )
    )
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5' }), clock)
    expect(run.failure).toBeUndefined()
    expect(emulator.received('stats')).toHaveLength(1)
    expect(run.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    expect(run.outputs['next-update-at'], 'from Retry-After, not from RateLimit-Reset').toBe(new Date(clock.now() + 120_000).toISOString())
  })

  it('leaves next-update-at empty for a limiter 429 that names no wait, whatever RateLimit-Reset says', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', limiterFault({}, { 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1500' }))
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5', 'cooldown-check': 'false' }), clock)
    expect(run.failure).toBeUndefined()
    expect(run.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    expect(run.outputs['next-update-at'] ?? '', 'never from RateLimit-Reset').toBe('')
  })

  it('the request limiter’s 429 naming no wait, after a record that allowed the update: no next update time', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', limiterFault())
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'rate-limited', status: 429, nextUpdateAt: undefined })
  })
})

describe('the 6-hour refusal: a strike', () => {
  it('sent unchecked: cooldown, never retried, one error that quotes the service, names the strike and its cause; next update from the record', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    const run = await statsStep(statsInputs(emulator, { 'cooldown-check': 'false' }), clock)
    const { outcome } = run
    expect(routes(emulator)).toEqual(['PATCH /stats', 'GET '])
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, overlap: undefined, strikeCause: 'unchecked' })
    expect(outcome.error?.message, 'a strike fails the step').toMatch(/counted a strike against the API key/)
    expect(emulator.bot(BOT).strikes, 'the strike this run cost').toHaveLength(1)
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() - 2 * HOUR + SIX_HOURS + MINUTE)
    expect(run.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    expect(run.failure, 'a strike is a red step').toMatch(
      /^Stats update refused as too early \(429: "You can only update stats once every 6 hours\."\)/
    )
    expect(run.failure).toMatch(/counted a strike against the API key, and 5 strikes within 6 hours revoke it/)
    expect(run.failure).toMatch(/Likely cause: it was sent without reading the record first \(cooldown-check: false\)/)
    expect(annotations(run, 'error'), 'no ::error:: but the one main.ts prints').toEqual([])
    expect(
      annotations(run, 'warning').filter(w => /strike/i.test(w)),
      'no warning repeats it'
    ).toEqual([])
    expect(run.summary).toMatch(/<h3>🛑 [^<]*(<a [^>]*>[^<]*<\/a>)?[^<]*: refused: strike counted<\/h3>/)
    expect(run.summary).toContain('<strong>Error:</strong> Stats update refused as too early')
  })

  it('when the fresh record shows the same update the first one did: no overlap, and no next update time from the past', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', SIX_HOUR_REFUSAL)
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('record')).toHaveLength(2)
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, overlap: undefined, nextUpdateAt: undefined, strikeCause: 'unknown' })
    expect(outcome.error?.message, 'a strike fails the step').toMatch(/counted a strike against the API key/)
  })

  it('when the fresh record cannot be read: the refusal is reported, with no next update time from the first read', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', SIX_HOUR_REFUSAL)
    const { outcome } = await statsRun(statsInputs(emulator), {
      clock,
      onLog: line => {
        if (line.startsWith('The service answered 429')) {
          for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
        }
      }
    })
    expect(emulator.received('record')).toHaveLength(4)
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, overlap: undefined, nextUpdateAt: undefined, strikeCause: 'unknown' })
    expect(outcome.error?.message, 'a strike fails the step').toMatch(/counted a strike against the API key/)
  })

  it("when the step's time runs out before the fresh read: the refusal is reported, nothing more is read", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    const { outcome } = await statsRun(statsInputs(emulator, { 'cooldown-check': 'false' }), {
      clock,
      onLog: line => {
        if (line.startsWith('The service answered 429')) clock.advance(HOUR)
      }
    })
    expect(emulator.received('record')).toEqual([])
    expect(outcome).toMatchObject({
      result: 'cooldown',
      status: 429,
      overlap: undefined,
      nextUpdateAt: undefined,
      strikeCause: 'unchecked'
    })
    expect(outcome.error?.message, 'a strike fails the step').toMatch(/counted a strike against the API key/)
    expect(emulator.bot(BOT).strikes).toHaveLength(1)
  })

  it('sent without the record check to a bot not verified yet (the first day): a strike and a red step, the fresh read naming the first day as the cause', async () => {
    const clock = new TestClock()
    // The live service stamps a new bot's command count with its creation time (service-behaviour.md).
    const emulator = await emulatedBot(clock, {
      seed: { verified: false, createdAt: new Date(clock.now() - HOUR), commandsUpdatedAt: undefined }
    })
    const { outcome } = await statsRun(statsInputs(emulator, { 'cooldown-check': 'false' }), { clock })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(emulator.received('record').map(r => r.status)).toEqual([403])
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, strikeCause: 'unverified' })
    expect(outcome.error).toBeDefined()
    expect(outcome.error?.message).toMatch(
      /Likely cause: discord\.place has not verified the bot yet, and its submission counts as an update/
    )
  })

  it("a gateway's 403 in the service's shape on the re-read after a strike does not name the first day", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: { commandsUpdatedAt: new Date(clock.now() - HOUR) } })
    emulator.inject('record', {
      kind: 'answer',
      status: 403,
      headers: { 'Content-Type': 'application/json' },
      body: '{"success":false,"error":"Access denied by policy","status":403}'
    })
    const { outcome } = await statsRun(statsInputs(emulator, { 'cooldown-check': 'false' }), { clock })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, strikeCause: 'unchecked' })
    expect(outcome.error?.message).not.toMatch(/has not verified the bot/)
  })
})
