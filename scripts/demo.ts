/**
 * `npm start -- <scenario>`: runs the bundled action once on Node 24, as a workflow step would,
 * against the local service emulator seeded for the day the scenario tells, and prints the job
 * summary as text, the outputs, the annotations and the requests the service received. It exits
 * with the action's exit code. Without Node 24 at hand it fetches one first, as `npm test` does. A
 * run that has not finished after 10 s is stopped, and the script says so.
 */
import { pathToFileURL } from 'node:url'
import { type BotSeed, type Fault, jsonFault, ServiceEmulator } from './emulator/service.js'
import { ready } from './node24.mjs'
import { runStep, type Step, type StepResult } from './step.js'

const HOUR = 60 * 60 * 1000
const TIMEOUT_MS = 10_000
const BOT = '123456789012345678'
const KEY = 'example-api-key-0123456789'
const [ALICE, BOB] = ['223456789012345678', '323456789012345678']
const ago = (hours: number): Date => new Date(Date.now() - hours * HOUR)
/** The bot's counts last updated `hours` ago. */
const updated = (hours: number): Partial<BotSeed> => ({
  commandsUpdatedAt: ago(hours),
  serversUpdatedAt: ago(hours)
})
const COUNTS = { 'command-count': '14', 'server-count': '1260' }
/**
 * discord.place's answer when its own lookup of the server count fails (routes/bots/[id]/stats.js).
 */
const FAILED = jsonFault(500, {
  success: false,
  error: 'Could not fetch server count.',
  status: 500
})

/**
 * A few commands as a deploy script sends them to Discord: 3 top-level, 5 leaf subcommands among
 * them.
 */
const subcommands = (...names: string[]): object[] =>
  names.map(name => ({ type: 1, name, description: `The ${name} subcommand` }))
const MANIFEST = [
  { name: 'ping', description: 'Check the latency' },
  {
    name: 'config',
    description: 'Configure the bot',
    options: subcommands('show', 'set', 'reset')
  },
  { name: 'role', description: 'Manage roles', options: subcommands('add', 'remove') }
]

export interface Scenario {
  name: string
  /** What the day shows, in one line. */
  shows: string
  /**
   * The example bot as the service holds it that day (over 12 commands and 1,204 servers, 1,262 on
   * Discord).
   */
  bot: Partial<BotSeed>
  /** The step's `with:` besides bot-id, api-key and base-url. */
  inputs: Record<string, string>
  /** The workspace's files. */
  files?: Record<string, string>
  /** The service's answer to the update, when it is not the service's own. */
  fault?: Fault
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'updated',
    shows: 'the last update was 7 h ago: the counts from the inputs are sent and stored',
    bot: updated(7),
    inputs: COUNTS
  },
  {
    name: 'too-soon',
    shows:
      'the last update was 2 h ago: the record read shows it, nothing is sent, the next update time is given',
    bot: updated(2),
    inputs: { ...COUNTS, 'cooldown-check': 'true' }
  },
  {
    name: 'first-day',
    shows: 'the bot was submitted an hour ago and is not verified yet (403): skipped, nothing sent',
    bot: { verified: false, createdAt: ago(1) },
    inputs: COUNTS
  },
  {
    name: 'strike',
    shows:
      'updated an hour ago, with cooldown-check: false: the service refuses the update as a strike (429), the step fails',
    bot: updated(1),
    inputs: { ...COUNTS, 'cooldown-check': 'false' }
  },
  {
    name: 'revoked-key',
    shows: 'the key in the secret was revoked for strikes (410): the step fails',
    bot: { ...updated(7), apiKey: 'example-api-key-regenerated', revokedKeys: [KEY] },
    inputs: COUNTS
  },
  {
    name: 'wrong-key',
    shows:
      'the secret holds a key the service does not know (401) on an update 7 h after the last: the step fails',
    bot: { ...updated(7), apiKey: 'example-api-key-on-the-manage-page' },
    inputs: COUNTS
  },
  {
    name: 'dry-run',
    shows:
      'a dry run (dry-run: true), 7 h after the last update: the record read and the key checked, nothing sent',
    bot: updated(7),
    inputs: { ...COUNTS, 'dry-run': 'true' }
  },
  {
    name: 'manifest',
    shows:
      'the command count read from a JSON manifest (commands-file): 3 commands, 5 subcommands among them, count 3',
    bot: { ...updated(7), commands: 2 },
    inputs: { 'commands-file': 'commands.json', 'server-count': '1260' },
    files: { 'commands.json': JSON.stringify(MANIFEST, null, 2) }
  },
  {
    name: 'deferred',
    shows:
      'stale-after: 48, and the service fails on its side (500) 7 h after the last update: a green step with one warning',
    bot: updated(7),
    inputs: { ...COUNTS, 'stale-after': '48' },
    fault: FAILED
  },
  {
    name: 'stale',
    shows:
      'stale-after: 48, and the service fails on its side (500) with the listing 53 h without an update: the step fails',
    bot: updated(53),
    inputs: { ...COUNTS, 'stale-after': '48' },
    fault: FAILED
  },
  {
    name: 'vote-check',
    shows: 'mode: vote-check for two users, one who voted 3 h ago and one 30 h ago',
    bot: {
      voters: { [ALICE]: { vote: 3, lastVote: ago(3) }, [BOB]: { vote: 1, lastVote: ago(30) } }
    },
    inputs: { mode: 'vote-check', 'user-id': `${ALICE}, ${BOB}` }
  }
]

