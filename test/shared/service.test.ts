/**
 * What both modes know of the service (src/service.ts): the advice for an answer about the key
 * or the bot (interface.md, "Real-life rules": both 410 texts mean a key revoked for strikes; a
 * regenerated or deleted key is a 401), the service's words in an answer, and the key check of a run that
 * sends nothing, in process against the service emulator on a clock the test controls.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { HttpAnswer } from '../../src/http/transport.js'
import { StoppedError } from '../../src/errors.js'
import { keyAdvice } from '../../src/keys.js'
import { serviceMessage } from '../../src/service.js'
import { type BotSeed, ServiceEmulator } from '../support/emulator.js'
import { statsRun, TestClock } from '../support/inprocess.js'

const BOT = '123456789012345678'
const KEY = 'dpk_service_key_0123456789'
const HOUR = 3_600_000

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
    "The bot has no key now: generate a new key on the bot's manage page on discord.place and store it in the api-key secret. " +
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
  const raw = (status: number, text: string, headers: HttpAnswer['headers'] = {}): HttpAnswer => ({
    status,
    headers,
    text,
    truncated: false,
    json: undefined
  })

  it('says nothing about a body of white space only', () => {
    expect(serviceMessage(raw(502, '  \r\n '))).toBeUndefined()
  })

  it('names the type of a non-JSON answer as unknown when it has none', () => {
    expect(serviceMessage(raw(502, 'oops!'))).toBe('a non-JSON answer (unknown type, 5 bytes)')
  })
})

// ---------------------------------------------------------------------------------------
// The key check (a run that sends nothing), against the emulator
// ---------------------------------------------------------------------------------------

/** An emulator whose bot was updated an hour ago: a stats run skips, and checks the key. */
async function recentlyUpdated(clock: TestClock, seed: Partial<BotSeed> = {}): Promise<ServiceEmulator> {
  const at = new Date(clock.now() - HOUR)
  const emulator = await ServiceEmulator.start({
    now: clock.now,
    bots: [{ id: BOT, apiKey: KEY, commands: 12, commandsUpdatedAt: at, serversUpdatedAt: at, ...seed }]
  })
  onTestFinished(() => emulator.close())
  return emulator
}

const skipRun = (emulator: ServiceEmulator): Record<string, string> => ({
  'bot-id': BOT,
  'api-key': KEY,
  'base-url': emulator.url,
  'command-count': '14'
})

describe('the key check of a run that sends nothing', () => {
  it('asks the vote route about the bot itself, with the bare key and JSON headers, and says so in the log', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    const { outcome, log } = await statsRun(skipRun(emulator), { clock })
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
    const { outcome } = await statsRun(skipRun(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'skipped', keyCheck: { state: 'valid' }, error: undefined })
  })

  it('a 401 without the service’s words fails the run naming the status alone, with the key advice', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    emulator.inject('votes', { kind: 'answer', status: 401, headers: { 'Content-Type': 'text/html' }, body: '<html>401</html>' })
    const { outcome } = await statsRun(skipRun(emulator), { clock })
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 401\. The API key was refused/)
  })

  it('a 5xx twice: the key is unchecked, saying why, and the skip stays green', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    for (let i = 0; i < 2; i++) emulator.inject('votes', { kind: 'answer', status: 503, body: 'busy' })
    const { outcome, log } = await statsRun(skipRun(emulator), { clock })
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
    const { outcome } = await statsRun(skipRun(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'skipped', error: undefined })
    expect(outcome.keyCheck).toEqual({ state: 'unchecked', reason: expect.stringMatching(/a 200 that is not the service's answer/) })
    expect(outcome.warnings.join('\n')).toMatch(/^The API key could not be checked \(a 200 that is not the service's answer/m)
  })

  it('a connection lost twice: the key is unchecked, with the network failure as the reason, and the skip stays green', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    for (let i = 0; i < 2; i++) emulator.inject('votes', { kind: 'reset' })
    const { outcome } = await statsRun(skipRun(emulator), { clock })
    expect(emulator.received('votes')).toHaveLength(2)
    expect(outcome).toMatchObject({ result: 'skipped', error: undefined })
    expect(outcome.keyCheck).toEqual({ state: 'unchecked', reason: expect.stringMatching(/^the connection to 127\.0\.0\.1:\d+ failed/) })
  })

  it('a stop during the key check is a stop, not an unchecked key: the run fails saying nothing was sent', async () => {
    const clock = new TestClock()
    const emulator = await recentlyUpdated(clock)
    emulator.inject('votes', { kind: 'hang' })
    const stop = new AbortController()
    const { outcome } = await statsRun(skipRun(emulator), {
      clock,
      signal: stop.signal,
      onLog: line => {
        if (line.startsWith('Checking the API key')) setTimeout(() => stop.abort(new StoppedError('SIGTERM')), 20)
      }
    })
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', keyCheck: undefined })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). The stats update was not sent.'
    )
  })
})
