/**
 * The stats mode's decisions, in process: runStats against the service emulator (which
 * answers as service-behaviour.md says) and Discord's fake, with a clock the test controls.
 * Each rule of interface.md that decides what is sent, when the run stops and what it reports
 * has a test here that fails on a planted bug.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { type BotSeed, ServiceEmulator, SIX_HOURS } from '../support/emulator.js'
import { DiscordFake } from '../support/fakes.js'
import { outcomeLine } from '../../src/stats/report.js'
import { BOT, emulatedBot, HOUR, KEY, statsRun, TestClock } from '../support/inprocess.js'

const MINUTE = 60_000

/** The test's bot on the test's clock, last updated `ago` ms before now. */
const service = (clock: TestClock, ago = 7 * HOUR, seed: Partial<BotSeed> = {}, latencyMs = 0): Promise<ServiceEmulator> =>
  emulatedBot(clock, { ago, seed, latencyMs })

const inputs = (emulator: ServiceEmulator, more: Record<string, string> = {}): Record<string, string> => ({
  'bot-id': BOT,
  'api-key': KEY,
  'base-url': emulator.url,
  ...more
})

const routes = (emulator: ServiceEmulator): string[] => emulator.requests.map(r => `${r.method} ${r.path.replace(`/bots/${BOT}`, '')}`)

describe('an update that is due', () => {
  it('reads the record, sends one PATCH with only the counts resolved, and reports the answer', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(routes(emulator)).toEqual(['GET ', 'PATCH /stats'])
    expect(emulator.requests[1]!.body).toBe('{"command_count":14}')
    expect(emulator.requests[1]!.headers['authorization']).toBe(KEY)
    expect(outcome).toMatchObject({ result: 'updated', status: 200, delivery: 'answered', error: undefined })
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() + SIX_HOURS + MINUTE)
    expect(emulator.bot(BOT).commands).toBe(14)
  })

  it('with cooldown-check: false, sends without reading the record', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const { outcome } = await statsRun(inputs(emulator, { 'server-count': '1250', 'cooldown-check': 'false' }), { clock })
    expect(routes(emulator)).toEqual(['PATCH /stats'])
    expect(outcome.result).toBe('updated')
  })
})

describe('the cooldown check', () => {
  it('skips an update within 6 hours of the last (plus a minute of margin), checks the key, and reports no status', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 2 * HOUR)
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(routes(emulator)).toEqual(['GET ', `GET /voters/${BOT}`])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'recent', status: undefined, keyCheck: { state: 'valid' } })
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() - 2 * HOUR + SIX_HOURS + MINUTE)
  })

  it('sends once the window and the margin have passed, not a second before', async () => {
    const clock = new TestClock()
    const justInside = await service(clock, SIX_HOURS - MINUTE + 1000)
    expect((await statsRun(inputs(justInside, { 'command-count': '1' }), { clock })).outcome.result).toBe('skipped')
    const clock2 = new TestClock()
    const past = await service(clock2, SIX_HOURS + MINUTE + 1000)
    expect((await statsRun(inputs(past, { 'command-count': '1' }), { clock: clock2 })).outcome.result).toBe('updated')
  })

  it("adds the lag of the service's clock seen in its Date header", async () => {
    const clock = new TestClock()
    // The service's clock runs 10 minutes behind: its update time is 6 h 5 min ago by its own clock.
    const behind = (): number => clock.now() - 10 * MINUTE
    const emulator = await ServiceEmulator.start({
      now: behind,
      bots: [{ id: BOT, apiKey: KEY, commandsUpdatedAt: new Date(behind() - SIX_HOURS + 5 * MINUTE), serversUpdatedAt: new Date(0) }]
    })
    onTestFinished(() => emulator.close())
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '1' }), { clock })
    expect(outcome.result).toBe('skipped')
    expect(emulator.received('stats')).toEqual([])
  })

  it('waits out the read limiter (Retry-After: 60) within the timeout, then reads again and sends', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.spendLimit('record', '127.0.0.1', 10)
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(clock.waits).toContain(60_000)
    expect(routes(emulator)).toEqual(['GET ', 'GET ', 'PATCH /stats'])
    expect(outcome.result).toBe('updated')
  })

  it('retries a 5xx, and sends nothing when the record stays unreadable: skipped, with the warning first', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(emulator.received('record')).toHaveLength(3)
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked', status: undefined })
    expect(outcome.warnings[0]).toMatch(/^Stats not sent: the bot's public record could not be checked \(the service answered 503\)/)
  })

  it('fails before any PATCH when the service lists no such bot (record 404)', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const { outcome } = await statsRun({ ...inputs(emulator, { 'command-count': '1' }), 'bot-id': '999999999999999999' }, { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/lists no bot with ID 999999999999999999/)
  })

  it('never takes a cached record (Age > 0) as proof that an update is due', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const at = new Date(clock.now() - 7 * HOUR).toISOString()
    emulator.inject('record', {
      kind: 'answer',
      status: 200,
      headers: { 'Content-Type': 'application/json', Age: '30' },
      body: JSON.stringify({ commands: 1, commands_updated_at: at, servers: 1, servers_updated_at: at })
    })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
  })
})

