/**
 * More of the stats mode's decisions (src/stats/update.ts), in process against the service
 * emulator on a clock the test controls, for the cases test/stats/stats-flow.test.ts and
 * test/stats/stats-cases.test.ts leave out: what each end reports (delivery, status, next update,
 * overlap), the warnings and log lines a person reads, the edges of the 6-hour comparison, and
 * a bug, which is thrown rather than reported as an expected failure.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { type BotSeed, type Fault, ServiceEmulator, SIX_HOURS } from '../support/emulator.js'
import { DiscordFake } from '../support/fakes.js'
import { BOT, emulatedBot, HOUR, KEY, statsRun, TestClock } from '../support/inprocess.js'

const MINUTE = 60_000
const TOKEN = 'discord-token-0123456789'

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

/** A JSON answer of the service's, once. */
function serviceAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Fault {
  return { kind: 'answer', status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

/** The 6-hour refusal as the service sends it: no Retry-After, no retry_after. */
const SIX_HOUR_429 = serviceAnswer(429, { success: false, error: 'You can only update stats once every 6 hours.', status: 429 })

/** A port that nothing listens on. */
async function closedUrl(clock: TestClock): Promise<string> {
  const emulator = await service(clock)
  const url = emulator.url
  await emulator.close()
  return url
}

describe('a bug', () => {
  it('is thrown, not reported as an expected failure', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const bug = new TypeError('a bug')
    const running = statsRun(inputs(emulator), {
      clock,
      onLog: line => {
        if (line.startsWith('Sending PATCH')) throw bug
      }
    })
    await expect(running).rejects.toBe(bug)
    expect(emulator.received('stats')).toEqual([])
  })
})

describe('the record check', () => {
  it('sends at exactly 6 hours and the margin after the last update', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, SIX_HOURS + MINUTE)
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(outcome.result).toBe('updated')
  })

  it('an unreadable record: the warning says nothing was sent, why, and how to send without the check', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    for (let i = 0; i < 3; i++) emulator.inject('record', { kind: 'answer', status: 503, body: 'busy' })
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(outcome.warnings).toEqual([
      "Stats not sent: the bot's public record could not be checked (the service answered 503). An update sent without that check " +
        'is a strike whenever the last one was less than 6 hours ago, so nothing was sent; the next run will try again. ' +
        '(cooldown-check: false sends without the check.)'
    ])
  })

  it('a cached record: the warning says it may not show the latest update, and how to send without the check', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const old = new Date(clock.now() - 7 * HOUR).toISOString()
    emulator.inject('record', serviceAnswer(200, { commands: 12, commands_updated_at: old, servers_updated_at: old }, { Age: '5' }))
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(outcome.warnings).toEqual([
      "Stats not sent: the bot's public record came from a cache (Age header above 0), so it may not show the latest " +
        'update, and an update within 6 hours of it would be a strike. The next run will try again. ' +
        '(cooldown-check: false sends without the check.)'
    ])
  })

  it.each([
    ['unreachable', async (clock: TestClock) => ({ 'base-url': await closedUrl(clock) }), 'unreachable'],
    ['a bot the service does not list (404)', async () => ({ 'bot-id': '999999999999999999' }), 'absent']
  ] as const)('a dry run with a record %s fails as a real run would, with the same error', async (_, more, problem) => {
    // interface.md, "A dry run fails where a real run would fail": the dry run promises nothing a real run would not do.
    const clock = new TestClock()
    const emulator = await service(clock)
    const given = { ...inputs(emulator), ...(await more(clock)) }
    const dry = await statsRun({ ...given, 'dry-run': 'true', 'api-key': '' }, { clock })
    const real = await statsRun(given, { clock })
    expect(dry.outcome).toMatchObject({ result: 'failed', record: { ok: false, problem } })
    expect(real.outcome).toMatchObject({ result: 'failed', record: { ok: false, problem } })
    expect(dry.outcome.error?.message).toBe(real.outcome.error?.message)
    expect(emulator.received('stats')).toEqual([])
  })

  it('a dry run whose record came from a cache says a real run would not send, as a real run skips', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const cached = { ...inputs(emulator), 'dry-run': 'true', 'api-key': '' }
    const last = new Date(clock.now() - 7 * HOUR).toISOString()
    emulator.inject('record', {
      kind: 'answer',
      status: 200,
      headers: { 'Content-Type': 'application/json', Age: '120' },
      body: JSON.stringify({ id: BOT, commands: 12, commands_updated_at: last, servers: 1204, servers_updated_at: last })
    })
    const { outcome } = await statsRun(cached, { clock })
    expect(outcome).toMatchObject({ result: 'dry-run', skip: 'unchecked' })
  })

  it('a count a source left out leaves nothing to send: skipped, the key still checked, nothing sent', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const dir = await mkdtemp(join(tmpdir(), 'decisions-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    // A manifest that lists no commands while the listing shows 12: the count is left out.
    await writeFile(join(dir, 'commands.json'), '[]')
    const { outcome } = await statsRun(inputs(emulator, { 'command-count': '', 'commands-file': 'commands.json' }), {
      clock,
      env: { GITHUB_WORKSPACE: dir }
    })
    expect(emulator.received('stats')).toEqual([])
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'nothing', keyCheck: { state: 'valid' }, error: undefined })
  })
})