/**
 * What a scenario's run gives: the action's run, and the requests the service received (`METHOD
 * path body -> status`).
 */
export interface ScenarioRun {
  result: StepResult | undefined
  requests: string[]
}

/** A step's run: the bundle on Node 24 (npm start), or main.ts in process (its test). */
export type StepRunner = (step: Step) => Promise<StepResult | undefined>

/** Runs a scenario: the emulator seeded for its day, then the step with its inputs and files. */
export async function runScenario(scenario: Scenario, run: StepRunner): Promise<ScenarioRun> {
  const emulator = await ServiceEmulator.start({
    bots: [
      { id: BOT, apiKey: KEY, commands: 12, servers: 1204, realServerCount: 1262, ...scenario.bot }
    ]
  })
  if (scenario.fault !== undefined) emulator.inject('stats', scenario.fault)
  try {
    const result = await run({
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'base-url': emulator.url, ...scenario.inputs },
      files: scenario.files
    })
    return {
      result,
      requests: emulator.requests.map(
        r => `${r.method} ${r.path}${r.body ? ` ${r.body}` : ''} -> ${r.status}`
      )
    }
  } finally {
    await emulator.close()
  }
}

const USAGE = `Usage: npm start -- <scenario>

Runs dist/index.js on Node 24, as a workflow step would, against a local emulator of discord.place
seeded for the scenario's day, and prints the job summary, the outputs, the annotations and the
requests the service received. Without a scenario: updated. The scenarios:
`

// Run as a script (npm start), not imported by its test.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main(process.argv[2])

/** The script: `arg` a scenario's name, or `--help`. Returns the exit code. */
export async function main(arg = 'updated'): Promise<number> {
  if (arg === '--help' || arg === '-h') {
    console.log(USAGE)
    for (const s of SCENARIOS) console.log(`  ${s.name.padEnd(12)} ${s.shows}`)
    return 0
  }
  const scenario = SCENARIOS.find(s => s.name === arg)
  if (scenario === undefined) {
    console.error(
      `Unknown scenario "${arg}": the scenarios are ${SCENARIOS.map(s => s.name).join(', ')} (npm start -- --help).`
    )
    return 2
  }
  let node: string | undefined
  try {
    node = ready()
  } catch (error) {
    console.error(
      `npm start runs the action on Node 24, the runtime action.yml declares: ${(error as Error).message}`
    )
    return 1
  }
  if (node === undefined) {
    console.error('npm start runs the action on Node 24, which NODE24=skip turns away: unset it.')
    return 1
  }
  console.log(`${scenario.name}: ${scenario.shows}.`)
  const run = await runScenario(scenario, step => runStep(node, step, TIMEOUT_MS))
  if (run.result === undefined) {
    console.error(
      `${node} dist/index.js had not finished after ${TIMEOUT_MS / 1000} s and was stopped.`
    )
    return 1
  }
  show(run.result, run.requests)
  return run.result.code ?? 1
}

function show(result: StepResult, requests: string[]): void {
  const outputs = Object.entries(result.outputs).map(([name, value]) => `${name} = ${value}`)
  const annotations = result.commands.map(c => `${c.command}: ${c.message}`)
  section('Job summary', plainText(result.summary))
  section('Outputs', outputs)
  section('Annotations', annotations)
  section('Requests the service received', requests)
  section('Exit code', [
    `${result.code} (${result.code === 0 ? 'the step succeeds' : 'the step fails'})`
  ])
}

function section(title: string, lines: string[]): void {
  console.log(`\n── ${title} ${'─'.repeat(Math.max(0, 60 - title.length))}`)
  for (const line of lines.length > 0 ? lines : ['(none)']) console.log(`  ${line}`)
}

/**
 * The summary's HTML as text: a line per heading, paragraph and table row (cells joined by " | ").
 */
function plainText(html: string): string[] {
  const entities: Record<string, string> = {
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: ' '
  }
  return html
    .replace(/<\/t[dh]>\s*<t[dh][^>]*>/g, ' | ')
    .replace(/<br\s*\/?>|<\/(h\d|p|tr|summary|li)>/g, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&#x([\da-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replace(/&([a-z]+);/gi, (entity, name: string) => entities[name] ?? entity)
    .split('\n')
    .map(line => line.trim())
    .filter(line => line !== '')
}
