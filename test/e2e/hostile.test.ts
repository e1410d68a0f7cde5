/**
 * End to end, as an attacker or a careless user would try it (issue 12): secrets echoed back in
 * other forms, files that are not files, inputs that try to start workflow commands, counts
 * from Discord the service would refuse, and a GITHUB_OUTPUT that cannot be written. The
 * tables of inputs and echoed forms run whole in process (test/shared/cases.test.ts); a few of
 * each run here, through dist/ on Node 24.
 *
 * Every run also passes through runAction's secrets sweep, which looks for each secret raw,
 * Markdown- and HTML-escaped, URL- and JSON-encoded, and as any 10-character piece.
 */
import { type ChildProcess, execFileSync } from 'node:child_process'
import { mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, it as base, describe, expect } from 'vitest'
import { JOB_TOKEN, NODES, type RunResult, runAction } from '../support/action.js'
import {
  ECHOES,
  expectEchoRedacted,
  expectInert,
  expectInjectionRefused,
  expectLegacyInjectionRefused,
  expectOnlyOwnCommands,
  INJECTIONS,
  LEGACY_INJECTIONS,
  pick
} from '../support/cases.js'
import { ServiceEmulator } from '../support/emulator.js'
import { DiscordFake, GitHubFake } from '../support/fakes.js'
import { afterTest } from '../support/teardown.js'

/**
 * Named pipes, /dev/zero, symbolic links (which need privileges there) and POSIX signals (which
 * Windows does not deliver to a process: it is ended) are tried on Linux and macOS only.
 */
const POSIX_ONLY = process.platform === 'win32'

const BOT = '123456789012345678'
const KEY = 'dpk_Hq7Zr2Lm9Xv4Tc8Nw3Bs6Jy1'
const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.Gk2xQp.Ra9sVt4wYu7zBc3dEf6gHj1k'
const HOUR = 3_600_000
/** The run's commit, as the harness sets GITHUB_SHA. */
const SHA = '0123456789abcdef0123456789abcdef01234567'

/** The example bot, last updated 7 hours ago. */
const startService = (): Promise<ServiceEmulator> =>
  ServiceEmulator.start({
    bots: [
      {
        id: BOT,
        apiKey: KEY,
        commands: 10,
        servers: 1000,
        commandsUpdatedAt: new Date(Date.now() - 7 * HOUR),
        serversUpdatedAt: new Date(Date.now() - 7 * HOUR)
      }
    ]
  })

/**
 * Each test gets a service of its own (`{ service }`): the tests of a group run at once, and a
 * strike or a spent limit of one test never reaches another.
 */
const it = base.extend<{ service: ServiceEmulator }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  service: async ({}, use) => {
    const service = await startService()
    await use(service)
    await service.close()
  }
})

function inputs(service: ServiceEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return { 'bot-id': BOT, 'api-key': KEY, 'base-url': service.url, 'cooldown-check': 'false', ...extra }
}

const errors = (result: RunResult): string[] => result.commands.filter(c => c.command === 'error').map(c => c.message)
const patches = (service: ServiceEmulator): number => service.requests.filter(r => r.method === 'PATCH').length

/** The service answers the next PATCH with this error text. */
function serviceSays(service: ServiceEmulator, text: string, status = 500): void {
  service.inject('stats', {
    kind: 'answer',
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ success: false, error: text, status })
  })
}

/**
 * Text a remote sends that the runner would read as workflow commands if it reached a line of
 * stdout as it is: the legacy `##[command]value` (read wherever `##[` appears in a line) and
 * `::command::value` at a line's start, among them an output and a mask for a common word.
 */
const FORGED =
  '##[error]forged-legacy ##[set-output name=result;]updated ##[add-mask]Bot\n::error::forged-line\n  ::add-mask::Bot\n::set-output name=result::updated'

