/**
 * What both modes know of the service (src/service.ts, src/keys.ts): the advice for an answer
 * about the key or the bot (interface.md, "Real-life rules": both 410 texts mean a key revoked
 * for strikes; a regenerated or deleted key is a 401), the service's words in an answer, and the
 * key check of a run that sends nothing (a skip or a dry run), in process against the service
 * emulator on a clock the test controls: a key refused fails the step now, one that cannot be
 * checked leaves it green with a warning (a stop during the check: test/stats/stops.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { type KeyAnswer, keyAdvice, keyAnswerOf, keyHeadline } from '../../src/keys.js'
import { serviceMessage } from '../../src/service.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import {
  type Fault,
  FIFTH_STRIKE,
  jsonFault,
  type ServiceEmulator
} from '../../scripts/emulator/service.js'
import {
  BOT,
  emulatedBot,
  HOUR,
  KEY,
  statsInputs,
  statsRun,
  TestClock
} from '../support/inprocess.js'

const REPLACED = 'This API key has been revoked.'

/** Each answer's headline, and how its advice opens. */
const KEY_WORDS: Record<KeyAnswer, { headline: string; opens: string }> = {
  401: { headline: 'API key refused', opens: 'The API key was refused: ' },
  404: {
    headline: 'bot not listed on discord.place',
    opens: `The service lists no bot with ID ${BOT}. `
  },
  410: {
    headline: 'API key revoked (strikes)',
    opens: 'The service revoked the key after five updates were refused as early'
  },
  '410-fifth': {
    headline: 'API key revoked (strikes)',
    opens: 'This update was the fifth refused as early within 6 hours (strikes)'
  }
}

// Which answer each status and text is (the sentences are pinned by docs/troubleshooting.md).
// service-behaviour.md 5-7: a key is revoked only at the fifth strike, so every 410 means strikes
// (a regenerated key is a 401); the fifth strike's own text says so.
it.each<[number, string | undefined, KeyAnswer | undefined]>([
  [401, 'Invalid API key.', 401],
  [404, 'Bot not found.', 404],
  ...[
    REPLACED,
    'This API key has been revoked',
    `  ${REPLACED}  `,
    'Your API key has been revoked.',
    undefined
  ].map((text): [number, string | undefined, KeyAnswer] => [410, text, 410]),
  [410, FIFTH_STRIKE, '410-fifth'],
  ...[400, 403, 429, 500].map((status): [number, string, undefined] => [
    status,
    'whatever',
    undefined
  ])
])('keyAnswerOf: %i saying %j is %s, with its advice and headline', (status, text, answer) => {
  expect(keyAnswerOf(status, text)).toBe(answer)
  const advice = keyAdvice(status, text, BOT)
  if (answer === undefined) {
    expect([advice, keyHeadline(status)]).toEqual([undefined, undefined])
    return
  }
  // The advice's opening tells the four apart; the whole of it is pinned by the generated page.
  const { headline, opens } = KEY_WORDS[answer]
  expect(advice?.slice(0, opens.length)).toBe(opens)
  expect(keyHeadline(status)).toBe(headline)
})

