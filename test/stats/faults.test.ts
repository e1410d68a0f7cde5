/**
 * The fault table: for each kind of request the action makes (the public record, the stats
 * update, vote checks, Discord, GitHub), a fault the far side can produce and what the action
 * must do about it: how many attempts reach the server, the result, and the message. In
 * process, against the loopback fakes, with `request-timeout: 1` so hangs end fast; the rows
 * run at once, each with its own servers.
 */
import { createServer } from 'node:http'
import { describe, expect, it } from 'vitest'
import { realClock } from '../../src/http/client.js'
import { renderSummary as statsSummary } from '../../src/stats/report.js'
import type { StatsOutcome } from '../../src/stats/outcome.js'
import type { VoteOutcome } from '../../src/votes/check.js'
import { GitHubFake } from '../support/fakes.js'
import {
  BOT,
  botInputs,
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  settingsFor,
  statsInputs,
  statsRun,
  tempWorkspace,
  TestClock,
  votesRun
} from '../support/inprocess.js'
import { type Fault, listenForTest } from '../support/server.js'
import { afterTest } from '../support/teardown.js'

const JOB_TOKEN = 'ghs_fault-table-job-token-0123'
const USER = '223456789012345678'
const SHA = '0123456789abcdef0123456789abcdef01234567'

