/**
 * End to end: counts from a command manifest (in the workspace, or read from the
 * repository through GitHub's API) and from Discord's API reach the PATCH body; their
 * refusals happen before any request to the service.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BUNDLE, JOB_TOKEN, NODES, RUNTIME_NODE, ROOT, type RunOptions, type RunResult, errorsOf, runSwept } from '../support/action.js'
import { ServiceEmulator } from '../support/emulator.js'
import { DiscordFake, GitHubFake } from '../support/fakes.js'
import { afterTest } from '../support/teardown.js'

const BOT = '123456789012345678'
const KEY = 'dp_sources-test-key_0a1b2c'
const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GxYzAb.Qm4vR7tW2pK9sL5nX8cJ_0z3'
const SHA = '0123456789abcdef0123456789abcdef01234567'

const fixture = (name: string): Promise<string> => readFile(join(ROOT, 'test/fixtures/manifests', name), 'utf8')

/**
 * A fixture and its counts: [file, commands, with count-subcommands]. Every fixture's counts
 * are checked in process (test/stats/manifest.test.ts); one is enough to follow a manifest from the
 * workspace to the PATCH, the outputs, the log and the summary.
 */
const MANIFESTS: [string, number, number][] = [['discordjs-v1.json', 5, 12]]

async function service(): Promise<ServiceEmulator> {
  const emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY, servers: 1204, realServerCount: 1250 }] })
  afterTest(() => emulator.close())
  return emulator
}

async function discord(commands: unknown[] = [], guildCount = 1250): Promise<DiscordFake> {
  const fake = await DiscordFake.start({ token: DISCORD_TOKEN, applicationId: BOT, guildCount, commands })
  afterTest(() => fake.close())
  return fake
}

async function run(
  node: string,
  api: ServiceEmulator,
  inputs: Record<string, string>,
  extra: Partial<RunOptions> = {}
): Promise<RunResult> {
  const all: Record<string, string> = { 'bot-id': BOT, 'api-key': KEY, 'cooldown-check': 'false', 'base-url': api.url, ...inputs }
  return runSwept({ node, inputs: all, ...extra }, [KEY, ...(all['discord-token'] === undefined ? [] : [DISCORD_TOKEN])])
}

