/**
 * `npm run local-action`: GitHub's `@github/local-action` runs `src/main.ts` with inputs from
 * an env file and reports the outputs it saw through `@actions/core`. This runs its command line
 * the same way, on a dry run against the loopback emulator, and reads its outputs table back.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { ROOT } from '../support/action.js'
import { ServiceEmulator } from '../../scripts/emulator/service.js'
import { afterTest } from '../support/teardown.js'

const BOT = { id: '123456789012345678', apiKey: 'dpk_LocalActionKey0123456789' }

it('npm run local-action reports the outputs of a dry run, which reads the record and sends nothing', async () => {
  const updatedAt = new Date(Date.now() - 7 * 3_600_000)
  const emulator = await ServiceEmulator.start({
    bots: [
      {
        ...BOT,
        commands: 10,
        servers: 1000,
        commandsUpdatedAt: updatedAt,
        serversUpdatedAt: updatedAt
      }
    ]
  })
  const dir = await mkdtemp(join(tmpdir(), 'local-action-'))
  afterTest(async () => {
    await emulator.close()
    await rm(dir, { recursive: true, force: true })
  })
  // The shape of .env.example, pointed at the emulator. github-token is left to action.yml's
  // default, which local-action passes unexpanded.
  const envFile = join(dir, '.env')
  const inputs = `BOT-ID=${BOT.id} API-KEY= MODE=stats COMMAND-COUNT=12 BASE-URL=${emulator.url} DRY-RUN=true COOLDOWN-CHECK=true`
  await writeFile(
    envFile,
    [...inputs.split(' ').map(input => `INPUT_${input}`), 'ACTIONS_STEP_DEBUG=false', ''].join('\n')
  )

  const bin = join(ROOT, 'node_modules/@github/local-action/bin/local-action.js')
  // No npm update check: local-action starts its TypeScript through `npm exec`.
  const env = { ...process.env, npm_config_update_notifier: 'false' }
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [bin, 'run', ROOT, 'src/main.ts', envFile],
    { cwd: ROOT, env }
  )
  expect(stdout, 'local-action sees the outputs set through @actions/core').not.toContain(
    'No outputs were set'
  )
  // The rows of its "Action Outputs" table: `│ 0 │ 'result' │ 'dry-run' │`.
  const rows = stdout
    .slice(stdout.indexOf('Action Outputs'))
    .matchAll(/│\s*\d+\s*│\s*'([^']+)'\s*│\s*'([^']*)'\s*│/g)
  const outputs = Object.fromEntries([...rows].map(row => [row[1], row[2]]))
  expect(outputs, stdout).toMatchObject({
    result: 'dry-run',
    'command-count': '12',
    'next-update-at': expect.stringMatching(/^\d{4}-/)
  })
  // A dry run reads the record and sends no PATCH.
  expect(emulator.requests.map(r => r.method)).toEqual(['GET'])
}, 60_000)
