/**
 * The public record (`GET /bots/{id}`, no key, src/stats/record.ts and window.ts): one answer
 * read (interpretRecord, each reason pinned once), when it allows the next update, and the reads
 * as a run makes them, in process against the service emulator on the TestClock. interface.md:
 * a read the read limiter turns away is waited out within the step's timeout; a record that
 * stays unreadable, came from a cache or cannot be trusted sends nothing; only the service's own
 * 403 means "not verified"; no such bot, or no connection at all, fails before any update; the
 * 6-hour comparison keeps a margin, and the lag the service's Date header shows.
 */
import { describe, expect, it } from 'vitest'
import { Requests } from '../../src/http/client.js'
import type { HttpAnswer } from '../../src/http/transport.js'
import { interpretRecord, readPublicRecord } from '../../src/stats/record.js'
import { acceptsFrom, cooldownEnds, type PublicRecord, type RecordRead } from '../../src/stats/window.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import { type Fault, limiterFault, recordFault, SIX_HOURS } from '../support/emulator.js'
import { BOT, emulatedBot, HOUR, MINUTE, statsInputs, statsRun, TestClock, unreachableUrl } from '../support/inprocess.js'
import { annotations, expectCleanFailure, statsStep } from '../support/step.js'

/** The read limiter's answer, once, asking for `seconds`. */
const readLimited = (seconds: number): Fault => limiterFault({ retry_after: seconds }, { 'Retry-After': String(seconds) })

/** The warning of a record that could not be checked: pinned here, once. */
const UNCHECKED = (reason: string): string =>
  `Stats not sent: the bot's public record could not be checked (${reason}). An update sent without that check ` +
  'is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again.'

describe('interpretRecord', () => {
  const NOW = Date.parse('2026-11-23T12:00:00Z')
  const at = (ms: number): string => new Date(NOW + ms).toISOString()

  it('reads a record: ISO 8601 or epoch dates, the name trimmed, counts', () => {
    const got = interpretRecord(
      jsonAnswer(200, {
        id: BOT,
        username: '  Example Bot  ',
        commands: 0,
        servers: 1204,
        commands_updated_at: 1740823200000,
        servers_updated_at: '2025-03-01T12:30:00Z'
      }),
      NOW
    )
    expect(got).toEqual({
      ok: true,
      status: 200,
      record: {
        username: 'Example Bot',
        commands: 0,
        servers: 1204,
        commandsUpdatedAt: new Date('2025-03-01T10:00:00Z'),
        serversUpdatedAt: new Date('2025-03-01T12:30:00Z')
      }
    })
  })

  it.each<[string, Record<string, unknown>, Partial<PublicRecord>]>([
    [
      'only one count ever updated',
      { servers: 3, servers_updated_at: at(-HOUR) },
      { servers: 3, commandsUpdatedAt: undefined, serversUpdatedAt: new Date(at(-HOUR)) }
    ],
    [
      'a blank name, counts negative or not whole',
      { username: '   ', commands: -1, servers: 2.5, commands_updated_at: at(0) },
      { username: undefined, commands: undefined, servers: undefined }
    ],
    [
      'an empty name, counts as text or null',
      { username: '', commands: '12', servers: null, commands_updated_at: at(0) },
      { username: undefined, commands: undefined, servers: undefined }
    ],
    ['a name not a string', { username: 42, commands: 12, commands_updated_at: at(0) }, { username: undefined, commands: 12 }],
    ['an update time up to an hour ahead, as clocks differ', { commands_updated_at: at(HOUR) }, { commandsUpdatedAt: new Date(at(HOUR)) }]
  ])('keeps what it can trust: %s', (_, body, record) => {
    expect(interpretRecord(jsonAnswer(200, body), NOW)).toMatchObject({ ok: true, record })
  })

  const NO_TIMES = 'the record has no update times'
  const NOT_OBJECT = 'the answer was not a JSON object'
  const future = (time: string): string =>
    `its update time ${new Date(time).toISOString()} is later than the runner's clock (${new Date(NOW).toISOString()}), so it cannot be trusted`
  it.each<[string, HttpAnswer, string, string?]>([
    ['no update times', jsonAnswer(200, { commands: 12, servers: 1204 }), NO_TIMES],
    ['null times', jsonAnswer(200, { commands_updated_at: null, servers_updated_at: null }), NO_TIMES],
    ['unreadable times', jsonAnswer(200, { commands_updated_at: 'yesterday', servers_updated_at: 'soon' }), NO_TIMES],
    ['times of the wrong type', jsonAnswer(200, { commands_updated_at: true, servers_updated_at: {} }), NO_TIMES],
    ['a time an hour and a millisecond ahead', jsonAnswer(200, { commands_updated_at: at(HOUR + 1) }), future(at(HOUR + 1))],
    [
      'the largest date there is',
      jsonAnswer(200, { commands_updated_at: at(-HOUR), servers_updated_at: '+275760-09-13T00:00:00.000Z' }),
      future('+275760-09-13T00:00:00.000Z')
    ],
    ['an array', answer(200, '[1,2,3]'), NOT_OBJECT],
    ['a number', { ...answer(200, '42'), json: 42 }, NOT_OBJECT],
    ['null', { ...answer(200, 'null'), json: null }, NOT_OBJECT],
    ['an HTML page', answer(200, HTML_PAGE, { 'content-type': 'text/html' }), NOT_OBJECT],
    ['an empty body', answer(200, ''), NOT_OBJECT],
    ['404', serviceError(404, 'Bot not found.'), 'the service has no record for this bot (404)', 'absent'],
    ['429', answer(429), 'the service is limiting reads (429)'],
    ['502', answer(502), 'the service answered 502'],
    [
      "403, the service's own words",
      serviceError(403, 'This bot is not verified yet.'),
      'the bot is not verified yet, so its record is not public (403)',
      'unverified'
    ],
    [
      '403, other words',
      serviceError(403, 'Access denied by policy'),
      `a 403 ("Access denied by policy") that is not the service's own "not verified" answer: a gateway or firewall in the way?`
    ]
  ])('is not a record: %s', (_, got, reason, problem = 'unreadable') => {
    expect(interpretRecord(got, NOW)).toEqual({ ok: false, status: got.status, problem, reason })
  })
})

