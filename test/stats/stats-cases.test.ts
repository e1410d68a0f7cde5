/**
 * The stats mode's decisions that used to be checked by running the bundle (test/e2e/stats.test.ts),
 * in process: runStats against the service emulator on a clock the test controls, then the
 * step's report (reportStats) as main.ts writes it, read back as a workflow would see it: the
 * outputs file, the summary section and the workflow commands printed. Each case keeps the
 * assertions it had end to end, in the current wording. Cases already asserted in
 * test/stats/stats-flow.test.ts or test/stats/report.test.ts are not repeated here; where one of those
 * covers a case in part, only the rest of the case is here.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { ActionError } from '../../src/errors.js'
import type { StatsSettings } from '../../src/settings.js'
import { reportStats } from '../../src/stats/report.js'
import type { StatsOutcome } from '../../src/stats/update.js'
import { when } from '../../src/summary.js'
import { parseCommands, parseOutputFile, type WorkflowCommand } from '../support/action.js'
import { type BotSeed, type EmulatorOptions, type Fault, ServiceEmulator, SIX_HOURS } from '../support/emulator.js'
import { DiscordFake } from '../support/fakes.js'
import { settingsFor, statsRun, TestClock } from '../support/inprocess.js'

const BOT = '123456789012345678'
const KEY = 'dp_live_k3y.with-symbols_9f8e7d6c5b4a'
const HOUR = 60 * 60 * 1000
/** The margin every 6-hour comparison keeps for the runner's clock against the service's. */
const MARGIN = 60_000
/** Where every TestClock starts. */
const START = new TestClock().now()

// ---------------------------------------------------------------------------------------
// A step in process: the run, then its report, read back from the runner's files
// ---------------------------------------------------------------------------------------

/** One pair of runner files for the file: @actions/core keeps the summary's path once it has read it. */
let files: { dir: string; output: string; summary: string }
const savedEnv = { output: process.env['GITHUB_OUTPUT'], summary: process.env['GITHUB_STEP_SUMMARY'] }
beforeAll(() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stats-cases-'))
  files = { dir, output: path.join(dir, 'output'), summary: path.join(dir, 'summary') }
  process.env['GITHUB_OUTPUT'] = files.output
  process.env['GITHUB_STEP_SUMMARY'] = files.summary
})
afterAll(() => {
  for (const [name, value] of [
    ['GITHUB_OUTPUT', savedEnv.output],
    ['GITHUB_STEP_SUMMARY', savedEnv.summary]
  ] as const) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  fs.rmSync(files.dir, { recursive: true, force: true })
})

interface Step {
  outcome: StatsOutcome
  /** The run's own log lines. */
  log: string[]
  outputs: Record<string, string>
  summary: string
  /** The workflow commands the report printed (annotations), as the runner reads them. */
  commands: WorkflowCommand[]
  /** What main.ts fails the step with (its one `::error::`), if anything. */
  failure: string | undefined
  /** Every wait the run asked for. */
  waits: number[]
}

/** Runs the stats mode with these inputs, then writes its report as the step does. */
async function step(given: Record<string, string>, clock: TestClock): Promise<Step> {
  const { outcome, log } = await statsRun(given, { clock })
  fs.writeFileSync(files.output, '')
  fs.writeFileSync(files.summary, '')
  const printed: string[] = []
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    printed.push(String(chunk))
    return true
  })
  let failure: string | undefined
  try {
    failure = await reportStats(settingsFor<StatsSettings>(given), outcome)
  } finally {
    spy.mockRestore()
  }
  return {
    outcome,
    log,
    outputs: parseOutputFile(fs.readFileSync(files.output, 'utf8')),
    summary: fs.readFileSync(files.summary, 'utf8'),
    commands: parseCommands(printed.join('')).commands,
    failure,
    waits: clock.waits
  }
}

/** An emulator on the test's clock with the example bot (12 commands, 1,204 servers, Discord sees 1,250). */
async function start(clock: TestClock, bot: Partial<BotSeed> = {}, options: EmulatorOptions = {}): Promise<ServiceEmulator> {
  const emulator = await ServiceEmulator.start({
    now: clock.now,
    bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204, realServerCount: 1250, ...bot }],
    ...options
  })
  onTestFinished(() => emulator.close())
  return emulator
}

