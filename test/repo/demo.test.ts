/**
 * `npm start -- <scenario>` (scripts/demo.ts): each scenario seeds the emulator for its day and
 * runs the action once. Only the structure is asserted: the exit code, the `result` output and
 * the requests the service received; the sentences are pinned by the tests of the reports. The
 * table runs main.ts in process (dist/ is the build of the source: dist.test.ts); one scenario
 * runs through the script itself, the bundle on Node 24 as `npm start` runs it.
 */
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it, vi } from 'vitest'
import { NODE24, ROOT } from '../support/action.js'
import { runInProcess } from '../support/step.js'
import { afterTest } from '../support/teardown.js'
import { main, runScenario, SCENARIOS as DAYS } from '../../scripts/demo.js'

const BOT = '123456789012345678'
const RECORD = `GET /bots/${BOT}`
const KEY_CHECK = `GET /bots/${BOT}/voters/${BOT}`
const UPDATE = `PATCH /bots/${BOT}/stats`

const SCENARIOS: { scenario: string; code: number; result: string; requests: string[] }[] = [
  {
    scenario: 'updated',
    code: 0,
    result: 'updated',
    requests: [`${RECORD} -> 200`, `${UPDATE} -> 200`]
  },
  {
    scenario: 'too-soon',
    code: 0,
    result: 'skipped',
    requests: [`${RECORD} -> 200`, `${KEY_CHECK} -> 200`]
  },
  {
    scenario: 'first-day',
    code: 0,
    result: 'skipped',
    requests: [`${RECORD} -> 403`, `${KEY_CHECK} -> 200`]
  },
  {
    scenario: 'strike',
    code: 1,
    result: 'cooldown',
    requests: [`${UPDATE} -> 429`, `${RECORD} -> 200`]
  },
  {
    scenario: 'revoked-key',
    code: 1,
    result: 'failed',
    requests: [`${RECORD} -> 200`, `${UPDATE} -> 410`]
  },
  {
    scenario: 'wrong-key',
    code: 1,
    result: 'failed',
    requests: [`${RECORD} -> 200`, `${UPDATE} -> 401`]
  },
  {
    scenario: 'dry-run',
    code: 0,
    result: 'dry-run',
    requests: [`${RECORD} -> 200`, `${KEY_CHECK} -> 200`]
  },
  {
    scenario: 'manifest',
    code: 0,
    result: 'updated',
    requests: [`${RECORD} -> 200`, `${UPDATE} -> 200`]
  },
  {
    scenario: 'deferred',
    code: 0,
    result: 'deferred',
    requests: [`${RECORD} -> 200`, `${UPDATE} -> 500`]
  },
  {
    scenario: 'stale',
    code: 1,
    result: 'failed',
    requests: [`${RECORD} -> 200`, `${UPDATE} -> 500`]
  },
  {
    scenario: 'vote-check',
    code: 0,
    result: 'not-voted',
    requests: [
      `GET /bots/${BOT}/voters/223456789012345678 -> 200`,
      `GET /bots/${BOT}/voters/323456789012345678 -> 200`
    ]
  }
]

/** What main() prints on stdout and stderr, and its exit code. */
async function inProcess(
  arg: string
): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
  const error = vi.spyOn(console, 'error').mockImplementation(() => undefined)
  try {
    const code = await main(arg)
    return {
      code,
      stdout: log.mock.calls.map(call => String(call[0])),
      stderr: error.mock.calls.map(call => String(call[0]))
    }
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
}

describe('npm start', () => {
  it('imports nothing from test/, nor does any script: a change to the tests cannot break it', () => {
    const scripts = readdirSync(join(ROOT, 'scripts'), { recursive: true, encoding: 'utf8' })
    const fromTest = scripts
      .filter(file => /\.[mc]?[jt]s$/.test(file))
      .filter(file =>
        /(?:from|import\()\s*['"](?:\.\.\/)+test\//.test(
          readFileSync(join(ROOT, 'scripts', file), 'utf8')
        )
      )
    expect(scripts).toContain('demo.ts')
    expect(fromTest).toEqual([])
  })

  it('--help gives the usage, then names every scenario, one a line (the script itself, exit code 0)', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/demo.ts', '--help'],
      { cwd: ROOT }
    )
    const [usage, scenarios] = stdout.split('The scenarios:\n')
    expect(usage).toMatch(/^Usage: npm start -- <scenario>\n/)
    expect([...scenarios!.matchAll(/^ {2}(\S+)/gm)].map(name => name[1])).toEqual(
      SCENARIOS.map(s => s.scenario)
    )
  })

  // This machine's own Node counts when it is Node 24: the case is about an empty cache. The
  // registry is a closed port, so the fetch fails at once; the fresh clone's fetch is the real one.
  it.skipIf(process.versions.node.startsWith('24.'))(
    'with no Node 24 at hand, says in one line that it fetches one, before it runs anything',
    () => {
      const empty = mkdtempSync(join(tmpdir(), 'npm-start-'))
      afterTest(() => rmSync(empty, { recursive: true, force: true }))
      const [cache, npmCache] = [join(empty, 'node24'), join(empty, 'npm')]
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', 'updated'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          ...process.env,
          NODE24: '',
          NODE24_CACHE: cache,
          npm_config_registry: 'http://127.0.0.1:9/',
          npm_config_cache: npmCache,
          npm_config_fetch_retries: '0'
        }
      })
      expect(run.stderr.split('\n')[0]).toBe(
        `Installing Node 24 for ${process.platform}-${process.arch} from the npm registry into ${cache} (once) ...`
      )
      expect(run.stderr).toMatch(/could not install Node 24/)
      expect(run).toMatchObject({ status: 1, stdout: '' })
    }
  )

  it('refuses an unknown scenario with one line, exit code 2', async () => {
    expect(await inProcess('no-such-day')).toMatchObject({
      code: 2,
      stdout: [],
      stderr: [expect.stringContaining('no-such-day')]
    })
  })

  it.each(SCENARIOS)(
    '$scenario: exit code $code, result $result',
    async ({ scenario, code, result, requests }) => {
      const day = DAYS.find(day => day.name === scenario)!
      const run = await runScenario(day, runInProcess)
      expect(run.result?.outputs['result'], run.result?.summary).toBe(result)
      if (scenario === 'manifest') expect(run.result?.outputs['command-count']).toBe('3')
      expect(run.requests.map(line => line.replace(/^(\S+ \S+) .* -> /, '$1 -> '))).toEqual(
        requests
      )
      expect(run.result?.code).toBe(code)
    }
  )

  it.skipIf(NODE24 === undefined)(
    'runs a scenario through the bundle on Node 24, and prints what it shows',
    async () => {
      const run = await inProcess('revoked-key')
      const stdout = run.stdout.join('\n')
      expect(run.code, stdout).toBe(1)
      for (const section of [
        'Job summary',
        'Outputs',
        'Annotations',
        'Requests the service received',
        'Exit code'
      ])
        expect(stdout).toContain(`── ${section} `)
      expect(stdout).toContain('result = failed')
      expect(stdout).toMatch(new RegExp(`${UPDATE} .* -> 410`))
    }
  )
})
