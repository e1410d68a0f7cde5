/**
 * A stop reports exactly what was sent and answered, wherever it lands (interface.md, "A stop
 * is a stop"), in process against the emulator, Discord's fake and GitHub's fake: before the
 * update goes out, while the record, Discord or the update is in flight, after the update's
 * status line, during the record read that follows a refusal, during the key check of a run
 * that sends nothing, during the GitHub read of a manifest, and during a vote check or the wait
 * between two. Nothing is sent after a stop. A stop "in flight" lands once the far side has the
 * request, however long the run took to send it.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { ClientRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import { type Clock, realClock } from '../../src/http/client.js'
import { GitHubFake } from '../support/fakes.js'
import {
  botInputs,
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  HOUR,
  statsInputs,
  statsRun,
  tempWorkspace,
  TestClock,
  votesRun
} from '../support/inprocess.js'
import { afterTest } from '../support/teardown.js'

/** A stop's report: the stop (by SIGTERM unless told), then what had been sent and answered. */
const stopped = (sent: string, signal = 'SIGTERM'): string =>
  `The step was stopped by ${signal} (a cancelled workflow or a time limit). ${sent}`

const SIX_HOUR_REFUSAL = '{"success":false,"error":"You can only update stats once every 6 hours.","status":429}'

/** A stop by SIGINT the moment the run logs a line that starts with `start`: before that line's request goes out. */
function stopAt(start: string): { signal: AbortSignal; onLog: (line: string) => void } {
  const stop = new AbortController()
  return {
    signal: stop.signal,
    onLog: line => {
      if (line.startsWith(start)) stop.abort(new StoppedError('SIGINT'))
    }
  }
}

/**
 * A stop signal fired `delayMs` after `ready` first holds (polled every 5 ms): after a request
 * has reached the far side, say, whatever time the run took to send it.
 */
function stopWhen(ready: () => boolean, delayMs = 30): AbortSignal {
  const stop = new AbortController()
  const timer = setInterval(() => {
    if (!ready()) return
    clearInterval(timer)
    setTimeout(() => stop.abort(new StoppedError('SIGTERM')), delayMs)
  }, 5)
  afterTest(() => clearInterval(timer))
  return stop.signal
}

/**
 * A stop signal fired the moment the run's client has the status line and headers of its answer
 * to a `method` request to `url`'s host: at that request's 'response' event, just after the
 * client's own handler has taken the answer in, before its body has ended, however soon or
 * late the answer came.
 */
function stopOnAnswerHead(url: string, method: string): AbortSignal {
  const stop = new AbortController()
  const host = new URL(url).host
  const onStart = (message: unknown): void => {
    const { request } = message as { request: ClientRequest }
    if (request.method !== method || request.getHeader('host') !== host) return
    // Listed after the client's own handler (given to http.request): it runs first.
    request.once('response', () => stop.abort(new StoppedError('SIGTERM')))
  }
  subscribe('http.client.request.start', onStart)
  afterTest(() => unsubscribe('http.client.request.start', onStart))
  return stop.signal
}

