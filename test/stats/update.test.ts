/**
 * The stats mode's run (src/stats/update.ts): what it sends and when, in process against the
 * service emulator (which answers as service-behaviour.md says) on a clock the test controls.
 * A due update is sent once; the 6-hour window read from the record, with its margin, holds one
 * back; a bot not verified yet gets none (the first day); a dry run promises nothing a real run
 * would not do; overlapping runs cost at most one strike; an update whose answer was lost is
 * sent again only when the record proves it did not arrive; the log says what the service
 * answered; a bug is thrown. Elsewhere: a record that cannot be trusted (record.test.ts), the
 * counts and when Discord is asked (counts.test.ts), the service's answers to the update
 * (answers.test.ts), the key check of a run that sends nothing (test/shared/service.test.ts), a
 * stop (stops.test.ts). Each rule of interface.md that decides what is sent has a test that
 * fails on a planted bug.
 */
import * as http from 'node:http'
import { describe, expect, it } from 'vitest'
import { outcomeLine } from '../../src/stats/report.js'
import { when } from '../../src/summary.js'
import { type Fault, recordFault, type ServiceEmulator, SIX_HOUR_REFUSAL, SIX_HOURS } from '../support/emulator.js'
import {
  BOT,
  botInputs,
  emulatedBot,
  HOUR,
  KEY,
  MINUTE,
  routes,
  statsInputs,
  statsRun,
  TestClock,
  unreachableUrl
} from '../support/inprocess.js'
import { listenForTest } from '../support/server.js'
import { annotations, expectCleanFailure, statsStep } from '../support/step.js'

