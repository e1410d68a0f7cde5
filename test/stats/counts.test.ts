/**
 * Where the counts come from (src/stats/counts.ts), in process: the inputs, a commands-file in
 * the workspace or, without a checkout, in the repository at the run's commit, and Discord for
 * whichever count is still missing, against the service emulator, Discord's fake and GitHub's
 * fake, on a clock the test controls; and the log line that names each count's source.
 * interface.md: Discord "fills in whichever count was not given otherwise", and is asked only
 * for an update that is due; "Counts that would erase the listing are not sent" (a source that
 * finds no commands while the listing shows some), while `command-count: 0` is the user's own
 * word. Discord's own answers are in discord.test.ts.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needsDiscord, withDiscordCounts } from '../../src/stats/counts.js'
import type { Counts, CountInputs } from '../../src/stats/outcome.js'
import { Requests } from '../../src/http/client.js'
import type { ServiceEmulator } from '../support/emulator.js'
import { GitHubFake } from '../support/fakes.js'
import {
  BOT,
  botInputs,
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  HOUR,
  KEY,
  settingsFor,
  statsInputs,
  statsRun,
  tempWorkspace,
  TestClock
} from '../support/inprocess.js'
import { statsStep } from '../support/step.js'
import type { StatsSettings } from '../../src/settings.js'

const JOB_TOKEN = 'ghs_countsJobToken0123456789'
const SHA = '0123456789abcdef0123456789abcdef01234567'

/** GitHub's fake, one for the file; each run gets its address as GITHUB_API_URL. */
let github: GitHubFake
beforeAll(async () => {
  github = await GitHubFake.start({
    repository: 'example/bot',
    sha: SHA,
    token: JOB_TOKEN,
    files: { 'commands.json': '[{"name":"ping"}]' }
  })
})
afterAll(async () => {
  await github.close()
})

const sent = (emulator: ServiceEmulator): unknown[] => emulator.received('stats').map(r => JSON.parse(r.body) as unknown)

const ERASURE_ADVICE =
  'A manifest that lists none usually means the wrong file or a build step that did not run: check the path and the build. ' +
  '(command-count: 0 sends zero on purpose.)'

/** A run whose commands-file, commands.json, holds `manifest` in a workspace of its own; `dir` is that workspace. */
async function withManifest(clock: TestClock, emulator: ServiceEmulator, manifest: string, more: Record<string, string> = {}) {
  const dir = await tempWorkspace({ 'commands.json': manifest })
  const run = await statsRun(botInputs(emulator, { 'commands-file': 'commands.json', ...more }), { clock, env: { GITHUB_WORKSPACE: dir } })
  return { ...run, dir }
}

