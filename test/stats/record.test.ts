/**
 * The public record (`GET /bots/{id}`, no key; src/stats/record.ts, window.ts): one answer read
 * (each reason pinned once), what a read means for the update (holdBack, each sentence pinned
 * once), and the reads as a run makes them, in process against the emulator on the TestClock.
 */
import { describe, expect, it } from 'vitest'
import { ActionError } from '../../src/errors.js'
import { Requests } from '../../src/http/client.js'
import type { HttpAnswer } from '../../src/http/transport.js'
import { holdBack, interpretRecord, readPublicRecord } from '../../src/stats/record.js'
import {
  cooldownEnds,
  type PublicRecord,
  type RecordProblem,
  type RecordRead
} from '../../src/stats/window.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import { type Fault, limiterFault, recordFault, SIX_HOURS } from '../../scripts/emulator/service.js'
import {
  BOT,
  emulatedBot,
  HOUR,
  MINUTE,
  statsInputs,
  statsRun,
  TestClock,
  unreachableUrl
} from '../support/inprocess.js'

const NOW = new TestClock().now()
const at = (ms: number): string => new Date(NOW + ms).toISOString()
const UNVERIFIED = 'the bot is not verified yet, so its record is not public (403)'
/** The read limiter's answer, once, asking for `seconds`. */
const readLimited = (seconds: number): Fault =>
  limiterFault({ retry_after: seconds }, { 'Retry-After': String(seconds) })
/** A record with these update times (ISO 8601). */
function record(...times: (string | undefined)[]): PublicRecord {
  const [commandsUpdatedAt, serversUpdatedAt] = times.map(time =>
    time === undefined ? undefined : new Date(time)
  )
  return { username: undefined, commands: 12, servers: 1204, commandsUpdatedAt, serversUpdatedAt }
}
/** The warning of a record that could not be checked. */
const UNCHECKED = (reason: string): string =>
  `Stats not sent: the bot's public record could not be checked (${reason}). An update sent without that check ` +
  'is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again.'

