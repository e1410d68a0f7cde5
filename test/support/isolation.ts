/**
 * Each test file starts as a run of the action does: no secret known, no job summary begun, the
 * environment as the worker had it. The files share their workers' modules (`isolate: false`:
 * loading them afresh for every file cost half the suite's time), so leftovers are undone here.
 */
import * as core from '@actions/core'
import { afterAll, beforeAll } from 'vitest'
import { clearSecrets } from '../../src/secrets.js'
import { trackTests } from './teardown.js'

const environment = { ...process.env }

function fresh(): void {
  clearSecrets()
  core.summary.emptyBuffer()
  // The summary remembers GITHUB_STEP_SUMMARY at its first write; a test file sets its own.
  ;(core.summary as unknown as { _filePath?: string })._filePath = undefined
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name]
  Object.assign(process.env, environment)
  process.exitCode = undefined
}

beforeAll(fresh)
afterAll(fresh)
// What a test starts is closed when that test finishes, even among concurrent tests (teardown.ts).
trackTests()