describe('a commands-file', () => {
  it('in the workspace: counted, named as the source, and the log says which file', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { outcome, log, dir } = await withManifest(clock, emulator, '[{"name":"ping","type":1},{"name":"help","type":1}]')
    expect(outcome.counts?.command).toEqual({ value: 2, source: 'commands-file commands.json', read: true })
    expect(log).toContain(`Counting the commands in ${join(dir, 'commands.json')}.`)
    expect(sent(emulator)).toEqual([{ command_count: 2 }])
  })

  it('that lists no commands while the listing shows some: left out with a warning, the server count still sent', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { outcome } = await withManifest(clock, emulator, '[]', { 'server-count': '1250' })
    expect(sent(emulator)).toEqual([{ server_count: 1250 }])
    expect(emulator.bot(BOT).commands).toBe(12)
    expect(outcome.counts?.warnings).toEqual([
      `The command count was left out: commands-file commands.json found no commands, and the listing shows 12; sending 0 would erase the count on the listing. ${ERASURE_ADVICE}`
    ])
    expect(outcome.warnings, 'one warning, and nothing contrary').toEqual([])
  })

  it('that lists no commands while the listing shows none either: 0 is sent, with no warning', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { seed: { commands: 0 } })
    const { outcome } = await withManifest(clock, emulator, '[]', { 'server-count': '1250' })
    expect(emulator.received('stats')[0]!.body).toBe('{"command_count":0,"server_count":1250}')
    expect(outcome.counts?.warnings).toEqual([])
    expect(outcome.warnings).toEqual([])
  })

  it('a count a source left out leaves nothing to send: skipped, the key still checked, nothing sent', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    // A manifest that lists no commands while the listing shows 12: the count is left out.
    const { outcome } = await withManifest(clock, emulator, '[]')
    expect(emulator.received('stats')).toEqual([])
    expect(emulator.received('votes')).toHaveLength(1)
    expect(outcome).toMatchObject({ result: 'skipped', skip: 'nothing', keyCheck: { state: 'valid' }, error: undefined })
  })

  it('that lists no commands, without the record to compare (cooldown-check: false): left out, saying the listing was not read', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { outcome } = await withManifest(clock, emulator, '[]', { 'server-count': '1250', 'cooldown-check': 'false' })
    expect(sent(emulator)).toEqual([{ server_count: 1250 }])
    expect(outcome.counts?.warnings).toEqual([
      `The command count was left out: commands-file commands.json found no commands, and the listing's count could not be read to compare; sending 0 would erase the count on the listing. ${ERASURE_ADVICE}`
    ])
  })

  it('not in a workspace without a checkout: read from the repository at the run’s commit, and the source says so', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const dir = await tempWorkspace()
    const env = { GITHUB_WORKSPACE: dir, GITHUB_REPOSITORY: 'example/bot', GITHUB_SHA: SHA, GITHUB_API_URL: github.url }
    const { outcome, log } = await statsRun(botInputs(emulator, { 'commands-file': 'commands.json', 'github-token': JOB_TOKEN }), {
      clock,
      env
    })
    expect(outcome.counts?.command).toEqual({ value: 1, source: 'commands-file commands.json (from the repository)', read: true })
    expect(log).toContain(
      'commands-file commands.json is not in the workspace; reading it from example/bot at 0123456789ab through the GitHub API.'
    )
    expect(sent(emulator)).toEqual([{ command_count: 1 }])
  })

  it('that the repository does not hold either: the failure names the repository and the commit', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const dir = await tempWorkspace()
    const env = { GITHUB_WORKSPACE: dir, GITHUB_REPOSITORY: 'example/bot', GITHUB_SHA: SHA, GITHUB_API_URL: github.url }
    const { outcome } = await statsRun(botInputs(emulator, { 'commands-file': 'missing.json', 'github-token': JOB_TOKEN }), { clock, env })
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/reading missing\.json from example\/bot at 0123456789ab through the GitHub API failed \(404/)
    expect(emulator.requests).toEqual([])
  })

  it.each([
    ['no github-token', {}, { GITHUB_REPOSITORY: 'example/bot', GITHUB_SHA: SHA }],
    ['no repository', { 'github-token': JOB_TOKEN }, { GITHUB_SHA: SHA }],
    ['no commit', { 'github-token': JOB_TOKEN }, { GITHUB_REPOSITORY: 'example/bot' }]
  ])('not in the workspace, with %s: not read from the repository, and the failure says what is needed', async (_, more, context) => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const dir = await tempWorkspace()
    const before = github.requests.length
    const { outcome } = await statsRun(botInputs(emulator, { 'commands-file': 'commands.json', ...more }), {
      clock,
      env: { GITHUB_WORKSPACE: dir, GITHUB_API_URL: github.url, ...context }
    })
    expect(github.requests.length - before).toBe(0)
    expect(outcome.result).toBe('failed')
    expect(outcome.error?.message).toMatch(/could not be read from the repository \(the repository and a github-token are needed\)/)
  })
})

describe('a count given as an input', () => {
  it('command-count: 0 is the user’s own word: sent, stored, and written to the outputs as 0; no output for a count not given', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const run = await statsStep(botInputs(emulator, { 'command-count': '0' }), clock)
    expect(emulator.received('stats')[0]!.body).toBe('{"command_count":0}')
    expect(emulator.bot(BOT)).toMatchObject({ commands: 0, servers: 1204 })
    expect(run.outputs).toMatchObject({ result: 'updated', 'command-count': '0', status: '200' })
    expect(run.outputs['server-count']).toBeUndefined()
  })
})

describe('the log', () => {
  it('names each count given with its source', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const { log } = await statsRun(statsInputs(emulator, { 'server-count': '1250' }), { clock })
    expect(log.filter(line => /^(Command|Server) count: /.test(line))).toEqual([
      'Command count: 14 (input command-count)',
      'Server count: 1250 (input server-count)'
    ])
  })

  it('names each count with its source once, then the ones Discord filled in', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake()
    const { log } = await statsRun(statsInputs(emulator, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }), { clock })
    expect(log.filter(line => /^(Command|Server) count: /.test(line))).toEqual([
      'Command count: 14 (input command-count)',
      'Server count: 1250 (Discord (approximate_guild_count))'
    ])
  })
})