describe("only the service's own answers mean what they say", () => {
  it("the service's 403 (a bot not verified yet): nothing is sent, the run is skipped, and the key is still checked", async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 7 * HOUR, { verified: false })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(routes(emulator)).toEqual(['GET ', `GET /voters/${BOT}`])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unverified', keyCheck: { state: 'valid' }, error: undefined })
    expect(outcomeLine(outcome)).toMatchObject({ kind: 'notice', title: 'Stats not sent' })
  })

  it.each([
    ['a firewall page', { 'Content-Type': 'text/html' }, '<html><body>Access denied</body></html>'],
    ["a gateway's JSON", { 'Content-Type': 'application/json' }, '{"message":"Forbidden"}']
  ])('any other 403 (%s): the record is unreadable and nothing is sent', async (_, headers, body) => {
    const clock = new TestClock()
    const emulator = await service(clock, 7 * HOUR, { verified: false })
    emulator.inject('record', { kind: 'answer', status: 403, headers, body })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unchecked' })
    expect(outcome.warnings.join('\n')).not.toMatch(/verified/)
  })
})

describe('the answers to the update', () => {
  it("the request limiter's 429: rate-limited, no strike, next update from its Retry-After", async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.spendLimit('stats', BOT, 2)
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(outcome).toMatchObject({ result: 'rate-limited', status: 429, error: undefined })
    expect(emulator.bot(BOT).strikes).toEqual([])
    expect(emulator.received('stats')).toHaveLength(1)
    // The limiter's window was opened now: its Retry-After is the whole 30 minutes.
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() + 30 * MINUTE)
  })

  it('the 6-hour 429 after an update sent unchecked: cooldown (a strike), never retried, next update from the record', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 2 * HOUR)
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14', 'cooldown-check': 'false' }), { clock })
    expect(routes(emulator)).toEqual(['PATCH /stats', 'GET '])
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, overlap: undefined, strikeCause: 'unchecked' })
    expect(outcome.error?.message, 'a strike fails the step').toMatch(/counted a strike against the API key/)
    expect(emulator.bot(BOT).strikes).toHaveLength(1)
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() - 2 * HOUR + SIX_HOURS + MINUTE)
  })

  it.each([
    [401, 'a wrong key', { apiKey: 'another-key' }, /The API key was refused/],
    // service-behaviour.md 5: revoked for strikes on an earlier run, and a new key generated since.
    [410, 'a key revoked for strikes earlier', { apiKey: 'new-key', revokedKeys: [KEY] }, /on this run or an earlier one/]
  ])('%s (%s): failed, status kept, the advice that fits', async (status, _, seed, advice) => {
    const clock = new TestClock()
    const emulator = await service(clock, 7 * HOUR, seed)
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status })
    expect(outcome.error?.message).toMatch(advice)
    expect(emulator.received('stats')).toHaveLength(1)
  })

  it('the fifth strike: 410 with the strikes text gets the strikes advice, not the replaced-key one', async () => {
    const clock = new TestClock()
    const strikes = [1, 2, 3, 4].map(i => new Date(clock.now() - i * MINUTE))
    const emulator = await service(clock, HOUR, { strikes })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14', 'cooldown-check': 'false' }), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 410 })
    expect(outcome.error?.message).toMatch(/This update was the fifth refused as early within 6 hours \(strikes\)/)
    expect(outcome.error?.message).toMatch(/The bot has no key now: generate a new key/)
    // The bot has no key now: the old key gets 410, and so would any other.
    expect(emulator.bot(BOT).apiKey).toBeUndefined()
  })

  it('a key regenerated on the manage page is answered 401 (not revoked): the advice names a regenerated key', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 7 * HOUR)
    emulator.regenerateKey(BOT, 'the-new-key-0000000')
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 401 })
    expect(outcome.error?.message).toMatch(
      /"Invalid API key\."\. The API key was refused: .*regenerated or deleted on the bot's manage page/
    )
    expect(outcome.error?.message).not.toMatch(/revoked/)
  })
})

