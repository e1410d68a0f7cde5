/**
 * What both modes know of the service (src/service.ts, src/keys.ts): the advice for an answer
 * about the key or the bot (interface.md, "Real-life rules": both 410 texts mean a key revoked
 * for strikes; a regenerated or deleted key is a 401), the service's words in an answer, and the
 * key check of a run that sends nothing (a skip or a dry run), in process against the service
 * emulator on a clock the test controls: a key refused fails the step now, one that cannot be
 * checked leaves it green with a warning (a stop during the check: test/stats/stops.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { keyAdvice } from '../../src/keys.js'
import { serviceMessage } from '../../src/service.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import { jsonFault, type ServiceEmulator } from '../support/emulator.js'
import { BOT, emulatedBot, HOUR, KEY, statsInputs, statsRun, TestClock } from '../support/inprocess.js'

const REPLACED = 'This API key has been revoked.'
const STRIKES = 'Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.'

describe('keyAdvice', () => {
  it("401: not this bot's current key: mistyped, regenerated or deleted on the manage page, or another bot's key", () => {
    const advice = keyAdvice(401, 'Invalid API key.', BOT)
    // service-behaviour.md 6: a regenerated or deleted key is answered 401, not 410.
    expect(advice).toMatch(/^The API key was refused: the api-key secret does not hold this bot's current key\./)
    expect(advice).toMatch(/regenerated or deleted on the bot's manage page/)
    expect(advice).toMatch(/another bot's key \(each bot has its own\)/)
    expect(advice).toMatch(/Copy the current key from this bot's manage page on discord\.place into the secret\.$/)
  })

  it('404: names the bot ID to check', () => {
    expect(keyAdvice(404, 'Bot not found.', BOT)).toBe(
      `The service lists no bot with ID ${BOT}. Check bot-id, and that the bot is listed on discord.place.`
    )
  })

  // service-behaviour.md 5 and 7: a key is revoked only at the fifth strike; every 410 means strikes.
  const NEW_KEY =
    "Generate a new key on the bot's manage page on discord.place (if not done yet) and store it in the api-key secret. " +
    'Then keep updates 6 hours apart: keep cooldown-check: true, schedule at most once every 6 hours, and put every stats ' +
    `job for this bot in one concurrency group (discord-place-stats-${BOT}).`

  it.each([REPLACED, 'This API key has been revoked', `  ${REPLACED}  `, 'Your API key has been revoked.', undefined])(
    'a 410 saying %j: revoked for strikes, perhaps on an earlier run; generate a new key, keep runs 6 hours apart',
    text => {
      expect(keyAdvice(410, text, BOT)).toBe(
        'The service revoked the key after five updates were refused as early within 6 hours (strikes), on this run or an ' +
          `earlier one; a revoked key stays revoked. ${NEW_KEY}`
      )
    }
  )

  it('a 410 for the fifth strike: this update was the fifth, and the same advice', () => {
    expect(keyAdvice(410, STRIKES, BOT)).toBe(
      `This update was the fifth refused as early within 6 hours (strikes), so the service revoked the key. ${NEW_KEY}`
    )
  })

  it('no 410 advice says a key was regenerated or replaced: that is a 401', () => {
    for (const text of [REPLACED, STRIKES, undefined]) expect(keyAdvice(410, text, BOT)).not.toMatch(/regenerat|replaced|generated on/)
  })

  it.each([400, 403, 429, 500])('no advice about the key for a %d', status => {
    expect(keyAdvice(status, 'whatever', BOT)).toBeUndefined()
  })
})

describe('serviceMessage', () => {
  it.each([
    ['Invalid API key.', 401],
    ['Bot not found.', 404],
    ['Your API key has been revoked due to spamming the stats API. Please generate a new key from your dashboard.', 410],
    ['You can only update stats once every 6 hours.', 429]
  ])('is the service\'s error text "%s"', (text, status) => {
    expect(serviceMessage(serviceError(status, text))).toBe(text)
  })

  it('keeps a multi-line error text on one line', () => {
    const got = serviceMessage(serviceError(400, 'Server count is off.\nExpected about 1204.'))
    expect(got).toContain('Server count is off.')
    expect(got).toContain('Expected about 1204.')
    expect(got).not.toMatch(/[\r\n]/)
  })

  it('clips a long error text to about 300 characters', () => {
    const long = `${'The service rambles on. '.repeat(60)}END`
    const got = serviceMessage(serviceError(500, long))
    expect(got).toBeDefined()
    expect(got?.startsWith('The service rambles on.')).toBe(true)
    expect(got?.length).toBeGreaterThanOrEqual(280)
    expect(got?.length).toBeLessThanOrEqual(310)
    expect(got).not.toContain('END')
  })

  it('describes an HTML page in a few words, without the page', () => {
    const got = serviceMessage(answer(502, HTML_PAGE, { 'content-type': 'text/html; charset=utf-8' }))
    expect(got).toBe(`a non-JSON answer (text/html, ${Buffer.byteLength(HTML_PAGE)} bytes)`)
    expect(got).not.toMatch(/[<>]/)
    expect(got).not.toContain('Bad Gateway')
  })

  it('counts bytes, not characters, of a non-JSON answer', () => {
    const text = 'Fehler: Überlastung'
    expect(serviceMessage(answer(503, text, { 'content-type': 'text/plain' }))).toBe(
      `a non-JSON answer (text/plain, ${Buffer.byteLength(text)} bytes)`
    )
  })

  it('does not dump a truncated HTML page either', () => {
    const got = serviceMessage({ ...answer(502, HTML_PAGE, { 'content-type': 'text/html' }), truncated: true })
    expect(got).toMatch(/non-JSON answer \(text\/html/)
    expect(got).not.toMatch(/[<>]/)
  })

  it.each([
    ['the success answer', jsonAnswer(200, { success: true })],
    ['an empty body', answer(500, '')],
    ['JSON with an empty error', jsonAnswer(500, { success: false, error: '  ', status: 500 })],
    ['JSON with a non-string error', jsonAnswer(500, { success: false, error: { code: 1 }, status: 500 })]
  ])('is undefined for %s', (_label, got) => {
    expect(serviceMessage(got)).toBeUndefined()
  })

  it('says nothing about a body of white space only', () => {
    expect(serviceMessage(answer(502, '  \r\n '))).toBeUndefined()
  })

  it('names the type of a non-JSON answer as unknown when it has none', () => {
    expect(serviceMessage(answer(502, 'oops!'))).toBe('a non-JSON answer (unknown type, 5 bytes)')
  })
})

// ---------------------------------------------------------------------------------------
// The key check (a run that sends nothing), against the emulator
// ---------------------------------------------------------------------------------------

/** The test's bot, last updated an hour ago: a stats run skips, and checks the key. */
const recentlyUpdated = (clock: TestClock): Promise<ServiceEmulator> => emulatedBot(clock, { ago: HOUR })

