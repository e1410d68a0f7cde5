/**
 * The public record (`GET /bots/{id}`, no key, src/stats/record.ts): one answer read
 * (interpretRecord), when it allows the next update, and the reads as a run makes them, in
 * process against the service emulator on a clock the test controls. interface.md: the cooldown
 * check keeps the key safe, so a read the read limiter turns away is waited out and read again
 * within the step's timeout; a record that stays unreadable, came from a cache or cannot be
 * trusted sends nothing; only the service's own 403 means "not verified"; a record that names no
 * such bot, or no connection at all, fails the step before any update; the 6-hour comparison
 * keeps a margin for the runner's clock against the service's.
 */
import { describe, expect, it } from 'vitest'
import { Requests } from '../../src/http/client.js'
import { interpretRecord, readPublicRecord } from '../../src/stats/record.js'
import { acceptsFrom, cooldownEnds, type PublicRecord, type RecordRead } from '../../src/stats/window.js'
import { answer, HTML_PAGE, jsonAnswer, serviceError } from '../support/answers.js'
import { type Fault, limiterFault, recordFault, SIX_HOURS } from '../support/emulator.js'
import { BOT, emulatedBot, HOUR, MINUTE, routes, statsInputs, statsRun, TestClock, unreachableUrl } from '../support/inprocess.js'
import { annotations, expectCleanFailure, statsStep } from '../support/step.js'

/** The read limiter's answer, once, asking for `seconds`. */
const readLimited = (seconds: number): Fault => limiterFault({ retry_after: seconds }, { 'Retry-After': String(seconds) })

describe('interpretRecord', () => {
  it('reads a 200 record with ISO 8601 dates', () => {
    const read = interpretRecord(
      jsonAnswer(200, {
        id: BOT,
        commands: 12,
        servers: 1204,
        commands_updated_at: '2025-03-01T10:00:00.000Z',
        servers_updated_at: '2025-03-01T12:30:00Z'
      })
    )
    expect(read).toEqual({
      ok: true,
      status: 200,
      record: {
        commands: 12,
        servers: 1204,
        commandsUpdatedAt: new Date(Date.UTC(2025, 2, 1, 10, 0)),
        serversUpdatedAt: new Date(Date.UTC(2025, 2, 1, 12, 30))
      }
    })
  })

  it('reads dates given as epoch milliseconds', () => {
    const read = interpretRecord(
      jsonAnswer(200, { commands: 0, servers: 5, commands_updated_at: 1740823200000, servers_updated_at: 1740832200000 })
    )
    expect(read.ok).toBe(true)
    if (!read.ok) return
    expect(read.record.commandsUpdatedAt?.toISOString()).toBe('2025-03-01T10:00:00.000Z')
    expect(read.record.serversUpdatedAt?.toISOString()).toBe('2025-03-01T12:30:00.000Z')
    expect(read.record.commands).toBe(0)
  })

  it('reads a record where only one count was ever updated', () => {
    const read = interpretRecord(jsonAnswer(200, { servers: 1204, servers_updated_at: '2025-03-01T12:30:00Z' }))
    expect(read.ok).toBe(true)
    if (!read.ok) return
    expect(read.record.commandsUpdatedAt).toBeUndefined()
    expect(read.record.serversUpdatedAt?.toISOString()).toBe('2025-03-01T12:30:00.000Z')
  })

  it.each([
    ['no date fields', { commands: 12, servers: 1204 }],
    ['null dates', { commands: 12, servers: 1204, commands_updated_at: null, servers_updated_at: null }],
    ['unreadable dates', { commands_updated_at: 'yesterday', servers_updated_at: 'soon' }],
    ['dates of the wrong type', { commands_updated_at: true, servers_updated_at: {} }]
  ])('is not ok with %s', (_label, body) => {
    const read = interpretRecord(jsonAnswer(200, body))
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.status).toBe(200)
    expect(read.reason.length).toBeGreaterThan(0)
  })

  it.each([
    ['the year 2100', '2100-01-01T00:00:00Z'],
    ['the largest date there is', '+275760-09-13T00:00:00.000Z'],
    ['two hours ahead of the runner', new Date(Date.parse('2026-11-23T12:00:00Z') + 2 * HOUR).toISOString()]
  ])('is not ok with an update time in the future (%s): it would hold every update back until then', (_label, time) => {
    const now = Date.parse('2026-11-23T12:00:00Z')
    const read = interpretRecord(
      jsonAnswer(200, { commands: 1, commands_updated_at: '2026-11-23T05:00:00Z', servers_updated_at: time }),
      now
    )
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.reason).toMatch(/later than the runner's clock/)
  })

  it('accepts an update time a little ahead of the runner, as clocks differ', () => {
    const now = Date.parse('2026-11-23T12:00:00Z')
    expect(interpretRecord(jsonAnswer(200, { servers_updated_at: '2026-11-23T12:05:00Z' }), now).ok).toBe(true)
  })

  it.each([
    [403, /verif/i],
    [404, /404/],
    [429, /429/],
    [500, /500/],
    [503, /503/]
  ])('is not ok for %d, with a reason', (status, reason) => {
    const read = interpretRecord(serviceError(status, 'whatever the service says'))
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.status).toBe(status)
    expect(read.reason).toMatch(reason)
  })

  it.each([
    ['an array', answer(200, '[1,2,3]')],
    ['a number', { ...answer(200, '42'), json: 42 }],
    ['a string', { ...answer(200, '"bot"'), json: 'bot' }],
    ['null', { ...answer(200, 'null'), json: null }],
    ['an HTML page', answer(200, HTML_PAGE, { 'content-type': 'text/html' })],
    ['an empty body', answer(200, '')]
  ])('is not ok when the 200 body is %s', (_label, got) => {
    const read = interpretRecord(got)
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.status).toBe(200)
    expect(read.reason.length).toBeGreaterThan(0)
  })
})