describe.concurrent.each(NODES)('workflow commands in a remote answer, on $name', ({ path: node }) => {
  it.for([
    ['a refused update (the ::error:: line)', 500, {}],
    ["the request limiter's 429 (a warning)", 429, { 'Retry-After': '120' }]
  ] as const)(
    '%s: the runner reads no command the action did not issue, in the log or the annotations',
    async ([, status, headers], { service }) => {
      service.inject('stats', {
        kind: 'answer',
        status,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ success: false, error: FORGED, status })
      })
      const result = await runAction({ node, inputs: inputs(service, { 'command-count': '12' }) })

      expect(result.code).toBe(status === 500 ? 1 : 0)
      expect(
        result.stdout.split('\n').filter(line => line.includes('##[')),
        'no line holds the legacy ##[ syntax'
      ).toEqual([])
      const issued = result.commands.map(c => c.command)
      expect(
        issued.filter(kind => !['add-mask', 'error', 'warning'].includes(kind)),
        'commands the action never issues'
      ).toEqual([])
      expect(
        result.commands.filter(c => c.syntax !== '::'),
        'no command in the legacy syntax'
      ).toEqual([])
      expect(
        result.commands.filter(c => c.command === 'add-mask').map(c => c.message),
        'masks only for the secrets given'
      ).toEqual(expect.arrayContaining([KEY]))
      expect(result.commands.filter(c => c.command === 'add-mask' && c.message.length < 8)).toEqual([])
      // The remote text is shown, inert: in the one annotation that quotes it, and in the log line.
      const quoting = result.commands.filter(c => c.message.includes('forged'))
      expect(quoting.map(c => c.command)).toEqual([status === 500 ? 'error' : 'warning'])
      expect(quoting[0]!.message).toContain('# #[error]forged-legacy')
      expect(result.log.filter(line => line.includes('forged') && !/^(error|warning): /.test(line))).toEqual([
        expect.stringMatching(/^The service answered \d{3}: # #\[error\]forged-legacy/)
      ])
      expect(result.outputs['result'], 'no output set by the remote').toBe(status === 500 ? 'failed' : 'rate-limited')
    }
  )
})

describe.concurrent.each(NODES)('workflow commands in the other remotes and in inputs, on $name', ({ path: node }) => {
  it("a vote check's error text", async ({ service }) => {
    service.inject('votes', {
      kind: 'answer',
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ success: false, error: FORGED, status: 400 })
    })
    const result = await runAction({ node, inputs: inputs(service, { mode: 'vote-check', 'user-id': '223456789012345678' }) })
    expect(result.code).toBe(1)
    expect(errors(result)).toEqual([expect.stringContaining('# #[error]forged-legacy')])
    expectInert(result)
  })

  it("Discord's error message", async ({ service }) => {
    const discord = await DiscordFake.start({ token: DISCORD_TOKEN, applicationId: BOT, guildCount: 1000, commands: [] })
    afterTest(() => discord.close())
    discord.inject('application', {
      kind: 'answer',
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: FORGED, code: 0 })
    })
    const result = await runAction({ node, inputs: inputs(service, { 'discord-token': DISCORD_TOKEN, 'discord-api-url': discord.url }) })
    expect(result.code).toBe(1)
    expect(patches(service), 'nothing sent').toBe(0)
    expectInert(result)
  })

  it.for(pick(LEGACY_INJECTIONS, ['commands-file']))('an input holding ##[ on one line: %s', injection =>
    expectLegacyInjectionRefused(options => runAction({ ...options, node }), injection)
  )
})

describe.concurrent.each(NODES)('secrets echoed back by a remote, on $name', ({ path: node }) => {
  it.for(pick(ECHOES, ['as it is', 'where a long text is cut', 'as base64']))(
    'redacts the API key %s from the log, the annotation and the summary',
    echo => expectEchoRedacted(options => runAction({ ...options, node }), echo)
  )

  it('redacts a proxy password that a remote echoes, and masks it first', async ({ service }) => {
    const password = 'pr0xy-Pa55w0rd-Zq8Lk3'
    serviceSays(service, `proxy said ${password}`)
    // NO_PROXY keeps the loopback service direct: the password is held, never used.
    const env = { HTTPS_PROXY: `http://robot:${encodeURIComponent(password)}@127.0.0.1:9`, NO_PROXY: '127.0.0.1' }
    const result = await runAction({ node, inputs: inputs(service, { 'command-count': '12' }), env })
    expect(result.commands.filter(c => c.command === 'add-mask').map(c => c.message)).toContain(password)
    expect(errors(result)[0]).toContain('proxy said ***')
  })

  it('masks a discord-token given with "Bot " with and without the word, and never masks the word', async ({ service }) => {
    const result = await runAction({ node, inputs: inputs(service, { 'discord-token': `Bot ${DISCORD_TOKEN}` }) })
    const masks = result.commands.filter(c => c.command === 'add-mask').map(c => c.message)
    expect(masks).toEqual(expect.arrayContaining([`Bot ${DISCORD_TOKEN}`, DISCORD_TOKEN]))
    expect(
      masks.filter(m => m.length < 8),
      'no mask for a short or common word'
    ).toEqual([])
    expect(errors(result)).toEqual([expect.stringMatching(/^Input 'discord-token' holds more than the secret \(the word "Bot" in front\)/)])
  })
})