describe('the 6-hour window (window.ts)', () => {
  const record = (commandsAt?: string, serversAt?: string): PublicRecord => ({
    username: undefined,
    commands: 12,
    servers: 1204,
    commandsUpdatedAt: commandsAt === undefined ? undefined : new Date(commandsAt),
    serversUpdatedAt: serversAt === undefined ? undefined : new Date(serversAt)
  })

  it.each([
    ['servers updated last', '2025-03-01T10:00:00Z', '2025-03-01T12:30:00Z', '2025-03-01T18:30:00.000Z'],
    ['commands updated last', '2025-03-01T23:15:00Z', '2025-03-01T12:30:00Z', '2025-03-02T05:15:00.000Z'],
    ['only commands', '2025-03-01T10:00:00Z', undefined, '2025-03-01T16:00:00.000Z'],
    ['only servers', undefined, '2025-03-01T12:30:00Z', '2025-03-01T18:30:00.000Z'],
    ['no update times: unknown', undefined, undefined, undefined]
  ])('closes 6 hours after the latest update (%s)', (_, commandsAt, serversAt, expected) => {
    expect(cooldownEnds(record(commandsAt, serversAt))?.toISOString()).toBe(expected)
  })

  it("accepts from the window's end, plus the lag seen, plus the margin; unknown without an update time", () => {
    const at = '2026-11-24T06:00:00Z'
    const ok = (r: PublicRecord, lagMs?: number): RecordRead & { ok: true } => ({ ok: true, status: 200, record: r, lagMs })
    expect(acceptsFrom(ok(record(undefined, at), 5_000))?.getTime()).toBe(Date.parse(at) + SIX_HOURS + 5_000 + MINUTE)
    expect(acceptsFrom(ok(record(at)))?.getTime()).toBe(Date.parse(at) + SIX_HOURS + MINUTE)
    expect(acceptsFrom(ok(record()))).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------
// The reads as a run makes them
// ---------------------------------------------------------------------------------------

/** readPublicRecord as the stats mode calls it. */
async function read(baseUrl: string, clock: TestClock, botId = BOT): Promise<{ read: RecordRead; log: string[] }> {
  const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 900_000 }, clock)
  const log: string[] = []
  return { read: await readPublicRecord({ baseUrl, botId }, { requests, log: line => log.push(line) }), log }
}

describe('the record read', () => {
  it('is public: no key; it asks for JSON and for no cached copy', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    expect((await read(emulator.url, clock)).read.ok).toBe(true)
    const [request] = emulator.received('record')
    expect(request).toMatchObject({ method: 'GET', headers: { accept: 'application/json', 'cache-control': 'no-cache' } })
    expect(request!.headers['authorization']).toBeUndefined()
  })

  it("logs a record it could not read with the reason, not one that says something (404); the service's own 403 is unverified", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: { verified: false } })
    for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const unreadable = await read(emulator.url, clock)
    expect(unreadable.read).toMatchObject({ ok: false, problem: 'unreadable', status: 503 })
    expect(unreadable.log).toContain('Could not read the public record (the service answered 503).')
    const absent = await read(emulator.url, clock, '999999999999999999')
    expect(absent.read).toMatchObject({ ok: false, problem: 'absent', status: 404 })
    expect(absent.log.join('\n')).not.toMatch(/Could not read/)
    expect((await read(emulator.url, clock)).read).toMatchObject({ ok: false, status: 403, problem: 'unverified' })
  })

  it('no connection at all is "unreachable": the step fails naming the record and base-url, and nothing is sent', async () => {
    const clock = new TestClock()
    const url = await unreachableUrl(clock)
    expect((await read(url, clock)).read).toMatchObject({ ok: false, problem: 'unreachable', status: undefined })
    const run = await statsStep(statsInputs({ url }), clock)
    expect(run.outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(expectCleanFailure(run)).toMatch(
      /^Could not read the bot's public record: could not connect to 127\.0\.0\.1:\d+: the connection was refused.*Nothing was sent\. Check base-url/
    )
    expect(run.summary).toMatch(/^<h3>❌ Bot \d+: failed: discord\.place unreachable<\/h3>/)
    expect(run.outputs['status']).toBeUndefined()
  })

  it('a record that answers 404 (no such bot): fails before any PATCH, naming bot-id, with no status', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const run = await statsStep(statsInputs(emulator, { 'bot-id': '999999999999999999' }), clock)
    expect(emulator.received('stats'), 'no PATCH').toEqual([])
    expect(expectCleanFailure(run)).toMatch(/^The service lists no bot with ID 999999999999999999 .*Check bot-id/)
    expect(run.outputs).toMatchObject({ result: 'failed' })
    expect(run.outputs['status'], 'the record read is not the update').toBeUndefined()
  })

  it('a 5xx is retried after a backoff, even when it carries RateLimit-Reset', async () => {
    const clock = new TestClock()
    const updated = clock.now() - HOUR
    const emulator = await emulatedBot(clock, { ago: HOUR })
    const headers = { 'Content-Type': 'text/html', 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '1800' }
    emulator.inject('record', { kind: 'answer', status: 502, headers, body: '<html>502</html>' })
    const run = await statsStep(statsInputs(emulator), clock)
    expect(emulator.received('record').map(r => r.status)).toEqual([502, 200])
    expect(
      run.waits.reduce((sum, ms) => sum + ms, 0),
      'a backoff, not RateLimit-Reset'
    ).toBeLessThan(10_000)
    expect(emulator.received('stats')).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'skipped', 'next-update-at': new Date(updated + SIX_HOURS + MINUTE).toISOString() })
  })
})

