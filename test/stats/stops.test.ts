/**
 * A stop reports exactly what was sent and answered, wherever it lands (interface.md, "A stop
 * is a stop"), in process against the emulator and GitHub's fake: after the update's status
 * line, during the record read that follows a refusal, during the GitHub read of a manifest,
 * and during a vote check. And a manifest that lists no commands gets one true warning.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { ServiceEmulator } from '../support/emulator.js'
import { GitHubFake } from '../support/fakes.js'
import { BOT, emulatedBot, KEY, statsRun, TestClock, votesRun } from '../support/inprocess.js'

const SIX_HOUR_REFUSAL = '{"success":false,"error":"You can only update stats once every 6 hours.","status":429}'

/** The test's bot on the test's clock, last updated 7 h ago, listing `commands` commands. */
const service = (clock: TestClock, commands = 12): Promise<ServiceEmulator> => emulatedBot(clock, { seed: { commands } })

/** Stops the run `delayMs` after the `nth` log line that starts with `start`. */
function stopAfter(start: string, nth = 1, delayMs = 30): { signal: AbortSignal; onLog: (line: string) => void } {
  const stop = new AbortController()
  let seen = 0
  return {
    signal: stop.signal,
    onLog: line => {
      if (line.startsWith(start) && ++seen === nth) setTimeout(() => stop.abort(new StoppedError('SIGTERM')), delayMs)
    }
  }
}

/** A stop signal fired `delayMs` after `ready` first holds (polled every 5 ms). */
function stopWhen(ready: () => boolean, delayMs = 30): AbortSignal {
  const stop = new AbortController()
  const timer = setInterval(() => {
    if (!ready()) return
    clearInterval(timer)
    setTimeout(() => stop.abort(new StoppedError('SIGTERM')), delayMs)
  }, 5)
  onTestFinished(async () => clearInterval(timer))
  return stop.signal
}

describe('a stop in stats mode says what was sent and answered', () => {
  it("after the update's status line came: sent and answered, with its status, and nothing sent after", async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    // The status line and headers at once, then the body a byte at a time: the stop cuts the body.
    emulator.inject('stats', { kind: 'drip', status: 200, body: '{"success":true}', intervalMs: 100 })
    const { outcome } = await statsRun(
      { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, 'command-count': '14' },
      { clock, signal: stopWhen(() => emulator.received('stats').length === 1, 250) }
    )
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'answered', status: 200 })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). The stats update was sent and answered (200).'
    )
  })

  it('during the record read after a 6-hour refusal: the refusal (a strike) is reported, and the stop with it', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    emulator.inject('stats', { kind: 'answer', status: 429, body: SIX_HOUR_REFUSAL })
    const stop = stopAfter("Reading the bot's public record", 2)
    const { outcome } = await statsRun(
      { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, 'command-count': '14' },
      {
        clock,
        signal: stop.signal,
        onLog: line => {
          // The second read hangs, so that the stop lands while it is in flight.
          if (line.startsWith('Sending PATCH')) emulator.inject('record', { kind: 'hang' })
          stop.onLog(line)
        }
      }
    )
    expect(emulator.received('stats')).toHaveLength(1)
    expect(emulator.received('record')).toHaveLength(2)
    // A stop never hides a strike: the result is the strike, and its error says so, with the stop.
    expect(outcome).toMatchObject({ result: 'cooldown', delivery: 'answered', status: 429, nextUpdateAt: undefined })
    const message = outcome.error?.message ?? ''
    expect(message).toMatch(
      /^Stats update refused as too early \(429: "You can only update stats once every 6 hours\."\): the service counted a strike/
    )
    expect(message).toMatch(
      / The step was stopped by SIGTERM \(a cancelled workflow or a time limit\)\. It came while the bot's record was read again, after the refusal\.$/
    )
  })

  it('a stop that cut off a 429 after its status line: the report says a strike may have been counted', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    // The status line and headers go out with the first bytes of the body; the rest drips too slowly to arrive.
    emulator.inject('stats', { kind: 'drip', status: 429, body: SIX_HOUR_REFUSAL, intervalMs: 100 })
    const stop = stopAfter('Sending PATCH', 1, 250)
    const { outcome } = await statsRun(
      { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, 'command-count': '14' },
      { clock, signal: stop.signal, onLog: stop.onLog }
    )
    expect(outcome).toMatchObject({ result: 'failed', status: 429 })
    expect(outcome.error?.message).toMatch(
      /if that 429 was the 6-hour refusal rather than the request limiter, the service counted a strike/
    )
  })
})

