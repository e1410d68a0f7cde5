/**
 * main.ts's run(), in process, through the runner protocol @actions/core speaks: the step's
 * inputs as INPUT_* (action.yml's defaults applied, as the runner does), the GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, and the workflow commands written to stdout. The one place that
 * decides success or failure, and the one catch that turns an error into setFailed.
 */
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import * as core from '@actions/core'
import { describe, expect, it, vi } from 'vitest'
import { realClock } from '../../src/http/client.js'
import { run } from '../../src/main.js'
import { addSecret, clearSecrets } from '../../src/secrets.js'
import * as settings from '../../src/settings.js'
import { ROOT } from '../support/action.js'
import { BOT, botInputs, emulatedBot, HOUR, KEY, tempWorkspace } from '../support/inprocess.js'
import { capturedStdout, runnerFiles } from '../support/step.js'
import { inputEnvironment, parseActionFile } from '../support/runner.js'
import { afterTest } from '../support/teardown.js'

const ACTION = parseActionFile('action.yml', readFileSync(join(ROOT, 'action.yml'), 'utf8')).template!

/** What a run left for the runner: its exit code, outputs, summary, and the workflow commands it printed. */
interface RunnerView {
  readonly exitCode: number | undefined
  readonly outputs: Record<string, string>
  readonly summary: string
  readonly commands: { readonly command: string; readonly message: string }[]
  readonly log: string[]
}

/** Runs run() as the runner would start the step with `with:` = `given`, and reads back what it left. */
async function runStep(given: Record<string, string>): Promise<RunnerView> {
  const saved = { ...process.env }
  afterTest(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
    Object.assign(process.env, saved)
    process.exitCode = undefined
  })
  const files = runnerFiles()
  Object.assign(process.env, inputEnvironment(ACTION, given, { github: { token: '' } }), { GITHUB_WORKSPACE: await tempWorkspace() })
  process.exitCode = undefined
  // @actions/core's summary keeps its buffer in the process: each run here is a step of its own.
  core.summary.emptyBuffer()
  const printed = capturedStdout()
  await run()
  printed.stop()
  const lines = printed.lines()
  return {
    exitCode: typeof process.exitCode === 'number' ? process.exitCode : undefined,
    outputs: files.outputs(),
    summary: files.summary(),
    commands: lines
      .map(line => /^::([a-z-]+)(?: [^:]*)?::(.*)$/.exec(line))
      .filter(match => match !== null)
      .map(match => ({ command: match[1]!, message: match[2]! })),
    log: lines.filter(line => !line.startsWith('::'))
  }
}

/** The test's bot, on the real clock that run() uses. */
const service = (ago?: number) => emulatedBot(realClock, { ago })