const inputs = (service: ServiceEmulator, extra: Record<string, string> = {}): Record<string, string> => ({
  'bot-id': BOT,
  'api-key': KEY,
  'command-count': '14',
  'base-url': service.url,
  ...extra
})

const annotations = (run: Step, kind: 'error' | 'warning' | 'notice'): string[] =>
  run.commands.filter(c => c.command === kind).map(c => c.message)

/**
 * A failure as the step reports it: main.ts fails the step with the one message the report
 * returns (its one `::error::` line), and the report prints no error of its own. An ActionError
 * is an expected failure: main.ts prints no stack trace for it.
 */
function expectCleanFailure(run: Step): string {
  expect(run.outcome.result).toBe('failed')
  expect(run.outcome.error, 'an expected failure, reported without a stack trace').toBeInstanceOf(ActionError)
  expect(run.failure).toBe(run.outcome.error!.message)
  expect(annotations(run, 'error'), 'no ::error:: but the one main.ts prints').toEqual([])
  // The headline says why in a few words (interface.md, "Every word true of the run").
  expect(run.summary).toMatch(/<h3>❌ [^<]*(<a [^>]*>[^<]*<\/a>)?[^<]*: failed: [^<]+<\/h3>/)
  return run.failure!
}

/** A JSON answer of the service's, once, for the next request to a route. */
function serviceAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Fault {
  return { kind: 'answer', status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

// ---------------------------------------------------------------------------------------
// Updates that go through
// ---------------------------------------------------------------------------------------

describe('an update that goes through', () => {
  // stats-flow.test.ts ("a command-count: 0 input ... is sent") asserts the body and the stored 0.
  it('writes a count of 0 to the outputs as 0, and no output for a count not given', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const run = await step(inputs(service, { 'command-count': '0' }), clock)
    expect(run.outputs).toMatchObject({ result: 'updated', 'command-count': '0', status: '200' })
    expect(run.outputs['server-count']).toBeUndefined()
    expect(service.bot(BOT)).toMatchObject({ commands: 0, servers: 1204 })
  })

  it('works with a base-url that has a path prefix and a trailing slash', async () => {
    const clock = new TestClock()
    const service = await start(clock, {}, { prefix: '/api/v1' })
    const run = await step(inputs(service, { 'command-count': '5', 'base-url': `${service.url}/` }), clock)
    expect(run.outcome.result).toBe('updated')
    expect(service.requests.map(r => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/bots/${BOT}`, `PATCH /api/v1/bots/${BOT}/stats`])
  })

  it.each([
    ['204 No Content', { kind: 'answer', status: 204, body: '' }],
    ['201 with a text body', { kind: 'answer', status: 201, headers: { 'Content-Type': 'text/plain' }, body: 'ok' }]
  ] as const)('takes any 2xx as success: %s', async (_, fault) => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', fault)
    const run = await step(inputs(service, { 'command-count': '5' }), clock)
    expect(run.failure).toBeUndefined()
    expect(run.outputs).toMatchObject({ result: 'updated', status: String(fault.status) })
  })
})

// ---------------------------------------------------------------------------------------
// Runs that send nothing: the cooldown check, dry runs
// ---------------------------------------------------------------------------------------

describe('runs that send nothing', () => {
  // stats-flow.test.ts asserts the requests (record, key check), the result and next-update-at;
  // report.test.ts the headline and the outputs of a skip.
  it('a skip within 6 hours: no strike, the notice says from when the next update goes, the counts it would send in the outputs, no status', async () => {
    const clock = new TestClock()
    const updated = new Date(clock.now() - 2 * HOUR)
    const service = await start(clock, { serversUpdatedAt: updated })
    const run = await step(inputs(service, { 'command-count': '', 'server-count': '1260' }), clock)
    const next = new Date(updated.getTime() + SIX_HOURS + MARGIN)
    expect(run.failure).toBeUndefined()
    expect(service.received('stats')).toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toEqual({ result: 'skipped', 'server-count': '1260', 'next-update-at': next.toISOString() })
    expect(annotations(run, 'notice')).toEqual([expect.stringContaining(`The next update is accepted from ${when(next, run.outcome.at)}`)])
    expect(run.summary).toContain('not sent: too soon')
  })

  // stats-flow.test.ts: a dry run without a key sends no key check.
  it('a dry run reads the record, sends nothing, needs no key, and reports the counts a real run would send', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const run = await step(
      { 'bot-id': BOT, 'command-count': '14', 'server-count': '1260', 'base-url': service.url, 'dry-run': 'true' },
      clock
    )
    expect(run.failure).toBeUndefined()
    expect(service.requests.map(r => r.route)).toEqual(['record'])
    expect(run.outputs).toMatchObject({ result: 'dry-run', 'command-count': '14', 'server-count': '1260' })
    expect(run.outputs['status'], 'nothing was sent: no status').toBeUndefined()
    expect(run.summary).toContain('<tr><td>Servers</td><td>1,204</td><td>1,260</td><td>input server-count</td></tr>')
    expect(run.summary).toContain('dry run: nothing sent, a real run would send')
  })

  // stats-flow.test.ts: nothing sent, skipped as unchecked.
  it('a record served from a cache (Age > 0) that shows an old update: sends nothing, as it may predate the last update', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const old = new Date(clock.now() - 7 * HOUR).toISOString()
    service.inject(
      'record',
      serviceAnswer(
        200,
        { id: BOT, commands: 12, servers: 1204, commands_updated_at: old, servers_updated_at: old, verified: true },
        { Age: '120' }
      )
    )
    const run = await step(inputs(service), clock)
    expect(run.failure).toBeUndefined()
    expect(service.received('stats'), 'no PATCH').toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['next-update-at'] ?? '').toBe('')
    expect(annotations(run, 'warning')).toEqual([expect.stringMatching(/^Stats not sent: the bot's public record came from a cache/)])
    expect(
      annotations(run, 'notice').filter(n => /less than 6 hours ago|too soon/.test(n)),
      'no notice of a recent update: the record could not tell'
    ).toEqual([])
    expect(run.summary).toContain('not sent: the bot&#39;s record could not be checked')
  })

  // stats-flow.test.ts: the read limiter waited out, then the update sent.
  it('read limiter (10/min per IP, 429 + Retry-After): waits it out, reads again, and skips a recent update', async () => {
    const clock = new TestClock()
    const updated = new Date(clock.now() - HOUR)
    const service = await start(clock, { commandsUpdatedAt: updated })
    service.spendLimit('record', '127.0.0.1', 10)
    const run = await step(inputs(service), clock)
    expect(run.failure).toBeUndefined()
    expect(service.received('record').map(r => r.status)).toEqual([429, 200])
    expect(service.received('stats'), 'no PATCH: the record, once read, shows a recent update').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({
      result: 'skipped',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString()
    })
    expect(run.outputs['status'], 'the record read is not the update').toBeUndefined()
    expect(run.log.join('\n')).toMatch(/read limit answered 429; reading the record again in 60 s/)
  })

  it('read limiter asking for more than the timeout leaves: sends nothing, skipped with a warning', async () => {
    const clock = new TestClock()
    const service = await start(clock, { commandsUpdatedAt: new Date(clock.now() - HOUR) })
    service.spendLimit('record', '127.0.0.1', 10) // the live limiter: Retry-After: 60
    const run = await step(inputs(service, { timeout: '20', 'request-timeout': '5' }), clock)
    expect(run.failure).toBeUndefined()
    expect(service.received('record')).toHaveLength(1)
    expect(service.received('stats'), 'no blind PATCH').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
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

  it('a 5xx on the record read is retried after a backoff even when it carries RateLimit-Reset', async () => {
    const clock = new TestClock()
    const updated = new Date(clock.now() - HOUR)
    const service = await start(clock, { commandsUpdatedAt: updated })
    service.inject('record', {
      kind: 'answer',
      status: 502,
      headers: { 'Content-Type': 'text/html', 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '1800' },
      body: '<html>502</html>'
    })
    const run = await step(inputs(service), clock)
    expect(service.received('record').map(r => r.status)).toEqual([502, 200])
    expect(
      run.waits.reduce((sum, ms) => sum + ms, 0),
      'retried after a backoff, not after RateLimit-Reset'
    ).toBeLessThan(10_000)
    expect(service.received('stats')).toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({
      result: 'skipped',
      'next-update-at': new Date(updated.getTime() + SIX_HOURS + MARGIN).toISOString()
    })
  })

  // stats-flow.test.ts: skipped, nothing sent, when the service's clock lags.
  it("6-hour rule with the service's clock 5 minutes behind (its Date header): next-update-at allows for the lag", async () => {
    const clock = new TestClock()
    const behind = 5 * 60_000
    // By the service's clock the last update is 5 h 57 min old; by the runner's, 6 h 2 min.
    const updated = new Date(clock.now() - SIX_HOURS - 2 * 60_000)
    const service = await start(clock, { commandsUpdatedAt: updated }, { now: () => clock.now() - behind })
    const run = await step(inputs(service), clock)
    expect(service.received('stats'), 'no PATCH while the service still counts 6 hours').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['status']).toBeUndefined()
    const next = Date.parse(run.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(updated.getTime() + SIX_HOURS + behind - 2_000)
    expect(next).toBeLessThanOrEqual(updated.getTime() + SIX_HOURS + behind + MARGIN)
  })
})

// ---------------------------------------------------------------------------------------
// The service's answers to the update
// ---------------------------------------------------------------------------------------

describe('answers to the update', () => {
  // stats-flow.test.ts asserts the requests, the strike, result, status and next-update-at.
  it('6-hour 429: a strike fails the step with one error that quotes the service, names the strike and its cause; no warning repeats it', async () => {
    const clock = new TestClock()
    const service = await start(clock, { commandsUpdatedAt: new Date(clock.now() - HOUR) })
    const run = await step(inputs(service, { 'cooldown-check': 'false' }), clock)
    expect(run.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    expect(service.bot(BOT).strikes, 'the strike this run cost').toHaveLength(1)
    expect(run.failure, 'a strike is a red step').toMatch(
      /^Stats update refused as too early \(429: "You can only update stats once every 6 hours\."\)/
    )
    expect(run.failure).toMatch(/counted a strike against the API key, and 5 strikes within 6 hours revoke it/)
    expect(run.failure).toMatch(/Likely cause: it was sent without reading the record first \(cooldown-check: false\)/)
    expect(annotations(run, 'error'), 'no ::error:: but the one main.ts prints').toEqual([])
    expect(annotations(run, 'warning').filter(w => /strike/i.test(w))).toEqual([])
    expect(run.summary).toMatch(/<h3>🛑 [^<]*(<a [^>]*>[^<]*<\/a>)?[^<]*: refused: strike counted<\/h3>/)
    expect(run.summary).toContain('<strong>Error:</strong> Stats update refused as too early')
  })

  it('a limiter 429 with retry_after is rate-limited, next-update-at from the wait it names (not RateLimit-Reset), not retried', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    // The limiter's window ends in 30 minutes; the wait it names is 2 minutes. next-update-at
    // follows the named wait, never RateLimit-Reset (interface.md).
    service.inject(
      'stats',
      serviceAnswer(
        429,
        { success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 120 },
        { 'Retry-After': '120', 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1800' }
      )
    )
    const run = await step(inputs(service, { 'command-count': '5' }), clock)
    expect(run.failure).toBeUndefined()
    expect(service.received('stats')).toHaveLength(1)
    expect(run.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    expect(run.outputs['next-update-at'], 'from Retry-After, not from RateLimit-Reset').toBe(new Date(clock.now() + 120_000).toISOString())
  })

  it('leaves next-update-at empty for a limiter 429 that names no wait, whatever RateLimit-Reset says', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject(
      'stats',
      serviceAnswer(
        429,
        { success: false, error: 'Too many requests, please try again later.', status: 429 },
        { 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1500' }
      )
    )
    const run = await step(inputs(service, { 'command-count': '5', 'cooldown-check': 'false' }), clock)
    expect(run.failure).toBeUndefined()
    expect(run.outputs).toMatchObject({ result: 'rate-limited', status: '429' })
    expect(run.outputs['next-update-at'] ?? '', 'never from RateLimit-Reset').toBe('')
  })

  it.each([
    {
      name: 'a wrong key (401)',
      seed: { apiKey: 'another-key' },
      status: '401',
      expected: [/"Invalid API key\."/, /does not hold this bot's current key/, /regenerated or deleted/],
      headline: 'API key refused'
    },
    {
      name: 'an unknown bot (404)',
      seed: { id: '999999999999999999' },
      status: '404',
      expected: [/"Bot not found\."/, /Check bot-id/],
      headline: 'bot not listed on discord.place'
    },
    {
      name: 'a server count outside the tolerance (400)',
      seed: { realServerCount: 5000 },
      status: '400',
      expected: [/max\(50, 10%\)/],
      headline: 'count refused by discord.place'
    },
    {
      name: 'the 5th early update, which revokes the key (410)',
      seed: { serversUpdatedAt: new Date(START - HOUR), strikes: [1, 2, 3, 4].map(n => new Date(START - n * 10 * 60_000)) },
      status: '410',
      expected: [/fifth refused as early within 6 hours \(strikes\), so the service revoked the key/, /generate a new key.*6 hours apart/],
      headline: 'API key revoked (strikes)'
    }
  ])('fails clearly on $name, writing the known outputs, the headline saying why', async ({ seed, status, expected, headline }) => {
    const clock = new TestClock()
    const service = await start(clock, seed)
    const run = await step(inputs(service, { 'command-count': '', 'server-count': '1260', 'cooldown-check': 'false' }), clock)
    const message = expectCleanFailure(run)
    expect(service.received('stats')).toHaveLength(1)
    for (const pattern of expected) expect(message).toMatch(pattern)
    expect(run.outputs).toMatchObject({ result: 'failed', status, 'server-count': '1260' })
    expect(run.summary).toContain(`<tr><td>Answer</td><td>${status}`)
    expect(run.summary).toMatch(new RegExp(`^<h3>❌ [^\\n]*: failed: ${headline.replace(/[()]/g, '\\$&')}</h3>`))
  })

  it('quotes the service on a 500 and says the problem is on its side', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', serviceAnswer(500, { success: false, error: 'Could not fetch server count.', status: 500 }))
    const run = await step(inputs(service, { 'command-count': '', 'server-count': '1204' }), clock)
    expect(expectCleanFailure(run)).toMatch(/500 with "Could not fetch server count\.".*on its side/)
    expect(service.received('stats')).toHaveLength(1)
    expect(run.outputs).toMatchObject({ result: 'failed', status: '500' })
  })

  it('turns an HTML error page into a short message, and shows none of the page', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${'<p>upstream</p>'.repeat(400)}</body></html>`
    service.inject('stats', { kind: 'answer', status: 502, headers: { 'Content-Type': 'text/html' }, body: page })
    const run = await step(inputs(service, { 'command-count': '5' }), clock)
    const message = expectCleanFailure(run)
    expect(message).toContain('502')
    expect(message).toContain('non-JSON answer (text/html')
    expect(message).not.toContain('<')
    expect(run.summary).not.toContain('upstream')
    expect(service.received('stats')).toHaveLength(1)
  })

  it("shows raw control characters in the service's error text as escapes, in the error and the summary", async () => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', serviceAnswer(400, { success: false, error: 'bad \u001b[31mred\u001b[0m \u0007\u0000 count', status: 400 }))
    const run = await step(inputs(service, { 'command-count': '5' }), clock)
    const message = expectCleanFailure(run)
    // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
    const raw = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/
    expect(message).not.toMatch(raw)
    expect(run.summary).not.toMatch(raw)
    expect(message).toContain('bad \\x1b[31mred\\x1b[0m \\x07\\x00 count')
  })

  it('escapes HTML in the service error text in the summary', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', serviceAnswer(400, { success: false, error: '<img src=x onerror=alert(1)> | *bold*', status: 400 }))
    const run = await step(inputs(service, { 'command-count': '5' }), clock)
    expectCleanFailure(run)
    expect(run.summary).not.toContain('<img')
    expect(run.summary).toContain('&lt;img src=x onerror=alert(1)&gt; | *bold*')
  })

  it('fails clearly, as an expected failure, when the service cannot be reached', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const url = service.url
    await service.close()
    const run = await step(inputs(service, { 'command-count': '5', 'base-url': url }), clock)
    expect(expectCleanFailure(run)).toMatch(/could not connect to 127\.0\.0\.1:\d+: the connection was refused/)
    expect(run.summary).toMatch(/^<h3>❌ Bot \d+: failed: discord\.place unreachable<\/h3>/)
    expect(run.outputs['status']).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------
// The record when it cannot protect the update
// ---------------------------------------------------------------------------------------

describe('the record when it cannot protect the update', () => {
  // stats-flow.test.ts: no PATCH, failed, the bot named.
  it('a record that answers 404 (no such bot): fails before any PATCH, naming bot-id, with no status', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const run = await step({ ...inputs(service), 'bot-id': '999999999999999999' }, clock)
    expect(expectCleanFailure(run)).toMatch(/^The service lists no bot with ID 999999999999999999 .*Check bot-id/)
    expect(service.received('stats'), 'no PATCH').toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'failed' })
    expect(run.outputs['status'], 'the record read is not the update').toBeUndefined()
  })

  // The first day (interface.md, "The key's guardian"): a bot not verified yet gets no update.
  it('an unverified bot submitted an hour ago (record 403): nothing sent, skipped, a green step with the first-day notice', async () => {
    const clock = new TestClock()
    // The live service stamps a new bot's command count with its creation time (service-behaviour.md).
    const service = await start(clock, { verified: false, createdAt: new Date(clock.now() - HOUR) })
    const run = await step(inputs(service), clock)
    expect(run.failure).toBeUndefined()
    expect(service.received('record').map(r => r.status)).toEqual([403])
    expect(service.received('stats'), 'no PATCH').toHaveLength(0)
    expect(service.received('votes'), 'the key is still checked').toHaveLength(1)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'skipped' })
    expect(run.outputs['status']).toBeUndefined()
    const notices = annotations(run, 'notice')
    expect(notices).toEqual([expect.stringMatching(/discord\.place has not verified the bot yet/)])
    expect(notices[0]).toMatch(/Updates start once discord\.place verifies the bot \(its page is not public until then\)/)
    expect(notices[0]).toMatch(/cooldown-check: false sends anyway/)
    expect(annotations(run, 'warning')).toEqual([])
    expect(run.summary).toMatch(/<h3>⏸️ [^<]*: not sent: the bot is not verified yet<\/h3>/)
  })
})

// ---------------------------------------------------------------------------------------
// An update whose answer was lost
// ---------------------------------------------------------------------------------------

describe('an update whose answer was lost', () => {
  // stats-flow.test.ts follows both with the record read first; here the record is read only after the drop.
  it('sends the update once more when the connection dropped and the record shows it did not arrive: no strike', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', { kind: 'reset' })
    const run = await step(inputs(service, { 'command-count': '5', 'cooldown-check': 'false' }), clock)
    expect(run.failure, run.log.join('\n')).toBeUndefined()
    expect(service.requests.map(r => `${r.route} ${r.status}`)).toEqual(['stats 0', 'record 200', 'stats 200'])
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'updated', status: '200' })
  })

  it('does not send the update again when the record shows it arrived before the connection dropped', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', { kind: 'reset-after-handling' })
    const run = await step(inputs(service, { 'command-count': '5', 'cooldown-check': 'false' }), clock)
    expect(run.failure, run.log.join('\n')).toBeUndefined()
    expect(service.requests.map(r => r.route)).toEqual(['stats', 'record'])
    expect(service.bot(BOT).commands).toBe(5)
    expect(run.outputs['result']).toBe('updated')
    expect(run.outputs['status'], 'no answer came back').toBeUndefined()
  })

  it('does not send the update again when the record cannot tell whether it arrived', async () => {
    const clock = new TestClock()
    const service = await start(clock, { verified: false })
    service.inject('stats', { kind: 'reset' })
    const run = await step(inputs(service, { 'command-count': '5', 'cooldown-check': 'false' }), clock)
    expect(expectCleanFailure(run)).toMatch(/may have reached the service, so it was not sent again/)
    expect(service.received('stats')).toHaveLength(1)
  })

  // stats-flow.test.ts: the cut body with the record read; here without it, and the headers case.
  it.each([
    ['the body is cut off after the status line', { kind: 'partial', status: 200, body: '{"success": tr' }, 'updated'],
    ['the headers overflow', { kind: 'answer', status: 503, headers: { 'X-Padding': 'p'.repeat(20_000) }, body: '' }, 'failed']
  ] as const)('a received status line is an answer (%s): not sent again, status set', async (_, fault, outcome) => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', fault)
    const run = await step(inputs(service, { 'cooldown-check': 'false' }), clock)
    expect(run.failure === undefined).toBe(outcome !== 'failed')
    expect(service.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(service.received('record'), 'no delivery check: the service answered').toHaveLength(0)
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: outcome, status: String(fault.status) })
    expect(run.log.join('\n')).toMatch(/answer stopped after its status line/)
  })

  it('the delivery check asks for no cache, and a cached record (Age > 0) cannot prove non-delivery', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    service.inject('stats', { kind: 'reset' })
    const old = new Date(clock.now() - 30 * 24 * HOUR).toISOString()
    service.inject(
      'record',
      serviceAnswer(200, { id: BOT, commands: 12, commands_updated_at: old, servers: 1204, servers_updated_at: old }, { Age: '30' })
    )
    const run = await step(inputs(service, { 'cooldown-check': 'false' }), clock)
    expect(expectCleanFailure(run)).toMatch(/may have reached the service, so it was not sent again/)
    expect(service.received('stats'), 'exactly one PATCH').toHaveLength(1)
    expect(service.received('record')[0]!.headers['cache-control']).toBe('no-cache')
    expect(service.bot(BOT).strikes).toHaveLength(0)
    expect(run.outputs).toMatchObject({ result: 'failed' })
    expect(run.outputs['status']).toBeUndefined()
    expect(run.log.join('\n')).toMatch(/came from a cache \(Age > 0\)/)
  })
})