describe.concurrent.each(NODES)('commands-file that is not a plain file in the workspace, on $name', ({ path: node }) => {
  let outside: string
  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), 'outside-'))
    await writeFile(join(outside, 'secret.json'), JSON.stringify([{ name: 'top-secret-content' }]))
  })
  afterAll(() => rm(outside, { recursive: true, force: true }))

  /** Runs with commands-file in a workspace prepared by `setup`; the manifest must be refused before any request. */
  async function runWith(service: ServiceEmulator, commandsFile: string, setup: (workspace: string) => Promise<void>): Promise<RunResult> {
    const before = service.requests.length
    const result = await runAction({
      node,
      inputs: inputs(service, { 'commands-file': commandsFile, timeout: '5', 'request-timeout': '5' }),
      setup
    })
    expect(service.requests.length, 'nothing is sent when the manifest is refused').toBe(before)
    return result
  }

  it.skipIf(POSIX_ONLY)('refuses a named pipe at once instead of waiting for a writer', async ({ service }) => {
    const result = await runWith(service, 'commands.json', async dir => {
      execFileSync('mkfifo', [join(dir, 'commands.json')])
    })
    expect(result.code).toBe(1)
    expect(result.durationMs, 'ends well within timeout: 5').toBeLessThan(4_000)
    expect(errors(result)).toEqual([expect.stringMatching(/is not a regular file \(a named pipe\)/)])
  })

  it.skipIf(POSIX_ONLY)('refuses /dev/zero reached through a symbolic link, without reading it', async ({ service }) => {
    const result = await runWith(service, 'commands.json', async dir => {
      await symlink('/dev/zero', join(dir, 'commands.json'))
    })
    expect(result.code).toBe(1)
    expect(result.durationMs).toBeLessThan(4_000)
    expect(errors(result)).toEqual([expect.stringMatching(/resolves to \/dev\/zero, outside the workspace/)])
  })

  it.skipIf(POSIX_ONLY)('refuses a symbolic link that leads out of the workspace, and shows nothing of the file', async ({ service }) => {
    const result = await runWith(service, 'commands.json', async dir => {
      await symlink(join(outside, 'secret.json'), join(dir, 'commands.json'))
    })
    expect(errors(result)).toEqual([expect.stringMatching(/outside the workspace/)])
    expect(result.stdout + result.summary).not.toContain('top-secret-content')
  })

  it('refuses a path that climbs out of the workspace', async ({ service }) => {
    const climbing = '../'.repeat(12) + join(outside, 'secret.json').replace(/^\//, '')
    const result = await runWith(service, climbing, async () => {})
    expect(errors(result)).toEqual([expect.stringMatching(/outside the workspace/)])
    expect(result.stdout + result.summary).not.toContain('top-secret-content')
  })

  it('refuses a sparse file that claims gigabytes without reading it', async ({ service }) => {
    const result = await runWith(service, 'commands.json', async dir => {
      await writeFile(join(dir, 'commands.json'), '')
      await truncate(join(dir, 'commands.json'), 4 * 1024 ** 3)
    })
    expect(result.durationMs).toBeLessThan(4_000)
    expect(errors(result)).toEqual([expect.stringMatching(/larger than 5 MB/)])
  })

  it.skipIf(POSIX_ONLY)('still reads a manifest through a symbolic link that stays in the workspace', async ({ service }) => {
    const before = patches(service)
    const result = await runAction({
      node,
      inputs: inputs(service, { 'commands-file': 'commands.json' }),
      files: { 'build/real.json': JSON.stringify([{ name: 'ping' }, { name: 'help' }]) },
      setup: workspace => symlink(join(workspace, 'build', 'real.json'), join(workspace, 'commands.json'))
    })
    expect(result.code, result.stdout).toBe(0)
    expect(patches(service) - before, 'exactly one PATCH').toBe(1)
    expect(result.outputs['command-count']).toBe('2')
  })
})