describe('the first day: a bot submitted an hour ago, not verified yet', () => {
  it('"Run workflow" pressed five times: nothing sent, no strike, five green skips', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 0, { verified: false, createdAt: new Date(clock.now() - HOUR), commandsUpdatedAt: undefined })
    for (let press = 0; press < 5; press++) {
      const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
      expect(outcome, `press ${press + 1}`).toMatchObject({ result: 'skipped', skip: 'unverified', error: undefined })
      clock.advance(5 * MINUTE)
    }
    expect(emulator.received('stats'), 'no PATCH in five runs').toEqual([])
    expect(emulator.bot(BOT).strikes).toEqual([])
    expect(emulator.bot(BOT).apiKey, "the key is still the bot's").toBe(KEY)
  })

  it('a dry run says a real run would not send, for the same reason', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 0, { verified: false, createdAt: new Date(clock.now() - HOUR) })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14', 'dry-run': 'true' }), { clock })
    expect(outcome).toMatchObject({ result: 'dry-run', skip: 'unverified' })
    expect(outcomeLine(outcome).text).toMatch(/A real run would not send: discord\.place has not verified the bot yet/)
  })

  it('cooldown-check: false sends anyway, as the notice says: within 6 hours of the submission that is a strike, and a red step', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 0, { verified: false, createdAt: new Date(clock.now() - HOUR) })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14', 'cooldown-check': 'false' }), { clock })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'cooldown', strikeCause: 'unverified' })
    expect(outcome.error).toBeDefined()
  })
})

describe('overlapping runs', () => {
  it('two runs at once, 100 ms from the service: one update, at most one strike, and the run that lost says another run updated first', async () => {
    const clock = new TestClock()
    // Requests take 100 ms to arrive, as over the internet: both runs read the record before either update lands.
    const emulator = await service(clock, 7 * 24 * HOUR, {}, 100)
    const [a, b] = await Promise.all([
      statsRun(inputs(emulator, { 'command-count': '14' }), { clock }),
      statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    ])
    const results = [a.outcome.result, b.outcome.result].sort()
    expect(results).toEqual(['cooldown', 'updated'])
    expect(emulator.bot(BOT).strikes.length).toBeLessThanOrEqual(1)
    const lost = [a.outcome, b.outcome].find(outcome => outcome.result === 'cooldown')!
    expect(lost.overlap?.getTime()).toBe(clock.now())
    expect(lost.nextUpdateAt?.getTime()).toBe(clock.now() + SIX_HOURS + MINUTE)
    expect(emulator.received('record'), 'the run that lost read the record again').toHaveLength(3)
    expect(lost.strikeCause).toBe('overlap')
    const message = lost.error?.message ?? ''
    expect(message).toMatch(
      /Likely cause: overlapping runs\. Another run updated the counts at \d\d:\d\d UTC, after this run read the bot's record/
    )
    expect(message).toContain(`concurrency: group: discord-place-stats-${BOT}, cancel-in-progress: false`)
  })

  it('the same pair queued by one concurrency group: the second reads the first one’s update and skips, no strike', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 7 * 24 * HOUR)
    const first = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    clock.advance(20_000)
    const second = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect([first.outcome.result, second.outcome.result]).toEqual(['updated', 'skipped'])
    expect(emulator.bot(BOT).strikes).toEqual([])
  })
})