/**
 * A run that sends nothing (a skip: the bot was updated 2 hours ago; or a dry run of a due
 * update) whose key check is refused: it checks the key once, sends no PATCH, and fails now.
 * Returns the failure's message.
 */
async function refusedKeyCheck(
  run: 'a skipped run' | 'a dry run',
  bot: { seed?: { apiKey: string; revokedKeys?: string[] }; change?: (emulator: ServiceEmulator) => void }
): Promise<string> {
  const clock = new TestClock()
  const emulator = await emulatedBot(clock, { ago: run === 'a dry run' ? 7 * HOUR : 2 * HOUR, seed: bot.seed })
  bot.change?.(emulator)
  const { outcome } = await statsRun(statsInputs(emulator, run === 'a dry run' ? { 'dry-run': 'true' } : {}), { clock })
  expect(emulator.received('stats')).toEqual([])
  expect(emulator.received('votes')).toHaveLength(1)
  expect(outcome.result).toBe('failed')
  return outcome.error?.message ?? ''
}

describe('the key check of a run that sends nothing', () => {
  it.each(['a skipped run', 'a dry run'] as const)('%s with a wrong key fails now, with the key advice, and sends no PATCH', async run => {
    const message = await refusedKeyCheck(run, { seed: { apiKey: 'the-real-key-000000' } })
    expect(message).toMatch(/^The API key check was answered 401 with "Invalid API key\."\. The API key was refused/)
  })

  it.each(['a skipped run', 'a dry run'] as const)(
    '%s with a key revoked for strikes (410) fails now, with the strikes advice, and sends no PATCH',
    async run => {
      const message = await refusedKeyCheck(run, { seed: { apiKey: 'the-new-key-0000000', revokedKeys: [KEY] } })
      expect(message).toMatch(/^The API key check was answered 410 with "This API key has been revoked\."/)
      expect(message).toMatch(/revoked the key after five updates were refused as early within 6 hours/)
      expect(message).not.toMatch(/regenerat/i)
    }
  )

  it.each([
    ['regenerated', (emulator: ServiceEmulator) => emulator.regenerateKey(BOT, 'the-new-key-0000000')],
    ['deleted', (emulator: ServiceEmulator) => emulator.deleteKey(BOT)]
  ])('a skipped run with a key %s on the manage page fails now with the 401 advice', async (_, change) => {
    const message = await refusedKeyCheck('a skipped run', { change })
    expect(message).toMatch(/^The API key check was answered 401 with "Invalid API key\."\. .*regenerated or deleted/)
  })

  it('a dry run without a key checks nothing, and a key check the limiter turns away leaves the run green', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    const dry = await statsRun({ 'bot-id': BOT, 'base-url': emulator.url, 'command-count': '3', 'dry-run': 'true' }, { clock })
    expect(emulator.received('votes')).toEqual([])
    expect(dry.outcome).toMatchObject({ result: 'dry-run', skip: 'recent', keyCheck: undefined })
    emulator.spendLimit('votes', BOT, 100)
    const limited = await statsRun(statsInputs(emulator, { 'command-count': '3' }), { clock })
    expect(limited.outcome).toMatchObject({ result: 'skipped', keyCheck: { state: 'unchecked' }, error: undefined })
  })

  it('asks the vote route about the bot itself, with the bare key and JSON headers, and says so in the log', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    const { outcome, log } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'skipped', keyCheck: { state: 'valid' } })
    const [check] = emulator.received('votes')
    expect(`${check!.method} ${check!.path}`).toBe(`GET /bots/${BOT}/voters/${BOT}`)
    expect(check!.headers).toMatchObject({ authorization: KEY, accept: 'application/json', 'content-type': 'application/json' })
    expect(log).toContain(`Checking the API key (GET ${emulator.url}/bots/${BOT}/voters/${BOT}, which spends no update).`)
  })

  it('a 204 (the original description) is a valid key', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    emulator.inject('votes', { kind: 'answer', status: 204, body: '' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'skipped', keyCheck: { state: 'valid' }, error: undefined })
  })

  it('a 401 without the service’s words fails the run naming the status alone, with the key advice', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    emulator.inject('votes', { kind: 'answer', status: 401, headers: { 'Content-Type': 'text/html' }, body: '<html>401</html>' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 401\. The API key was refused/)
  })

  it.each([
    [401, 'Invalid API key.', 'API key refused'],
    [404, 'Bot not found.', 'bot not listed on discord.place'],
    [410, 'This API key has been revoked.', 'API key revoked (strikes)']
  ])('a key check answered %d fails the run with a headline that says why in a few words', async (status, error, headline) => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    emulator.inject('votes', jsonFault(status, { success: false, error, status }))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toContain(`The API key check was answered ${status} with "${error}". `)
    expect(outcome.error?.headline).toBe(headline)
  })

  it("a 203 (a proxy's altered copy) that carries the vote answer leaves the key unchecked: only the service's own 200 or 204 passes it", async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    emulator.inject('votes', jsonFault(203, { voted: false }))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'skipped', error: undefined })
    expect(outcome.keyCheck).toEqual({ state: 'unchecked', reason: 'the service answered 203' })
  })

  it('a 5xx twice: the key is unchecked, saying why, and the skip stays green', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    for (let i = 0; i < 2; i++) emulator.inject('votes', { kind: 'answer', status: 503, body: 'busy' })
    const { outcome, log } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('votes')).toHaveLength(2)
    expect(outcome).toMatchObject({
      result: 'skipped',
      error: undefined,
      keyCheck: { state: 'unchecked', reason: 'the service answered 503' }
    })
    // A warning, not a log line: a key that stays unchecked run after run must be seen.
    expect(outcome.warnings).toContain('The API key could not be checked (the service answered 503); the next run will check it.')
    expect(log).not.toContain('The API key could not be checked (the service answered 503); the next run will check it.')
  })

  it.each([
    ["a captive portal's HTML page", { 'Content-Type': 'text/html' }, '<html><body>Sign in to the network</body></html>'],
    ['JSON without a voted field', { 'Content-Type': 'application/json' }, '{"ok":true}'],
    ['JSON whose voted is not a boolean', { 'Content-Type': 'application/json' }, '{"voted":"yes"}'],
    ['an empty 200', {}, '']
  ])("a 200 that is not the service's answer (%s) leaves the key unchecked, with a warning that says so", async (_, headers, body) => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    emulator.inject('votes', { kind: 'answer', status: 200, headers, body })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'skipped', error: undefined })
    expect(outcome.keyCheck).toEqual({ state: 'unchecked', reason: expect.stringMatching(/a 200 that is not the service's answer/) })
    expect(outcome.warnings.join('\n')).toMatch(/^The API key could not be checked \(a 200 that is not the service's answer/m)
  })

  it('a connection lost twice: the key is unchecked, with the network failure as the reason, and the skip stays green', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    for (let i = 0; i < 2; i++) emulator.inject('votes', { kind: 'reset' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('votes')).toHaveLength(2)
    expect(outcome).toMatchObject({ result: 'skipped', error: undefined })
    expect(outcome.keyCheck).toEqual({ state: 'unchecked', reason: expect.stringMatching(/^the connection to 127\.0\.0\.1:\d+ failed/) })
  })
})