describe.concurrent.each(NODES)('count sources on $name', ({ path: node }) => {
  describe('commands-file', () => {
    it.each(MANIFESTS)('%s counts %i commands, %i with count-subcommands', async (file, plain, withSubcommands) => {
      const text = await fixture(file)
      for (const [countSubcommands, expected] of [
        ['false', plain],
        ['true', withSubcommands]
      ] as const) {
        const api = await service()
        const result = await run(
          node,
          api,
          { 'commands-file': `build/${file}`, 'count-subcommands': countSubcommands },
          { files: { [`build/${file}`]: text } }
        )
        expect(result.code, result.stdout).toBe(0)
        expect(api.received('stats').map(r => JSON.parse(r.body))).toEqual([{ command_count: expected }])
        expect(result.outputs['command-count']).toBe(String(expected))
        expect(result.log).toContain(`Command count: ${expected} (commands-file build/${file})`)
        expect(result.summary).toContain(`commands-file build/${file}`)
      }
    })

    it('warns about duplicates, naming them, and counts them once', async () => {
      const api = await service()
      const result = await run(
        node,
        api,
        { 'commands-file': 'commands.json' },
        { files: { 'commands.json': await fixture('duplicates.json') } }
      )
      const warnings = result.commands.filter(c => c.command === 'warning').map(c => c.message)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/"ping" 2 times; each was counted once/)
    })

    it.each([
      ['a missing file', {}, /no file at .*\/workspace\/commands\.json.*actions\/checkout.*contents: read/],
      [
        'invalid JSON',
        { 'commands.json': '[\n  {"name": "ping"},\n  {"name": "help",}\n]' },
        /not valid JSON: Expected double-quoted property name in JSON at position \d+ \(line 3 column 19\)/
      ],
      [
        'a command without a name',
        { 'commands.json': '{"commands": [{"name":"a"},{"name":"b"},{"name":"c"},{"description":"d"}]}' },
        /commands\[3\] has no "name"/
      ],
      [
        'more than 1,000 commands',
        { 'commands.json': JSON.stringify(Array.from({ length: 1001 }, (_, i) => ({ name: `c${i}` }))) },
        /1001 commands, more than the service's maximum of 1000/
      ],
      ['a directory', { 'commands.json/x': '' }, /is a directory/]
    ])('refuses %s before any request to the service', async (_, files, message) => {
      const api = await service()
      const github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: JOB_TOKEN, files: {} })
      afterTest(() => github.close())
      const result = await run(node, api, { 'commands-file': 'commands.json' }, { files, env: { GITHUB_API_URL: github.url } })
      expect(result.code).toBe(1)
      expect(errorsOf(result)).toHaveLength(1)
      expect(errorsOf(result)[0]).toMatch(/^Input 'commands-file'/)
      expect(errorsOf(result)[0]).toMatch(message)
      expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
      expect(api.requests).toEqual([])
    })

    it('reads the manifest from the repository at the run commit when there is no checkout', async () => {
      const api = await service()
      const github = await GitHubFake.start({
        repository: 'example/bot',
        sha: SHA,
        token: JOB_TOKEN,
        files: { 'build/commands.json': await fixture('saved-get.json') }
      })
      afterTest(() => github.close())
      const result = await run(node, api, { 'commands-file': './build/commands.json' }, { env: { GITHUB_API_URL: github.url } })
      expect(result.code, result.stdout).toBe(0)
      expect(github.requests).toHaveLength(1)
      expect(decodeURIComponent(github.requests[0]!.path)).toBe('/repos/example/bot/contents/build/commands.json')
      expect(github.requests[0]!.headers.authorization).toMatch(new RegExp(`^(token|Bearer) ${JOB_TOKEN}$`))
      expect(api.received('stats').map(r => r.body)).toEqual(['{"command_count":10}'])
      expect(result.log).toContain('Command count: 10 (commands-file ./build/commands.json (from the repository))')
    })

    it('says what was tried and how to fix it when the repository read fails too', async () => {
      const api = await service()
      const github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: 'another-token', files: {} })
      afterTest(() => github.close())
      const result = await run(node, api, { 'commands-file': 'commands.json' }, { env: { GITHUB_API_URL: github.url } })
      expect(result.code).toBe(1)
      expect(errorsOf(result)[0]).toMatch(
        /reading commands\.json from example\/bot at 0123456789ab through the GitHub API failed \(401: Bad credentials\)/
      )
      expect(errorsOf(result)[0]).toMatch(/actions\/checkout.*contents: read/)
      expect(api.requests).toEqual([])
    })
  })

  describe('discord-token', () => {
    it('fills both counts from Discord, with the headers Discord requires', async () => {
      const api = await service()
      const fake = await discord(JSON.parse(await fixture('discordjs-v2.json')) as unknown[], 1262)
      const result = await run(node, api, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url })
      expect(result.code, result.stdout).toBe(0)
      expect(fake.requests.map(r => r.path)).toEqual(['/api/v10/applications/@me', `/api/v10/applications/${BOT}/commands`])
      for (const request of fake.requests) {
        expect(request.headers.authorization).toBe(`Bot ${DISCORD_TOKEN}`)
        expect(request.headers['user-agent']).toMatch(/^DiscordBot \(https:\/\/\S+, \d+\.\d+\.\d+\)$/)
      }
      expect(api.received('stats').map(r => JSON.parse(r.body))).toEqual([{ command_count: 6, server_count: 1262 }])
      expect(result.log).toContain('Server count: 1262 (Discord (approximate_guild_count))')
      expect(result.log).toContain('Command count: 6 (Discord (global commands))')
    })

    it('honours count-subcommands for Discord commands', async () => {
      const api = await service()
      const fake = await discord(JSON.parse(await fixture('discordjs-v1.json')) as unknown[])
      const result = await run(node, api, {
        'discord-token': DISCORD_TOKEN,
        'discord-api-url': fake.url,
        'server-count': '1250',
        'count-subcommands': 'true'
      })
      expect(result.code, result.stdout).toBe(0)
      expect(api.received('stats').map(r => JSON.parse(r.body))).toEqual([{ command_count: 12, server_count: 1250 }])
    })

    it.each([
      [
        'command-count given: only the server count is read',
        { 'command-count': '9' },
        ['/api/v10/applications/@me'],
        { command_count: 9, server_count: 1250 }
      ],
      [
        'both counts given: Discord is not asked',
        { 'command-count': '9', 'server-count': '1240' },
        [],
        { command_count: 9, server_count: 1240 }
      ]
    ])('makes only the calls needed: %s', async (_, inputs, calls, body) => {
      const api = await service()
      const fake = await discord()
      const result = await run(node, api, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url, ...inputs })
      expect(result.code, result.stdout).toBe(0)
      expect(fake.requests.map(r => r.path)).toEqual(calls)
      expect(api.received('stats').map(r => JSON.parse(r.body))).toEqual([body])
    })

    it('takes the command count from the manifest and the server count from Discord', async () => {
      const api = await service()
      const fake = await discord([{ name: 'only-on-discord' }])
      const result = await run(
        node,
        api,
        { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url, 'commands-file': 'commands.json' },
        { files: { 'commands.json': await fixture('wrapped.json') } }
      )
      expect(result.code, result.stdout).toBe(0)
      expect(fake.requests.map(r => r.path)).toEqual(['/api/v10/applications/@me'])
      expect(api.received('stats').map(r => JSON.parse(r.body))).toEqual([{ command_count: 3, server_count: 1250 }])
    })

    it('refuses an invalid token before any request to the service', async () => {
      const api = await service()
      const fake = await DiscordFake.start({ token: 'another-token', applicationId: BOT, guildCount: 1, commands: [] })
      afterTest(() => fake.close())
      const result = await run(node, api, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': fake.url })
      expect(result.code).toBe(1)
      expect(errorsOf(result)).toHaveLength(1)
      expect(errorsOf(result)[0]).toMatch(/Discord answered 401.*discord-token is invalid/)
      expect(fake.requests).toHaveLength(1)
      expect(api.requests).toEqual([])
    })

    // Discord's 429s, 503s, dropped connections and IP bans: in process, test/stats/discord.test.ts.
  })
})

