/**
 * The public record (`GET /bots/{id}`, no key) and what it decides, in process against the
 * service emulator on a clock the test controls. interface.md: the cooldown check keeps the key
 * safe, so a read the read limiter turns away is waited out and read again within the step's
 * timeout; a record that stays unreadable sends nothing; only the service's own 403 means "not
 * verified"; the 6-hour comparison keeps a margin for the runner's clock against the
 * service's. test/stats/stats.test.ts reads single answers (interpretRecord); here the reads run.
 */
import { describe, expect, it } from 'vitest'
import { Requests } from '../../src/http/client.js'
import type { HttpAnswer } from '../../src/http/transport.js'
import { interpretRecord, readPublicRecord } from '../../src/stats/record.js'
import { acceptsFrom, type RecordRead } from '../../src/stats/window.js'
import { type BotSeed, type Fault, ServiceEmulator, SIX_HOURS } from '../support/emulator.js'
import { BOT, emulatedBot, HOUR, KEY, statsRun, TestClock } from '../support/inprocess.js'

const MINUTE = 60_000

/** The test's bot on the test's clock, last updated `ago` ms before now. */
const service = (clock: TestClock, ago = 7 * HOUR, seed: Partial<BotSeed> = {}): Promise<ServiceEmulator> =>
  emulatedBot(clock, { ago, seed })

const inputs = (emulator: ServiceEmulator, more: Record<string, string> = {}): Record<string, string> => ({
  'bot-id': BOT,
  'api-key': KEY,
  'base-url': emulator.url,
  'command-count': '14',
  ...more
})

/** The read limiter's answer, once, asking for `seconds`. */
const readLimited = (seconds: number): Fault => ({
  kind: 'answer',
  status: 429,
  headers: { 'Content-Type': 'application/json', 'Retry-After': String(seconds) },
  body: JSON.stringify({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: seconds })
})

/** A record answer, once, with these headers. */
const recordAnswer = (clock: TestClock, ago: number, headers: Record<string, string>): Fault => {
  const at = new Date(clock.now() - ago).toISOString()
  return {
    kind: 'answer',
    status: 200,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ id: BOT, commands: 12, commands_updated_at: at, servers: 1204, servers_updated_at: at })
  }
}

/** readPublicRecord as the stats mode calls it. */
async function read(baseUrl: string, clock: TestClock, botId = BOT): Promise<{ read: RecordRead; log: string[] }> {
  const requests = new Requests({ attemptTimeoutMs: 30_000, totalMs: 900_000 }, clock)
  const log: string[] = []
  return { read: await readPublicRecord({ baseUrl, botId }, { requests, log: line => log.push(line) }), log }
}

describe('the record read', () => {
  it('is public: no key; it asks for JSON and for no cached copy', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
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
    const emulator = await service(clock)
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
    const emulator = await service(clock)
    const url = emulator.url
    await emulator.close()
    const direct = await read(url, clock)
    expect(direct.read).toMatchObject({ ok: false, problem: 'unreachable', status: undefined })
    const { outcome } = await statsRun({ ...inputs(emulator), 'base-url': url }, { clock })
    expect(outcome.result).toBe('failed')
    expect(outcome.delivery).toBe('not-sent')
    expect(outcome.error?.message).toMatch(
      /^Could not read the bot's public record: could not connect to .*Nothing was sent\. Check base-url/
    )
  })
})

describe('the read limiter (429, Retry-After) is waited out', () => {
  it('for as long as it asks, then the record is read again', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('record', readLimited(5))
    const { read: got, log } = await read(emulator.url, clock)
    expect(got.ok).toBe(true)
    expect(clock.waits).toEqual([5_000])
    expect(log).toContain("The service's read limit answered 429; reading the record again in 5 s.")
  })

  it('three times at most: a fourth 429 leaves the record unreadable, saying how often it was turned away; nothing is sent', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    for (let i = 0; i < 6; i++) emulator.inject('record', readLimited(1))
    const { outcome } = await statsRun(inputs(emulator), { clock })
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
    const emulator = await service(clock)
    emulator.inject('record', readLimited(60))
    const { outcome } = await statsRun(inputs(emulator, { timeout, 'request-timeout': requestTimeout }), { clock })
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
})