describe('interpretRecord', () => {
  const EPOCH = 1740823200000
  const NONE = { username: undefined, commands: undefined, servers: undefined }
  it.each<[string, Record<string, unknown>, Partial<PublicRecord>]>([
    [
      'ISO 8601 or epoch dates, the name trimmed, counts',
      {
        id: BOT,
        username: ' Example Bot ',
        commands: 0,
        servers: 1204,
        commands_updated_at: EPOCH,
        servers_updated_at: at(-HOUR)
      },
      {
        username: 'Example Bot',
        commands: 0,
        servers: 1204,
        commandsUpdatedAt: new Date(EPOCH),
        serversUpdatedAt: new Date(at(-HOUR))
      }
    ],
    [
      'only one count ever updated',
      { servers: 3, servers_updated_at: at(-HOUR) },
      { servers: 3, commandsUpdatedAt: undefined }
    ],
    [
      'a blank name, counts negative or not whole',
      { username: '   ', commands: -1, servers: 2.5, commands_updated_at: at(0) },
      NONE
    ],
    [
      'an empty name, counts as text or null',
      { username: '', commands: '12', servers: null, commands_updated_at: at(0) },
      NONE
    ],
    [
      'a name not a string',
      { username: 42, commands: 12, commands_updated_at: at(0) },
      { username: undefined, commands: 12 }
    ],
    [
      'an update time up to an hour ahead, as clocks differ',
      { commands_updated_at: at(HOUR) },
      { commandsUpdatedAt: new Date(at(HOUR)) }
    ]
  ])('keeps what it can trust: %s', (_, body, record) => {
    expect(interpretRecord(jsonAnswer(200, body), NOW)).toMatchObject({
      ok: true,
      status: 200,
      record
    })
  })

  const NO_TIMES = 'the record has no update times'
  const NOT_OBJECT = 'the answer was not a JSON object'
  const MAX = '+275760-09-13T00:00:00.000Z'
  const future = (time: string): string =>
    `its update time ${new Date(time).toISOString()} is later than the runner's clock (${at(0)}), so it cannot be trusted`
  const forbidden = (type: string, body: string): HttpAnswer =>
    answer(403, body, { 'content-type': type })
  /**
   * A 403 that says nothing about the bot: a firewall's, a gateway's, or the service's words not
   * sent as it sends them.
   */
  const notOwn = (said: string): string =>
    `a 403 ("${said}") that is not the service's own "not verified" answer: a gateway or firewall in the way?`
  const SAID = 'This bot is not verified yet.'
  const WORDS = `{"success":false,"error":"${SAID}"}`
  const NO_ERROR = '{"success":false,"status":403}'
  it.each<[string, HttpAnswer, string, string?]>([
    ['no update times', jsonAnswer(200, { commands: 12, servers: 1204 }), NO_TIMES],
    [
      'unreadable times',
      jsonAnswer(200, { commands_updated_at: 'yesterday', servers_updated_at: 'soon' }),
      NO_TIMES
    ],
    [
      'times null or of the wrong type',
      jsonAnswer(200, { commands_updated_at: null, servers_updated_at: {} }),
      NO_TIMES
    ],
    [
      'a time an hour and a millisecond ahead',
      jsonAnswer(200, { commands_updated_at: at(HOUR + 1) }),
      future(at(HOUR + 1))
    ],
    [
      'the largest date there is',
      jsonAnswer(200, { commands_updated_at: at(-HOUR), servers_updated_at: MAX }),
      future(MAX)
    ],
    ['an array', answer(200, '[1,2,3]'), NOT_OBJECT],
    ['a number', { ...answer(200, '42'), json: 42 }, NOT_OBJECT],
    ['null', { ...answer(200, 'null'), json: null }, NOT_OBJECT],
    ['an HTML page', answer(200, HTML_PAGE, { 'content-type': 'text/html' }), NOT_OBJECT],
    [
      '404',
      serviceError(404, 'Bot not found.'),
      'the service has no record for this bot (404)',
      'absent'
    ],
    ['429', answer(429), 'the service is limiting reads (429)'],
    ['502', answer(502), 'the service answered 502'],
    ["403, the service's own words", serviceError(403, SAID), UNVERIFIED, 'unverified'],
    [
      "403, the service's words in other case, no full stop",
      serviceError(403, 'this bot is NOT verified yet'),
      UNVERIFIED,
      'unverified'
    ],
    [
      "403, other words in the service's shape",
      serviceError(403, 'Access denied by policy'),
      notOwn('Access denied by policy')
    ],
    [
      '403 as JSON without an error text',
      forbidden('application/json', NO_ERROR),
      notOwn(NO_ERROR)
    ],
    [
      "403, the service's words as JSON without success: false",
      forbidden('application/json', `{"error":"${SAID}"}`),
      notOwn(SAID)
    ],
    [
      '403 with a JSON content type on a page',
      forbidden('application/json', '<html>Forbidden</html>'),
      notOwn('<html>Forbidden</html>')
    ],
    ["403, the service's words sent as text/plain", forbidden('text/plain', WORDS), notOwn(SAID)],
    [
      '403 whose content type names JSON in a parameter',
      forbidden('text/html; profile=application/json', WORDS),
      notOwn(SAID)
    ]
  ])('is not a record: %s', (_, got, reason, problem = 'unreadable') => {
    expect(interpretRecord(got, NOW)).toEqual({ ok: false, status: got.status, problem, reason })
  })
})

describe('the 6-hour window (window.ts)', () => {
  it.each([
    [
      'servers updated last',
      '2025-03-01T10:00:00Z',
      '2025-03-01T12:30:00Z',
      '2025-03-01T18:30:00.000Z'
    ],
    [
      'commands updated last',
      '2025-03-01T23:15:00Z',
      '2025-03-01T12:30:00Z',
      '2025-03-02T05:15:00.000Z'
    ],
    ['only commands', '2025-03-01T10:00:00Z', undefined, '2025-03-01T16:00:00.000Z'],
    ['only servers', undefined, '2025-03-01T12:30:00Z', '2025-03-01T18:30:00.000Z'],
    ['no update times: unknown', undefined, undefined, undefined]
  ])('closes 6 hours after the latest update (%s)', (_, commandsAt, serversAt, expected) => {
    expect(cooldownEnds(record(commandsAt, serversAt))?.toISOString()).toBe(expected)
  })
})