describe.concurrent.each(NODES)('inputs that try to start workflow commands, on $name', ({ path: node }) => {
  it.for(pick(INJECTIONS, ['bot-id', 'base-url', 'user-id']))('%s: refused by name, and the runner finds no injected command', injection =>
    expectInjectionRefused(options => runAction({ ...options, node }), injection)
  )

  it('a commands-file that begins with :: (no line break) starts no command in the log', async ({ service }) => {
    // No such file in the workspace, nor in the repository (GitHub's API answers 404 at once).
    const github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: JOB_TOKEN, files: {} })
    afterTest(() => github.close())
    const result = await runAction({
      node,
      inputs: inputs(service, { 'commands-file': '::stop-commands::pwned', 'command-count': '' }),
      env: { GITHUB_API_URL: github.url }
    })
    expect(result.code).toBe(1)
    expect(errors(result)).toEqual([expect.stringMatching(/^Input 'commands-file' \(::stop-commands::pwned\)/)])
    expectOnlyOwnCommands(result)
    expect(result.stdout.split('\n').filter(line => /^\s*::/.test(line) && !/^::(add-mask|error|debug)::/.test(line))).toEqual([])
  })
})

describe.concurrent.each(NODES)('counts from Discord that the service would refuse, on $name', ({ path: node }) => {
  it('fails before any PATCH when Discord reports more than 10,000,000 servers', async ({ service }) => {
    const discord = await DiscordFake.start({ token: DISCORD_TOKEN, applicationId: BOT, guildCount: 10_000_001, commands: [] })
    afterTest(() => discord.close())
    const before = patches(service)
    const result = await runAction({
      node,
      inputs: inputs(service, { 'command-count': '12', 'discord-token': DISCORD_TOKEN, 'discord-api-url': discord.url })
    })
    expect(result.code).toBe(1)
    expect(errors(result)).toEqual([
      expect.stringMatching(/approximate_guild_count of 10000001, above the service's maximum server count of 10000000/)
    ])
    expect(patches(service) - before, 'no PATCH').toBe(0)
  })

  it('fails before any PATCH when Discord lists more than 1,000 commands', async ({ service }) => {
    const commands = Array.from({ length: 1_001 }, (_, i) => ({
      id: String(200000000000000000n + BigInt(i)),
      type: 1,
      name: `c${i}`,
      description: 'x'
    }))
    const discord = await DiscordFake.start({ token: DISCORD_TOKEN, applicationId: BOT, guildCount: 1000, commands })
    afterTest(() => discord.close())
    const before = patches(service)
    const result = await runAction({
      node,
      inputs: inputs(service, { 'server-count': '1000', 'discord-token': DISCORD_TOKEN, 'discord-api-url': discord.url })
    })
    expect(result.code).toBe(1)
    expect(errors(result)).toEqual([expect.stringMatching(/1,?001.*maximum of 1,?000/)])
    expect(patches(service) - before, 'no PATCH').toBe(0)
  })
})

/** The runner's names for the workflow and job that ran the step. */
const WORKFLOW_RUN = { GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/stats.yml@refs/heads/main', GITHUB_JOB: 'stats' }

/** No planted text reached either stream as a command: no `::` line of it, no `##[` anywhere. */
function expectNothingPlanted(result: RunResult): void {
  for (const stream of [result.stdout, result.stderr]) {
    expect(stream).not.toContain('##[')
    expect(stream.split('\n').filter(line => /^\s*::warning::planted/.test(line))).toEqual([])
  }
  expect(result.commands.filter(c => c.message.includes('planted'))).toEqual([])
}

describe.concurrent.each(NODES)('the workflow that ran the step, as a dry run reads it, on $name', ({ path: node }) => {
  it("a YAML parser's warnings, which quote the file, reach neither stream", async ({ service }) => {
    // An unknown directive and an unresolved tag: the parser warns about each, quoting its line.
    const workflow = '%FOO ::warning::planted ##[error]planted\n---\njobs:\n  stats:\n    runs-on: !!planted x\n'
    const result = await runAction({
      node,
      inputs: inputs(service, { 'command-count': '12', 'dry-run': 'true' }),
      files: { '.github/workflows/stats.yml': workflow },
      env: WORKFLOW_RUN
    })
    expect(result.code, result.stderr).toBe(0)
    expectNothingPlanted(result)
  })

  it("Octokit's deprecation notice, which quotes GitHub's headers, reaches neither stream", async ({ service }) => {
    const github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: JOB_TOKEN, files: {} })
    afterTest(() => github.close())
    github.inject('contents', {
      kind: 'answer',
      status: 200,
      headers: { Deprecation: 'true', Sunset: '::warning::planted', Link: '<https://example.com/##[error]planted>; rel="deprecation"' },
      body: 'jobs: {}\n'
    })
    const result = await runAction({
      node,
      inputs: inputs(service, { 'command-count': '12', 'dry-run': 'true' }),
      env: { ...WORKFLOW_RUN, GITHUB_API_URL: github.url }
    })
    expect(result.code, result.stderr).toBe(0)
    expect(github.requests).toHaveLength(1)
    expectNothingPlanted(result)
  })

  it.each([
    // One mapping of 50,000 keys: quadratic with a duplicate-key check; over the size limit, not parsed at all.
    [
      'a mapping of 50,000 keys (about 600 KiB)',
      'jobs:\n  stats: {}\n  big:\n' + Array.from({ length: 50_000 }, (_, i) => `    k${i}: v`).join('\n')
    ],
    // Just under the limit, parsed: the worst shape measured (one tagged entry per line).
    ['128 KiB of tagged entries', 'jobs:\n  stats: {}\nx:\n' + '  - !t v\n'.repeat(Math.floor((128 * 1024 - 30) / 9))]
  ])('%s, with timeout: 5: the dry run ends, not minutes later', async (_label, workflow) => {
    const service = await startService()
    afterTest(() => service.close())
    const result = await runAction({
      node,
      inputs: inputs(service, { 'command-count': '12', 'dry-run': 'true', timeout: '5' }),
      files: { '.github/workflows/stats.yml': workflow },
      env: WORKFLOW_RUN,
      timeoutMs: 20_000
    })
    expect(result.code, result.stderr).toBe(0)
    // About a second here; a duplicate-key check over the mapping took 30 s and more. The bound
    // leaves a loaded machine's process start its room.
    expect(result.durationMs).toBeLessThan(15_000)
  })
})