describe('a stop while the manifest is read from the repository', () => {
  const SHA = 'a'.repeat(40)
  const TOKEN = 'ghs_jobToken0123456789'
  let github: GitHubFake
  let workspace: string

  beforeAll(async () => {
    github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: TOKEN, files: { 'commands.json': '[{"name":"ping"}]' } })
    workspace = await mkdtemp(join(tmpdir(), 'stops-'))
  })
  afterAll(async () => {
    await github.close()
    await rm(workspace, { recursive: true, force: true })
  })

  it('is the stop, not a GitHub failure: no checkout advice, and the update was not sent', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    github.inject('contents', { kind: 'hang' })
    const { outcome } = await statsRun(
      { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, 'commands-file': 'commands.json', 'github-token': TOKEN },
      {
        clock,
        env: { GITHUB_WORKSPACE: workspace, GITHUB_REPOSITORY: 'example/bot', GITHUB_SHA: SHA, GITHUB_API_URL: github.url },
        signal: stopWhen(() => github.requests.length === 1)
      }
    )
    expect(github.requests).toHaveLength(1)
    expect(emulator.requests).toEqual([])
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). The stats update was not sent.'
    )
  })
})

describe('a stop in vote-check mode', () => {
  it('names the check it cut off in flight, and sends no other', async () => {
    const clock = new TestClock()
    const emulator = await service(clock)
    const users = ['223456789012345678', '323456789012345678', '423456789012345678']
    // The first check is answered, the second hangs until the stop.
    emulator.inject('votes', { kind: 'answer', status: 200, body: '{"voted":true,"vote":1,"lastVote":null}' })
    emulator.inject('votes', { kind: 'hang' })
    const { outcome } = await votesRun(
      { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, 'user-id': users.join(',') },
      { clock, signal: stopWhen(() => emulator.received('votes').length === 2) }
    )
    expect(emulator.received('votes'), 'no check after the stop').toHaveLength(2)
    expect(outcome).toMatchObject({ result: 'failed', unchecked: [users[1], users[2]] })
    expect(outcome.error?.message).toBe(
      'The step was stopped by SIGTERM (a cancelled workflow or a time limit). 1 vote check(s) had been answered, and the check ' +
        `of user ${users[1]} was sent but cut off before its answer; no result is reported for an unfinished check.`
    )
  })
})

describe('a manifest that lists no commands', () => {
  let workspace: string
  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'empty-manifest-'))
    await writeFile(join(workspace, 'commands.json'), '[]')
  })
  afterAll(() => rm(workspace, { recursive: true, force: true }))

  const run = async (listed: number) => {
    const clock = new TestClock()
    const emulator = await service(clock, listed)
    const { outcome, log } = await statsRun(
      { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, 'commands-file': 'commands.json', 'server-count': '1250' },
      { clock, env: { GITHUB_WORKSPACE: workspace } }
    )
    const warnings = [...outcome.warnings, ...(outcome.counts?.warnings ?? [])]
    return { emulator, outcome, warnings, log }
  }

  it('while the listing shows commands: the count is left out, with one warning that says so and nothing contrary', async () => {
    const { emulator, warnings } = await run(12)
    expect(emulator.received('stats')[0]!.body).toBe('{"server_count":1250}')
    expect(warnings).toEqual([expect.stringMatching(/^The command count was left out: .* found no commands, and the listing shows 12;/)])
  })

  it('while the listing shows none: 0 is sent, and there is nothing to warn about', async () => {
    const { emulator, warnings } = await run(0)
    expect(emulator.received('stats')[0]!.body).toBe('{"command_count":0,"server_count":1250}')
    expect(warnings).toEqual([])
  })
})
