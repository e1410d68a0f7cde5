/**
 * Each test file starts as a run of the action does: no secret known, no job summary begun, the
 * environment as the worker had it. The files share their workers' modules (`isolate: false`:
 * loading them afresh for every file cost half the suite's time), so leftovers are undone here.
 */
import { afterAll, beforeAll } from 'vitest'
import { freshProcess, trackTests } from './teardown.js'

const environment = { ...process.env }
const fresh = (): void => freshProcess(environment)

beforeAll(fresh)
afterAll(fresh)
// What a test starts is closed when that test finishes, even among concurrent tests (teardown.ts).
trackTests()