describe('Discord fills in whichever count is missing', () => {
  it('is asked only after the record, and not at all when the run will be skipped (even when it is down)', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock, { ago: 2 * HOUR })
    const fake = await discordFake()
    fake.inject('application', { kind: 'answer', status: 500, body: 'down' })
    const { outcome } = await statsRun(botInputs(emulator, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }), { clock })
    expect(fake.requests).toEqual([])
    expect(outcome.result).toBe('skipped')
  })

  it('fills in both counts when the update is due', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake([
      { name: 'ping', type: 1 },
      { name: 'help', type: 1 }
    ])
    const { outcome } = await statsRun(botInputs(emulator, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }), { clock })
    expect(emulator.requests[0]!.receivedNs).toBeLessThan(fake.requests[0]!.receivedNs)
    expect(emulator.received('stats')[0]!.body).toBe('{"command_count":2,"server_count":1250}')
    expect(outcome.result).toBe('updated')
  })

  it('no global commands while the listing shows some: the command count is left out with a warning, not sent as 0', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake()
    const { outcome } = await statsRun(botInputs(emulator, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }), { clock })
    expect(emulator.received('stats')[0]!.body).toBe('{"server_count":1250}')
    expect(emulator.bot(BOT).commands).toBe(12)
    expect(outcome.counts?.warnings.join('\n')).toMatch(
      /The command count was left out: Discord \(global commands\) found no commands, and the listing shows 12/
    )
    // The fix that helps a bot with per-server commands: count its manifest.
    expect(outcome.counts?.warnings.join('\n')).toMatch(
      /has no global commands: set commands-file to the manifest your deploy script sends/
    )
  })

  it('both counts: says so, and names Discord as the source of each', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake([{ name: 'ping', type: 1 }])
    const { outcome, log } = await statsRun(botInputs(emulator, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }), { clock })
    expect(log).toContain('Reading the server count and the command count from Discord.')
    expect(outcome.counts).toEqual({
      command: { value: 1, source: 'Discord (global commands)', read: true },
      server: { value: 1250, source: 'Discord (approximate_guild_count)', read: true },
      warnings: []
    })
  })

  it('only the command count when the server count is given: Discord’s server count is not used, even one out of range', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake([{ name: 'ping', type: 1 }], 20_000_000)
    const { outcome, log } = await statsRun(
      botInputs(emulator, { 'server-count': '1250', 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }),
      {
        clock
      }
    )
    expect(log).toContain('Reading the command count from Discord.')
    expect(outcome.result).toBe('updated')
    expect(outcome.counts).toEqual({
      command: { value: 1, source: 'Discord (global commands)', read: true },
      server: { value: 1250, source: 'input server-count', read: false },
      warnings: []
    })
    expect(sent(emulator)).toEqual([{ command_count: 1, server_count: 1250 }])
  })

  it('only the server count when a manifest gives the commands, keeping the manifest’s warnings', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake([])
    const { outcome, log } = await withManifest(clock, emulator, '[{"name":"ping"},{"name":"ping"}]', {
      'discord-token': DISCORD_TOKEN,
      'discord-api-url': fake.url
    })
    expect(log).toContain('Reading the server count from Discord.')
    expect(fake.requests.map(r => r.route)).toEqual(['application'])
    expect(outcome.counts?.warnings).toHaveLength(1)
    expect(outcome.counts?.warnings[0]).toMatch(/ping/)
    expect(sent(emulator)).toEqual([{ command_count: 1, server_count: 1250 }])
  })

  it('is not asked when both counts are given, token or not', async () => {
    const clock = new TestClock()
    const emulator = await emulatedBot(clock)
    const fake = await discordFake([])
    const { outcome } = await statsRun(
      botInputs(emulator, { 'command-count': '3', 'server-count': '1250', 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url }),
      { clock }
    )
    expect(fake.requests).toEqual([])
    expect(outcome.result).toBe('updated')
  })
})

describe('needsDiscord and withDiscordCounts', () => {
  const inputs = (token: string | undefined): CountInputs => ({
    ...settingsFor<StatsSettings>({ 'bot-id': BOT, 'api-key': KEY, 'command-count': '1' }),
    discordToken: token,
    // Nothing listens there: Discord is never to be asked in these.
    discordApiUrl: 'http://127.0.0.1:9'
  })
  const given = (command?: number, server?: number): Counts => ({
    command: command === undefined ? undefined : { value: command, source: 'input command-count', read: false },
    server: server === undefined ? undefined : { value: server, source: 'input server-count', read: false },
    warnings: []
  })

  it('Discord is needed only with a token and a count missing', () => {
    expect(needsDiscord(inputs(undefined), given(1))).toBe(false)
    expect(needsDiscord(inputs(DISCORD_TOKEN), given(1, 2))).toBe(false)
    expect(needsDiscord(inputs(DISCORD_TOKEN), given(1))).toBe(true)
    expect(needsDiscord(inputs(DISCORD_TOKEN), given(undefined, 2))).toBe(true)
  })

  it('with nothing to fill in, the counts come back as they are, and nothing is asked or logged', async () => {
    const log: string[] = []
    const counts = given(1, 2)
    const requests = new Requests({ attemptTimeoutMs: 1_000, totalMs: 1_000 }, new TestClock())
    expect(await withDiscordCounts(inputs(DISCORD_TOKEN), counts, { requests, log: line => log.push(line) })).toBe(counts)
    expect(await withDiscordCounts(inputs(undefined), given(1), { requests, log: line => log.push(line) })).toEqual(given(1))
    expect(log).toEqual([])
  })
})
