/**
 * A stop in stats mode reports exactly what was sent and answered, wherever it lands
 * (interface.md, "A stop is a stop"), in process against the emulator and the fakes of Discord and
 * GitHub. Nothing is sent after a stop. A stop "in flight" lands once the far side has the
 * request, however long the run took to send it. Each of whatWasSent's sentences is pinned here;
 * a stop in vote-check mode: test/votes/check.test.ts.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { ClientRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { StoppedError } from '../../src/errors.js'
import type { StatsOutcome } from '../../src/stats/outcome.js'
import {
  recordFault,
  type ServiceEmulator,
  SIX_HOUR_REFUSAL
} from '../../scripts/emulator/service.js'
import { GitHubFake } from '../support/fakes.js'
import {
  BOT,
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  HOUR,
  type InProcessOptions,
  routes,
  statsInputs,
  statsRun,
  tempWorkspace,
  TestClock
} from '../support/inprocess.js'
import { afterTest } from '../support/teardown.js'

/** A stop's report: the stop, then what had been sent and answered. */
const stopped = (sent: string): string =>
  `The step was stopped by SIGTERM (a cancelled workflow or a time limit). ${sent}`
const stop = (controller: AbortController): void => controller.abort(new StoppedError('SIGTERM'))

/**
 * A stop signal fired `delayMs` after `ready` first holds (polled every 5 ms): once a request has
 * reached the far side, say.
 */
function stopWhen(ready: () => boolean, delayMs = 30): AbortSignal {
  const controller = new AbortController()
  const timer = setInterval(() => {
    if (!ready()) return
    clearInterval(timer)
    setTimeout(() => stop(controller), delayMs)
  }, 5)
  afterTest(() => clearInterval(timer))
  return controller.signal
}

/**
 * A stop signal fired the moment the run's client has the status line and headers of its answer to
 * the PATCH: at the request's 'response' event, after the client's own handler, before the body
 * ends.
 */
function stopOnAnswerHead(emulator: ServiceEmulator): AbortSignal {
  const controller = new AbortController()
  const host = new URL(emulator.url).host
  const onStart = (message: unknown): void => {
    const { request } = message as { request: ClientRequest }
    // Listed after the client's own handler (given to http.request): it runs first.
    if (request.method === 'PATCH' && request.getHeader('host') === host)
      request.once('response', () => stop(controller))
  }
  subscribe('http.client.request.start', onStart)
  afterTest(() => unsubscribe('http.client.request.start', onStart))
  return controller.signal
}

/** Hangs the next request to `route`, and stops the run once the service has it. */
function hangThenStop(emulator: ServiceEmulator, route: 'record' | 'stats' | 'votes'): AbortSignal {
  emulator.inject(route, { kind: 'hang' })
  return stopWhen(() => emulator.received(route).length === 1, 20)
}

const SHA = 'a'.repeat(40)
const TOKEN = 'ghs_stopToken0123456789'
const WORKFLOW_RUN = {
  GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/stats.yml@refs/heads/main',
  GITHUB_JOB: 'stats'
}
/**
 * GitHub's fake, its next read hanging, a run without a checkout that names the workflow that ran
 * it, and a stop once GitHub has the read.
 */
async function hangingGitHub(): Promise<{ signal: AbortSignal; env: Record<string, string> }> {
  const files = { 'commands.json': '[{"name":"ping"}]', '.github/workflows/stats.yml': 'jobs: {}' }
  const github = await GitHubFake.start({
    repository: 'example/bot',
    sha: SHA,
    token: TOKEN,
    files
  })
  afterTest(() => github.close())
  github.inject('contents', { kind: 'hang' })
  const env = {
    GITHUB_WORKSPACE: await tempWorkspace(),
    GITHUB_REPOSITORY: 'example/bot',
    GITHUB_SHA: SHA,
    GITHUB_API_URL: github.url
  }
  return { signal: stopWhen(() => github.requests.length === 1), env: { ...env, ...WORKFLOW_RUN } }
}

