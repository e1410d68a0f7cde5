/**
 * The fault table: for each request the action makes (the public record, the stats update, vote
 * checks, Discord, GitHub), a fault the far side can produce and what the action must do: how
 * many attempts reach the server, the result, a short message. In process against the loopback
 * fakes, the rows at once. Then the step's deadline and a redirect, as decisions.
 */
import { createServer } from 'node:http'
import { describe, expect, it } from 'vitest'
import { renderSummary } from '../../src/stats/report.js'
import type { StatsOutcome } from '../../src/stats/outcome.js'
import type { VoteOutcome } from '../../src/votes/check.js'
import { GitHubFake } from '../support/fakes.js'
import {
  BOT,
  botInputs,
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  routes,
  settingsFor,
  statsInputs,
  statsRun,
  tempWorkspace,
  TestClock,
  votesRun
} from '../support/inprocess.js'
import { type Fault } from '../../scripts/emulator/server.js'
import { afterTest, listenForTest } from '../support/teardown.js'

const JOB_TOKEN = 'ghs_fault-table-job-token-0123'
const USER = '223456789012345678'
const SHA = '0123456789abcdef0123456789abcdef01234567'

const JSON_TYPE = { 'Content-Type': 'application/json' }
const HTML_502: Fault = {
  kind: 'answer',
  status: 502,
  headers: { 'Content-Type': 'text/html' },
  body: `<html><head><title>502 Bad Gateway</title></head><body>${'<center>nginx</center>'.repeat(200)}</body></html>`
}
const HTML_503: Fault = { ...HTML_502, status: 503 }
const BAD_JSON: Fault = { kind: 'answer', status: 200, headers: JSON_TYPE, body: '{"voted": tru' }
const ARRAY_200: Fault = { kind: 'answer', status: 200, headers: JSON_TYPE, body: '[1, 2, 3]' }
const HANG: Fault = { kind: 'hang' }
const DRIP: Fault = {
  kind: 'drip',
  status: 200,
  body: JSON.stringify({ success: true, padding: 'x'.repeat(200) }),
  intervalMs: 100
}
const CUT: Fault = { kind: 'partial', status: 200, body: '{"success": tr' }
const HUGE: Fault = { kind: 'huge', status: 500, bytes: 20 * 1024 * 1024 }
const RESET: Fault = { kind: 'reset' }

type Kind = 'record' | 'stats' | 'votes' | 'discord' | 'github'
const times = (fault: Fault, count: number): Fault[] => Array<Fault>(count).fill(fault)

/**
 * Columns: the request, the fault, the faults in order, attempts that reach the faulty route, the
 * result, the message (a failure's).
 */