describe('the log', () => {
  it('names each count given with its source', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const { log } = await statsRun(inputs(emulator, { 'server-count': '1250' }), { clock })
    expect(log.filter(line => /^(Command|Server) count: /.test(line))).toEqual([
      'Command count: 14 (input command-count)',
      'Server count: 1250 (input server-count)'
    ])
  })

  it('names each count with its source once, then the ones Discord filled in', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const fake = await DiscordFake.start({ token: TOKEN, applicationId: BOT, guildCount: 1250, commands: [] })
    onTestFinished(() => fake.close())
    const { log } = await statsRun(inputs(emulator, { 'discord-token': TOKEN, 'discord-api-url': fake.url }), { clock })
    expect(log.filter(line => /^(Command|Server) count: /.test(line))).toEqual([
      'Command count: 14 (input command-count)',
      'Server count: 1250 (Discord (approximate_guild_count))'
    ])
  })

  it.each([
    ['an update', undefined, 'The service answered 200'],
    ['the 6-hour refusal, with its words', SIX_HOUR_429, 'The service answered 429: You can only update stats once every 6 hours.']
  ])('says what the service answered: %s', async (_, fault, line) => {
    const clock = new TestClock()
    const emulator = await service(clock)
    if (fault !== undefined) emulator.inject('stats', fault)
    const { log } = await statsRun(inputs(emulator), { clock })
    expect(log).toContain(line)
  })
})

describe('the answer to the update', () => {
  it('a 300 is no success: failed, with the redirect advice', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'answer', status: 300, body: '' })
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 300 })
    expect(outcome.error?.message).toMatch(/A redirect is not followed/)
  })

  it('a 5xx that names a wait is a failure on the service’s side, not the request limiter', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject(
      'stats',
      serviceAnswer(503, { success: false, error: 'Try later.', status: 503, retry_after: 30 }, { 'Retry-After': '30' })
    )
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'failed', status: 503, nextUpdateAt: undefined })
    expect(outcome.error?.message).toMatch(/The service failed on its side/)
    expect(emulator.received('stats')).toHaveLength(1)
  })

  it('the request limiter’s 429 naming no wait, after a record that allowed the update: no next update time', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', serviceAnswer(429, { success: false, error: 'Too many requests, please try again later.', status: 429 }))
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(outcome).toMatchObject({ result: 'rate-limited', status: 429, nextUpdateAt: undefined })
  })
})

