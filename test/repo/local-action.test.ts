/**
 * `npm run local-action`: GitHub's `@github/local-action` runs `src/main.ts` with inputs from
 * an env file and reports the outputs it saw through `@actions/core`. This runs it the same
 * way, on a dry run against the loopback emulator, and reads its outputs table back.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../support/action.js'
import { ServiceEmulator } from '../support/emulator.js'

const BOT = { id: '123456789012345678', apiKey: 'dpk_LocalActionKey0123456789' }
const HOUR = 3_600_000

let emulator: ServiceEmulator
let dir: string

beforeAll(async () => {
  emulator = await ServiceEmulator.start({
    bots: [
      {
        ...BOT,
        commands: 10,
        servers: 1000,
        commandsUpdatedAt: new Date(Date.now() - 7 * HOUR),
        serversUpdatedAt: new Date(Date.now() - 7 * HOUR)
      }
    ]
  })
  dir = await mkdtemp(join(tmpdir(), 'local-action-'))
})

afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})

/** Runs local-action's own command line and returns what it printed. */
function localAction(envFile: string): Promise<{ code: number | null; output: string }> {
  const bin = join(ROOT, 'node_modules/@github/local-action/bin/local-action.js')
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'run', ROOT, 'src/main.ts', envFile], { cwd: ROOT, env: process.env })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', code => resolve({ code, output }))
  })
}

/** The rows of local-action's "Action Outputs" table: `│ 0 │ 'result' │ 'dry-run' │`. */
function outputsTable(output: string): Record<string, string> {
  const section = output.slice(output.indexOf('Action Outputs'))
  const rows: Record<string, string> = {}
  for (const match of section.matchAll(/│\s*\d+\s*│\s*'([^']+)'\s*│\s*'([^']*)'\s*│/g)) rows[match[1]!] = match[2]!
  return rows
}

describe('npm run local-action', () => {
  it('reports the outputs of a dry run, which reads the record and sends nothing', async () => {
    const envFile = join(dir, '.env')
    // The shape of .env.example, pointed at the emulator. github-token is left to action.yml's
    // default, which local-action passes unexpanded.
    await writeFile(
      envFile,
      [
        `INPUT_BOT-ID=${BOT.id}`,
        'INPUT_API-KEY=',
        'INPUT_MODE=stats',
        'INPUT_COMMAND-COUNT=12',
        `INPUT_BASE-URL=${emulator.url}`,
        'INPUT_DRY-RUN=true',
        'INPUT_COOLDOWN-CHECK=true',
        'ACTIONS_STEP_DEBUG=false'
      ].join('\n') + '\n'
    )
    const before = emulator.requests.length
    const { code, output } = await localAction(envFile)
    expect(code, output).toBe(0)
    expect(output, 'local-action sees the outputs set through @actions/core').not.toContain('No outputs were set')
    const outputs = outputsTable(output)
    expect(outputs, output).toMatchObject({ result: 'dry-run', 'command-count': '12', 'next-update-at': expect.stringMatching(/^\d{4}-/) })
    const sent = emulator.requests.slice(before)
    expect(
      sent.map(r => r.method),
      'a dry run reads the record and sends no PATCH'
    ).toEqual(['GET'])
  }, 60_000)
})
