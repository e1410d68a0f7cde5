/**
 * End to end: dist/index.js run as the runner runs it, for what a process shows: the outputs
 * file, the job summary file, the log and the exit code; one connection per host, none waited for
 * at exit; counts from a workspace file, the repository and Discord; optional chunks loaded only
 * when used. The decisions behind each run (skips, answers, records, counts, votes) are tested in
 * process: test/stats/, test/votes/.
 */
import { copyFile, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BUNDLE, errorsOf, JOB_TOKEN, ROOT } from '../support/action.js'
import { jsonFault, SIX_HOURS } from '../../scripts/emulator/service.js'
import {
  BOT,
  botInputs,
  CA,
  connections,
  discord,
  DISCORD_TOKEN,
  EXIT_BOUND_MS,
  exitDelayMs,
  fixture,
  github,
  HOUR,
  KEY,
  run,
  service,
  statsInputs,
  TLS,
  WINDOWS
} from '../support/e2e.js'
import { routes, tempWorkspace } from '../support/inprocess.js'

/** The margin every 6-hour comparison keeps for the runner's clock against the service's. */
const MARGIN = 60_000

describe.concurrent('a stats update as the runner runs it', () => {
  // interface.md, "Scheduled runs": the one e2e run of stale-after (its branches are
  // answers.test.ts's).
  it('with stale-after, a failure of the service on a fresh listing is a green step with one warning: deferred', async () => {
    const api = await service()
    api.inject(
      'stats',
      jsonFault(500, { success: false, error: 'Could not fetch server count.', status: 500 })
    )
    const result = await run({ inputs: statsInputs(api, { 'stale-after': '24' }) })
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(routes(api), 'not repeated').toEqual(['GET ', 'PATCH /stats'])
    expect(result.outputs).toMatchObject({
      result: 'deferred',
      status: '500',
      'last-updated-at': api.bot(BOT).serversUpdatedAt?.toISOString()
    })
    const annotations = result.commands
      .filter(c => c.command !== 'add-mask')
      .map(c => [c.command, c.properties['title']])
    expect(annotations).toEqual([['warning', 'Stats update deferred']])
    expect(result.summary).toMatch(/^<h3>⏸️ Example Bot: deferred, the listing 7 h old<\/h3>/)
  })

  // interface.md, "A schedule that never goes quiet": the one e2e run (its decisions are
  // schedule.test.ts's).
  it('on a schedule, 57 days after the last push, with stale-after: the counts updated, the step failed with one error naming the date', async () => {
    const api = await service()
    const repo = await github()
    const pushed = new Date(Date.now() - 57 * 24 * HOUR)
    const around = new Date(pushed.getTime() + 60 * 24 * HOUR).toISOString().slice(0, 10)
    const event = join(await tempWorkspace(), 'event.json')
    const payload = { schedule: '17 */8 * * *', repository: { private: false, pushed_at: pushed } }
    await writeFile(event, JSON.stringify(payload))
    const env = {
      GITHUB_EVENT_NAME: 'schedule',
      GITHUB_EVENT_PATH: event,
      GITHUB_API_URL: repo.url
    }
    const result = await run({ inputs: statsInputs(api, { 'stale-after': '24' }), env })

    expect(result.code, result.stdout + result.stderr).toBe(1)
    expect(routes(api), 'the stats run as it would be').toEqual(['GET ', 'PATCH /stats'])
    expect(repo.requests, 'the event names the last push: no read').toEqual([])
    expect(result.outputs).toMatchObject({
      result: 'updated',
      status: '200',
      'schedule-disabled-around': around
    })
    expect(errorsOf(result)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^GitHub disables this workflow's schedule around ${around},.* The counts were updated\\.$`
        )
      )
    ])
    expect(result.summary).toMatch(
      new RegExp(
        `^<h3>❌ Example Bot: updated, [^<]*; GitHub disables the schedule around ${around}</h3>`
      )
    )
  })

  it('reads the record, PATCHes on the same connection, reports in outputs, summary and log, exits at once, loading no optional chunk', async () => {
    // A copy of the bundle without its optional chunks, and Node's own list of what the process
    // loaded, written at exit by a module preloaded through NODE_OPTIONS (the runner sets no such
    // thing; the run itself is as a runner's).
    const dir = await tempWorkspace()
    const bundle = join(dir, 'index.js')
    await copyFile(BUNDLE, bundle)
    await copyFile(join(ROOT, 'dist/package.json'), join(dir, 'package.json'))
    const [list, hook] = [join(dir, 'loaded.txt'), join(dir, 'hook.cjs')]
    await writeFile(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')))`
    )
    const api = await service()
    const before = Date.now()
    const env = { NODE_OPTIONS: `--require ${JSON.stringify(hook)}` }
    const result = await run({ bundle, inputs: statsInputs(api, { 'server-count': '1260' }), env })
    const exited = process.hrtime.bigint()

    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(routes(api)).toEqual(['GET ', 'PATCH /stats'])
    const [record, patch] = api.requests
    expect(record!.headers.authorization, 'the record is public').toBeUndefined()
    expect(patch).toMatchObject({ status: 200, body: '{"command_count":14,"server_count":1260}' })
    expect(patch!.headers).toMatchObject({
      authorization: KEY,
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^discord-place-bot-stats\/\d+\.\d+\.\d+/)
    })
    expect(api.requests.map(r => r.headers.connection)).toEqual(['keep-alive', 'keep-alive'])
    expect(connections(api.requests), 'one connection for the record read and the PATCH').toBe(1)
    expect(exitDelayMs(exited, api.requests), 'no wait for the idle connection').toBeLessThan(
      EXIT_BOUND_MS
    )
    expect(api.bot(BOT)).toMatchObject({ commands: 14, servers: 1260 })

    expect(result.outputs).toEqual({
      result: 'updated',
      'command-count': '14',
      'server-count': '1260',
      status: '200',
      'next-update-at': expect.any(String),
      'last-updated-at': expect.any(String)
    })
    const next = Date.parse(result.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(before + SIX_HOURS + MARGIN)
    expect(next).toBeLessThanOrEqual(Date.now() + SIX_HOURS + MARGIN)
    // The summary is HTML: a headline, the counts with their change, the details folded.
    expect(result.summary).toMatch(/^<h3>✅ Example Bot: updated, /)
    expect(result.summary, 'no link: base-url is not the live service').not.toContain(
      'href="https://discord.place'
    )
    expect(result.summary).toContain(
      '<tr><td>Servers</td><td>1,204</td><td>1,260 (+56)</td><td>input server-count</td></tr>'
    )
    expect(result.summary, 'no Markdown table').not.toMatch(/^\|/m)
    // An update is a log line, no annotation.
    expect(result.commands.filter(c => c.command !== 'add-mask')).toEqual([])
    expect(result.log).toContainEqual(
      expect.stringMatching(/^Stats updated \(\{"command_count":14,"server_count":1260\}\)\./)
    )

    const loaded = (await readFile(list, 'utf8')).split('\n')
    expect(loaded, 'the hook saw the run load node:http').toContain('NativeModule http')
    // fs.promises: the job summary is written with synchronous calls (patches/README.md).
    // https and tls: the service here is plain http, and TLS is loaded only for an https address.
    for (const unused of ['internal/fs/promises', 'https', 'tls', 'zlib', 'worker_threads']) {
      expect(loaded, `node:${unused} was loaded`).not.toContain(`NativeModule ${unused}`)
    }
    const manifest = await run({
      bundle,
      inputs: botInputs(api, { 'commands-file': 'c.json' }),
      files: { 'c.json': '[]' }
    })
    expect(manifest.code, 'the manifest chunk is needed, and missing here: the test can fail').toBe(
      1
    )
  })

  it('reads the manifest from the repository and the server count from Discord, updates over https: one connection to each', async () => {
    const api = await service({ service: { tls: TLS } })
    const fake = await discord({ guildCount: 1262 })
    const repo = await github({ 'build/commands.json': await fixture('saved-get.json') })
    const inputs = botInputs(api, {
      'commands-file': './build/commands.json',
      'discord-token': DISCORD_TOKEN,
      'discord-api-url': fake.url
    })
    const result = await run({ inputs, env: { GITHUB_API_URL: repo.url, NODE_EXTRA_CA_CERTS: CA } })
    const exited = process.hrtime.bigint()

    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(repo.requests.map(r => decodeURIComponent(r.path))).toEqual([
      '/repos/example/bot/contents/build/commands.json'
    ])
    expect(repo.requests[0]!.headers.authorization).toMatch(
      new RegExp(`^(token|Bearer) ${JOB_TOKEN}$`)
    )
    expect(fake.requests.map(r => r.path)).toEqual(['/api/v10/applications/@me'])
    expect(fake.requests[0]!.headers).toMatchObject({
      authorization: `Bot ${DISCORD_TOKEN}`,
      'user-agent': expect.stringMatching(/^DiscordBot \(https:\/\/\S+, \d+\.\d+\.\d+\)$/)
    })
    expect(api.received('stats').map(r => r.body)).toEqual([
      '{"command_count":10,"server_count":1262}'
    ])
    expect(result.log).toEqual(
      expect.arrayContaining([
        'Command count: 10 (commands-file ./build/commands.json (from the repository))',
        'Server count: 1262 (Discord (approximate_guild_count))'
      ])
    )
    expect(
      [repo.requests, fake.requests, api.requests].map(connections),
      'one connection to each host'
    ).toEqual([1, 1, 1])
    expect(exitDelayMs(exited, api.requests, fake.requests, repo.requests)).toBeLessThan(
      EXIT_BOUND_MS
    )
  })

  it('reads a commands-file through a symbolic link that stays in the workspace (a copy on Windows), with subcommands', async () => {
    const api = await service()
    const result = await run({
      inputs: botInputs(api, { 'commands-file': 'commands.json', 'count-subcommands': 'true' }),
      files: { 'build/real.json': await fixture('discordjs-v1.json') },
      setup: workspace =>
        (WINDOWS ? copyFile : symlink)(
          join(workspace, 'build/real.json'),
          join(workspace, 'commands.json')
        )
    })
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(api.received('stats').map(r => r.body)).toEqual(['{"command_count":12}'])
    expect(result.outputs['command-count']).toBe('12')
    expect(result.log).toContain('Command count: 12 (commands-file commands.json)')
    expect(result.summary).toContain('commands-file commands.json')
  })

  it('keeps the summary under 1 MiB and every log line bounded with a huge hostile answer; one error explains the strike', async () => {
    const api = await service()
    // The record's name: 800 KB of what HTML escaping makes six times longer, with the key in it.
    const last = new Date(Date.now() - 7 * HOUR).toISOString()
    const username = `${KEY} ${'"<&>\''.repeat(160_000)}`
    const record = {
      id: BOT,
      username,
      commands: 12,
      commands_updated_at: last,
      servers: 1204,
      servers_updated_at: last
    }
    api.inject('record', jsonFault(200, record))
    // The 6-hour refusal (no Retry-After), with a 5 MB body.
    api.inject('stats', { kind: 'huge', status: 429, bytes: 5 * 1024 * 1024 })
    const result = await run({
      inputs: botInputs(api, { 'commands-file': 'commands.json' }),
      // A command twice: one more warning after the outcome's.
      files: {
        'commands.json': JSON.stringify([{ name: 'ping' }, { name: 'help' }, { name: 'ping' }])
      }
    })

    expect(result.code, 'a strike is a red step').toBe(1)
    expect(result.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    expect(
      Buffer.byteLength(result.summary),
      "under the runner's 1 MiB, over which it drops the whole summary"
    ).toBeLessThan(1024 * 1024)
    expect(result.summary).toMatch(/^<h3>🛑 .*: refused: strike counted<\/h3>/)
    expect(result.summary).not.toContain('<&>')
    expect(errorsOf(result), 'one error, the one that explains the outcome').toEqual([
      expect.stringMatching(
        /^Stats update refused as too early \(429.*: the service counted a strike/
      )
    ])
    expect(result.commands.filter(c => c.command === 'warning').map(c => c.message)).toEqual([
      expect.stringMatching(/"ping" 2 times/)
    ])
    for (const line of result.stdout.split('\n'))
      expect(line.length, 'every log line is bounded').toBeLessThan(10_000)
  })
})