describe.concurrent.each(NODES)('a GITHUB_OUTPUT that cannot be written, on $name', ({ path: node }) => {
  it('still writes the summary and fails with one clear error', async ({ service }) => {
    // A directory where the output file should be: appending to it fails (EISDIR), even as root.
    const result = await runAction({ node, inputs: inputs(service, { 'command-count': '12' }), env: { GITHUB_OUTPUT: tmpdir() } })
    expect(result.code).toBe(1)
    expect(errors(result)).toEqual([expect.stringMatching(/^The step's outputs could not be written to GITHUB_OUTPUT \(.*EISDIR/)])
    // The headline says what happened to the update and that the step failed; the error, shown under it, why.
    expect(result.summary).toMatch(new RegExp(`^<h3>❌ Bot ${BOT}: updated, .*; the step failed: its outputs could not be written</h3>`))
    expect(result.summary).toContain('<p>❌ <strong>Error:</strong> The step&#39;s outputs could not be written to GITHUB_OUTPUT')
    expect(result.summary, 'the summary still says what was sent and what came back').toContain('<tr><td>Answer</td><td>200</td></tr>')
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
  })
})

describe.each(NODES)('a stopped run (cancelled workflow, runner time limit), on $name', ({ path: node }) => {
  /** Signals the process once `ready` holds, and measures how long it takes to exit after that. */
  function signalWhen(ready: () => boolean, signal: NodeJS.Signals): { control: (child: ChildProcess) => void; exitMs: () => number } {
    let sentAt = 0
    let exitedAt = 0
    return {
      control: child => {
        const poll = setInterval(() => {
          if (!ready()) return
          clearInterval(poll)
          sentAt = performance.now()
          child.kill(signal)
        }, 10)
        child.on('exit', () => {
          clearInterval(poll)
          exitedAt = performance.now()
        })
      },
      exitMs: () => (sentAt === 0 ? Number.NaN : exitedAt - sentAt)
    }
  }

  it.skipIf(POSIX_ONLY)(
    'on SIGTERM while the PATCH waits for its answer: says it may have arrived, writes result and summary, exits at once',
    async ({ service }) => {
      const before = patches(service)
      service.inject('stats', { kind: 'hang' })
      const stopper = signalWhen(() => patches(service) > before, 'SIGTERM')
      const result = await runAction({ node, inputs: inputs(service, { 'command-count': '12' }), control: stopper.control })
      expect(stopper.exitMs(), 'exits within a second of the signal').toBeLessThan(1_000)
      expect(result.code).toBe(1)
      expect(patches(service) - before, 'exactly one PATCH, never resent').toBe(1)
      expect(errors(result)).toEqual([
        expect.stringMatching(/^The step was stopped by SIGTERM .*The stats update was sent, and no answer came back/)
      ])
      expect(result.outputs['result']).toBe('failed')
      expect(result.outputs['command-count']).toBe('12')
      expect(result.summary).toMatch(new RegExp(`^<h3>❌ Bot ${BOT}: failed: stopped by SIGTERM</h3>`))
      expect(result.summary).toContain('no answer came back')
    }
  )

  it.skipIf(POSIX_ONLY)(
    'on SIGTERM while a dry run reads the workflow through GitHub: fails, naming what was not checked, exits at once',
    async ({ service }) => {
      const github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: JOB_TOKEN, files: {} })
      afterTest(() => github.close())
      github.inject('contents', { kind: 'hang' })
      const stopper = signalWhen(() => github.requests.length > 0, 'SIGTERM')
      const result = await runAction({
        node,
        inputs: inputs(service, { 'command-count': '12', 'dry-run': 'true' }),
        env: { ...WORKFLOW_RUN, GITHUB_API_URL: github.url },
        control: stopper.control
      })
      expect(stopper.exitMs(), 'exits within a second of the signal').toBeLessThan(1_000)
      expect(result.code).toBe(1)
      expect(patches(service), 'nothing sent').toBe(0)
      expect(errors(result)).toEqual([
        expect.stringMatching(
          /^The step was stopped by SIGTERM .*The workflow that ran this step was not checked\. Nothing was sent \(dry run\)\.$/
        )
      ])
      expect(result.outputs['result']).toBe('failed')
    }
  )

  it.skipIf(POSIX_ONLY)(
    'on SIGINT during a wait for the read limiter: says nothing was sent, sends nothing, exits at once',
    async ({ service }) => {
      const before = service.requests.length
      service.inject('record', {
        kind: 'answer',
        status: 429,
        headers: {
          'content-type': 'application/json',
          'retry-after': '30',
          'ratelimit-limit': '10',
          'ratelimit-remaining': '0',
          'ratelimit-reset': '30'
        },
        body: JSON.stringify({ success: false, error: 'Too many requests, please try again later.', status: 429, retry_after: 30 })
      })
      const stopper = signalWhen(() => service.requests.length > before, 'SIGINT')
      const result = await runAction({
        node,
        inputs: inputs(service, { 'command-count': '12', 'cooldown-check': 'true' }),
        control: stopper.control
      })
      expect(stopper.exitMs(), 'exits within a second of the signal, not after the 30 s wait').toBeLessThan(1_000)
      expect(result.code).toBe(1)
      expect(
        service.requests.slice(before).map(r => r.method),
        'the record read only'
      ).toEqual(['GET'])
      expect(errors(result)).toEqual([expect.stringMatching(/^The step was stopped by SIGINT .*The stats update was not sent\./)])
      expect(result.outputs['result']).toBe('failed')
      expect(result.summary).toContain('The stats update was not sent')
    }
  )
})

describe.concurrent.each(NODES)('a public record with hostile update times, on $name', ({ path: node }) => {
  it.for([
    ['in the year 2100', new Date('2100-01-01T00:00:00Z')],
    ['at the largest date there is', new Date(8.64e15)]
  ] as [string, Date][])('an update time %s: sends nothing, says why, and gives no next-update-at', async ([, time], { service }) => {
    const bot = '223456789012345678'
    const emulator = await ServiceEmulator.start({ bots: [{ id: bot, apiKey: KEY, commandsUpdatedAt: time, serversUpdatedAt: time }] })
    afterTest(() => emulator.close())
    const result = await runAction({
      node,
      inputs: { ...inputs(service, { 'command-count': '12', 'cooldown-check': 'true' }), 'bot-id': bot, 'base-url': emulator.url }
    })
    expect(result.code).toBe(0)
    expect(
      emulator.requests.filter(r => r.method === 'PATCH'),
      'no PATCH'
    ).toHaveLength(0)
    expect(result.outputs['result']).toBe('skipped')
    expect(result.outputs['next-update-at'] ?? '').toBe('')
    const warnings = result.commands.filter(c => c.command === 'warning').map(c => c.message)
    expect(warnings).toEqual([expect.stringMatching(/later than the runner's clock.*the next run will try again\.$/)])
  })
})
