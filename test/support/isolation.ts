/**
 * Each test file starts as a run of the action does, in a process of its own: no secret known
 * yet, no job summary begun, the environment as the worker had it. The test files share their
 * workers' modules (vitest's `isolate: false`: loading the modules afresh for every file cost
 * half the suite's time), so what one file leaves behind is undone here, before and after it.
 */
import * as core from '@actions/core'
import { afterAll, beforeAll } from 'vitest'
import { clearSecrets } from '../../src/secrets.js'
import { trackTests } from './teardown.js'

const environment = { ...process.env }

function fresh(): void {
  clearSecrets()
  core.summary.emptyBuffer()
  // The summary remembers GITHUB_STEP_SUMMARY at its first write (one file per process, in a
  // run); a test file sets its own, so the path is forgotten with the rest.
  ;(core.summary as unknown as { _filePath?: string })._filePath = undefined
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name]
  Object.assign(process.env, environment)
  process.exitCode = undefined
}

beforeAll(fresh)
afterAll(fresh)
// What a test starts is closed when that test finishes, even among concurrent tests (teardown.ts).
trackTests()