describe('holdBack: what a read means for the update about to be sent', () => {
  const ok = (ago: number, more = {}): RecordRead => ({
    ok: true,
    status: 200,
    record: record(at(-ago)),
    ...more
  })
  const failed = (problem: RecordProblem, reason = 'why'): RecordRead => ({
    ok: false,
    status: undefined,
    problem,
    reason
  })
  const CACHED =
    "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
    'update, and an update within 6 hours of it would be a strike. The next run will try again. (cooldown-check: false sends without the check.)'
  it.each<[string, RecordRead, unknown]>([
    [
      'exactly 6 hours ago: held back by the margin',
      ok(SIX_HOURS),
      { skip: 'recent', nextUpdateAt: new Date(NOW + MINUTE) }
    ],
    ['6 hours and the margin ago: sent', ok(SIX_HOURS + MINUTE), undefined],
    [
      'as long ago, 5 s of lag seen',
      ok(SIX_HOURS + MINUTE, { lagMs: 5_000 }),
      { skip: 'recent', nextUpdateAt: new Date(NOW + 5_000) }
    ],
    ['no update time: sent', { ok: true, status: 200, record: record() }, undefined],
    ['Age: 0, not a cached copy', ok(7 * HOUR, { cached: false }), undefined],
    [
      'a cached copy can hold one back',
      ok(HOUR, { cached: true }),
      { skip: 'recent', nextUpdateAt: new Date(NOW + 5 * HOUR + MINUTE) }
    ],
    [
      'a cached copy never clears one',
      ok(7 * HOUR, { cached: true }),
      { skip: 'unchecked', warning: CACHED }
    ],
    ['the bot not verified yet (the first day)', failed('unverified'), { skip: 'unverified' }],
    [
      'unreadable: the warning names the reason',
      failed('unreadable', 'a reason'),
      { skip: 'unchecked', warning: UNCHECKED('a reason') }
    ],
    [
      'no connection at all: the run fails',
      failed('unreachable', 'refused'),
      new ActionError(
        "Could not read the bot's public record: refused. Nothing was sent. Check base-url and the runner's network; the next run will try again.",
        { headline: 'discord.place unreachable' }
      )
    ],
    [
      'no such bot (404): the run fails',
      failed('absent'),
      new ActionError(
        `The service lists no bot with ID ${BOT} (its public record answered 404), so nothing was sent. ` +
          "Check bot-id: it is the bot's Discord application ID, and the bot must be listed on discord.place.",
        { headline: 'bot not listed on discord.place' }
      )
    ]
  ])('%s', (_, given, expected) => {
    let decided: unknown
    try {
      decided = holdBack(given, BOT, new Date(NOW))
    } catch (error) {
      decided = error
    }
    expect(decided).toEqual(expected)
  })
})

/** readPublicRecord as the stats mode calls it. */
async function read(
  baseUrl: string,
  clock: TestClock,
  botId = BOT
): Promise<{ read: RecordRead; log: string[] }> {
  const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 900_000 }, clock)
  const log: string[] = []
  return {
    read: await readPublicRecord({ baseUrl, botId }, { requests, log: line => log.push(line) }),
    log
  }
}

describe('the record read, in process', () => {
  it('is public (no key), asks for JSON and no cached copy; logs a record it could not read, not one that says something', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: { verified: false } })
    for (let i = 0; i < 3; i++)
      emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const unreadable = await read(emulator.url, clock)
    expect(unreadable.read).toMatchObject({ ok: false, problem: 'unreadable', status: 503 })
    expect(unreadable.log).toEqual([
      `Reading the bot's public record: GET ${emulator.url}/bots/${BOT}`,
      'Could not read the public record (the service answered 503).'
    ])
    const [request] = emulator.received('record')
    expect(request).toMatchObject({
      method: 'GET',
      headers: { accept: 'application/json', 'cache-control': 'no-cache' }
    })
    expect(request!.headers['authorization']).toBeUndefined()
    const absent = await read(emulator.url, clock, '999999999999999999')
    expect(absent.read).toMatchObject({ ok: false, problem: 'absent', status: 404 })
    expect(absent.log).toHaveLength(1)
    expect((await read(emulator.url, clock)).read, "the service's own 403").toMatchObject({
      ok: false,
      status: 403,
      problem: 'unverified'
    })
    for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'reset' })
    expect((await read(emulator.url, clock)).read, 'a connection lost mid-way').toMatchObject({
      problem: 'unreadable',
      status: undefined
    })
    // No connection at all: the step fails on it (holdBack), naming why.
    const unreachable = await read(await unreachableUrl(clock), clock)
    const reason = expect.stringMatching(
      /^could not connect to 127\.0\.0\.1:\d+: the connection was refused$/
    )
    expect(unreachable.read).toEqual({
      ok: false,
      problem: 'unreachable',
      status: undefined,
      reason
    })
    expect(unreachable.log[1]).toBe(
      `Could not read the public record (${(unreachable.read as { reason: string }).reason}).`
    )
  })

  it('a 5xx is retried after a backoff, even when it carries RateLimit-Reset', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const headers = {
      'Content-Type': 'text/html',
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '9',
      'RateLimit-Reset': '1800'
    }
    emulator.inject('record', { kind: 'answer', status: 502, headers, body: '<html>502</html>' })
    expect((await read(emulator.url, clock)).read.ok).toBe(true)
    expect(emulator.received('record').map(r => r.status)).toEqual([502, 200])
    expect(clock.waits.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(10_000)
  })
})