describe('run()', () => {
  it('a stats update: outputs written, the summary section, the key masked first, and the step left green', async () => {
    const emulator = await service()
    const view = await runStep(botInputs(emulator, { 'command-count': '14' }))
    expect(view.exitCode, 'green').toBeUndefined()
    expect(view.outputs).toMatchObject({ result: 'updated', status: '200', 'command-count': '14' })
    expect(view.summary).toMatch(/^<h3>✅ /)
    expect(view.commands[0], 'the key is masked before anything else').toEqual({ command: 'add-mask', message: KEY })
    expect(view.commands.filter(c => c.command === 'error')).toEqual([])
  })

  it('a bad input: result failed, one error naming the input, and a summary whose headline names the bot', async () => {
    const emulator = await service()
    const view = await runStep(botInputs(emulator, { 'command-count': '12.5' }))
    expect(view.exitCode).toBe(1)
    expect(view.outputs).toEqual({ result: 'failed' })
    expect(view.commands.filter(c => c.command === 'error')).toEqual([
      { command: 'error', message: expect.stringMatching(/^Input 'command-count' must be/) }
    ])
    expect(view.summary).toMatch(new RegExp(`^<h3>❌ Bot ${BOT}: failed: bad input &#39;command-count&#39;</h3>`))
    expect(emulator.requests).toEqual([])
  })

  it('a strike: result cooldown, and the step fails with the one error naming it', async () => {
    const emulator = await service(HOUR)
    const view = await runStep(botInputs(emulator, { 'command-count': '14', 'cooldown-check': 'false' }))
    expect(view.exitCode).toBe(1)
    expect(view.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    expect(view.commands.filter(c => c.command === 'error')).toEqual([
      { command: 'error', message: expect.stringMatching(/^Stats update refused as too early/) }
    ])
  })

  it('a bug: reported as a bug (its stack only in a debug line), result failed, the headline says internal error', async () => {
    const planted = vi.spyOn(settings, 'readSettings').mockImplementation(() => {
      throw new TypeError('a planted bug')
    })
    afterTest(() => planted.mockRestore())
    const view = await runStep({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14' })
    expect(view.exitCode).toBe(1)
    expect(view.outputs).toEqual({ result: 'failed' })
    expect(view.commands.filter(c => c.command === 'error')).toEqual([
      { command: 'error', message: 'Unexpected internal error: a planted bug. Please report it with this log.' }
    ])
    expect(view.commands.some(c => c.command === 'debug' && /TypeError: a planted bug/.test(c.message))).toBe(true)
    expect(view.log.join('\n')).not.toMatch(/\n\s+at /)
    expect(view.summary).toMatch(/^<h3>❌ discord\.place: failed: internal error<\/h3>/)
  })

  it('vote-check mode: its outputs and section', async () => {
    const emulator = await service()
    const view = await runStep(botInputs(emulator, { mode: 'vote-check', 'user-id': '223456789012345678' }))
    expect(view.exitCode).toBeUndefined()
    expect(view.outputs).toMatchObject({ result: 'not-voted', voted: 'false', status: '200' })
    expect(view.summary).toMatch(/^<h3>⭕ /)
  })
})

describe('run() and the step around it', () => {
  it('logs the notes on how the inputs were taken', async () => {
    const emulator = await service()
    const view = await runStep({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'base-url': emulator.url, timeout: '10' })
    expect(view.exitCode).toBeUndefined()
    expect(view.log).toContain(
      'request-timeout (30 s) is longer than timeout (10 s), so each request may take at most 10 s, the time the whole step may take.'
    )
  })

  it('gives each request request-timeout to answer: a service that never answers fails the step then, not later', async () => {
    const emulator = await service()
    emulator.inject('stats', { kind: 'hang' })
    const started = Date.now()
    const view = await runStep({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'base-url': emulator.url, 'request-timeout': '1' })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(view.exitCode).toBe(1)
    expect(view.commands.filter(c => c.command === 'error')).toEqual([
      { command: 'error', message: expect.stringMatching(/^Stats update failed: no complete answer from 127\.0\.0\.1:\d+ within 1 s\./) }
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
      const view = await runStep({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'base-url': emulator.url, 'request-timeout': '5' })
      expect(view.exitCode).toBe(1)
      expect(view.outputs).toMatchObject({ result: 'failed' })
      expect(view.commands.filter(c => c.command === 'error')).toEqual([
        {
          command: 'error',
          message: expect.stringMatching(new RegExp(`^The step was stopped by ${signal} \\(a cancelled workflow or a time limit\\)\\.`))
        }
      ])
      expect(emulator.received('stats'), 'nothing is sent after the stop').toEqual([])
      expect(process.listenerCount(signal)).toBe(before)
    }
  )

  it('leaves no signal handler behind after a failed run either', async () => {
    const before = [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')]
    await runStep({ 'bot-id': '42', 'api-key': KEY, 'command-count': '14' })
    expect([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')]).toEqual(before)
  })

  it('a bad bot-id: the headline names no bot, only the input', async () => {
    const view = await runStep({ 'bot-id': '42', 'api-key': KEY, 'command-count': '14' })
    expect(view.outputs).toEqual({ result: 'failed' })
    expect(view.summary).toMatch(
      /^<h3>❌ discord\.place: failed: bad input &#39;bot-id&#39;<\/h3>\n<p>❌ <strong>Error:<\/strong> Input &#39;bot-id&#39; must be/
    )
  })

  it('a bug whose message holds a secret prints it redacted', async () => {
    vi.spyOn(settings, 'readSettings').mockImplementation(() => {
      addSecret(KEY)
      throw new Error(`a planted bug with ${KEY} in it`)
    })
    afterTest(() => clearSecrets())
    const view = await runStep({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14' })
    const [error] = view.commands.filter(c => c.command === 'error')
    expect(error?.message).toMatch(/^Unexpected internal error: a planted bug with \S+ in it\. Please report it with this log\.$/)
    expect(error?.message).not.toContain(KEY)
    expect(view.summary).not.toContain(KEY)
  })

  it('a thrown value that is not an Error is reported as a bug too, with no stack to print', async () => {
    vi.spyOn(settings, 'readSettings').mockImplementation(() => {
      throw 'a planted string'
    })
    const view = await runStep({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14' })
    expect(view.commands.filter(c => c.command === 'error')).toEqual([
      { command: 'error', message: 'Unexpected internal error: a planted string. Please report it with this log.' }
    ])
    expect(view.commands.filter(c => c.command === 'debug')).toEqual([])
    expect(view.summary).toMatch(/^<h3>❌ discord\.place: failed: internal error<\/h3>/)
  })

  it('an Error without a stack is reported without a debug line', async () => {
    vi.spyOn(settings, 'readSettings').mockImplementation(() => {
      const bug = new RangeError('a planted bug without a stack')
      bug.stack = undefined
      throw bug
    })
    const view = await runStep({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '14' })
    expect(view.commands.filter(c => c.command === 'error')).toEqual([
      { command: 'error', message: 'Unexpected internal error: a planted bug without a stack. Please report it with this log.' }
    ])
    expect(view.commands.filter(c => c.command === 'debug')).toEqual([])
  })
})