describe('a stop in stats mode says what was sent and answered', () => {
  it('just before the PATCH goes out: it is not sent, and the report says so', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { outcome } = await statsRun(statsInputs(emulator), { clock, ...stopAt('Sending PATCH') })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toBe(stopped('The stats update was not sent.', 'SIGINT'))
  })

  it.each([
    ['a real run', {}, 'The stats update was not sent.'],
    ['a dry run, as in any dry run', { 'dry-run': 'true' }, 'Nothing was sent (dry run).']
  ])('while the record read is in flight (%s): no PATCH, and the report says nothing was sent', async (_, more, sent) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('record', { kind: 'hang' })
    const { outcome } = await statsRun(statsInputs(emulator, more), {
      clock,
      signal: stopWhen(() => emulator.received('record').length === 1, 20)
    })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toBe(stopped(sent))
  })

  it('SIGTERM while Discord is read: no PATCH', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake()
    fake.inject('application', { kind: 'hang' })
    const { outcome } = await statsRun(botInputs(emulator, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }), {
      clock,
      signal: stopWhen(() => fake.requests.length === 1, 20)
    })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome.error?.message).toMatch(/The stats update was not sent/)
  })

  it('while the PATCH is in flight: sent, no answer, nothing sent after, and the next run will not send it twice', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'hang' })
    const { outcome } = await statsRun(statsInputs(emulator), {
      clock,
      signal: stopWhen(() => emulator.received('stats').length === 1, 20)
    })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(emulator.received('record')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'no-answer' })
    expect(outcome.error?.message).toMatch(/The stats update was sent, and no answer came back/)
    expect(outcome.error?.message).toBe(
      stopped(
        'The stats update was sent, and no answer came back: the service may have stored it. ' +
          'With cooldown-check: true the next run reads the public record first and does not send it twice.'
      )
    )
  })

  it("after the update's status line came: sent and answered, with its status, and nothing sent after", async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    // The status line and headers, then the body two bytes at a time: the stop comes once the
    // client has the status line, and cuts the body.
    emulator.inject('stats', { kind: 'drip', status: 200, body: '{"success":true}', intervalMs: 100 })
    const { outcome } = await statsRun(statsInputs(emulator), { clock, signal: stopOnAnswerHead(emulator.url, 'PATCH') })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'answered', status: 200 })
    expect(outcome.error?.message).toBe(stopped('The stats update was sent and answered (200).'))
  })

  it('during the record read after a 6-hour refusal: the refusal (a strike) is reported, and the stop with it', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'answer', status: 429, body: SIX_HOUR_REFUSAL })
    const { outcome } = await statsRun(statsInputs(emulator), {
      clock,
      signal: stopWhen(() => emulator.received('record').length === 2),
      onLog: line => {
        // The second read hangs, so that the stop lands while it is in flight.
        if (line.startsWith('Sending PATCH')) emulator.inject('record', { kind: 'hang' })
      }
    })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(emulator.received('record')).toHaveLength(2)
    // A stop never hides a strike: the result is the strike, and its error says so, with the stop.
    expect(outcome).toMatchObject({ result: 'cooldown', delivery: 'answered', status: 429, nextUpdateAt: undefined })
    const message = outcome.error?.message ?? ''
    expect(message).toMatch(
      /^Stats update refused as too early \(429: "You can only update stats once every 6 hours\."\): the service counted a strike/
    )
    expect(message).toMatch(
      / The step was stopped by SIGTERM \(a cancelled workflow or a time limit\)\. It came while the bot's record was read after the refusal\.$/
    )
  })

  it('a stop that cut off a 429 after its status line: the report says a strike may have been counted', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    // The status line and headers go out with the first bytes of the body; the stop comes once the
    // client has the status line, before the rest has dripped in.
    emulator.inject('stats', { kind: 'drip', status: 429, body: SIX_HOUR_REFUSAL, intervalMs: 100 })
    const { outcome } = await statsRun(statsInputs(emulator), { clock, signal: stopOnAnswerHead(emulator.url, 'PATCH') })
    expect(outcome).toMatchObject({ result: 'failed', status: 429 })
    expect(outcome.error?.message).toMatch(
      /if that 429 was the 6-hour refusal rather than the request limiter, the service counted a strike/
    )
  })
})

describe('a stop during the key check of a run that sends nothing', () => {
  it('a stop during the key check is a stop, not an unchecked key: the run fails saying nothing was sent', async () => {
    const clock = new TestClock()
    // Updated an hour ago: the run skips, and checks the key.
    const emulator = await emulatedBot(clock, { ago: HOUR })
    emulator.inject('votes', { kind: 'hang' })
    const { outcome } = await statsRun(statsInputs(emulator), {
      clock,
      signal: stopWhen(() => emulator.received('votes').length === 1, 20)
    })
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', keyCheck: undefined })
    expect(outcome.error?.message).toBe(stopped('The stats update was not sent.'))
  })
})

describe('a stop while the manifest is read from the repository', () => {
  const SHA = 'a'.repeat(40)
  const TOKEN = 'ghs_jobToken0123456789'
  let github: GitHubFake

  beforeAll(async () => {
    github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: TOKEN, files: { 'commands.json': '[{"name":"ping"}]' } })
  })
  afterAll(() => github.close())

  it('is the stop, not a GitHub failure: no checkout advice, and the update was not sent', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const workspace = await tempWorkspace()
    github.inject('contents', { kind: 'hang' })
    const { outcome } = await statsRun(botInputs(emulator, { 'commands-file': 'commands.json', 'github-token': TOKEN }), {
      clock,
      env: { GITHUB_WORKSPACE: workspace, GITHUB_REPOSITORY: 'example/bot', GITHUB_SHA: SHA, GITHUB_API_URL: github.url },
      signal: stopWhen(() => github.requests.length === 1)
    })
    expect(github.requests).toHaveLength(1)
    expect(emulator.requests).toEqual([])
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toBe(stopped('The stats update was not sent.'))
  })
})