describe('after the 6-hour refusal', () => {
  it('when the fresh record shows the same update the first one did: no overlap, and no next update time from the past', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', SIX_HOUR_429)
    const { outcome } = await statsRun(inputs(emulator), { clock })
    expect(emulator.received('record')).toHaveLength(2)
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, overlap: undefined, nextUpdateAt: undefined, strikeCause: 'unknown' })
    expect(outcome.error?.message, 'a strike fails the step').toMatch(/counted a strike against the API key/)
  })

  it('when the fresh record cannot be read: the refusal is reported, with no next update time from the first read', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', SIX_HOUR_429)
    const { outcome } = await statsRun(inputs(emulator), {
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
    const emulator = await service(clock, 2 * HOUR)
    const { outcome } = await statsRun(inputs(emulator, { 'cooldown-check': 'false' }), {
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

  it('sent without the record check to a bot not verified yet: the fresh read names the first day as the cause', async () => {
    const clock = new TestClock()
    const emulator = await ServiceEmulator.start({
      now: clock.now,
      bots: [{ id: BOT, apiKey: KEY, verified: false, createdAt: new Date(clock.now() - HOUR) }]
    })
    onTestFinished(() => emulator.close())
    const { outcome } = await statsRun(inputs(emulator, { 'cooldown-check': 'false' }), { clock })
    expect(emulator.received('record').map(r => r.status)).toEqual([403])
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429, strikeCause: 'unverified' })
    expect(outcome.error?.message).toMatch(
      /Likely cause: discord\.place has not verified the bot yet, and its submission counts as an update/
    )
  })
})

describe('an update whose answer was lost', () => {
  it('a connection that could not be made: nothing reached the service, so the report says it was not sent', async () => {
    const clock = new TestClock()
    const url = await closedUrl(clock)
    const { outcome } = await statsRun(
      { 'bot-id': BOT, 'api-key': KEY, 'base-url': url, 'command-count': '14', 'cooldown-check': 'false' },
      { clock }
    )
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent', status: undefined })
    expect(outcome.error?.message).toMatch(
      /^Stats update failed: could not connect to 127\.0\.0\.1:\d+: the connection was refused\. Nothing reached the service\. Check base-url and the runner's network; the next run will try again\.$/
    )
  })

  it('dropped, and the record cannot tell whether it arrived: failed, maybe delivered, and not sent again', async () => {
    const clock = new TestClock()
    const emulator = await service(clock, 7 * HOUR, { verified: false })
    emulator.inject('stats', { kind: 'reset' })
    const { outcome } = await statsRun(inputs(emulator, { 'cooldown-check': 'false' }), { clock })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'no-answer', status: undefined })
    expect(outcome.error?.message).toMatch(
      /^Stats update failed: the connection to 127\.0\.0\.1:\d+ failed \(ECONNRESET\)\. The update may have reached the service, so it was not sent again: a second update within 6 hours would count as a strike against the key\. Check the bot's page; the next run will update it if needed\.$/
    )
  })

  it.each([
    [
      'did not arrive: sent once more',
      { kind: 'reset' } as Fault,
      'The public record shows the update did not arrive and none is due before it; sending it once more.'
    ],
    [
      'arrived: not sent again',
      { kind: 'reset-after-handling' } as Fault,
      'The connection failed after the update was sent, but the public record shows it arrived.'
    ]
  ])('dropped, and the record shows it %s; the log says so', async (_, fault, line) => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', fault)
    const { outcome, log } = await statsRun(inputs(emulator), { clock })
    expect(outcome.result).toBe('updated')
    expect(log).toContain(line)
  })
})

describe('a stop', () => {
  it('just before the PATCH goes out: it is not sent, and the report says so', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const stop = new AbortController()
    const { outcome } = await statsRun(inputs(emulator), {
      clock,
      signal: stop.signal,
      onLog: line => {
        if (line.startsWith('Sending PATCH')) stop.abort(new StoppedError('SIGINT'))
      }
    })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGINT (a cancelled workflow or a time limit). The stats update was not sent.'
    )
  })

  it('during a dry run: nothing was sent, as in any dry run', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('record', { kind: 'hang' })
    const stop = new AbortController()
    const { outcome } = await statsRun(inputs(emulator, { 'dry-run': 'true' }), {
      clock,
      signal: stop.signal,
      onLog: line => {
        if (line.startsWith("Reading the bot's public record")) setTimeout(() => stop.abort(new StoppedError('SIGTERM')), 20)
      }
    })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). Nothing was sent (dry run).'
    )
  })

  it('while the PATCH is in flight: sent, no answer, and the next run will not send it twice', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'hang' })
    const stop = new AbortController()
    const { outcome } = await statsRun(inputs(emulator), {
      clock,
      signal: stop.signal,
      onLog: line => {
        if (line.startsWith('Sending PATCH')) setTimeout(() => stop.abort(new StoppedError('SIGTERM')), 20)
      }
    })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). The stats update was sent, and no answer came back: ' +
        'the service may have stored it. With cooldown-check: true the next run reads the public record first and does not send it twice.'
    )
  })
})
