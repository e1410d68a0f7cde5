/**
 * A step in process as the runner sees it: its outputs, job summary and workflow commands, read
 * back from fresh runner files.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, vi } from 'vitest'
import { ActionError } from '../../src/errors.js'
import { run } from '../../src/main.js'
import type { StatsSettings } from '../../src/settings.js'
import { reportStats } from '../../src/stats/report.js'
import type { StatsOutcome } from '../../src/stats/outcome.js'
import {
  parseCommands,
  parseOutputFile,
  prepareRun,
  type RunOptions,
  type RunResult,
  sweepSecrets,
  type WorkflowCommand
} from './action.js'
import { settingsFor, statsRun, type TestClock } from './inprocess.js'
import { afterTest, forgetSummaryFile, freshProcess } from './teardown.js'

/**
 * Fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, as the runner gives a step, and readers of
 * what was written to them; when the test finishes, the environment is as it was and the files
 * are gone. `output: 'directory'` points GITHUB_OUTPUT at a folder, where no output can be written.
 */
export function runnerFiles(options: { output?: 'file' | 'directory' } = {}): {
  outputs: () => Record<string, string>
  summary: () => string
} {
  const dir = mkdtempSync(join(tmpdir(), 'runner-files-'))
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') }
  const saved = {
    GITHUB_OUTPUT: process.env['GITHUB_OUTPUT'],
    GITHUB_STEP_SUMMARY: process.env['GITHUB_STEP_SUMMARY']
  }
  for (const [name, file] of Object.entries(files)) {
    writeFileSync(file, '')
    process.env[name] = file
  }
  if (options.output === 'directory') process.env['GITHUB_OUTPUT'] = dir
  forgetSummaryFile()
  afterTest(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    forgetSummaryFile()
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    outputs: () => parseOutputFile(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
    summary: () => readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')
  }
}

/** What is written to a stream from now until `stop`, or until the test finishes. */
function captured(stream: NodeJS.WriteStream): { text: () => string; stop: () => void } {
  const chunks: string[] = []
  const spy = vi.spyOn(stream, 'write').mockImplementation(chunk => {
    chunks.push(String(chunk))
    return true
  })
  const stop = (): void => spy.mockRestore()
  afterTest(stop)
  return { text: () => chunks.join(''), stop }
}

/**
 * What is written to stdout (the toolkit's log lines and workflow commands) from now until `stop`,
 * or until the test finishes.
 */
export function capturedStdout(): { text: () => string; lines: () => string[]; stop: () => void } {
  const printed = captured(process.stdout)
  return {
    ...printed,
    lines: () =>
      printed
        .text()
        .split(/\r?\n/)
        .filter(line => line !== '')
  }
}

/**
 * A stats step in process, as the runner sees it: the run (its log lines, every wait it asked
 * for), then its report as main.ts writes it (the workflow commands it printed, and `failure`,
 * what main.ts fails the step with in its one `::error::`).
 */
export interface StatsStep {
  outcome: StatsOutcome
  log: string[]
  outputs: Record<string, string>
  summary: string
  commands: WorkflowCommand[]
  failure: string | undefined
  waits: number[]
}

/**
 * Runs the stats mode with these inputs (and the runner's variables in `env`), then writes its
 * report (reportStats) as the step does, and reads it back.
 */
export async function statsStep(
  given: Record<string, string>,
  clock: TestClock,
  env: Record<string, string> = {}
): Promise<StatsStep> {
  const { outcome, log } = await statsRun(given, { clock, env })
  const files = runnerFiles()
  const printed = capturedStdout()
  let failure: string | undefined
  try {
    failure = await reportStats(settingsFor<StatsSettings>(given), outcome)
  } finally {
    printed.stop()
  }
  return {
    outcome,
    log,
    outputs: files.outputs(),
    summary: files.summary(),
    commands: parseCommands(printed.text()).commands,
    failure,
    waits: clock.waits
  }
}

/** The messages of the annotations of one kind a step printed. */
export function annotations(step: StatsStep, kind: 'error' | 'warning' | 'notice'): string[] {
  return step.commands.filter(c => c.command === kind).map(c => c.message)
}

/**
 * A failure as the step reports it: main.ts fails the step with the one message the report
 * returns (its one `::error::` line), and the report prints no error of its own. An ActionError
 * is an expected failure: main.ts prints no stack trace for it. Returns the message.
 */
export function expectCleanFailure(step: StatsStep): string {
  expect(step.outcome.result).toBe('failed')
  expect(step.outcome.error, 'an expected failure, reported without a stack trace').toBeInstanceOf(
    ActionError
  )
  expect(step.failure).toBe(step.outcome.error!.message)
  expect(annotations(step, 'error'), 'no ::error:: but the one main.ts prints').toEqual([])
  // The headline says why in a few words (interface.md, "Every word true of the run").
  expect(step.summary).toMatch(/<h3>❌ [^<]*(<a [^>]*>[^<]*<\/a>)?[^<]*: failed: [^<]+<\/h3>/)
  return step.failure!
}

/**
 * What the runner sets for a step, or a run reads from its environment: cleared before a run in
 * process.
 */
const RUNNER_VARIABLE = /^(INPUT_|GITHUB_|RUNNER_|ACTIONS_)|^(https?|all|no)_proxy$/i

/**
 * main.ts's run() in process, set up as runAction sets up the bundle (prepareRun), read back the
 * same way and put through the same secrets sweep: for tables of cases that differ only in what
 * they are given. The run owns the process's environment, stdout and exit code while it lasts:
 * never run two at once.
 */
export async function runInProcess(
  options: Omit<RunOptions, 'control' | 'node' | 'bundle' | 'timeoutMs'>
): Promise<RunResult> {
  const prepared = await prepareRun(options)
  const saved = { ...process.env }
  freshProcess(saved)
  for (const name of Object.keys(process.env))
    if (RUNNER_VARIABLE.test(name)) delete process.env[name]
  const { PATH: _path, HOME: _home, ...runner } = prepared.env
  Object.assign(process.env, runner)
  const [out, err] = [captured(process.stdout), captured(process.stderr)]
  const started = performance.now()
  try {
    await run()
    const code = typeof process.exitCode === 'number' ? process.exitCode : 0
    const stdout = out.text()
    const result: RunResult = {
      code,
      stdout,
      stderr: err.text(),
      outputs: parseOutputFile(readFileSync(prepared.outputFile, 'utf8')),
      summary: readFileSync(prepared.summaryFile, 'utf8'),
      ...parseCommands(stdout),
      durationMs: performance.now() - started
    }
    sweepSecrets(result, prepared.env)
    return result
  } finally {
    out.stop()
    err.stop()
    freshProcess(saved)
    await prepared.cleanup()
  }
}
