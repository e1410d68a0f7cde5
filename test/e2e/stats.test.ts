/**
 * End to end: the stats mode's happy path, from the committed dist/index.js run as the Actions
 * runner runs it against the service emulator on loopback: the requests, the outputs file, the
 * summary file and the log. The mode's decisions (skips, the service's answers, the record's
 * troubles) are checked in process: test/stats/update.test.ts, test/stats/answers.test.ts and test/stats/record.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { findLeaks, NODES, runAction } from '../support/action.js'
import { ServiceEmulator, SIX_HOURS } from '../support/emulator.js'

const BOT = '123456789012345678'
const KEY = 'dp_live_k3y.with-symbols_9f8e7d6c5b4a'
const HOUR = 60 * 60 * 1000
/** The margin every 6-hour comparison keeps for the runner's clock against the service's. */
const MARGIN = 60_000

let emulator: ServiceEmulator | undefined
afterEach(async () => {
  await emulator?.close()
  emulator = undefined
})

describe.each(NODES)('stats update on $name', ({ path: node }) => {
  it('updates both counts after reading the public record, and reports it in the outputs, the summary and the log', async () => {
    const last = new Date(Date.now() - 7 * HOUR)
    const service = (emulator = await ServiceEmulator.start({
      bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204, realServerCount: 1250, commandsUpdatedAt: last, serversUpdatedAt: last }]
    }))
    const before = Date.now()
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'server-count': '1260', 'base-url': service.url }
    })

    expect(result.code, result.stdout + result.stderr).toBe(0)
    const [record, ...rest] = service.requests
    expect(record).toMatchObject({ method: 'GET', route: 'record', path: `/bots/${BOT}` })
    expect(record!.headers.authorization).toBeUndefined()
    expect(rest).toHaveLength(1)
    const patch = rest[0]!
    expect(patch).toMatchObject({ method: 'PATCH', route: 'stats', path: `/bots/${BOT}/stats`, status: 200 })
    expect(patch.headers.authorization).toBe(KEY)
    expect(patch.headers['content-type']).toBe('application/json')
    expect(patch.headers['user-agent']).toMatch(/^discord-place-bot-stats\/\d+\.\d+\.\d+/)
    expect(patch.body).toBe('{"command_count":14,"server_count":1260}')
    expect(service.bot(BOT)).toMatchObject({ commands: 14, servers: 1260 })

    expect(result.outputs).toEqual({
      result: 'updated',
      'command-count': '14',
      'server-count': '1260',
      status: '200',
      'next-update-at': expect.any(String)
    })
    const next = Date.parse(result.outputs['next-update-at']!)
    expect(next).toBeGreaterThanOrEqual(before + SIX_HOURS + MARGIN)
    expect(next).toBeLessThanOrEqual(Date.now() + SIX_HOURS + MARGIN)

    // The summary is HTML: a headline, the counts with their change, the details folded.
    expect(result.summary).toMatch(
      /^<h3>✅ Example Bot: updated, next update from (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC, 6 h 1 min after this run<\/h3>\n/
    )
    expect(result.summary, 'no link: base-url is not the live service').not.toContain('href="https://discord.place')
    expect(result.summary).toContain('<tr><td>Commands</td><td>12</td><td>14 (+2)</td><td>input command-count</td></tr>')
    expect(result.summary).toContain('<tr><td>Servers</td><td>1,204</td><td>1,260 (+56)</td><td>input server-count</td></tr>')
    expect(result.summary).toContain('<tr><td>Answer</td><td>200</td></tr>')
    expect(result.summary, 'no Markdown table').not.toMatch(/^\|/m)

    // An update is one log line, no annotation.
    expect(result.commands.filter(c => c.command !== 'add-mask')).toEqual([])
    expect(result.log).toContainEqual(
      expect.stringMatching(/^Stats updated \(\{"command_count":14,"server_count":1260\}\)\. The next update/)
    )
    expect(findLeaks(result, [KEY])).toEqual([])
  })
  it('keeps the job summary under 1 MiB with a hostile huge answer, and the annotation that explains the outcome comes first', async () => {
    const last = new Date(Date.now() - 7 * HOUR).toISOString()
    const service = (emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204 }] }))
    // The record's name: 800 KB of what HTML escaping makes six times longer, with the key in it.
    const name = `${KEY} ${'"<&>\''.repeat(160_000)}`
    service.inject('record', {
      kind: 'answer',
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: BOT, username: name, commands: 12, commands_updated_at: last, servers: 1204, servers_updated_at: last })
    })
    // The 6-hour refusal (no Retry-After), with a 5 MB body.
    service.inject('stats', { kind: 'huge', status: 429, bytes: 5 * 1024 * 1024 })
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'commands-file': 'commands.json', 'base-url': service.url },
      // A manifest with a command twice: one more warning after the outcome's.
      files: { 'commands.json': JSON.stringify([{ name: 'ping' }, { name: 'help' }, { name: 'ping' }]) }
    })

    expect(result.code, 'a strike is a red step').toBe(1)
    expect(result.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    expect(Buffer.byteLength(result.summary), "under the runner's 1 MiB, over which it drops the whole summary").toBeLessThan(1024 * 1024)
    expect(result.summary).toMatch(/^<h3>🛑 .*: refused: strike counted<\/h3>/)
    expect(result.summary).not.toContain('<&>')
    const errors = result.commands.filter(c => c.command === 'error')
    expect(errors, 'one error, the one that explains the outcome').toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^Stats update refused as too early \(429.*: the service counted a strike/)
      })
    ])
    const warnings = result.commands.filter(c => c.command === 'warning')
    expect(warnings.map(c => c.message)).toEqual([expect.stringMatching(/"ping" 2 times/)])
    for (const line of result.stdout.split('\n')) expect(line.length, 'every log line is bounded').toBeLessThan(10_000)
  })
  it('a hostile manifest: one bad 300 KB command name keeps the summary under 1 MiB and the error line bounded, nothing sent', async () => {
    const service = (emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204 }] }))
    // What HTML escaping makes six times longer, the key, and the runner's legacy command syntax.
    const name = `${'"<&>\''.repeat(60_000)} ${KEY} ##[set-output name=result;]updated`
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'commands-file': 'commands.json', 'base-url': service.url },
      // A command type that does not exist: the error quotes the command's name.
      files: { 'commands.json': JSON.stringify([{ name: 'ping' }, { name, type: 9 }]) }
    })
    expect(result.code).toBe(1)
    expect(
      service.requests.filter(r => r.method === 'PATCH'),
      'nothing sent'
    ).toEqual([])
    expect(Buffer.byteLength(result.summary), "under the runner's 1 MiB").toBeLessThan(1024 * 1024)
    expect(result.summary).toMatch(/^<h3>❌ /)
    const errors = result.commands.filter(c => c.command === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message.length, 'the ::error:: line is bounded').toBeLessThan(5_000)
    expect(errors[0]!.message).toMatch(/more characters not shown/)
    expect(result.outputs['result']).toBe('failed')
    expect(
      result.commands.filter(c => c.syntax !== '::'),
      'no legacy command'
    ).toEqual([])
    for (const line of result.stdout.split('\n')) expect(line.length, 'every log line is bounded').toBeLessThan(10_000)
    expect(findLeaks(result, [KEY])).toEqual([])
  })

  it('thirty duplicated names and an unreadable record: the warning that says why nothing was sent comes first, duplicates in one warning', async () => {
    const service = (emulator = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204 }] }))
    // A firewall's page on the record read: not the service's answer, so the record is unreadable.
    service.inject('record', { kind: 'answer', status: 403, headers: { 'Content-Type': 'text/html' }, body: '<html>Forbidden</html>' })
    const names = Array.from({ length: 30 }, (_, i) => `cmd-${i}`)
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'commands-file': 'commands.json', 'base-url': service.url },
      files: { 'commands.json': JSON.stringify([...names, ...names].map(name => ({ name }))) }
    })
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.outputs['result']).toBe('skipped')
    expect(result.outputs['status'] ?? '', 'no status: nothing was sent').toBe('')
    expect(
      service.requests.filter(r => r.method === 'PATCH'),
      'nothing sent'
    ).toEqual([])
    const warnings = result.commands.filter(c => c.command === 'warning')
    expect(warnings.length, 'GitHub shows 10 warnings per step').toBeLessThanOrEqual(10)
    expect(warnings[0]!.message).toMatch(/^Stats not sent: the bot's public record could not be checked \(.*403/)
    expect(warnings.slice(1).map(c => c.message)).toEqual([expect.stringMatching(/cmd-0.*cmd-19.*10 more/)])
  })
  it('a strike with the workflow file in the workspace: the one error names the one cause the workflow shows (a 6-hour schedule, unchecked)', async () => {
    const last = new Date(Date.now() - HOUR)
    const service = (emulator = await ServiceEmulator.start({
      bots: [{ id: BOT, apiKey: KEY, commands: 12, servers: 1204, commandsUpdatedAt: last, serversUpdatedAt: last }]
    }))
    const workflow = [
      'on:',
      '  schedule:',
      "    - cron: '0 */6 * * *'",
      'jobs:',
      '  update:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: discord-place-bot-stats/discord-place-bot-stats@v1'
    ].join('\n')
    const result = await runAction({
      node,
      inputs: { 'bot-id': BOT, 'api-key': KEY, 'command-count': '14', 'base-url': service.url, 'cooldown-check': 'false' },
      files: { '.github/workflows/discord.yml': workflow },
      env: { GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/discord.yml@refs/heads/main', GITHUB_JOB: 'update' }
    })
    expect(result.code, 'a strike is a red step').toBe(1)
    expect(result.outputs).toMatchObject({ result: 'cooldown', status: '429' })
    const errors = result.commands.filter(c => c.command === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toMatch(
      new RegExp(
        'The workflow that ran this step \\(\\.github/workflows/discord\\.yml, job update\\) shows why: it runs on the schedule "0 \\*/6 \\* \\* \\*", whose runs can come 6 h apart'
      )
    )
    expect(errors[0]!.message).not.toMatch(/concurrency group/)
    expect(result.summary).toContain('shows why: it runs on the schedule')
  })
})