describe('an update that is due', () => {
  it('reads the record, sends one PATCH with only the counts resolved, and reports the answer', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(routes(emulator)).toEqual(['GET ', 'PATCH /stats'])
    expect(emulator.requests[1]!.body).toBe('{"command_count":14}')
    expect(emulator.requests[1]!.headers['authorization']).toBe(KEY)
    expect(outcome).toMatchObject({ result: 'updated', status: 200, delivery: 'answered', error: undefined })
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() + SIX_HOURS + MINUTE)
    expect(emulator.bot(BOT).commands).toBe(14)
  })

  it('with cooldown-check: false, sends without reading the record', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { outcome } = await statsRun(botInputs(emulator, { 'server-count': '1250', 'cooldown-check': 'false' }), { clock })
    expect(routes(emulator)).toEqual(['PATCH /stats'])
    expect(outcome.result).toBe('updated')
  })

  it('works with a base-url that has a path prefix and a trailing slash', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { service: { prefix: '/api/v1' } })
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5', 'base-url': `${emulator.url}/` }), clock)
    expect(run.outcome.result).toBe('updated')
    expect(emulator.requests.map(r => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/bots/${BOT}`, `PATCH /api/v1/bots/${BOT}/stats`])
  })
})

describe('the 6-hour window, read from the record', () => {
  it('skips an update within 6 hours of the last (plus a minute of margin), checks the key, and reports no status', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(routes(emulator)).toEqual(['GET ', `GET /voters/${BOT}`])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'recent', status: undefined, keyCheck: { state: 'valid' } })
    expect(outcome.nextUpdateAt?.getTime()).toBe(clock.now() - 2 * HOUR + SIX_HOURS + MINUTE)
  })

  it('a skip within 6 hours: no strike, the notice says from when the next update goes, the counts it would send in the outputs, no status', async () => {
    const clock = new TestClock()
    const updated = new Date(clock.now() - 2 * HOUR)
    const emulator = await emulatedBot(clock, { seed: { serversUpdatedAt: updated } })
    const run = await statsStep(statsInputs(emulator, { 'command-count': '', 'server-count': '1260' }), clock)
    const next = new Date(updated.getTime() + SIX_HOURS + MINUTE)
    expect(run.failure).toBeUndefined()
    expect(emulator.received('stats')).toHaveLength(0)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toEqual({ result: 'skipped', 'server-count': '1260', 'next-update-at': next.toISOString() })
    expect(annotations(run, 'notice')).toEqual([expect.stringContaining(`The next update is accepted from ${when(next, run.outcome.at)}`)])
    expect(run.summary).toContain('not sent: too soon')
  })

  it.each([
    ['within the window and its margin: skipped', SIX_HOURS - MINUTE + 1000, 'skipped'],
    ['exactly 6 hours and the margin after the last update: sent', SIX_HOURS + MINUTE, 'updated'],
    ['a second later: sent', SIX_HOURS + MINUTE + 1000, 'updated']
  ])('sends once the window and the margin have passed, not before: %s', async (_, ago, result) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago })
    expect((await statsRun(statsInputs(emulator), { clock })).outcome.result).toBe(result)
  })
})

describe('the first day: a bot submitted an hour ago, not verified yet', () => {
  /** The live service stamps a new bot's command count with its creation time (service-behaviour.md). */
  const firstDay = (clock: TestClock) => ({ verified: false, createdAt: new Date(clock.now() - HOUR), commandsUpdatedAt: undefined })

  it("the record's 403: nothing sent, skipped, the key still checked, a green step with the first-day notice", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: firstDay(clock) })
    const run = await statsStep(statsInputs(emulator), clock)
    const { outcome } = run
    expect(routes(emulator)).toEqual(['GET ', `GET /voters/${BOT}`])
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'unverified', keyCheck: { state: 'valid' }, error: undefined })
    expect(outcomeLine(outcome)).toMatchObject({ kind: 'notice', title: 'Stats not sent' })
    expect(run.failure).toBeUndefined()
    expect(emulator.received('record').map(r => r.status)).toEqual([403])
    expect(emulator.received('stats'), 'no PATCH').toHaveLength(0)
    expect(emulator.received('votes'), 'the key is still checked').toHaveLength(1)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['status']).toBeUndefined()
    const notices = annotations(run, 'notice')
    expect(notices).toEqual([expect.stringMatching(/discord\.place has not verified the bot yet/)])
    expect(notices[0]).toMatch(/Updates start once discord\.place verifies the bot \(its page is not public until then\)/)
    expect(notices[0]).toMatch(/cooldown-check: false sends anyway/)
    expect(annotations(run, 'warning')).toEqual([])
    expect(run.summary).toMatch(/<h3>⏸️ [^<]*: not sent: the bot is not verified yet<\/h3>/)
  })

  it('"Run workflow" pressed five times: nothing sent, no strike, five green skips', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: firstDay(clock) })
    for (let press = 0; press < 5; press++) {
      const { outcome } = await statsRun(statsInputs(emulator), { clock })
      expect(outcome, `press ${press + 1}`).toMatchObject({ result: 'skipped', skip: 'unverified', error: undefined })
      clock.advance(5 * MINUTE)
    }
    expect(emulator.received('stats'), 'no PATCH in five runs').toEqual([])
    expect(emulator.bot(BOT).strikes).toEqual([])
    expect(emulator.bot(BOT).apiKey, "the key is still the bot's").toBe(KEY)
  })

  it('a dry run says a real run would not send, for the same reason', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: firstDay(clock) })
    const { outcome } = await statsRun(statsInputs(emulator, { 'dry-run': 'true' }), { clock })
    expect(outcome).toMatchObject({ result: 'dry-run', skip: 'unverified' })
    expect(outcomeLine(outcome).text).toMatch(/A real run would not send: discord\.place has not verified the bot yet/)
  })
})

describe('a dry run', () => {
  it('a dry run reads the record, sends nothing, needs no key, and reports the counts a real run would send', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const run = await statsStep(
      { 'bot-id': BOT, 'command-count': '14', 'server-count': '1260', 'base-url': emulator.url, 'dry-run': 'true' },
      clock
    )
    expect(run.failure).toBeUndefined()
    expect(emulator.requests.map(r => r.route)).toEqual(['record'])
    expect(run.outputs).toMatchObject({ result: 'dry-run', 'command-count': '14', 'server-count': '1260' })
    expect(run.outputs['status'], 'nothing was sent: no status').toBeUndefined()
    expect(run.summary).toContain('<tr><td>Servers</td><td>1,204</td><td>1,260</td><td>input server-count</td></tr>')
    expect(run.summary).toContain('dry run: nothing sent, a real run would send')
  })

  it.each([
    ['unreachable', async (clock: TestClock) => ({ 'base-url': await unreachableUrl(clock) }), 'unreachable'],
    ['a bot the service does not list (404)', async () => ({ 'bot-id': '999999999999999999' }), 'absent']
  ] as const)('a dry run with a record %s fails as a real run would, with the same error', async (_, more, problem) => {
    // interface.md, "A dry run fails where a real run would fail": the dry run promises nothing a real run would not do.
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const given = { ...statsInputs(emulator), ...(await more(clock)) }
    const dry = await statsRun({ ...given, 'dry-run': 'true', 'api-key': '' }, { clock })
    const real = await statsRun(given, { clock })
    expect(dry.outcome).toMatchObject({ result: 'failed', record: { ok: false, problem } })
    expect(real.outcome).toMatchObject({ result: 'failed', record: { ok: false, problem } })
    expect(dry.outcome.error?.message).toBe(real.outcome.error?.message)
    expect(emulator.received('stats')).toEqual([])
  })

  it('a dry run whose record came from a cache says a real run would not send, as a real run skips', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', recordFault(BOT, new Date(clock.now() - 7 * HOUR), { Age: '120' }))
    const { outcome } = await statsRun(statsInputs(emulator, { 'dry-run': 'true', 'api-key': '' }), { clock })
    expect(outcome).toMatchObject({ result: 'dry-run', skip: 'unchecked' })
  })
})

/**
 * A front for `emulator`, at an address of its own, that holds the first `count` reads of the
 * bot's record until all of them have arrived, then passes them on together; everything else
 * (and every later read) passes straight through. `count` runs started at once thus all read
 * the record before any of them can send its update, however the machine schedules them.
 */
async function recordReadsHeldTogether(emulator: ServiceEmulator, count: number): Promise<{ url: string }> {
  const held: (() => void)[] = []
  const server = http.createServer((req, res) => {
    const pass = (): void => {
      const options = { host: '127.0.0.1', port: emulator.port, method: req.method, path: req.url, headers: req.headers }
      const upstream = http.request(options, answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      upstream.on('error', () => res.destroy())
      req.pipe(upstream)
    }
    if (held.length >= count || req.method !== 'GET' || req.url !== `/bots/${BOT}`) return pass()
    held.push(pass)
    if (held.length === count) for (const release of held) release()
  })
  return { url: `http://127.0.0.1:${await listenForTest(server)}` }
}

describe('overlapping runs', () => {
  it('two runs at once, both reading the record before either update lands: one update, at most one strike, and the run that lost says another run updated first', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 7 * 24 * HOUR })
    // Each run's record read waits for the other's, as two runs started together over the
    // internet both read the record before either update lands.
    const service = await recordReadsHeldTogether(emulator, 2)
    const [a, b] = await Promise.all([statsRun(statsInputs(service), { clock }), statsRun(statsInputs(service), { clock })])
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
    const emulator = await emulatedBot(clock, { ago: 7 * 24 * HOUR })
    const first = await statsRun(statsInputs(emulator), { clock })
    clock.advance(20_000)
    const second = await statsRun(statsInputs(emulator), { clock })
    expect([first.outcome.result, second.outcome.result]).toEqual(['updated', 'skipped'])
    expect(emulator.bot(BOT).strikes).toEqual([])
  })
})