describe('serviceMessage', () => {
  const html = (status: number, truncated = false) => ({
    ...answer(status, HTML_PAGE, { 'content-type': 'text/html' }),
    truncated
  })
  it.each([
    ['the error text', serviceError(429, 'Too soon.'), 'Too soon.'],
    [
      'a multi-line error text, on one line',
      serviceError(400, 'Count off.\nBy 3.'),
      'Count off. By 3.'
    ],
    [
      'an HTML page, in a few words',
      html(502),
      `a non-JSON answer (text/html, ${Buffer.byteLength(HTML_PAGE)} bytes)`
    ],
    ['a truncated page', html(502, true), 'a non-JSON answer (text/html, a large body)'],
    [
      'bytes, not characters',
      answer(503, 'Fehler: Überlastung', { 'content-type': 'text/x' }),
      'a non-JSON answer (text/x, 20 bytes)'
    ],
    ['a text of no type', answer(502, 'oops!'), 'a non-JSON answer (unknown type, 5 bytes)'],
    ['the success answer', jsonAnswer(200, { success: true }), undefined],
    ['an empty body', answer(500, ''), undefined],
    ['a body of white space', answer(502, '  \r\n '), undefined],
    [
      'JSON with an empty error',
      jsonAnswer(500, { success: false, error: '  ', status: 500 }),
      undefined
    ],
    [
      'JSON with a non-string error',
      jsonAnswer(500, { success: false, error: { code: 1 }, status: 500 }),
      undefined
    ]
  ])('%s', (_, given, expected) => {
    expect(serviceMessage(given)).toBe(expected)
  })

  it('clips a long error text to about 300 characters', () => {
    const got = serviceMessage(serviceError(500, `${'The service rambles on. '.repeat(60)}END`))!
    expect(got.startsWith('The service rambles on.')).toBe(true)
    expect(got.length).toBeGreaterThanOrEqual(280)
    expect(got.length).toBeLessThanOrEqual(310)
    expect(got).not.toContain('END')
  })
})

interface KeyCase {
  /** A dry run of a due update; else a run that skips (the bot was updated 2 hours ago). */
  dry?: boolean
  seed?: { apiKey: string; revokedKeys?: string[] }
  change?: (emulator: ServiceEmulator) => void
  /** Answers in place of the vote route's own. */
  faults?: Fault[]
}

async function keyCheck(setup: KeyCase) {
  const clock = new TestClock()
  const emulator = await emulatedBot(clock, {
    ago: setup.dry ? 7 * HOUR : 2 * HOUR,
    seed: setup.seed
  })
  setup.change?.(emulator)
  for (const fault of setup.faults ?? []) emulator.inject('votes', fault)
  const run = await statsRun(statsInputs(emulator, setup.dry ? { 'dry-run': 'true' } : {}), {
    clock
  })
  expect(emulator.received('stats'), 'no PATCH').toEqual([])
  return { ...run, checks: emulator.received('votes'), emulator }
}

const WRONG_KEY = { seed: { apiKey: 'the-real-key-000000' } }
const REVOKED_KEY = { seed: { apiKey: 'the-new-key-0000000', revokedKeys: [KEY] } }
const page = (status: number, headers: Record<string, string>, body: string): Fault => ({
  kind: 'answer',
  status,
  headers,
  body
})