describe('the read limiter (429, Retry-After) is waited out within the step', () => {
  it('for as long as it asks, then the record is read again', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', readLimited(5))
    const { read: got, log } = await read(emulator.url, clock)
    expect(got.ok).toBe(true)
    expect(clock.waits).toEqual([5_000])
    expect(log).toContain("The service's read limit answered 429; reading the record again in 5 s.")
  })

  it.each([
    ['an update due is sent', 7 * HOUR, 1, { result: 'updated' }],
    [
      'a recent update is skipped',
      HOUR,
      0,
      { result: 'skipped', nextUpdateAt: new Date(new TestClock().now() - HOUR + SIX_HOURS + MINUTE) }
    ]
  ])('the live limiter (10 a minute per address, Retry-After: 60): %s', async (_, ago, expected, outcome) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago })
    emulator.spendLimit('record', '127.0.0.1', 10)
    const run = await statsRun(statsInputs(emulator), { clock })
    expect(clock.waits).toEqual([60_000])
    expect(emulator.received('record').map(r => r.status)).toEqual([429, 200])
    expect(emulator.received('stats')).toHaveLength(expected)
    expect(run.outcome).toMatchObject({ ...outcome, status: outcome.result === 'updated' ? 200 : undefined })
  })

  it('three times at most: a fourth 429 leaves the record unreadable, saying how often; nothing is sent', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    for (let i = 0; i < 6; i++) emulator.inject('record', readLimited(1))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('record')).toHaveLength(4)
    expect(clock.waits).toEqual([1_000, 1_000, 1_000])
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(outcome.warnings).toEqual([UNCHECKED('the service is limiting reads (429), 4 times')])
  })

  it.each([
    // room = timeout - 2 × request-timeout: the read after the wait and the update after it.
    ['exactly room for the wait, the read again and the update', '120', '30', true],
    ['not room for the read again and the update after the wait', '90', '30', false],
    ['far less room than the live limiter asks', '20', '5', false]
  ])('with %s: waits only if it fits', async (_, timeout, requestTimeout, waits) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.spendLimit('record', '127.0.0.1', 10)
    const run = await statsStep(statsInputs(emulator, { timeout, 'request-timeout': requestTimeout }), clock)
    expect(run.failure).toBeUndefined()
    if (waits) {
      expect(clock.waits).toEqual([60_000])
      expect(run.outcome.result).toBe('updated')
      return
    }
    expect(clock.waits).toEqual([])
    expect(emulator.received('record')).toHaveLength(1)
    expect(emulator.received('stats'), 'no blind PATCH').toEqual([])
    expect(run.outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    const warning = UNCHECKED("the service's read limit asks for a wait of 60 s, more than the step's timeout leaves")
    expect(annotations(run, 'warning')).toEqual([warning])
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['status']).toBeUndefined()
    expect(run.outputs['next-update-at']).toBeUndefined()
    expect(run.summary).toContain('record could not be checked')
  })
})

