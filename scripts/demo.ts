/**
 * `npm start`: runs the bundled action once, as a workflow step would but on the Node that runs
 * this script, and prints what the workflow would show: the log, the outputs and the job
 * summary. A run that has not finished after 10 s is stopped, and the script says so.
 *
 * By default it runs against the local service emulator with an example bot. To run it
 * against the live service with your own bot, set BOT_ID and API_KEY (and optionally
 * COMMAND_COUNT, SERVER_COUNT, BASE_URL, DRY_RUN, COOLDOWN_CHECK).
 */
import { type RunResult, runAction } from '../test/support/action.js'
import { ServiceEmulator } from '../test/support/emulator.js'

const HOUR = 60 * 60 * 1000
const TIMEOUT_MS = 10_000
const env = process.env
const live = env['BOT_ID'] !== undefined || env['API_KEY'] !== undefined

let emulator: ServiceEmulator | undefined
let inputs: Record<string, string>
if (live) {
  inputs = {
    'bot-id': env['BOT_ID'] ?? '',
    'api-key': env['API_KEY'] ?? '',
    'command-count': env['COMMAND_COUNT'] ?? '',
    'server-count': env['SERVER_COUNT'] ?? '',
    'base-url': env['BASE_URL'] ?? 'https://api.discord.place',
    'dry-run': env['DRY_RUN'] ?? 'false',
    'cooldown-check': env['COOLDOWN_CHECK'] ?? 'true'
  }
  console.log(`Running the action against ${inputs['base-url']} for bot ${inputs['bot-id']}.\n`)
} else {
  const example = { id: '123456789012345678', apiKey: 'example-api-key-0123456789' }
  emulator = await ServiceEmulator.start({
    bots: [
      {
        ...example,
        commands: 12,
        servers: 1204,
        realServerCount: 1262,
        commandsUpdatedAt: new Date(Date.now() - 7 * HOUR),
        serversUpdatedAt: new Date(Date.now() - 7 * HOUR)
      }
    ]
  })
  inputs = {
    'bot-id': example.id,
    'api-key': example.apiKey,
    'command-count': '14',
    'server-count': '1260',
    'base-url': emulator.url
  }
  console.log(`Running the action against the local service emulator at ${emulator.url}`)
  console.log('(example bot listed with 12 commands and 1,204 servers, last updated 7 hours ago).')
  console.log('Set BOT_ID and API_KEY to run it against the live service instead.\n')
}

try {
  const given = Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== ''))
  const result = await runAction({ inputs: given, timeoutMs: TIMEOUT_MS }).catch((error: unknown) => {
    // runAction's error for a run it killed. Its output so far is not printed: it holds the ::add-mask:: lines.
    if (error instanceof Error && error.message.startsWith('the action did not exit within')) return undefined
    throw error
  })
  if (result === undefined) {
    console.error(`${process.execPath} dist/index.js had not finished after ${TIMEOUT_MS / 1000} s and was stopped.`)
    process.exitCode = 1
  } else {
    show(result)
  }
} finally {
  await emulator?.close()
}

function show(result: RunResult): void {
  section('Log')
  for (const line of result.log) console.log(`  ${line}`)
  section('Outputs')
  for (const [name, value] of Object.entries(result.outputs)) console.log(`  ${name} = ${value}`)
  section('Job summary')
  console.log(result.summary.replace(/^/gm, '  '))
  section('Exit code')
  console.log(`  ${result.code} (${result.code === 0 ? 'the step succeeds' : 'the step fails'})`)
  if (emulator !== undefined) {
    section('Requests the service received')
    for (const r of emulator.requests) console.log(`  ${r.method} ${r.path}${r.body ? ` ${r.body}` : ''} -> ${r.status}`)
  }
  process.exitCode = result.code ?? 1
}

function section(title: string): void {
  console.log(`\n── ${title} ${'─'.repeat(Math.max(0, 60 - title.length))}`)
}