const HTML_502: Fault = {
  kind: 'answer',
  status: 502,
  headers: { 'Content-Type': 'text/html' },
  body: `<html><head><title>502 Bad Gateway</title></head><body>${'<center>nginx</center>'.repeat(200)}</body></html>`
}
const HTML_503: Fault = { ...HTML_502, status: 503 }
const BAD_JSON: Fault = { kind: 'answer', status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"voted": tru' }
const ARRAY_200: Fault = { kind: 'answer', status: 200, headers: { 'Content-Type': 'application/json' }, body: '[1, 2, 3]' }
const HANG: Fault = { kind: 'hang' }
const DRIP: Fault = { kind: 'drip', status: 200, body: JSON.stringify({ success: true, padding: 'x'.repeat(200) }), intervalMs: 100 }
const CUT: Fault = { kind: 'partial', status: 200, body: '{"success": tr' }
const HUGE: Fault = { kind: 'huge', status: 500, bytes: 20 * 1024 * 1024 }
const RESET: Fault = { kind: 'reset' }

type Kind = 'record' | 'stats' | 'votes' | 'discord' | 'github'

interface Row {
  kind: Kind
  fault: string
  faults: Fault[]
  /** Attempts that reach the faulty route. */
  attempts: number
  /** 1 when the step fails. */
  code: 0 | 1
  result: string
  message?: RegExp
  inputs?: Record<string, string>
}

const ROWS: Row[] = [
  // The public record: a read, retried; when it stays unreadable nothing is sent (issue 11):
  // `skipped`, with a warning, never a blind update.
  { kind: 'record', fault: 'hangs 3 times', faults: [HANG, HANG, HANG], attempts: 3, code: 0, result: 'skipped' },
  {
    kind: 'record',
    fault: 'drips its answer slower than the timeout',
    faults: [DRIP, DRIP, DRIP],
    attempts: 3,
    code: 0,
    result: 'skipped'
  },
  { kind: 'record', fault: 'drops the connection mid-body once', faults: [CUT], attempts: 2, code: 0, result: 'updated' },
  { kind: 'record', fault: 'answers an HTML 502 once', faults: [HTML_502], attempts: 2, code: 0, result: 'updated' },
  { kind: 'record', fault: 'answers 503 every time', faults: [HTML_503, HTML_503, HTML_503], attempts: 3, code: 0, result: 'skipped' },
  { kind: 'record', fault: 'answers 200 with invalid JSON', faults: [BAD_JSON], attempts: 1, code: 0, result: 'skipped' },
  { kind: 'record', fault: 'answers 200 with an array', faults: [ARRAY_200], attempts: 1, code: 0, result: 'skipped' },
  { kind: 'record', fault: 'answers 200 with 20 MB', faults: [{ ...HUGE, status: 200 }], attempts: 1, code: 0, result: 'skipped' },
  // The stats update: never repeated after an answer (a received status line is one, even
  // when the body never completes); after a possible delivery only when the record says it
  // did not arrive. A timeout may mean the service is still working on it: never resent.
  {
    kind: 'stats',
    fault: 'hangs once',
    faults: [HANG],
    attempts: 1,
    code: 1,
    result: 'failed',
    message: /may have reached the service, so it was not sent again/
  },
  { kind: 'stats', fault: 'drips a 200 slower than the timeout', faults: [DRIP], attempts: 1, code: 0, result: 'updated' },
  { kind: 'stats', fault: 'drops the connection mid-body', faults: [CUT], attempts: 1, code: 0, result: 'updated' },
  {
    kind: 'stats',
    fault: 'answers an HTML 502',
    faults: [HTML_502],
    attempts: 1,
    code: 1,
    result: 'failed',
    message: /502 with "a non-JSON answer \(text\/html, \d+ bytes\)"/
  },
  {
    kind: 'stats',
    fault: 'answers 500 with 20 MB',
    faults: [HUGE],
    attempts: 1,
    code: 1,
    result: 'failed',
    message: /500 with "a non-JSON answer \(text\/html, a large body\)"/
  },
  {
    kind: 'stats',
    fault: 'answers 400 with invalid JSON',
    faults: [{ ...BAD_JSON, status: 400 }],
    attempts: 1,
    code: 1,
    result: 'failed',
    message: /answered 400 with "a non-JSON answer \(application\/json, 13 bytes\)"/
  },
  { kind: 'stats', fault: 'answers 200 with an unexpected body', faults: [ARRAY_200], attempts: 1, code: 0, result: 'updated' },
  // Vote checks: reads, retried; anything but a vote answer is an error, never "not voted".
  { kind: 'votes', fault: 'hangs once', faults: [HANG], attempts: 2, code: 0, result: 'voted' },
  { kind: 'votes', fault: 'drops the connection once', faults: [RESET], attempts: 2, code: 0, result: 'voted' },
  { kind: 'votes', fault: 'answers an HTML 503 twice', faults: [HTML_503, HTML_503], attempts: 3, code: 0, result: 'voted' },
  {
    kind: 'votes',
    fault: 'answers 503 three times',
    faults: [HTML_503, HTML_503, HTML_503],
    attempts: 3,
    code: 1,
    result: 'failed',
    message: /503.*not taken as "not voted"/
  },
  {
    kind: 'votes',
    fault: 'answers 200 with invalid JSON',
    faults: [BAD_JSON],
    attempts: 1,
    code: 1,
    result: 'failed',
    message: /without a "voted" field/
  },
  // Discord: reads, retried; then a clear error and nothing sent to the service.
  { kind: 'discord', fault: 'hangs once', faults: [HANG], attempts: 2, code: 0, result: 'updated' },
  { kind: 'discord', fault: 'answers an HTML 502 once', faults: [HTML_502], attempts: 2, code: 0, result: 'updated' },
  {
    kind: 'discord',
    fault: 'answers 200 with invalid JSON',
    faults: [BAD_JSON],
    attempts: 1,
    code: 1,
    result: 'failed',
    message: /Discord answered 200 to GET \/applications\/@me/
  },
  {
    kind: 'discord',
    fault: 'answers 500 with 20 MB, 4 times',
    faults: [HUGE, HUGE, HUGE, HUGE],
    attempts: 4,
    code: 1,
    result: 'failed',
    message: /Discord answered 500 .* after 4 tries/
  },
  // GitHub: reads, retried; then an error that says what was tried.
  { kind: 'github', fault: 'hangs once', faults: [HANG], attempts: 2, code: 0, result: 'updated' },
  { kind: 'github', fault: 'answers 503 once', faults: [HTML_503], attempts: 2, code: 0, result: 'updated' },
  {
    kind: 'github',
    fault: 'answers 503 three times',
    faults: [HTML_503, HTML_503, HTML_503],
    attempts: 3,
    code: 1,
    result: 'failed',
    message: /through the GitHub API failed \(503/
  }
]

interface Scene {
  run: () => Promise<StatsOutcome | VoteOutcome>
  attempts: () => number
  strikes: () => number
}

async function scene(row: Row): Promise<Scene> {
  // The run's waits take no time; its request timeouts are real.
  const clock = new TestClock()
  const service = await emulatedBot(clock, {
    seed: { servers: 1200, realServerCount: 1200, voters: { [USER]: { vote: 2, lastVote: new Date(clock.now()) } } }
  })
  const inputs = botInputs(service, { 'request-timeout': '1', timeout: '60' })
  const strikes = (): number => service.bot(BOT).strikes.length
  switch (row.kind) {
    case 'record':
    case 'stats': {
      for (const fault of row.faults) service.inject(row.kind, fault)
      Object.assign(inputs, { 'command-count': '5', 'cooldown-check': row.kind === 'record' ? 'true' : 'false' })
      const route = row.kind
      return { run: async () => (await statsRun(inputs, { clock })).outcome, attempts: () => service.received(route).length, strikes }
    }
    case 'votes':
      for (const fault of row.faults) service.inject('votes', fault)
      return {
        run: async () => (await votesRun({ ...inputs, 'user-id': USER }, { clock })).outcome,
        attempts: () => service.received('votes').length,
        strikes
      }
    case 'discord': {
      const discord = await discordFake([], 1200)
      for (const fault of row.faults) discord.inject('application', fault)
      Object.assign(inputs, {
        'command-count': '5',
        'discord-token': DISCORD_TOKEN,
        'discord-api-url': discord.url,
        'cooldown-check': 'false'
      })
      return {
        run: async () => (await statsRun(inputs, { clock })).outcome,
        attempts: () => discord.requests.filter(r => r.route === 'application').length,
        strikes
      }
    }
    case 'github': {
      const github = await GitHubFake.start({
        repository: 'example/bot',
        sha: SHA,
        token: JOB_TOKEN,
        files: { 'commands.json': '[{"name":"ping"}]' }
      })
      afterTest(() => github.close())
      for (const fault of row.faults) github.inject('contents', fault)
      const workspace = await tempWorkspace()
      Object.assign(inputs, { 'commands-file': 'commands.json', 'cooldown-check': 'false', 'github-token': JOB_TOKEN })
      const env = { GITHUB_WORKSPACE: workspace, GITHUB_REPOSITORY: 'example/bot', GITHUB_SHA: SHA, GITHUB_API_URL: github.url }
      return { run: async () => (await statsRun(inputs, { clock, env })).outcome, attempts: () => github.requests.length, strikes }
    }
  }
}

async function check(row: Row): Promise<void> {
  const { run, attempts, strikes } = await scene(row)
  const started = Date.now()
  const outcome = await run()
  expect(attempts()).toBe(row.attempts)
  expect(outcome.result).toBe(row.result)
  expect(outcome.error === undefined ? 0 : 1).toBe(row.code)
  // Every run ends well within its time limit, with a short message.
  expect(Date.now() - started).toBeLessThan(15_000)
  if (row.message) expect(outcome.error?.message).toMatch(row.message)
  expect((outcome.error?.message ?? '').length).toBeLessThan(600)
  expect(outcome.error?.message ?? '').not.toContain('<center>')
  if (row.kind !== 'votes') {
    const summary = statsSummary(settingsFor({ 'bot-id': BOT, 'command-count': '5', 'dry-run': 'true' }), outcome as StatsOutcome)
    expect(summary).not.toContain('<center>')
    expect(summary.length).toBeLessThan(6_000)
  }
  // An update is never refused as early: no strike, whatever happened on the way.
  expect(strikes()).toBe(0)
}

describe('fault table', () => {
  it.concurrent.each(ROWS.filter(row => row.kind !== 'github'))('$kind $fault: $attempts attempt(s), $result, exit $code', check)
  it.each(ROWS.filter(row => row.kind === 'github'))('$kind $fault: $attempts attempt(s), $result, exit $code', check)
})

describe('the step deadline', () => {
  it('ends a run whose requests keep hanging at the time limit, with a clear message, and sends nothing', async () => {
    const service = await emulatedBot(realClock)
    for (let i = 0; i < 5; i++) service.inject('record', HANG)
    const started = Date.now()
    const { outcome } = await statsRun(statsInputs(service, { 'command-count': '5', 'request-timeout': '1', timeout: '2' }), {
      clock: realClock
    })
    expect(Date.now() - started).toBeLessThan(6_000)
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/time limit of 2 s \(input 'timeout'\)/)
    expect(service.received('stats')).toHaveLength(0)
  })

  it('stops vote checks that would wait past the time limit and lists the users not checked', async () => {
    const users = ['223456789012345678', '323456789012345678', '423456789012345678']
    const service = await emulatedBot(realClock, { service: { rateLimits: { votes: { limit: 1, windowMs: 30_000 } } } })
    const started = Date.now()
    const { outcome, log } = await votesRun(botInputs(service, { 'user-id': users.join(','), timeout: '3' }), { clock: realClock })
    expect(Date.now() - started).toBeLessThan(6_000)
    expect(log.join('\n')).toContain(`Not checked: ${users.slice(1).join(', ')}`)
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/time limit of 3 s/)
  })
})

describe('redirects', () => {
  it('never follows a redirect of the stats update to another origin', async () => {
    const elsewhere: string[] = []
    const other = createServer((req, res) => {
      elsewhere.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`)
      res.end('{}')
    })
    const port = await listenForTest(other)
    const clock = new TestClock()
    const service = await emulatedBot(clock)
    const location = `http://127.0.0.1:${port}/bots/${BOT}/stats`
    service.inject('stats', { kind: 'answer', status: 307, headers: { Location: location }, body: '' })
    const { outcome } = await statsRun(statsInputs(service, { 'command-count': '5', 'cooldown-check': 'false' }), { clock })
    expect(outcome.result).toBe('failed')
    expect(elsewhere).toEqual([])
    expect(outcome.error?.message).toMatch(/307.*redirect is not followed/)
  })
})