describe('interpretRecord: the fields it keeps', () => {
  const at = '2026-11-24T06:00:00Z'
  const now = Date.parse('2026-11-24T12:00:00Z')

  it.each([
    ['  Example Bot  ', 'Example Bot'],
    ['   ', undefined],
    ['', undefined],
    [42, undefined]
  ])('the name %j is kept as %j', (username, expected) => {
    const got = interpretRecord(jsonAnswer(200, { username, commands_updated_at: at }), now)
    expect(got.ok && got.record.username).toBe(expected)
  })

  it.each([
    [0, 0],
    [12, 12],
    [-1, undefined],
    [2.5, undefined],
    ['12', undefined],
    [null, undefined]
  ])('a count of %j is read as %j', (commands, expected) => {
    const got = interpretRecord(jsonAnswer(200, { commands, servers: commands, commands_updated_at: at }), now)
    expect(got.ok && got.record.commands).toBe(expected)
    expect(got.ok && got.record.servers).toBe(expected)
  })

  it('a record with only the command count ever updated is read', () => {
    const got = interpretRecord(jsonAnswer(200, { commands: 3, commands_updated_at: at }), now)
    expect(got).toMatchObject({ ok: true, record: { commandsUpdatedAt: new Date(at), serversUpdatedAt: undefined } })
  })

  it("accepts an update time up to an hour ahead of the runner's clock, not more", () => {
    const ahead = (ms: number): RecordRead =>
      interpretRecord(jsonAnswer(200, { commands_updated_at: new Date(now + ms).toISOString() }), now)
    expect(ahead(HOUR).ok).toBe(true)
    expect(ahead(HOUR + 1)).toMatchObject({
      ok: false,
      problem: 'unreadable',
      reason: expect.stringMatching(/later than the runner's clock/)
    })
  })

  it.each([
    [404, { ok: false, problem: 'absent', reason: 'the service has no record for this bot (404)' }],
    [429, { ok: false, problem: 'unreadable', reason: 'the service is limiting reads (429)' }],
    [502, { ok: false, problem: 'unreadable', reason: 'the service answered 502' }]
  ])('a %d: %j', (status, expected) => {
    expect(interpretRecord(answer(status), now)).toMatchObject({ status, ...expected })
  })
})

describe('cooldownEnds', () => {
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
    ['both at once', '2025-03-01T10:00:00Z', '2025-03-01T10:00:00Z', '2025-03-01T16:00:00.000Z'],
    ['only commands', '2025-03-01T10:00:00Z', undefined, '2025-03-01T16:00:00.000Z'],
    ['only servers', undefined, '2025-03-01T12:30:00Z', '2025-03-01T18:30:00.000Z']
  ])('is 6 hours after the latest update (%s)', (_label, commandsAt, serversAt, expected) => {
    expect(cooldownEnds(record(commandsAt, serversAt))?.toISOString()).toBe(expected)
  })

  it('is exactly 6 hours after the update', () => {
    const at = new Date('2025-03-01T10:00:00Z')
    expect(cooldownEnds(record(at.toISOString()))?.getTime()).toBe(at.getTime() + 6 * HOUR)
  })

  it('is unknown without update times', () => {
    expect(cooldownEnds(record())).toBeUndefined()
  })
})

