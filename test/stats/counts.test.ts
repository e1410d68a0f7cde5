/**
 * Where the counts come from (src/stats/counts.ts), in process on a clock the test controls: the
 * inputs, a commands-file in the workspace or the repository, and Discord for whichever count is
 * missing, only for an update that is due. interface.md: "Counts that would erase the listing are
 * not sent"; `command-count: 0` is the user's own word. Manifests: manifest.test.ts; Discord's
 * answers: discord.test.ts.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GitHubFake } from '../support/fakes.js'
import {
  BOT,
  botInputs,
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  type EmulatedBot,
  HOUR
} from '../support/inprocess.js'
import { statsRun, tempWorkspace, TestClock } from '../support/inprocess.js'
import { statsStep } from '../support/step.js'

const JOB_TOKEN = 'ghs_countsJobToken0123456789'
const SHA = '0123456789abcdef0123456789abcdef01234567'
const CONTEXT = { GITHUB_REPOSITORY: 'example/bot', GITHUB_SHA: SHA }

/** GitHub's fake, one for the file, holding commands.json: one command. */
let github: GitHubFake
beforeAll(async () => {
  github = await GitHubFake.start({
    repository: 'example/bot',
    sha: SHA,
    token: JOB_TOKEN,
    files: { 'commands.json': '[{"name":"ping"}]' }
  })
})
afterAll(() => github.close())

interface Scene extends EmulatedBot {
  /** commands.json in the run's workspace; none when undefined. */
  manifest?: string
  /** Discord's global commands: Discord's fake is given as discord-token and discord-api-url. */
  discord?: unknown[]
  guildCount?: number
  env?: Record<string, string>
}

/**
 * A run for the test's bot (its listing shows 12 commands) with commands-file commands.json, and
 * what each side saw.
 */
async function run(
  more: Record<string, string>,
  { manifest, discord, guildCount, env, ...bot }: Scene = {}
) {
  const clock = new TestClock()
  const emulator = await emulatedBot(clock, bot)
  const fake = await discordFake(discord, guildCount)
  const workspace = await tempWorkspace(manifest === undefined ? {} : { 'commands.json': manifest })
  const token: Record<string, string> =
    discord === undefined ? {} : { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }
  const inputs = botInputs(emulator, { 'commands-file': 'commands.json', ...token, ...more })
  const { outcome, log } = await statsRun(inputs, {
    clock,
    env: { GITHUB_WORKSPACE: workspace, GITHUB_API_URL: github.url, ...env }
  })
  const sent = emulator.received('stats').map(r => JSON.parse(r.body) as unknown)
  return { emulator, fake, outcome, log, workspace, sent }
}

describe('a commands-file', () => {
  it('in the workspace: counted, named as the source, and the log says which file', async () => {
    const { outcome, log, workspace, sent } = await run(
      {},
      { manifest: '[{"name":"ping","type":1},{"name":"help","type":1}]' }
    )
    expect(outcome.counts?.command).toEqual({
      value: 2,
      source: 'commands-file commands.json',
      read: true
    })
    expect(log).toContain(`Counting the commands in ${join(workspace, 'commands.json')}.`)
    expect(sent).toEqual([{ command_count: 2 }])
  })

  it('not in a workspace without a checkout: read from the repository at the run’s commit, and the source says so', async () => {
    const { outcome, log, sent } = await run({ 'github-token': JOB_TOKEN }, { env: CONTEXT })
    expect(outcome.counts?.command).toEqual({
      value: 1,
      source: 'commands-file commands.json (from the repository)',
      read: true
    })
    expect(log).toContain(
      'commands-file commands.json is not in the workspace; reading it from example/bot at 0123456789ab through the GitHub API.'
    )
    expect(sent).toEqual([{ command_count: 1 }])
  })

  const token = { 'github-token': JOB_TOKEN }
  const NEEDED =
    /could not be read from the repository \(the repository and a github-token are needed\)/
  // The inputs, the run's context, the failure, and the requests to GitHub.
  it.each<{
    label: string
    more: Record<string, string>
    env: Record<string, string>
    why: RegExp
    asked: number
  }>([
    {
      label: 'not in the repository either',
      more: { ...token, 'commands-file': 'missing.json' },
      env: CONTEXT,
      why: /missing\.json from example\/bot at 0123456789ab/,
      asked: 1
    },
    { label: 'with no github-token', more: {}, env: CONTEXT, why: NEEDED, asked: 0 },
    { label: 'with no repository', more: token, env: { GITHUB_SHA: SHA }, why: NEEDED, asked: 0 },
    {
      label: 'with no commit',
      more: token,
      env: { GITHUB_REPOSITORY: 'example/bot' },
      why: NEEDED,
      asked: 0
    }
  ])(
    'not in the workspace, $label: the run fails before any request to the service',
    async ({ more, env, why, asked }) => {
      const before = github.requests.length
      const { outcome, emulator } = await run(more, { env })
      expect(outcome.result).toBe('failed')
      expect(outcome.error?.message).toMatch(why)
      expect(github.requests.length - before).toBe(asked)
      expect(emulator.requests).toEqual([])
    }
  )
})