describe('a dropped update', () => {
  it('an interim 103 and then a dropped connection is no answer: the record is read again, and the update sent once more', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'interim-then-reset' })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(routes(emulator)).toEqual(['GET ', 'PATCH /stats', 'GET ', 'PATCH /stats'])
    expect(outcome).toMatchObject({ result: 'updated', status: 200, delivery: 'answered' })
    expect(emulator.bot(BOT).strikes).toEqual([])
  })

  it('dropped after the service stored it: the record shows it arrived, updated, never sent twice', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'reset-after-handling' })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(routes(emulator)).toEqual(['GET ', 'PATCH /stats', 'GET '])
    expect(outcome).toMatchObject({ result: 'updated', delivery: 'arrived', status: undefined })
  })

  it('dropped before the service looked at it: the record proves it did not arrive, sent once more', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'reset' })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(routes(emulator)).toEqual(['GET ', 'PATCH /stats', 'GET ', 'PATCH /stats'])
    expect(outcome).toMatchObject({ result: 'updated', status: 200 })
  })

  it('dropped twice: failed, and not sent a third time', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'reset' })
    emulator.inject('stats', { kind: 'reset' })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(emulator.received('stats')).toHaveLength(2)
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/failed twice/)
  })

  it('a status line then a cut body is an answer: not sent again', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'partial', status: 200, body: '{"success":tr' })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'updated', status: 200 })
  })
})

describe('the key is checked on runs that send nothing', () => {
  it.each([
    ['a skipped run', {}, 2 * HOUR],
    ['a dry run', { 'dry-run': 'true' }, 7 * HOUR]
  ])('%s with a wrong key fails now, with the key advice, and sends no PATCH', async (_, more, ago) => {
    const clock = new TestClock()
    const emulator = await service(clock, ago, { apiKey: 'the-real-key-000000' })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14', ...more }), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 401 with "Invalid API key\."\. The API key was refused/)
  })

  it.each([
    ['a skipped run', {}, 2 * HOUR],
    ['a dry run', { 'dry-run': 'true' }, 7 * HOUR]
  ])('%s with a key revoked for strikes (410) fails now, with the strikes advice, and sends no PATCH', async (_, more, ago) => {
    const clock = new TestClock()
    const emulator = await service(clock, ago, { apiKey: 'the-new-key-0000000', revokedKeys: [KEY] })
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14', ...more }), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 410 with "This API key has been revoked\."/)
    expect(outcome.error?.message).toMatch(/revoked the key after five updates were refused as early within 6 hours/)
    expect(outcome.error?.message).not.toMatch(/regenerat/i)
  })

  it.each([
    ['regenerated', (emulator: ServiceEmulator) => emulator.regenerateKey(BOT, 'the-new-key-0000000')],
    ['deleted', (emulator: ServiceEmulator) => emulator.deleteKey(BOT)]
  ])('a skipped run with a key %s on the manage page fails now with the 401 advice', async (_, change) => {
    const clock = new TestClock()
    const emulator = await service(clock, 2 * HOUR)
    change(emulator)
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), { clock })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/^The API key check was answered 401 with "Invalid API key\."\. .*regenerated or deleted/)
  })

  it('a dry run without a key checks nothing, and a key check the limiter turns away leaves the run green', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 2 * HOUR)
    const dry = await statsRun({ 'bot-id': BOT, 'base-url': emulator.url, 'command-count': '3', 'dry-run': 'true' }, { clock })
    expect(emulator.received('votes')).toEqual([])
    expect(dry.outcome).toMatchObject({ result: 'dry-run', skip: 'recent', keyCheck: undefined })
    emulator.spendLimit('votes', BOT, 100)
    const limited = await statsRun(inputs(emulator, { 'command-count': '3' }), { clock })
    expect(limited.outcome).toMatchObject({ result: 'skipped', keyCheck: { state: 'unchecked' }, error: undefined })
  })
})