describe('lazy loading', () => {
  it('runs a default stats update (the record read, then the update) with none of the optional chunks present', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bundle-alone-'))
    afterTest(() => rm(dir, { recursive: true, force: true }))
    await copyFile(BUNDLE, join(dir, 'index.js'))
    await copyFile(join(ROOT, 'dist/package.json'), join(dir, 'package.json'))
    const api = await service()
    const inputs = { 'command-count': '4', 'server-count': '1210', 'cooldown-check': 'true' }
    const result = await run(RUNTIME_NODE, api, inputs, { bundle: join(dir, 'index.js') })
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(api.received('record')).toHaveLength(1)
    expect(api.received('stats')).toHaveLength(1)

    const withManifest = await run(
      RUNTIME_NODE,
      api,
      { 'commands-file': 'commands.json' },
      { bundle: join(dir, 'index.js'), files: { 'commands.json': '[]' } }
    )
    expect(withManifest.code).toBe(1) // the manifest chunk is needed, and missing here: the test can fail
  })

  it("loads none of Node's modules a stats update from inputs does not use", async () => {
    // Node's own list of what the process loaded, written when it exits by a module preloaded
    // through NODE_OPTIONS (the runner sets no such thing; the run itself is as a runner's).
    const dir = await mkdtemp(join(tmpdir(), 'node-modules-loaded-'))
    afterTest(() => rm(dir, { recursive: true, force: true }))
    const list = join(dir, 'loaded.txt')
    const hook = join(dir, 'hook.cjs')
    await writeFile(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')))`
    )
    const api = await service()
    const result = await run(
      RUNTIME_NODE,
      api,
      { 'command-count': '4', 'server-count': '1210' },
      { env: { NODE_OPTIONS: `--require ${JSON.stringify(hook)}` } }
    )
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(api.received('stats')).toHaveLength(1)
    const loaded = (await readFile(list, 'utf8')).split('\n')
    expect(loaded, 'the hook saw the run load node:http').toContain('NativeModule http')
    // fs.promises: the job summary is written with synchronous calls (patches/README.md).
    // https and tls: the service here is plain http, and TLS is loaded only for an https address.
    for (const unused of ['internal/fs/promises', 'https', 'tls', 'zlib', 'worker_threads']) {
      expect(loaded, `node:${unused} was loaded`).not.toContain(`NativeModule ${unused}`)
    }
  })
})