describe('the key check of a run that sends nothing', () => {
  const notFound = jsonFault(404, { success: false, error: 'Bot not found.', status: 404 })
  // Columns: the run, the status of the check's answer, and the service's words in it.
  it.each<[string, KeyCase, number, string | undefined]>([
    ['a skip with a wrong key', WRONG_KEY, 401, 'Invalid API key.'],
    ['a dry run with a wrong key', { ...WRONG_KEY, dry: true }, 401, 'Invalid API key.'],
    ['a skip with a key revoked for strikes', REVOKED_KEY, 410, REPLACED],
    ['a dry run with a key revoked for strikes', { ...REVOKED_KEY, dry: true }, 410, REPLACED],
    [
      'a key regenerated on the manage page',
      { change: e => e.regenerateKey(BOT, 'the-new-key-0000000') },
      401,
      'Invalid API key.'
    ],
    [
      'a key deleted on the manage page',
      { change: e => e.deleteKey(BOT) },
      401,
      'Invalid API key.'
    ],
    [
      'a 401 without the service’s words',
      { faults: [page(401, { 'Content-Type': 'text/html' }, '<html>401</html>')] },
      401,
      undefined
    ],
    ['a 404', { faults: [notFound] }, 404, 'Bot not found.']
  ])(
    '%s: fails now after one check, with the advice and headline of a %i',
    async (_, setup, status, said) => {
      const { outcome, checks } = await keyCheck(setup)
      expect(checks).toHaveLength(1)
      expect(outcome).toMatchObject({ result: 'failed', error: { headline: keyHeadline(status) } })
      const quoted = said === undefined ? '' : ` with "${said}"`
      expect(outcome.error?.message).toBe(
        `The API key check was answered ${status}${quoted}. ${keyAdvice(status, said, BOT)}`
      )
    }
  )

  const PORTAL =
    "a 200 that is not the service's answer (no JSON with a voted field: a portal or proxy page?)"
  // Columns: the answers, checks sent, the key check (the reason: a RegExp matches it).
  it.each<[string, Fault[], number, string | RegExp | undefined]>([
    ['the vote answer: a valid key', [], 1, undefined],
    ['a 204 (the original description): a valid key', [page(204, {}, '')], 1, undefined],
    [
      "a 203 (a proxy's altered copy) carrying the vote answer",
      [jsonFault(203, { voted: false })],
      1,
      'the service answered 203'
    ],
    ['a 5xx twice', [page(503, {}, 'busy'), page(503, {}, 'busy')], 2, 'the service answered 503'],
    [
      'a connection lost twice',
      [{ kind: 'reset' }, { kind: 'reset' }],
      2,
      /^the connection to 127\.0\.0\.1:\d+ failed/
    ],
    [
      "a captive portal's HTML page",
      [page(200, { 'Content-Type': 'text/html' }, '<html><body>Sign in</body></html>')],
      1,
      PORTAL
    ],
    [
      'JSON without a voted field',
      [page(200, { 'Content-Type': 'application/json' }, '{"ok":true}')],
      1,
      PORTAL
    ],
    [
      'JSON whose voted is not a boolean',
      [page(200, { 'Content-Type': 'application/json' }, '{"voted":"yes"}')],
      1,
      PORTAL
    ],
    ['an empty 200', [page(200, {}, '')], 1, PORTAL]
  ])('%s: the skip stays green', async (_, faults, sent, reason) => {
    const { outcome, checks, log } = await keyCheck({ faults })
    expect(checks).toHaveLength(sent)
    expect(outcome).toMatchObject({ result: 'skipped', error: undefined })
    if (reason === undefined) return expect(outcome.keyCheck).toEqual({ state: 'valid' })
    expect(outcome.keyCheck).toEqual({
      state: 'unchecked',
      reason: typeof reason === 'string' ? reason : expect.stringMatching(reason)
    })
    // A warning, not a log line: a key that stays unchecked run after run must be seen.
    const warning = `The API key could not be checked (${(outcome.keyCheck as { reason: string }).reason}); the next run will check it.`
    expect(outcome.warnings).toContain(warning)
    expect(log).not.toContain(warning)
  })

  it('asks the vote route about the bot itself, with the bare key and JSON headers, and says so in the log', async () => {
    const { checks, log, emulator } = await keyCheck({})
    expect(`${checks[0]!.method} ${checks[0]!.path}`).toBe(`GET /bots/${BOT}/voters/${BOT}`)
    expect(checks[0]!.headers).toMatchObject({
      authorization: KEY,
      accept: 'application/json',
      'content-type': 'application/json'
    })
    expect(log).toContain(
      `Checking the API key (GET ${emulator.url}/bots/${BOT}/voters/${BOT}, which spends no update).`
    )
  })

  it('a dry run without a key checks nothing, and a key check the limiter turns away leaves the run green', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    const dry = await statsRun(
      { 'bot-id': BOT, 'base-url': emulator.url, 'command-count': '3', 'dry-run': 'true' },
      { clock }
    )
    expect(emulator.received('votes')).toEqual([])
    expect(dry.outcome).toMatchObject({ result: 'dry-run', skip: 'recent', keyCheck: undefined })
    emulator.spendLimit('votes', BOT, 100)
    const limited = await statsRun(statsInputs(emulator, { 'command-count': '3' }), { clock })
    expect(limited.outcome).toMatchObject({
      result: 'skipped',
      keyCheck: { state: 'unchecked' },
      error: undefined
    })
  })
})