describe('acceptsFrom', () => {
  const ok = (record: Partial<Extract<RecordRead, { ok: true }>['record']>, lagMs?: number): RecordRead & { ok: true } => ({
    ok: true,
    status: 200,
    record: { username: undefined, commands: 1, servers: 1, commandsUpdatedAt: undefined, serversUpdatedAt: undefined, ...record },
    lagMs
  })

  it("is the window's end, plus the lag seen, plus the margin; unknown without an update time", () => {
    const at = new Date('2026-11-24T06:00:00Z')
    expect(acceptsFrom(ok({ serversUpdatedAt: at }, 5_000))?.getTime()).toBe(at.getTime() + SIX_HOURS + 5_000 + MINUTE)
    expect(acceptsFrom(ok({ commandsUpdatedAt: at }))?.getTime()).toBe(at.getTime() + SIX_HOURS + MINUTE)
    expect(acceptsFrom(ok({}))).toBeUndefined()
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
    const { read: got } = await read(emulator.url, clock)
    expect(got.ok).toBe(true)
    const [request] = emulator.received('record')
    expect(request!.method).toBe('GET')
    expect(request!.headers['authorization']).toBeUndefined()
    expect(request!.headers['accept']).toBe('application/json')
    expect(request!.headers['cache-control']).toBe('no-cache')
  })

  it('a record that could not be read is logged with the reason; one that says something (404) is not "unreadable"', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const unreadable = await read(emulator.url, clock)
    expect(unreadable.read).toMatchObject({ ok: false, problem: 'unreadable', status: 503 })
    expect(unreadable.log).toContain('Could not read the public record (the service answered 503).')

    const absent = await read(emulator.url, clock, '999999999999999999')
    expect(absent.read).toMatchObject({ ok: false, problem: 'absent', status: 404 })
    expect(absent.log.join('\n')).not.toMatch(/Could not read/)
  })

  it('no connection at all is "unreachable": the step fails naming the record and base-url, and nothing is sent', async () => {
    const clock = new TestClock()
    const url = await unreachableUrl(clock)
    const direct = await read(url, clock)
    expect(direct.read).toMatchObject({ ok: false, problem: 'unreachable', status: undefined })
    const run = await statsStep(statsInputs({ url }), clock)
    expect(run.outcome.result).toBe('failed')
    expect(run.outcome.delivery).toBe('not-sent')
    expect(run.outcome.error?.message).toMatch(
      /^Could not read the bot's public record: could not connect to .*Nothing was sent\. Check base-url/
    )
    expect(expectCleanFailure(run)).toMatch(/could not connect to 127\.0\.0\.1:\d+: the connection was refused/)
    expect(run.summary).toMatch(/^<h3>❌ Bot \d+: failed: discord\.place unreachable<\/h3>/)
    expect(run.outputs['status']).toBeUndefined()
  })

  it('a record that answers 404 (no such bot): fails before any PATCH, naming bot-id, with no status', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const run = await statsStep(statsInputs(emulator, { 'bot-id': '999999999999999999' }), clock)
    expect(emulator.received('stats'), 'no PATCH').toEqual([])
    expect(run.outcome.result).toBe('failed')
    expect(run.outcome.error?.message).toMatch(/lists no bot with ID 999999999999999999/)
    expect(expectCleanFailure(run)).toMatch(/^The service lists no bot with ID 999999999999999999 .*Check bot-id/)
    expect(run.outputs).toMatchObject({ result: 'failed' })
    expect(run.outputs['status'], 'the record read is not the update').toBeUndefined()
  })

  it('a 5xx on the record read is retried after a backoff even when it carries RateLimit-Reset', async () => {
    const clock = new TestClock()
    const updated = new Date(clock.now() - HOUR)
    const emulator = await emulatedBot(clock, { seed: { commandsUpdatedAt: updated } })
    emulator.inject('record', {
      kind: 'answer',
      status: 502,
      headers: { 'Content-Type': 'text/html', 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '1800' },
      body: '<html>502</html>'
    })
    const run = await statsStep(statsInputs(emulator), clock)
    expect(emulator.received('record').map(r => r.status)).toEqual([502, 200])
    expect(
      run.waits.reduce((sum, ms) => sum + ms, 0),
      'retried after a backoff, not after RateLimit-Reset'
    ).toBeLessThan(10_000)
    expect(emulator.received('stats')).toHaveLength(0)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({
      result: 'skipped',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MINUTE).toISOString()
    })
  })
})

