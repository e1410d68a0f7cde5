/**
 * main.ts's run(), in process, through the runner protocol @actions/core speaks: the step's
 * inputs as INPUT_* (action.yml's defaults applied, as the runner does), the GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, and the workflow commands written to stdout. The one place that
 * decides success or failure, and the one catch that turns an error into setFailed.
 */
import { describe, expect, it, vi } from 'vitest'
import { realClock } from '../../src/http/client.js'
import { addSecret } from '../../src/secrets.js'
import * as settings from '../../src/settings.js'
import type { RunResult } from '../support/action.js'
import { BOT, botInputs, emulatedBot, HOUR, KEY } from '../support/inprocess.js'
import { runInProcess } from '../support/step.js'
import { afterTest } from '../support/teardown.js'

/**
 * run() as the runner starts the step with `with:` = `inputs` and no job token (a planted bug would
 * leave it unmasked); what it left.
 */
const runStep = (inputs: Record<string, string>): Promise<RunResult> =>
  runInProcess({ inputs, jobToken: '' })

/** The test's bot, on the real clock that run() uses. */
const service = (ago?: number) => emulatedBot(realClock, { ago })

/** Plants a bug: reading the settings throws `thrown`. */
function plant(thrown: () => unknown): void {
  const planted = vi.spyOn(settings, 'readSettings').mockImplementation(() => {
    throw thrown()
  })
  afterTest(() => planted.mockRestore())
}

const errors = (view: RunResult) =>
  view.commands.filter(c => c.command === 'error').map(c => c.message)

describe('run()', () => {
  const [VOTE, C14] = [
    { mode: 'vote-check', 'user-id': '223456789012345678' },
    { 'command-count': '14' }
  ]
  // Each row: when the bot was last updated, the inputs, the outputs, the one error (and exit code
  // 1), the summary headline's icon.
  it.each<{
    label: string
    ago: number
    more: Record<string, string>
    outputs: Record<string, string>
    error?: RegExp
    icon?: string
  }>([
    {
      label: 'a stats update',
      ago: 7 * HOUR,
      more: C14,
      outputs: { result: 'updated', status: '200', 'command-count': '14' },
      error: undefined,
      icon: '✅'
    },
    {
      label: 'a strike',
      ago: HOUR,
      more: { ...C14, 'cooldown-check': 'false' },
      outputs: { result: 'cooldown', status: '429' },
      error: /^Stats update refused as too early/
    },
    {
      label: 'vote-check mode',
      ago: 7 * HOUR,
      more: VOTE,
      outputs: { result: 'not-voted', voted: 'false', status: '200' },
      error: undefined,
      icon: '⭕'
    }
  ])(
    '$label: its outputs, exit code and summary section, the key masked first',
    async ({ ago, more, outputs, error, icon }) => {
      const view = await runStep(botInputs(await service(ago), more))
      expect([view.code, view.outputs]).toEqual([error ? 1 : 0, expect.objectContaining(outputs)])
      expect(errors(view)).toEqual(error ? [expect.stringMatching(error)] : [])
      if (icon) expect(view.summary.startsWith(`<h3>${icon} `)).toBe(true)
      expect(view.commands[0], 'the key is masked before anything else').toMatchObject({
        command: 'add-mask',
        message: KEY
      })
    }
  )

  it.each([
    ['command-count', { 'command-count': '12.5' }, `Bot ${BOT}`],
    ['bot-id', { 'bot-id': '42', 'command-count': '14' }, 'discord.place']
  ])(
    'a bad %s: result failed, one error naming it, a headline naming what is known; no handler left',
    async (input, more, named) => {
      const emulator = await service()
      const handlers = () => [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')]
      const before = handlers()
      const view = await runStep(botInputs(emulator, more))
      expect([view.code, view.outputs, emulator.requests, handlers()]).toEqual([
        1,
        { result: 'failed' },
        [],
        before
      ])
      expect(errors(view)).toEqual([expect.stringMatching(new RegExp(`^Input '${input}' must be`))])
      expect(view.summary).toMatch(
        new RegExp(`^<h3>❌ ${named}: failed: bad input &#39;${input}&#39;</h3>\n<p>❌ `)
      )
    }
  )

  const withSecret = (): Error => {
    addSecret(KEY)
    return new Error(`a bug with ${KEY} in it`)
  }
  // Columns: what the bug throws, the one error, and whether its stack is in a debug line.
  it.each<[string, () => unknown, string, boolean]>([
    ['an Error', () => new TypeError('a planted bug'), 'a planted bug', true],
    ['a value that is not an Error', () => 'a planted string', 'a planted string', false],
    [
      'an Error without a stack',
      () => Object.assign(new RangeError('no stack'), { stack: undefined }),
      'no stack',
      false
    ],
    ['an Error with a secret in its message', withSecret, 'a bug with *** in it', true]
  ])(
    'a bug (%s): reported as one, result failed, headline internal error',
    async (_, thrown, said, stack) => {
      plant(thrown)
      const view = await runStep({ 'bot-id': BOT, 'command-count': '14' })
      expect([view.code, view.outputs]).toEqual([1, { result: 'failed' }])
      expect(errors(view)).toEqual([
        `Unexpected internal error: ${said}. Please report it with this log.`
      ])
      // Its stack only in a debug line, never in the log.
      expect(
        view.commands.filter(c => c.command === 'debug').map(c => / at /.test(c.message))
      ).toEqual(stack ? [true] : [])
      expect(view.log.join('\n')).not.toMatch(/\n\s+at /)
      expect(view.summary).toMatch(/^<h3>❌ discord\.place: failed: internal error<\/h3>/)
      expect(view.summary).not.toContain(KEY)
    }
  )
})

describe('run() and the step around it', () => {
  it('logs the notes on how the inputs were taken', async () => {
    const view = await runStep(botInputs(await service(), { 'command-count': '14', timeout: '10' }))
    expect(view.code).toBe(0)
    expect(view.log).toContainEqual(
      expect.stringMatching(/^request-timeout \(30 s\) is longer than timeout \(10 s\)/)
    )
  })

  it('gives each request request-timeout to answer: a service that never answers fails the step then, not later', async () => {
    const emulator = await service()
    emulator.inject('stats', { kind: 'hang' })
    const started = Date.now()
    const view = await runStep(
      botInputs(emulator, { 'command-count': '14', 'request-timeout': '1' })
    )
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(view.code).toBe(1)
    expect(errors(view)).toEqual([
      expect.stringMatching(
        /^Stats update failed: no complete answer from 127\.0\.0\.1:\d+ within 1 s\./
      )
    ])
  })

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'a %s (a cancelled workflow) stops the run where it is: the step fails saying so, and the handler is gone afterwards',
    async signal => {
      const emulator = await service()
      emulator.inject('record', { kind: 'hang' })
      const before = process.listenerCount(signal)
      const timer = setInterval(() => {
        if (emulator.received('record').length === 0) return
        clearInterval(timer)
        process.emit(signal, signal)
      }, 5)
      afterTest(() => clearInterval(timer))
      const view = await runStep(
        botInputs(emulator, { 'command-count': '14', 'request-timeout': '5' })
      )
      expect([view.code, view.outputs.result]).toEqual([1, 'failed'])
      expect(errors(view)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^The step was stopped by ${signal} \\(a cancelled workflow or a time limit\\)\\.`
          )
        )
      ])
      expect(emulator.received('stats'), 'nothing is sent after the stop').toEqual([])
      expect(process.listenerCount(signal)).toBe(before)
    }
  )
})