/**
 * Sets the scene (faults, fakes) on the test's bot, updated 7 hours ago; returns the run's options
 * and inputs beside statsInputs.
 */
type Arrange = (
  emulator: ServiceEmulator,
  clock: TestClock
) => Promise<InProcessOptions & { inputs?: Record<string, string> }>

async function stoppedRun(
  arrange: Arrange
): Promise<{ emulator: ServiceEmulator; outcome: StatsOutcome }> {
  const clock = new TestClock()
  const emulator = await emulatedBot(clock)
  const { inputs, ...options } = await arrange(emulator, clock)
  return {
    emulator,
    outcome: (await statsRun(statsInputs(emulator, inputs), { clock, ...options })).outcome
  }
}

const READ = 'GET '
const PATCH = 'PATCH /stats'
const KEY_CHECK = `GET /voters/${BOT}`
const REFUSED = '^Stats update refused as too early \\(429: .*\\): the service counted a strike'
const DRY_RUN = { 'dry-run': 'true' }

describe('a stop before the update goes out: not sent, and the report says so', () => {
  it.each<[string, Arrange, string[]]>([
    [
      'just before the PATCH goes out',
      async () => {
        const controller = new AbortController()
        return {
          signal: controller.signal,
          onLog: line => line.startsWith('Sending PATCH') && stop(controller)
        }
      },
      [READ]
    ],
    [
      'while the record read is in flight',
      async emulator => ({ signal: hangThenStop(emulator, 'record') }),
      [READ]
    ],
    [
      'while Discord is read',
      async () => {
        const fake = await discordFake()
        fake.inject('application', { kind: 'hang' })
        return {
          signal: stopWhen(() => fake.requests.length === 1, 20),
          inputs: { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }
        }
      },
      [READ]
    ],
    [
      'while the manifest is read from the repository: the stop, not a GitHub failure',
      async () => ({
        ...(await hangingGitHub()),
        inputs: { 'command-count': '', 'commands-file': 'commands.json', 'github-token': TOKEN }
      }),
      []
    ],
    [
      // Updated an hour ago: the run skips, and checks the key.
      'during the key check of a run that sends nothing: a stop, not an unchecked key',
      async emulator => {
        emulator.inject('record', recordFault(BOT, new Date(new TestClock().now() - HOUR)))
        return { signal: hangThenStop(emulator, 'votes') }
      },
      [READ, KEY_CHECK]
    ]
  ])('%s', async (_, arrange, received) => {
    const { emulator, outcome } = await stoppedRun(arrange)
    expect(routes(emulator)).toEqual(received)
    expect(outcome).toMatchObject({ result: 'failed', delivery: 'not-sent', keyCheck: undefined })
    expect(outcome.error?.headline).toBe('stopped by SIGTERM')
    expect(outcome.error?.message).toBe(stopped('The stats update was not sent.'))
  })
})