describe('the read limiter (429, Retry-After) is waited out', () => {
  it('for as long as it asks, then the record is read again', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', readLimited(5))
    const { read: got, log } = await read(emulator.url, clock)
    expect(got.ok).toBe(true)
    expect(clock.waits).toEqual([5_000])
    expect(log).toContain("The service's read limit answered 429; reading the record again in 5 s.")
  })

  it('waits out the read limiter (Retry-After: 60) within the timeout, then reads again and sends', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.spendLimit('record', '127.0.0.1', 10)
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(clock.waits).toContain(60_000)
    expect(routes(emulator)).toEqual(['GET ', 'GET ', 'PATCH /stats'])
    expect(outcome.result).toBe('updated')
  })

  it('read limiter (10/min per IP, 429 + Retry-After): waits it out, reads again, and skips a recent update', async () => {
    const clock = new TestClock()
    const updated = new Date(clock.now() - HOUR)
    const emulator = await emulatedBot(clock, { seed: { commandsUpdatedAt: updated } })
    emulator.spendLimit('record', '127.0.0.1', 10)
    const run = await statsStep(statsInputs(emulator), clock)
    expect(run.failure).toBeUndefined()
    expect(emulator.received('record').map(r => r.status)).toEqual([429, 200])
    expect(emulator.received('stats'), 'no PATCH: the record, once read, shows a recent update').toHaveLength(0)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({
      result: 'skipped',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MINUTE).toISOString()
    })
    expect(run.outputs['status'], 'the record read is not the update').toBeUndefined()
    expect(run.log.join('\n')).toMatch(/read limit answered 429; reading the record again in 60 s/)
  })

  it('three times at most: a fourth 429 leaves the record unreadable, saying how often it was turned away; nothing is sent', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    for (let i = 0; i < 6; i++) emulator.inject('record', readLimited(1))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('record')).toHaveLength(4)
    expect(clock.waits).toEqual([1_000, 1_000, 1_000])
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(outcome.record).toMatchObject({ ok: false, problem: 'unreadable', reason: 'the service is limiting reads (429), 4 times' })
  })

  it.each([
    // room = timeout - 2 × request-timeout: the read after the wait and the update after it.
    ['exactly room for the wait, the read again and the update', '120', '30', true],
    ['not room for the read again and the update after the wait', '90', '30', false]
  ])('with %s: waits %s', async (_, timeout, requestTimeout, waits) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', readLimited(60))
    const { outcome } = await statsRun(statsInputs(emulator, { timeout, 'request-timeout': requestTimeout }), { clock })
    if (waits) {
      expect(clock.waits).toEqual([60_000])
      expect(outcome.result).toBe('updated')
    } else {
      expect(clock.waits).toEqual([])
      expect(emulator.received('stats')).toEqual([])
      expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
      expect(outcome.warnings[0]).toMatch(/the service's read limit asks for a wait of 60 s, more than the step's timeout leaves/)
    }
  })

  it('read limiter asking for more than the timeout leaves: sends nothing, skipped with a warning', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: { commandsUpdatedAt: new Date(clock.now() - HOUR) } })
    emulator.spendLimit('record', '127.0.0.1', 10) // the live limiter: Retry-After: 60
    const run = await statsStep(statsInputs(emulator, { timeout: '20', 'request-timeout': '5' }), clock)
    expect(run.failure).toBeUndefined()
    expect(emulator.received('record')).toHaveLength(1)
    expect(emulator.received('stats'), 'no blind PATCH').toHaveLength(0)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['status']).toBeUndefined()
    expect(run.outputs['next-update-at']).toBeUndefined()
    expect(annotations(run, 'warning')).toEqual([
      expect.stringMatching(
        /could not be checked \(the service's read limit asks for a wait of 60 s.*nothing was sent; the next run will try again/
      )
    ])
    expect(run.summary).toContain('record could not be checked')
  })
})