describe.concurrent('a vote check as the runner runs it', () => {
  it('paces checks through a limiter of 10 a second on one connection, reporting every user in the outputs and the summary', async () => {
    const [alice, bob] = ['223456789012345678', '323456789012345678']
    const users = [
      alice,
      bob,
      ...Array.from({ length: 13 }, (_, i) => String(700000000000000000n + BigInt(i)))
    ]
    const [aliceVoted, bobVoted] = [new Date(Date.now() - HOUR), new Date(Date.now() - 30 * HOUR)]
    const voters = {
      [alice]: { vote: 3, lastVote: aliceVoted },
      [bob]: { vote: 1, lastVote: bobVoted }
    }
    const api = await service({
      seed: { voters },
      service: { rateLimits: { votes: { limit: 10, windowMs: 1_000 } } }
    })
    const result = await run({
      inputs: botInputs(api, { mode: 'vote-check', 'user-id': users.join(',') })
    })
    const exited = process.hrtime.bigint()

    expect(result.code, result.stdout + result.stderr).toBe(0)
    // No record read, no update.
    expect(routes(api).filter(route => !route.startsWith('GET /voters/'))).toEqual([])
    const answered = api.received('votes').filter(r => r.status === 200)
    expect(answered.map(r => r.path)).toEqual(users.map(id => `/bots/${BOT}/voters/${id}`))
    for (const request of answered) expect(request.headers.authorization).toBe(KEY)
    const windows = api.windowLog.filter(w => w.route === 'votes')
    expect(windows.length, 'two windows are needed').toBeGreaterThanOrEqual(2)
    expect(windows.filter(w => w.refused > 1)).toEqual([]) // at most one 429 per window
    expect(connections(api.requests), 'one connection over both windows').toBe(1)
    expect(exitDelayMs(exited, api.requests)).toBeLessThan(EXIT_BOUND_MS)

    expect(result.outputs).toMatchObject({ result: 'not-voted', voted: 'false', status: '200' })
    expect(result.outputs['last-vote'], 'only for a single user').toBeUndefined()
    const votes = JSON.parse(result.outputs['votes']!) as Record<string, unknown>
    expect(Object.keys(votes), 'every user, in order').toEqual(users)
    expect(votes).toMatchObject({
      [alice]: { voted: true, votes: 3, last_vote: aliceVoted.toISOString() },
      [bob]: { voted: false, votes: 1, last_vote: bobVoted.toISOString() }
    })
    expect(result.summary).toMatch(new RegExp(`^<h3>⭕ Vote check for Bot ${BOT}: `))
    expect(result.summary).toContain(`<tr><td><code>${alice}</code></td><td>yes</td><td>3</td>`)
    expect(result.summary).toContain(`<tr><td><code>${bob}</code></td><td>no</td><td>1</td>`)
  })
})