describe("the 6-hour comparison and the service's clock", () => {
  it('a broken Date header counts as no lag: the margin still applies and a recent update is skipped', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 2 * HOUR)
    emulator.inject('record', recordAnswer(clock, SIX_HOURS - 30_000, { Date: 'not a date' }))
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'recent' })
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() + 30_000 + MINUTE)
  })

  it('Age: 0 is a fresh answer, not a cached copy: the due update is sent', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('record', recordAnswer(clock, 7 * HOUR, { Age: '0' }))
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(outcome.result).toBe('updated')
  })
})

describe("only the service's own 403 means not verified", () => {
  const forbidden = (contentType: string, body: string): Fault => ({
    kind: 'answer',
    status: 403,
    headers: { 'Content-Type': contentType },
    body
  })

  it.each([
    ['JSON without an error text', forbidden('application/json', '{"success":false,"status":403}')],
    ['JSON without success: false', forbidden('application/json', '{"error":"Forbidden","status":403}')],
    ['a JSON content type on a page that is not JSON', forbidden('application/json', '<html>Forbidden</html>')],
    ["the service's words sent as text/plain", forbidden('text/plain', '{"success":false,"error":"This bot is not verified yet."}')],
    [
      'a content type that only names JSON in a parameter',
      forbidden('text/html; profile=application/json', '{"success":false,"error":"This bot is not verified yet."}')
    ]
  ])('a 403 as %s: unreadable (a proxy or firewall in the way?), and nothing is sent', async (_, fault) => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('record', fault)
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(outcome.record).toMatchObject({
      ok: false,
      status: 403,
      problem: 'unreadable',
      reason: "a 403 that is not the service's own answer (a proxy or firewall in the way?)"
    })
  })

  it("the service's own 403 is unverified", async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 7 * HOUR, { verified: false })
    const { read: got } = await read(emulator.url, clock)
    expect(got).toMatchObject({ ok: false, status: 403, problem: 'unverified' })
  })
})

describe('records that cannot be trusted send nothing', () => {
  it.each([
    ['no update times', { id: BOT, commands: 12, servers: 1204 }],
    ['an update time days ahead of the runner', { commands_updated_at: '2026-11-30T12:00:00Z', servers_updated_at: '2026-11-01T12:00:00Z' }]
  ])('a record with %s: skipped as unchecked', async (_, body) => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('record', { kind: 'answer', status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(outcome.warnings[0]).toMatch(/^Stats not sent: the bot's public record could not be checked/)
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

describe('interpretRecord: the fields it keeps', () => {
  const answerOf = (body: unknown): HttpAnswer => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    text: JSON.stringify(body),
    truncated: false,
    json: body
  })
  const at = '2026-11-24T06:00:00Z'
  const now = Date.parse('2026-11-24T12:00:00Z')

  it.each([
    ['  Example Bot  ', 'Example Bot'],
    ['   ', undefined],
    ['', undefined],
    [42, undefined]
  ])('the name %j is kept as %j', (username, expected) => {
    const got = interpretRecord(answerOf({ username, commands_updated_at: at }), now)
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
    const got = interpretRecord(answerOf({ commands, servers: commands, commands_updated_at: at }), now)
    expect(got.ok && got.record.commands).toBe(expected)
    expect(got.ok && got.record.servers).toBe(expected)
  })

  it('a record with only the command count ever updated is read', () => {
    const got = interpretRecord(answerOf({ commands: 3, commands_updated_at: at }), now)
    expect(got).toMatchObject({ ok: true, record: { commandsUpdatedAt: new Date(at), serversUpdatedAt: undefined } })
  })

  it("accepts an update time up to an hour ahead of the runner's clock, not more", () => {
    const ahead = (ms: number): RecordRead => interpretRecord(answerOf({ commands_updated_at: new Date(now + ms).toISOString() }), now)
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
    expect(interpretRecord({ status, headers: {}, text: '', truncated: false, json: undefined }, now)).toMatchObject({
      status,
      ...expected
    })
  })
})