describe('the read limiter (429, Retry-After) is waited out within the step', () => {
  const NOT_CHECKED = {
    result: 'skipped',
    skip: 'unchecked',
    status: undefined,
    nextUpdateAt: undefined
  }
  const TOO_LONG =
    "the service's read limit asks for a wait of 60 s, more than the step's timeout leaves"
  // Each row: the inputs; the 429s ('live': the live limiter, 10 a minute per address) and the wait
  // each asks for; the reads; why the record is left unread (or it is read and the update sent).
  // Room = timeout - 2 × request-timeout: the read again, the update.
  it.each<{
    label: string
    inputs: Record<string, string>
    limited: number | 'live'
    seconds: number
    reads: number
    reason?: string
  }>([
    {
      label: 'for as long as it asks, then the record is read again',
      inputs: {},
      limited: 1,
      seconds: 5,
      reads: 2
    },
    {
      label: 'the live limiter (Retry-After: 60)',
      inputs: {},
      limited: 'live',
      seconds: 60,
      reads: 2
    },
    {
      label: 'three times at most: a fourth leaves it unreadable, saying how often',
      inputs: {},
      limited: 6,
      seconds: 1,
      reads: 4,
      reason: 'the service is limiting reads (429), 4 times'
    },
    {
      label: 'exactly room for the wait, the read again and the update',
      inputs: { timeout: '120', 'request-timeout': '30' },
      limited: 'live',
      seconds: 60,
      reads: 2
    },
    {
      label: 'not room for the read again and the update after the wait',
      inputs: { timeout: '90', 'request-timeout': '30' },
      limited: 'live',
      seconds: 60,
      reads: 1,
      reason: TOO_LONG
    },
    {
      label: 'far less room than the live limiter asks',
      inputs: { timeout: '20', 'request-timeout': '5' },
      limited: 'live',
      seconds: 60,
      reads: 1,
      reason: TOO_LONG
    }
  ])('$label', async ({ inputs, limited, seconds, reads, reason }) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    if (limited === 'live') emulator.spendLimit('record', '127.0.0.1', 10)
    else for (let i = 0; i < limited; i++) emulator.inject('record', readLimited(seconds))
    const { outcome, log } = await statsRun(statsInputs(emulator, inputs), { clock })
    expect(emulator.received('record').map(r => r.status)).toEqual([
      ...Array<number>(reads - 1).fill(429),
      reason ? 429 : 200
    ])
    expect(clock.waits).toEqual(Array<number>(reads - 1).fill(seconds * 1000))
    if (reads > 1)
      expect(log).toContain(
        `The service's read limit answered 429; reading the record again in ${seconds} s.`
      )
    expect(emulator.received('stats'), 'no blind PATCH').toHaveLength(reason === undefined ? 1 : 0)
    expect(outcome).toMatchObject(
      reason === undefined
        ? { result: 'updated' }
        : { ...NOT_CHECKED, warnings: [UNCHECKED(reason)] }
    )
  })
})

describe("what the answer's headers say of the record: the service's clock (Date), a cache (Age)", () => {
  const date = (ms: number): Record<string, string> => ({ Date: new Date(ms).toUTCString() })
  it.each<[string, Record<string, string>, { lagMs?: number; cached?: boolean }]>([
    [
      "the service's clock 5 minutes behind: the lag, less the second its Date may have lost",
      date(NOW - 5 * MINUTE),
      { lagMs: 5 * MINUTE - 1_000, cached: false }
    ],
    ['a clock ahead: no lag (it only makes the check stricter)', date(NOW + HOUR), { lagMs: 0 }],
    [
      'a day behind at most: past that the header is broken, not a clock',
      date(0),
      { lagMs: 24 * HOUR }
    ],
    [
      'a broken Date header: no lag (the margin still applies)',
      { Date: 'not a date' },
      { lagMs: 0 }
    ],
    ['Age: 0, a fresh answer', { Age: '0' }, { cached: false }],
    ['Age: 120, a copy from a cache', { Age: '120' }, { cached: true }]
  ])('%s', async (_, headers, expected) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', recordFault(BOT, new Date(NOW - HOUR), headers))
    expect((await read(emulator.url, clock)).read).toMatchObject({ ok: true, ...expected })
  })
})
