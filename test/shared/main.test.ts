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