const ROWS: [Kind, string, Fault[], number, string, RegExp?][] = [
  // The public record: a read, retried; when it stays unreadable nothing is sent (issue 11):
  // `skipped`, with a warning, never a blind update.
  ['record', 'hangs 3 times', times(HANG, 3), 3, 'skipped'],
  ['record', 'drips its answer slower than the timeout', times(DRIP, 3), 3, 'skipped'],
  ['record', 'drops the connection mid-body once', [CUT], 2, 'updated'],
  ['record', 'answers an HTML 502 once', [HTML_502], 2, 'updated'],
  ['record', 'answers 503 every time', times(HTML_503, 3), 3, 'skipped'],
  ['record', 'answers 200 with invalid JSON', [BAD_JSON], 1, 'skipped'],
  ['record', 'answers 200 with an array', [ARRAY_200], 1, 'skipped'],
  ['record', 'answers 200 with 20 MB', [{ ...HUGE, status: 200 }], 1, 'skipped'],
  // The stats update: never repeated after an answer (a received status line is one, even when
  // the body never completes). A timeout may mean the service is still working on it: never resent.
  [
    'stats',
    'hangs once',
    [HANG],
    1,
    'failed',
    /shows it has not arrived, but sending it again could still be early/
  ],
  ['stats', 'drips a 200 slower than the timeout', [DRIP], 1, 'updated'],
  ['stats', 'drops the connection mid-body', [CUT], 1, 'updated'],
  [
    'stats',
    'answers an HTML 502',
    [HTML_502],
    1,
    'failed',
    /502 with "a non-JSON answer \(text\/html, \d+ bytes\)"/
  ],
  [
    'stats',
    'answers 500 with 20 MB',
    [HUGE],
    1,
    'failed',
    /500 with "a non-JSON answer \(text\/html, a large body\)"/
  ],
  [
    'stats',
    'answers 400 with invalid JSON',
    [{ ...BAD_JSON, status: 400 }],
    1,
    'failed',
    /400 with "a non-JSON answer \(.*, 13 bytes\)"/
  ],
  ['stats', 'answers 200 with an unexpected body', [ARRAY_200], 1, 'updated'],
  // Vote checks: reads, retried; anything but a vote answer is an error, never "not voted".
  ['votes', 'hangs once', [HANG], 2, 'voted'],
  ['votes', 'drops the connection once', [RESET], 2, 'voted'],
  ['votes', 'answers an HTML 503 twice', times(HTML_503, 2), 3, 'voted'],
  [
    'votes',
    'answers 503 three times',
    times(HTML_503, 3),
    3,
    'failed',
    /503.*not taken as "not voted"/
  ],
  ['votes', 'answers 200 with invalid JSON', [BAD_JSON], 1, 'failed', /without a "voted" field/],
  // Discord: reads, retried; then a clear error and nothing sent to the service.
  ['discord', 'hangs once', [HANG], 2, 'updated'],
  ['discord', 'answers an HTML 502 once', [HTML_502], 2, 'updated'],
  [
    'discord',
    'answers 200 with invalid JSON',
    [BAD_JSON],
    1,
    'failed',
    /Discord answered 200 to GET \/applications\/@me/
  ],
  [
    'discord',
    'answers 500 with 20 MB, 4 times',
    times(HUGE, 4),
    4,
    'failed',
    /Discord answered 500 .* after 4 tries/
  ],
  // GitHub: reads, retried; then an error that says what was tried.
  ['github', 'hangs once', [HANG], 2, 'updated'],
  ['github', 'answers 503 once', [HTML_503], 2, 'updated'],
  [
    'github',
    'answers 503 three times',
    times(HTML_503, 3),
    3,
    'failed',
    /through the GitHub API failed \(503/
  ],
  // A redirect's body is not the file, and its Location is not followed.
  [
    'github',
    'answers 302 with a manifest of its own',
    [{ kind: 'answer', status: 302, headers: { Location: '/elsewhere' }, body: '[{"name":"a"}]' }],
    1,
    'failed',
    /through the GitHub API failed \(302, a redirect, which is not followed\)\. Add an actions\/checkout step before this one\.$/
  ]
]

/**
 * The row's servers, faults injected, and the run; returns its outcome and the attempts that
 * reached the faulty route.
 */
async function scene(
  kind: Kind,
  faults: Fault[]
): Promise<{ outcome: StatsOutcome | VoteOutcome; attempts: number; strikes: number }> {
  // The run's waits take no time; its request timeouts are real.
  const clock = new TestClock()
  const service = await emulatedBot(clock, {
    seed: {
      servers: 1200,
      realServerCount: 1200,
      voters: { [USER]: { vote: 2, lastVote: new Date(clock.now()) } }
    }
  })
  // request-timeout: 1 ends a hang or a drip fast; a huge answer gets the time to be cut off at its
  // size, however busy the machine.
  const slow = faults.some(fault => fault.kind === 'hang' || fault.kind === 'drip')
  const inputs = botInputs(service, { 'request-timeout': slow ? '1' : '10', timeout: '60' })
  if (kind !== 'votes')
    Object.assign(inputs, {
      'command-count': '5',
      'cooldown-check': kind === 'record' ? 'true' : 'false'
    })
  let attempts: () => number
  let env: Record<string, string> = {}
  if (kind === 'record' || kind === 'stats' || kind === 'votes') {
    for (const fault of faults) service.inject(kind, fault)
    attempts = () => service.received(kind).length
  } else if (kind === 'discord') {
    const discord = await discordFake([], 1200)
    for (const fault of faults) discord.inject('application', fault)
    Object.assign(inputs, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': discord.url })
    attempts = () => discord.requests.filter(r => r.route === 'application').length
  } else {
    const files = { 'commands.json': '[{"name":"ping"}]' }
    const github = await GitHubFake.start({
      repository: 'example/bot',
      sha: SHA,
      token: JOB_TOKEN,
      files
    })
    afterTest(() => github.close())
    for (const fault of faults) github.inject('contents', fault)
    Object.assign(inputs, {
      'command-count': '',
      'commands-file': 'commands.json',
      'github-token': JOB_TOKEN
    })
    env = {
      GITHUB_WORKSPACE: await tempWorkspace(),
      GITHUB_REPOSITORY: 'example/bot',
      GITHUB_SHA: SHA,
      GITHUB_API_URL: github.url
    }
    attempts = () => github.requests.length
  }
  const { outcome } =
    kind === 'votes'
      ? await votesRun({ ...inputs, 'user-id': USER }, { clock })
      : await statsRun(inputs, { clock, env })
  return { outcome, attempts: attempts(), strikes: service.bot(BOT).strikes.length }
}

async function check([
  kind,
  ,
  faults,
  attempts,
  result,
  message
]: (typeof ROWS)[number]): Promise<void> {
  const run = await scene(kind, faults)
  expect(run.attempts).toBe(attempts)
  expect(run.outcome.result).toBe(result)
  // It fails exactly when its result is 'failed', with a short message.
  expect(run.outcome.error !== undefined).toBe(result === 'failed')
  if (message) expect(run.outcome.error?.message).toMatch(message)
  expect((run.outcome.error?.message ?? '').length).toBeLessThan(600)
  expect(run.outcome.error?.message ?? '').not.toContain('<center>')
  if (kind !== 'votes') {
    const summary = renderSummary(
      settingsFor({ 'bot-id': BOT, 'command-count': '5', 'dry-run': 'true' }),
      run.outcome as StatsOutcome
    )
    expect(summary).not.toContain('<center>')
    expect(summary.length).toBeLessThan(6_000)
  }
  // An update is never refused as early: no strike, whatever happened on the way.
  expect(run.strikes).toBe(0)
}

describe('fault table', () => {
  it.concurrent.each(ROWS.filter(row => row[0] !== 'github'))('%s %s', (...row) => check(row))
  it.each(ROWS.filter(row => row[0] === 'github'))('%s %s', (...row) => check(row))
})

describe('the step deadline and a redirect', () => {
  it("ends a run whose record read keeps failing at the step's time limit, saying so, and sends nothing", async () => {
    const clock = new TestClock()
    const service = await emulatedBot(clock)
    // The first read hangs until request-timeout cuts it off; by then the step's minute is up.
    service.inject('record', HANG)
    const late = {
      ...clock,
      now: () => clock.now() + (service.received('record').length > 0 ? 60_000 : 0)
    }
    const { outcome } = await statsRun(
      statsInputs(service, { 'request-timeout': '1', timeout: '60' }),
      { clock: late }
    )
    expect(routes(service)).toEqual(['GET '])
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/time limit of 60 s \(input 'timeout'\)/)
  })

  it('never follows a redirect of the stats update to another origin', async () => {
    const elsewhere: string[] = []
    const other = createServer((req, res) => {
      elsewhere.push(`${req.method} ${req.url}`)
      res.end('{}')
    })
    const port = await listenForTest(other)
    const clock = new TestClock()
    const service = await emulatedBot(clock)
    service.inject('stats', {
      kind: 'answer',
      status: 307,
      headers: { Location: `http://127.0.0.1:${port}/bots/${BOT}/stats` },
      body: ''
    })
    const { outcome } = await statsRun(statsInputs(service, { 'cooldown-check': 'false' }), {
      clock
    })
    expect(elsewhere).toEqual([])
    expect(routes(service)).toEqual(['PATCH /stats'])
    expect(outcome).toMatchObject({ result: 'failed', status: 307 })
    expect(outcome.error?.message).toMatch(/307.*redirect is not followed/)
  })
})