describe('Discord as a source', () => {
  async function discord(commands: unknown[], guildCount = 1250): Promise<DiscordFake> {
    const fake = await DiscordFake.start({ token: 'discord-token-0123456789', applicationId: BOT, guildCount, commands })
    onTestFinished(() => fake.close())
    return fake
  }

  it('is asked only after the record, and not at all when the run will be skipped (even when it is down)', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 2 * HOUR)
    const fake = await discord([])
    fake.inject('application', { kind: 'answer', status: 500, body: 'down' })
    const { outcome } = await statsRun(inputs(emulator, { 'discord-token': 'discord-token-0123456789', 'discord-api-url': fake.url }), {
      clock
    })
    expect(fake.requests).toEqual([])
    expect(outcome.result).toBe('skipped')
  })

  it('fills in both counts when the update is due', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const fake = await discord([
      { name: 'ping', type: 1 },
      { name: 'help', type: 1 }
    ])
    const { outcome } = await statsRun(inputs(emulator, { 'discord-token': 'discord-token-0123456789', 'discord-api-url': fake.url }), {
      clock
    })
    expect(emulator.requests[0]!.receivedNs).toBeLessThan(fake.requests[0]!.receivedNs)
    expect(emulator.received('stats')[0]!.body).toBe('{"command_count":2,"server_count":1250}')
    expect(outcome.result).toBe('updated')
  })

  it('no global commands while the listing shows some: the command count is left out with a warning, not sent as 0', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const fake = await discord([])
    const { outcome } = await statsRun(inputs(emulator, { 'discord-token': 'discord-token-0123456789', 'discord-api-url': fake.url }), {
      clock
    })
    expect(emulator.received('stats')[0]!.body).toBe('{"server_count":1250}')
    expect(emulator.bot(BOT).commands).toBe(12)
    expect(outcome.counts?.warnings.join('\n')).toMatch(
      /The command count was left out: Discord \(global commands\) found no commands, and the listing shows 12/
    )
    // The fix that helps a bot with per-server commands: count its manifest.
    expect(outcome.counts?.warnings.join('\n')).toMatch(
      /has no global commands: set commands-file to the manifest your deploy script sends/
    )
  })

  it('a command-count: 0 input is the user’s own word and is sent', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    await statsRun(inputs(emulator, { 'command-count': '0' }), { clock })
    expect(emulator.received('stats')[0]!.body).toBe('{"command_count":0}')
    expect(emulator.bot(BOT).commands).toBe(0)
  })
})

describe('a stop is a stop', () => {
  it('SIGTERM while the record read is in flight: no PATCH, and the report says it was not sent', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('record', { kind: 'hang' })
    const stop = new AbortController()
    const run = statsRun(inputs(emulator, { 'command-count': '14' }), {
      clock,
      signal: stop.signal,
      onLog: line => {
        if (line.startsWith("Reading the bot's public record")) setTimeout(() => stop.abort(new StoppedError('SIGTERM')), 20)
      }
    })
    const { outcome } = await run
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). The stats update was not sent.'
    )
  })

  it('SIGTERM while the PATCH is in flight: the report says it was sent with no answer, and nothing is sent after', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'hang' })
    const stop = new AbortController()
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '14' }), {
      clock,
      signal: stop.signal,
      onLog: line => {
        if (line.startsWith('Sending PATCH')) setTimeout(() => stop.abort(new StoppedError('SIGTERM')), 20)
      }
    })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(emulator.received('record')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'no-answer' })
    expect(outcome.error?.message).toMatch(/The stats update was sent, and no answer came back/)
  })

  it('SIGTERM while Discord is read: no PATCH', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const fake = await DiscordFake.start({ token: 'discord-token-0123456789', applicationId: BOT, guildCount: 1250, commands: [] })
    onTestFinished(() => fake.close())
    fake.inject('application', { kind: 'hang' })
    const stop = new AbortController()
    const { outcome } = await statsRun(inputs(emulator, { 'discord-token': 'discord-token-0123456789', 'discord-api-url': fake.url }), {
      clock,
      signal: stop.signal,
      onLog: line => {
        if (line.startsWith('Reading the server count')) setTimeout(() => stop.abort(new StoppedError('SIGTERM')), 20)
      }
    })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome.error?.message).toMatch(/The stats update was not sent/)
  })
})