describe('a stop says what was sent and answered, and nothing is sent after it', () => {
  it.each<{
    label: string
    arrange: Arrange
    received: string[]
    expected: Partial<StatsOutcome>
    message: string | RegExp
  }>([
    {
      label: 'while the record read is in flight in a dry run: as in any dry run',
      arrange: async emulator => ({ signal: hangThenStop(emulator, 'record'), inputs: DRY_RUN }),
      received: [READ],
      expected: { result: 'failed', delivery: 'not-sent' },
      message: stopped('Nothing was sent (dry run).')
    },
    {
      label:
        'while the PATCH is in flight: sent, no answer, and the next run will not send it twice',
      arrange: async emulator => ({ signal: hangThenStop(emulator, 'stats') }),
      received: [READ, PATCH],
      expected: { result: 'failed', delivery: 'no-answer' },
      message: stopped(
        'The stats update was sent, and no answer came back: the service may have stored it. ' +
          'With cooldown-check: true the next run reads the public record first and does not send it twice.'
      )
    },
    {
      label: "after the update's status line came: sent and answered, with its status",
      arrange: async emulator => {
        emulator.inject('stats', {
          kind: 'drip',
          status: 200,
          body: '{"success":true}',
          intervalMs: 100
        })
        return { signal: stopOnAnswerHead(emulator) }
      },
      received: [READ, PATCH],
      expected: { result: 'failed', delivery: 'answered', status: 200 },
      message: stopped('The stats update was sent and answered (200).')
    },
    {
      label: 'after the status line of a 429 came: a strike may have been counted',
      arrange: async emulator => {
        emulator.inject('stats', {
          kind: 'drip',
          status: 429,
          body: '{"success":false,"error":"You can only',
          intervalMs: 100
        })
        return { signal: stopOnAnswerHead(emulator) }
      },
      received: [READ, PATCH],
      expected: { result: 'failed', delivery: 'answered', status: 429 },
      message: stopped(
        'The stats update was sent and answered (429). Its answer was cut off after the status line: if that 429 was the 6-hour ' +
          'refusal rather than the request limiter, the service counted a strike against the key (5 within 6 hours revoke it).'
      )
    },
    {
      label: 'during the record read after a 6-hour refusal: the strike, and the stop with it',
      arrange: async emulator => {
        emulator.inject('stats', SIX_HOUR_REFUSAL)
        // The second read hangs, so that the stop lands while it is in flight.
        const onLog = (line: string): void =>
          void (line.startsWith('Sending PATCH') && emulator.inject('record', { kind: 'hang' }))
        return { signal: stopWhen(() => emulator.received('record').length === 2), onLog }
      },
      received: [READ, PATCH, READ],
      expected: { result: 'cooldown', delivery: 'answered', status: 429, nextUpdateAt: undefined },
      message: new RegExp(
        `${REFUSED}.* stopped by SIGTERM .* It came while the bot's record was read after the refusal\\.$`
      )
    },
    {
      label:
        'during the read of the workflow after a strike: the strike, the stop, and that the workflow was not checked',
      arrange: async emulator => {
        emulator.inject('stats', SIX_HOUR_REFUSAL)
        return { ...(await hangingGitHub()), inputs: { 'github-token': TOKEN } }
      },
      received: [READ, PATCH, READ],
      expected: { result: 'cooldown', status: 429 },
      message: new RegExp(
        `${REFUSED}.* The update was not retried\\. .* stopped by SIGTERM .* The workflow that ran this step was not checked\\.$`
      )
    },
    {
      label:
        'during the read of the workflow in a dry run: the step fails, naming the stop and what was not checked',
      arrange: async () => ({
        ...(await hangingGitHub()),
        inputs: { 'github-token': TOKEN, ...DRY_RUN }
      }),
      received: [READ, KEY_CHECK],
      expected: {
        result: 'failed',
        delivery: 'not-sent',
        error: expect.objectContaining({ headline: 'stopped by SIGTERM' })
      },
      message: stopped(
        'The workflow that ran this step was not checked. Nothing was sent (dry run).'
      )
    },
    {
      label:
        'a dry run whose time is up before the workflow read: the step fails, naming what was not checked',
      arrange: async (emulator, clock) => ({
        env: {
          ...WORKFLOW_RUN,
          GITHUB_WORKSPACE: await tempWorkspace({ '.github/workflows/stats.yml': 'jobs: {}' })
        },
        clock: {
          ...clock,
          now: () => clock.now() + (emulator.received('votes').length > 0 ? 60_000 : 0)
        },
        inputs: { ...DRY_RUN, timeout: '60' }
      }),
      received: [READ, KEY_CHECK],
      expected: { result: 'failed', delivery: 'not-sent' },
      message:
        /leaves no room for reading the workflow that ran this step\. .*The workflow that ran this step was not checked\. Nothing was sent \(dry run\)\.$/
    }
  ])('$label', async ({ arrange, received, expected, message }) => {
    const { emulator, outcome } = await stoppedRun(arrange)
    expect(routes(emulator)).toEqual(received)
    expect(outcome).toMatchObject(expected)
    if (typeof message === 'string') expect(outcome.error?.message).toBe(message)
    else expect(outcome.error?.message).toMatch(message)
  })
})
