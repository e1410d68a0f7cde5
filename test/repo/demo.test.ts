/**
 * `npm start -- <scenario>` (scripts/demo.ts): each scenario runs the bundle on Node 24 against
 * the emulator seeded for its day, and exits with the action's exit code. Only the structure is
 * asserted: the exit code, the `result` output and the requests the service received. The
 * sentences are pinned by the tests of the reports. The scenarios run through the function the
 * script runs (a process each for the action, none for the script); the script itself is run
 * for what only it does: the list, and the refusal of an unknown name.
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { NODE24, ROOT } from '../support/action.js'
import { runScenario, SCENARIOS as DAYS } from '../../scripts/demo.js'

const BOT = '123456789012345678'
const RECORD = `GET /bots/${BOT}`
const KEY_CHECK = `GET /bots/${BOT}/voters/${BOT}`
const UPDATE = `PATCH /bots/${BOT}/stats`

const SCENARIOS: { scenario: string; code: number; result: string; requests: string[] }[] = [
  { scenario: 'updated', code: 0, result: 'updated', requests: [`${RECORD} -> 200`, `${UPDATE} -> 200`] },
  { scenario: 'too-soon', code: 0, result: 'skipped', requests: [`${RECORD} -> 200`, `${KEY_CHECK} -> 200`] },
  { scenario: 'first-day', code: 0, result: 'skipped', requests: [`${RECORD} -> 403`, `${KEY_CHECK} -> 200`] },
  { scenario: 'strike', code: 1, result: 'cooldown', requests: [`${UPDATE} -> 429`, `${RECORD} -> 200`] },
  { scenario: 'revoked-key', code: 1, result: 'failed', requests: [`${RECORD} -> 200`, `${UPDATE} -> 410`] },
  { scenario: 'wrong-key', code: 1, result: 'failed', requests: [`${RECORD} -> 200`, `${UPDATE} -> 401`] },
  { scenario: 'dry-run', code: 0, result: 'dry-run', requests: [`${RECORD} -> 200`, `${KEY_CHECK} -> 200`] },
  { scenario: 'manifest', code: 0, result: 'updated', requests: [`${RECORD} -> 200`, `${UPDATE} -> 200`] },
  {
    scenario: 'vote-check',
    code: 0,
    result: 'not-voted',
    requests: [`GET /bots/${BOT}/voters/223456789012345678 -> 200`, `GET /bots/${BOT}/voters/323456789012345678 -> 200`]
  }
]

interface Demo {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `tsx scripts/demo.ts …` without BOT_ID and API_KEY, which turn it to the live service (and refuse a scenario). */
function demo(...args: string[]): Promise<Demo> {
  const { BOT_ID: _id, API_KEY: _key, ...env } = process.env
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}

describe('npm start', () => {
  it('--list names every scenario, one a line', async () => {
    const { code, stdout } = await demo('--list')
    expect(code).toBe(0)
    const names = stdout.trim().split('\n')
    expect(names.map(line => line.split(' ')[0])).toEqual(SCENARIOS.map(s => s.scenario))
  })

  it('refuses an unknown scenario with one line, exit code 2', async () => {
    const { code, stdout, stderr } = await demo('no-such-day')
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe.skipIf(NODE24 === undefined).concurrent('npm start -- <scenario>, on Node 24', () => {
  it.each(SCENARIOS)('$scenario: exit code $code, result $result', async ({ scenario, code, result, requests }) => {
    const run = await runScenario(
      DAYS.find(day => day.name === scenario)!,
      NODE24!
    )
    expect(run.result?.outputs['result'], run.result?.stderr).toBe(result)
    if (scenario === 'manifest') expect(run.result?.outputs['command-count']).toBe('3')
    expect(run.requests.map(line => line.replace(/^(\S+ \S+) .* -> /, '$1 -> '))).toEqual(requests)
    expect(run.result?.code).toBe(code)
  })
})