describe('a command count of 0 that a source read', () => {
  const leftOut = (source: string, shown: string, fix: string): string =>
    `The command count was left out: ${source} found no commands, and ${shown}; sending 0 would erase the count on the listing. ${fix} ` +
    '(command-count: 0 sends zero on purpose.)'
  const MANIFEST =
    'A manifest that lists none usually means the wrong file or a build step that did not run: check the path and the build.'
  const PER_SERVER =
    'A bot that registers its commands per server has no global commands: set commands-file to the manifest your deploy script sends, to count those.'
  const [FILE, SHOWS, UNREAD] = [
    'commands-file commands.json',
    'the listing shows 12',
    "the listing's count could not be read to compare"
  ]
  const [servers, unchecked] = [
    { 'server-count': '1250' },
    { 'server-count': '1250', 'cooldown-check': 'false' }
  ]
  const SERVER_ONLY = [{ server_count: 1250 }]
  // What the listing shows, the inputs, what is sent, and the warning (none when 0 is sent).
  it.each<{
    label: string
    commands: number
    more: Record<string, string>
    bodies: unknown[]
    warning?: string
  }>([
    {
      label: 'a manifest listing none, the listing 12: left out',
      commands: 12,
      more: servers,
      bodies: SERVER_ONLY,
      warning: leftOut(FILE, SHOWS, MANIFEST)
    },
    {
      label: 'the same, the only count: skipped',
      commands: 12,
      more: { 'discord-token': '' },
      bodies: [],
      warning: leftOut(FILE, SHOWS, MANIFEST)
    },
    {
      label: 'the same, unchecked (cooldown-check: false)',
      commands: 12,
      more: unchecked,
      bodies: SERVER_ONLY,
      warning: leftOut(FILE, UNREAD, MANIFEST)
    },
    {
      label: 'Discord with no global commands',
      commands: 12,
      more: { 'commands-file': '' },
      bodies: SERVER_ONLY,
      warning: leftOut('Discord (global commands)', SHOWS, PER_SERVER)
    },
    {
      label: 'a manifest listing none, the listing none: 0 is sent',
      commands: 0,
      more: servers,
      bodies: [{ command_count: 0, server_count: 1250 }]
    }
  ])('$label', async ({ commands, more, bodies, warning }) => {
    const { outcome, emulator, sent } = await run(more, {
      manifest: '[]',
      seed: { commands },
      discord: []
    })
    expect(sent).toEqual(bodies)
    expect(emulator.bot(BOT).commands).toBe(commands)
    expect(outcome.counts?.warnings).toEqual(warning === undefined ? [] : [warning])
    expect(outcome.warnings, 'one warning, and nothing contrary').toEqual([])
    // With nothing left to send, the key is still checked.
    if (bodies.length === 0)
      expect(outcome).toMatchObject({
        result: 'skipped',
        skip: 'nothing',
        keyCheck: { state: 'valid' },
        error: undefined
      })
  })

  it('command-count: 0 is the user’s own word: sent, stored, and written to the outputs; no output for a count not given', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const step = await statsStep(botInputs(emulator, { 'command-count': '0' }), clock)
    expect(emulator.received('stats').map(r => r.body)).toEqual(['{"command_count":0}'])
    expect(emulator.bot(BOT)).toMatchObject({ commands: 0, servers: 1204 })
    expect(step.outputs).toMatchObject({ result: 'updated', 'command-count': '0', status: '200' })
    expect(step.outputs['server-count']).toBeUndefined()
  })
})