describe('an update whose answer was lost', () => {
  it('a connection that could not be made: nothing reached the service, so the report says it was not sent', async () => {
    const clock = new TestClock()
    const url = await unreachableUrl(clock)
    const { outcome } = await statsRun(statsInputs({ url }, { 'cooldown-check': 'false' }), { clock })
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent', status: undefined })
    expect(outcome.error?.message).toMatch(
      /^Stats update failed: could not connect to 127\.0\.0\.1:\d+: the connection was refused\. Nothing reached the service\. Check base-url and the runner's network; the next run will try again\.$/
    )
  })

  it('an interim 103 and then a dropped connection is no answer: the record is read again, and the update sent once more', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'interim-then-reset' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(routes(emulator)).toEqual(['GET ', 'PATCH /stats', 'GET ', 'PATCH /stats'])
    expect(outcome).toMatchObject({ result: 'updated', status: 200, delivery: 'answered' })
    expect(emulator.bot(BOT).strikes).toEqual([])
  })

  it.each([
    [
      'did not arrive (dropped before the service looked at it): sent once more',
      { kind: 'reset' } as Fault,
      ['GET ', 'PATCH /stats', 'GET ', 'PATCH /stats'],
      { result: 'updated', status: 200 },
      'The public record shows the update did not arrive and none is due before it; sending it once more.'
    ],
    [
      'arrived (dropped after the service stored it): updated, never sent twice',
      { kind: 'reset-after-handling' } as Fault,
      ['GET ', 'PATCH /stats', 'GET '],
      { result: 'updated', delivery: 'arrived', status: undefined },
      'The connection failed after the update was sent, but the public record shows it arrived.'
    ]
  ])('dropped, and the record shows it %s; the log says so', async (_, fault, requests, expected, line) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', fault)
    const { outcome, log } = await statsRun(statsInputs(emulator), { clock })
    expect(routes(emulator)).toEqual(requests)
    expect(outcome).toMatchObject(expected)
    expect(log).toContain(line)
  })

  it.each([
    [
      'sends the update once more when the connection dropped and the record shows it did not arrive: no strike',
      { kind: 'reset' } as Fault,
      ['stats 0', 'record 200', 'stats 200'],
      '200'
    ],
    [
      'does not send the update again when the record shows it arrived before the connection dropped',
      { kind: 'reset-after-handling' } as Fault,
      // The service stored it (its 200), and the connection dropped before the answer went out.
      ['stats 200', 'record 200'],
      undefined
    ]
  ])('%s', async (_, fault, requests, status) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', fault)
    const run = await statsStep(statsInputs(emulator, { 'command-count': '5', 'cooldown-check': 'false' }), clock)
    expect(run.failure, run.log.join('\n')).toBeUndefined()
    expect(emulator.requests.map(r => `${r.route} ${r.status}`)).toEqual(requests)
    expect(emulator.bot(BOT).commands).toBe(5)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs['result']).toBe('updated')
    expect(run.outputs['status'], status === undefined ? 'no answer came back' : 'the answer to the update sent again').toBe(status)
  })

  it('dropped, and the record cannot tell whether it arrived: failed, maybe delivered, and not sent again', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: { verified: false } })
    emulator.inject('stats', { kind: 'reset' })
    const run = await statsStep(statsInputs(emulator, { 'cooldown-check': 'false' }), clock)
    expect(emulator.received('stats')).toHaveLength(1)
    expect(run.outcome).toMatchObject({ result: 'failed', delivery: 'no-answer', status: undefined })
    expect(expectCleanFailure(run)).toMatch(
      /^Stats update failed: the connection to 127\.0\.0\.1:\d+ failed \(ECONNRESET\)\. The update may have reached the service, so it was not sent again: a second update within 6 hours would count as a strike against the key\. Check the bot's page; the next run will update it if needed\.$/
    )
  })

  it('dropped twice: failed, and not sent a third time', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'reset' })
    emulator.inject('stats', { kind: 'reset' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('stats')).toHaveLength(2)
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/failed twice/)
  })

  it('a status line then a cut body is an answer: not sent again', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'partial', status: 200, body: '{"success":tr' })
    const { outcome } = await statsRun(statsInputs(emulator), { clock })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'updated', status: 200 })
  })

  it.each([
    ['the body is cut off after the status line', { kind: 'partial', status: 200, body: '{"success": tr' }, 'updated'],
    ['the headers overflow', { kind: 'answer', status: 503, headers: { 'X-Padding': 'p'.repeat(20_000) }, body: '' }, 'failed']
  ] as const)('a received status line is an answer (%s): not sent again, status set', async (_, fault, outcome) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', fault)
    const run = await statsStep(statsInputs(emulator, { 'cooldown-check': 'false' }), clock)
    expect(run.failure === undefined).toBe(outcome !== 'failed')
    expect(emulator.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(emulator.received('record'), 'no delivery check: the service answered').toHaveLength(0)
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: outcome, status: String(fault.status) })
    expect(run.log.join('\n')).toMatch(/answer stopped after its status line/)
  })

  it('the delivery check asks for no cache, and a cached record (Age > 0) cannot prove non-delivery', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'reset' })
    emulator.inject('record', recordFault(BOT, new Date(clock.now() - 30 * 24 * HOUR), { Age: '30' }))
    const run = await statsStep(statsInputs(emulator, { 'cooldown-check': 'false' }), clock)
    expect(expectCleanFailure(run)).toMatch(/may have reached the service, so it was not sent again/)
    expect(emulator.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(emulator.received('record')[0]!.headers['cache-control']).toBe('no-cache')
    expect(emulator.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'failed' })
    expect(run.outputs['status']).toBeUndefined()
    expect(run.log.join('\n')).toMatch(/came from a cache \(Age > 0\)/)
  })
})

describe('the log', () => {
  it.each([
    ['an update', undefined, 'The service answered 200'],
    ['the 6-hour refusal, with its words', SIX_HOUR_REFUSAL, 'The service answered 429: You can only update stats once every 6 hours.']
  ])('says what the service answered: %s', async (_, fault, line) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    if (fault !== undefined) emulator.inject('stats', fault)
    const { log } = await statsRun(statsInputs(emulator), { clock })
    expect(log).toContain(line)
  })
})

describe('a bug', () => {
  it('is thrown, not reported as an expected failure', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const bug = new TypeError('a bug')
    const running = statsRun(statsInputs(emulator), {
      clock,
      onLog: line => {
        if (line.startsWith('Sending PATCH')) throw bug
      }
    })
    await expect(running).rejects.toBe(bug)
    expect(emulator.received('stats')).toEqual([])
  })
})