describe("the 6-hour comparison and the service's clock", () => {
  it("adds the lag of the service's clock seen in its Date header", async () => {
    const clock = new TestClock()
    // The service's clock runs 10 minutes behind: its update time is 6 h 5 min ago by its own clock.
    const behind = (): number => clock.now() - 10 * MINUTE
    const emulator = await emulatedBot(clock, {
      seed: { commandsUpdatedAt: new Date(behind() - SIX_HOURS + 5 * MINUTE), serversUpdatedAt: new Date(0) },
      service: { now: behind }
    })
    const { outcome } = await statsRun(statsInputs(emulator, { 'command-count': '1' }), { clock })
    expect(outcome.result).toBe('skipped')
    expect(emulator.received('stats')).toEqual([])
  })

  it("6-hour rule with the service's clock 5 minutes behind (its Date header): next-update-at allows for the lag", async () => {
    const clock = new TestClock()
    const behind = 5 * MINUTE
    // By the service's clock the last update is 5 h 57 min old; by the runner's, 6 h 2 min.
    const updated = new Date(clock.now() - SIX_HOURS - 2 * MINUTE)
    const emulator = await emulatedBot(clock, { seed: { commandsUpdatedAt: updated }, service: { now: () => clock.now() - behind } })
    const run = await statsStep(statsInputs(emulator), clock)
    expect(emulator.received('stats'), 'no PATCH while the service still counts 6 hours').toHaveLength(0)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['status']).toBeUndefined()
    const next = Date.parse(run.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(updated.getTime() + SIX_HOURS + behind - 2_000)
    expect(next).toBeLessThanOrEqual(updated.getTime() + SIX_HOURS + behind + MINUTE)
  })

  it('a broken Date header counts as no lag: the margin still applies and a recent update is skipped', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    emulator.inject('record', recordFault(BOT, new Date(clock.now() - SIX_HOURS + 30_000), { Date: 'not a date' }))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'recent' })
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() + 30_000 + MINUTE)
  })

  it('Age: 0 is a fresh answer, not a cached copy: the due update is sent', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', recordFault(BOT, new Date(clock.now() - 7 * HOUR), { Age: '0' }))
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(outcome.result).toBe('updated')
  })
})