describe('Discord fills in whichever count is missing', () => {
  it.each<[string, Record<string, string>, EmulatedBot, string]>([
    ['the run will be skipped', { 'command-count': '1' }, { ago: 2 * HOUR }, 'skipped'],
    ['both counts are given', { 'command-count': '3', 'server-count': '1250' }, {}, 'updated']
  ])('is not asked when %s', async (_, more, bot, result) => {
    const { outcome, log, fake } = await run(
      { 'commands-file': '', ...more },
      { discord: [], ...bot }
    )
    expect(fake.requests).toEqual([])
    expect(log.filter(line => line.includes('from Discord'))).toEqual([])
    expect(outcome.result).toBe(result)
    expect(outcome.counts?.command).toEqual({
      value: Number(more['command-count']),
      source: 'input command-count',
      read: false
    })
  })

  const [COMMANDS, SERVERS] = ['Discord (global commands)', 'Discord (approximate_guild_count)']
  const DUPLICATE = `Input 'commands-file' (commands.json) lists the chat input command "ping" 2 times; each was counted once.`
  const [noFile, server] = [
    { 'commands-file': '' },
    { 'commands-file': '', 'server-count': '1250' }
  ]
  // The inputs (commands-file: commands.json, "ping" twice, unless left out), what is read, the
  // counts' sources, the warnings.
  it.each<{
    label: string
    more: Record<string, string>
    read: string
    commandSource: string
    serverSource: string
    warnings: string[]
  }>([
    {
      label: 'both counts',
      more: noFile,
      read: 'the server count and the command count',
      commandSource: COMMANDS,
      serverSource: SERVERS,
      warnings: []
    },
    {
      label: 'only commands: server-count given, even out of range',
      more: server,
      read: 'the command count',
      commandSource: COMMANDS,
      serverSource: 'input server-count',
      warnings: []
    },
    {
      label: 'only servers: the manifest’s warnings kept',
      more: {},
      read: 'the server count',
      commandSource: 'commands-file commands.json',
      serverSource: SERVERS,
      warnings: [DUPLICATE]
    }
  ])('$label', async ({ more, read, commandSource, serverSource, warnings }) => {
    const manifest = '[{"name":"ping"},{"name":"ping"}]'
    const { outcome, log, fake, emulator, sent } = await run(more, {
      manifest,
      discord: [{ name: 'ping' }],
      guildCount: more === server ? 20_000_000 : 1250
    })
    expect(log).toContain(`Reading ${read} from Discord.`)
    // Each count and its source logged once: those given first, then those Discord filled in.
    const lines = [`Command count: 1 (${commandSource})`, `Server count: 1250 (${serverSource})`]
    const fromDiscord = (line: string): number => Number(line.includes('(Discord'))
    expect(log.filter(line => /^(Command|Server) count: /.test(line))).toEqual(
      lines.sort((a, b) => fromDiscord(a) - fromDiscord(b))
    )
    expect(fake.requests.map(r => r.route)).toEqual(
      commandSource === COMMANDS ? ['application', 'commands'] : ['application']
    )
    expect(emulator.requests[0]!.receivedNs, 'the record is read first').toBeLessThan(
      fake.requests[0]!.receivedNs
    )
    expect(outcome).toMatchObject({ result: 'updated', counts: { warnings } })
    expect(outcome.counts?.command).toEqual({ value: 1, source: commandSource, read: true })
    expect(outcome.counts?.server).toEqual({
      value: 1250,
      source: serverSource,
      read: serverSource === SERVERS
    })
    expect(sent).toEqual([{ command_count: 1, server_count: 1250 }])
  })
})