// ---------------------------------------------------------------------------------------
// Discord as a source: its answers and limits
// ---------------------------------------------------------------------------------------

describe("Discord's answers", () => {
  const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GxYzAb.Qm4vR7tW2pK9sL5nX8cJ_0z3'

  async function discord(): Promise<DiscordFake> {
    const fake = await DiscordFake.start({ token: TOKEN, applicationId: BOT, guildCount: 1250, commands: [] })
    onTestFinished(() => fake.close())
    return fake
  }

  /** An update due without the record read, the server count read from Discord. */
  const fromDiscord = (service: ServiceEmulator, fake: DiscordFake): Record<string, string> =>
    inputs(service, { 'command-count': '1', 'cooldown-check': 'false', 'discord-token': TOKEN, 'discord-api-url': fake.url })

  it('waits the retry_after of a 429, then goes on', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const fake = await discord()
    fake.inject('application', DiscordFake.rateLimited(0.3))
    const run = await step(fromDiscord(service, fake), clock)
    expect(run.failure).toBeUndefined()
    expect(fake.requests.map(r => r.status)).toEqual([429, 200])
    expect(run.waits).toContain(300)
    expect(service.received('stats').map(r => JSON.parse(r.body) as unknown)).toEqual([{ command_count: 1, server_count: 1250 }])
  })

  it('retries a 503 and a dropped connection', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const fake = await discord()
    fake.inject('application', { kind: 'answer', status: 503, body: 'upstream connect error' })
    fake.inject('application', { kind: 'reset' })
    const run = await step(fromDiscord(service, fake), clock)
    expect(run.failure).toBeUndefined()
    expect(fake.requests).toHaveLength(3)
    expect(service.received('stats')).toHaveLength(1)
  })

  it('stops at once on a 429 without rate-limit headers (an IP ban), before any request to the service', async () => {
    const clock = new TestClock()
    const service = await start(clock)
    const fake = await discord()
    fake.inject('application', DiscordFake.banned)
    const run = await step(fromDiscord(service, fake), clock)
    const message = expectCleanFailure(run)
    expect(fake.requests).toHaveLength(1)
    expect(message).toMatch(/no rate-limit headers.*banned/)
    expect(message).not.toContain('<')
    expect(service.requests).toEqual([])
  })
})