describe("the 6-hour comparison and the service's clock", () => {
  it("allows for the lag of the service's clock in its Date header (5 minutes behind)", async () => {
    const clock = new TestClock()
    const behind = 5 * MINUTE
    // By the service's clock the last update is 5 h 57 min old; by the runner's, 6 h 2 min.
    const updated = clock.now() - SIX_HOURS - 2 * MINUTE
    const emulator = await emulatedBot(clock, { ago: SIX_HOURS + 2 * MINUTE, service: { now: () => clock.now() - behind } })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('stats'), 'no PATCH while the service still counts 6 hours').toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'recent' })
    const next = outcome.nextUpdateAt!.getTime()
    expect(next).toBeGreaterThanOrEqual(updated + SIX_HOURS + behind - 2_000)
    expect(next).toBeLessThanOrEqual(updated + SIX_HOURS + behind + MINUTE)
  })

  it.each([
    [
      'a broken Date header counts as no lag: the margin still holds a recent update',
      { Date: 'not a date' },
      SIX_HOURS - 30_000,
      { result: 'skipped', skip: 'recent', nextUpdateAt: new Date(new TestClock().now() + 30_000 + MINUTE) }
    ],
    ['Age: 0 is a fresh answer, not a cached copy: the due update is sent', { Age: '0' }, 7 * HOUR, { result: 'updated' }]
  ])('%s', async (_, headers, ago, expected) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', recordFault(BOT, new Date(clock.now() - ago), headers))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome).toMatchObject(expected)
  })
})

describe("records that cannot be trusted send nothing; only the service's own 403 means not verified", () => {
  const forbidden = (contentType: string, body: string): Fault => ({
    kind: 'answer',
    status: 403,
    headers: { 'Content-Type': contentType },
    body
  })
  const WORDS = '{"success":false,"error":"This bot is not verified yet."}'
  it.each<[string, Fault]>([
    ['a 5xx, retried', { kind: 'answer', status: 503, body: 'busy' }],
    [
      'no update times',
      { kind: 'answer', status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ commands: 12 }) }
    ],
    ['an update time days ahead', recordFault(BOT, new Date(new TestClock().now() + 7 * 24 * HOUR))],
    ['a 403 as JSON without an error text', forbidden('application/json', '{"success":false,"status":403}')],
    ['a 403 as JSON without success: false', forbidden('application/json', '{"error":"Forbidden","status":403}')],
    ["a 403 as a gateway's JSON", forbidden('application/json', '{"message":"Forbidden"}')],
    [
      "a 403 as a gateway's JSON in the service's shape",
      forbidden('application/json', '{"success":false,"error":"Access denied by policy","status":403}')
    ],
    ['a 403 with a JSON content type on a page', forbidden('application/json', '<html>Forbidden</html>')],
    ['a 403 as a firewall page', forbidden('text/html', '<html><body>Access denied</body></html>')],
    ["a 403 with the service's words sent as text/plain", forbidden('text/plain', WORDS)],
    ['a 403 whose content type names JSON in a parameter', forbidden('text/html; profile=application/json', WORDS)]
  ])('%s: skipped as unchecked, with the warning, and nothing advises sending without the check', async (_, fault) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    for (let i = 0; i < (fault.kind === 'answer' && fault.status === 503 ? 3 : 1); i++) emulator.inject('record', fault)
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked', status: undefined, record: { ok: false, problem: 'unreadable' } })
    expect(outcome.warnings).toEqual([UNCHECKED((outcome.record as RecordRead & { ok: false }).reason)])
  })

  it('a copy from a cache (Age > 0) can hold an update back, never clear one: nothing sent, saying how to send without the check', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', recordFault(BOT, new Date(clock.now() - 7 * HOUR), { Age: '120' }))
    const run = await statsStep(statsInputs(emulator), clock)
    expect(run.failure).toBeUndefined()
    expect(emulator.received('stats'), 'no PATCH').toEqual([])
    expect(run.outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(annotations(run, 'warning')).toEqual([
      "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
        'update, and an update within 6 hours of it would be a strike. The next run will try again. ' +
        '(cooldown-check: false sends without the check.)'
    ])
    expect(run.outputs['next-update-at'] ?? '').toBe('')
    expect(
      annotations(run, 'notice').filter(n => /less than 6 hours ago|too soon/.test(n)),
      'no notice of a recent update'
    ).toEqual([])
    expect(run.summary).toContain('not sent: the bot&#39;s record could not be checked')
  })
})