describe('a stop during the read of the workflow that ran the step (through GitHub, which hangs)', () => {
  const SHA = 'c'.repeat(40)
  const TOKEN = 'ghs_stopDuringWorkflowRead0123'
  const env = (github: GitHubFake, workspace: string): Record<string, string> => ({
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: 'example/bot',
    GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/stats.yml@refs/heads/main',
    GITHUB_WORKFLOW_SHA: SHA,
    GITHUB_JOB: 'stats',
    GITHUB_API_URL: github.url
  })

  async function hangingGitHub(): Promise<GitHubFake> {
    const github = await GitHubFake.start({
      repository: 'example/bot',
      sha: SHA,
      token: TOKEN,
      files: { '.github/workflows/stats.yml': 'jobs: {}' }
    })
    afterTest(() => github.close())
    github.inject('contents', { kind: 'hang' })
    return github
  }

  it('after a strike: the strike is reported, with the stop and that the workflow was not checked', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    emulator.inject('stats', { kind: 'answer', status: 429, body: SIX_HOUR_REFUSAL })
    const github = await hangingGitHub()
    const { outcome } = await statsRun(statsInputs(emulator, { 'github-token': TOKEN }), {
      clock,
      env: env(github, await tempWorkspace()),
      signal: stopWhen(() => github.requests.length === 1)
    })
    expect(emulator.received('stats')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'cooldown', status: 429 })
    expect(outcome.error?.message).toMatch(/^Stats update refused as too early .* The update was not retried\. /)
    expect(outcome.error?.message).toMatch(
      / The step was stopped by SIGTERM \(a cancelled workflow or a time limit\)\. The workflow that ran this step was not checked\.$/
    )
  })

  it('in a dry run: the step fails, naming the stop and what was not checked', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const github = await hangingGitHub()
    const { outcome } = await statsRun(statsInputs(emulator, { 'github-token': TOKEN, 'dry-run': 'true' }), {
      clock,
      env: env(github, await tempWorkspace()),
      signal: stopWhen(() => github.requests.length === 1)
    })
    expect(emulator.received('stats')).toEqual([])
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toBe(stopped('The workflow that ran this step was not checked. Nothing was sent (dry run).'))
    expect(outcome.error?.headline).toBe('stopped by SIGTERM')
  })

  it('in a dry run with the deadline already passed: the step fails, naming what was not checked', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const workspace = await tempWorkspace({ '.github/workflows/stats.yml': 'jobs: {}' })
    // The key check is the last request before the workflow read: once it is received, the step's time is up.
    const late: Clock = { ...clock, now: () => clock.now() + (emulator.received('votes').length > 0 ? 60_000 : 0) }
    const { outcome } = await statsRun(statsInputs(emulator, { 'dry-run': 'true', timeout: '60' }), {
      clock: late,
      env: { GITHUB_WORKSPACE: workspace, GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/stats.yml@main', GITHUB_JOB: 'stats' }
    })
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent' })
    expect(outcome.error?.message).toMatch(
      /leaves no room for reading the workflow that ran this step\. .*The workflow that ran this step was not checked\. Nothing was sent \(dry run\)\.$/
    )
  })
})

describe('a stop in vote-check mode', () => {
  it('a stop during a pacing wait ends the wait at once, sends nothing more, and says how many checks were answered', async () => {
    const clock = new TestClock()
    // One check per window: the first answer says the window is spent, so the second check waits 60 s.
    const emulator = await emulatedBot(clock, { service: { rateLimits: { votes: { limit: 1, windowMs: 60_000 } } } })
    const stop = new AbortController()
    const waits: number[] = []
    /** How each wait ended: with the stop, or still waiting once everything the stop set off had run. */
    const ends: string[] = []
    const stopping: Clock = {
      now: clock.now,
      random: clock.random,
      // A real wait, and the stop once it has begun: the stop must end it at once. The wait is
      // looked at when the stop's work is all done (the next turn of the event loop, long before
      // 60 s), and let go then either way, so that a wait the stop did not end fails the test
      // instead of holding it for a minute.
      sleep: async (ms, signal) => {
        waits.push(ms)
        const waiting = realClock.sleep(ms, signal).then(() => 'ended by the stop')
        stop.abort(new StoppedError('SIGTERM'))
        ends.push(await Promise.race([waiting, new Promise<string>(resolve => setImmediate(() => resolve('still waiting')))]))
      }
    }
    const ids = ['223456789012345678', '323456789012345678', '423456789012345678']
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': ids.join(',') }), { clock: stopping, signal: stop.signal })

    expect(waits).toEqual([60_000])
    expect(ends, 'the wait ended with the stop, not after 60 s').toEqual(['ended by the stop'])
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'failed', unchecked: ids.slice(1) })
    expect([...outcome.votes.keys()]).toEqual(ids.slice(0, 1))
    expect(outcome.error?.message).toBe(stopped('1 vote check(s) had been answered; no result is reported for an unfinished check.'))
  })

  it('names the check it cut off in flight, and sends no other', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const users = ['223456789012345678', '323456789012345678', '423456789012345678']
    // The first check is answered, the second hangs until the stop.
    emulator.inject('votes', { kind: 'answer', status: 200, body: '{"voted":true,"vote":1,"lastVote":null}' })
    emulator.inject('votes', { kind: 'hang' })
    const { outcome } = await votesRun(botInputs(emulator, { 'user-id': users.join(',') }), {
      clock,
      signal: stopWhen(() => emulator.received('votes').length === 2)
    })
    expect(emulator.received('votes'), 'no check after the stop').toHaveLength(2)
    expect(outcome).toMatchObject({ result: 'failed', unchecked: [users[1], users[2]] })
    expect(outcome.error?.message).toBe(
      stopped(
        `1 vote check(s) had been answered, and the check of user ${users[1]} was sent but cut off before its answer; ` +
          'no result is reported for an unfinished check.'
      )
    )
  })
})