describe("only the service's own 403 means not verified", () => {
  const forbidden = (contentType: string, body: string): Fault & { kind: 'answer' } => ({
    kind: 'answer',
    status: 403,
    headers: { 'Content-Type': contentType },
    body
  })

  it.each([
    ['JSON without an error text', forbidden('application/json', '{"success":false,"status":403}')],
    ['JSON without success: false', forbidden('application/json', '{"error":"Forbidden","status":403}')],
    ["a gateway's JSON", forbidden('application/json', '{"message":"Forbidden"}')],
    [
      "a gateway's JSON in the service's shape, with other words",
      forbidden('application/json', '{"success":false,"error":"Access denied by policy","status":403}')
    ],
    ['a JSON content type on a page that is not JSON', forbidden('application/json', '<html>Forbidden</html>')],
    ['a firewall page', forbidden('text/html', '<html><body>Access denied</body></html>')],
    ["the service's words sent as text/plain", forbidden('text/plain', '{"success":false,"error":"This bot is not verified yet."}')],
    [
      'a content type that only names JSON in a parameter',
      forbidden('text/html; profile=application/json', '{"success":false,"error":"This bot is not verified yet."}')
    ]
  ])(
    'a 403 as %s: unreadable (a gateway or firewall in the way?), nothing is sent, and nothing advises sending without the check',
    async (_, fault) => {
      const clock = new TestClock()
      const emulator = await emulatedBot(clock)
      emulator.inject('record', fault)
      const { outcome } = await statsRun(statsInputs(emulator), { clock })
      expect(emulator.received('stats')).toEqual([])
      expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
      expect(outcome.record).toMatchObject({ ok: false, status: 403, problem: 'unreadable' })
      const said = (JSON.parse(fault.body.startsWith('{') ? fault.body : '{}') as { error?: string }).error ?? fault.body
      expect(outcome.warnings.join('\n')).toContain(`a 403 ("${said}") that is not the service's own "not verified" answer`)
      expect(outcome.warnings.join('\n')).not.toMatch(/cooldown-check/)
    }
  )

  it("the service's own 403 is unverified", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: { verified: false } })
    const { read: got } = await read(emulator.url, clock)
    expect(got).toMatchObject({ ok: false, status: 403, problem: 'unverified' })
  })
})

describe('records that cannot be trusted send nothing', () => {
  it('a record that stays unreadable (5xx, retried): skipped, the warning first, saying why and how to send without the check', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('record')).toHaveLength(3)
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked', status: undefined })
    expect(outcome.warnings[0]).toMatch(/^Stats not sent: the bot's public record could not be checked \(the service answered 503\)/)
    expect(outcome.warnings).toEqual([
      "Stats not sent: the bot's public record could not be checked (the service answered 503). An update sent without that check " +
        'is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again.'
    ])
  })

  it('a record served from a cache (Age > 0) that shows an old update: sends nothing, as it may predate the last update, and says how to send without the check', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', recordFault(BOT, new Date(clock.now() - 7 * HOUR), { Age: '120' }))
    const run = await statsStep(statsInputs(emulator), clock)
    const { outcome } = run
    expect(run.failure).toBeUndefined()
    expect(emulator.received('stats'), 'no PATCH').toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(outcome.warnings).toEqual([
      "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
        'update, and an update within 6 hours of it would be a strike. The next run will try again. ' +
        '(cooldown-check: false sends without the check.)'
    ])
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['next-update-at'] ?? '').toBe('')
    expect(annotations(run, 'warning')).toEqual([expect.stringMatching(/^Stats not sent: the bot's public record came from a cache/)])
    expect(
      annotations(run, 'notice').filter(n => /less than 6 hours ago|too soon/.test(n)),
      'no notice of a recent update: the record could not tell'
    ).toEqual([])
    expect(run.summary).toContain('not sent: the bot&#39;s record could not be checked')
  })

  it.each([
    ['no update times', { id: BOT, commands: 12, servers: 1204 }],
    ['an update time days ahead of the runner', { commands_updated_at: '2026-11-30T12:00:00Z', servers_updated_at: '2026-11-01T12:00:00Z' }]
  ])('a record with %s: skipped as unchecked', async (_, body) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', { kind: 'answer', status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(outcome.warnings[0]).toMatch(/^Stats not sent: the bot's public record could not be checked/)
  })
})
