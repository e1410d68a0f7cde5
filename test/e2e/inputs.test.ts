/**
 * End to end: every refused input fails the bundled action with one `::error::` line that
 * names the input, before any request reaches the service.
 */
import { describe, expect, it } from 'vitest'
import { findLeaks, JOB_TOKEN, NODES, runAction } from '../support/action.js'
import { ServiceEmulator } from '../support/emulator.js'

const BOT = '123456789012345678'
const KEY = 'secret-key-4f3e2d1c'

const valid = (service: ServiceEmulator): Record<string, string> => ({
  'bot-id': BOT,
  'api-key': KEY,
  'command-count': '14',
  'base-url': service.url
})

/** [case, inputs to change, the input the error must name] */
const REFUSALS: [string, Record<string, string>, string][] = [
  ['bot-id too short', { 'bot-id': '1234567890123456' }, 'bot-id'],
  ['bot-id too long', { 'bot-id': '123456789012345678901' }, 'bot-id'],
  ['bot-id not digits', { 'bot-id': 'my-bot' }, 'bot-id'],
  ['bot-id empty', { 'bot-id': '' }, 'bot-id'],
  ['command-count negative', { 'command-count': '-1' }, 'command-count'],
  ['command-count decimal', { 'command-count': '12.5' }, 'command-count'],
  ['command-count exponent', { 'command-count': '1e3' }, 'command-count'],
  ['command-count hex', { 'command-count': '0x10' }, 'command-count'],
  ['command-count words', { 'command-count': 'twelve' }, 'command-count'],
  ['command-count above 1000', { 'command-count': '1001' }, 'command-count'],
  ['server-count above 10 million', { 'server-count': '10000001' }, 'server-count'],
  ['server-count with separators', { 'server-count': '1,260' }, 'server-count'],
  ['no count at all', { 'command-count': '' }, 'command-count'],
  ['api-key missing', { 'api-key': '' }, 'api-key'],
  ['api-key with a space inside', { 'api-key': 'sk_4f3e2d1c 9a8b7c6d5e' }, 'api-key'],
  ['api-key with a line break inside', { 'api-key': 'sk_4f3e2d1c\r\nX-Injected: 9a8b7c6d5e' }, 'api-key'],
  ['base-url not absolute', { 'base-url': 'api.discord.place' }, 'base-url'],
  ['base-url plain http to a remote host', { 'base-url': 'http://api.discord.place' }, 'base-url'],
  ['base-url with credentials', { 'base-url': 'https://user:pw@api.discord.place' }, 'base-url'],
  ['mode unknown', { mode: 'update' }, 'mode'],
  ['vote-check with a count (a stats input)', { mode: 'vote-check', 'user-id': '223456789012345678' }, 'command-count'],
  ['vote-check without user-id', { mode: 'vote-check', 'command-count': '' }, 'user-id'],
  ['vote-check with an invalid user-id', { mode: 'vote-check', 'command-count': '', 'user-id': '223456789012345678,12' }, 'user-id'],
  ['dry-run not a boolean', { 'dry-run': 'yes' }, 'dry-run'],
  ['cooldown-check not a boolean', { 'cooldown-check': 'off' }, 'cooldown-check'],
  ['commands-file together with command-count', { 'commands-file': 'commands.json' }, 'commands-file'],
  ['discord-token with the "Bot " prefix', { 'discord-token': 'Bot MTIz.Gx7kQ2.vN4pL8rT1wZ9' }, 'discord-token'],
  [
    'discord-api-url over plain http to a remote host',
    { 'discord-token': 'MTIz.Gx7kQ2.vN4pL8rT1wZ9', 'discord-api-url': 'http://discord.com/api/v10' },
    'discord-api-url'
  ],
  ['user-id in stats mode', { 'user-id': '223456789012345678' }, 'user-id'],
  ['count-subcommands without a source', { 'count-subcommands': 'true' }, 'count-subcommands']
]

describe.concurrent.each(NODES)('refused inputs on $name', ({ path: node }) => {
  it.for(REFUSALS)('%s', async ([, change, input], { onTestFinished }) => {
    // A service of the test's own (the tests run at once): nothing may reach it.
    const service = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY }] })
    onTestFinished(() => service.close())
    const inputs = { ...valid(service), ...change }
    const result = await runAction({ node, inputs })

    expect(result.code).toBe(1)
    const errors = result.commands.filter(c => c.command === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toMatch(new RegExp(`^Inputs? '${input}'`))
    expect(errors[0]!.message).not.toContain('\n')
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/)
    expect(service.requests, 'nothing sent').toEqual([])
    expect(result.outputs['result']).toBe('failed')
    expect(result.summary).toMatch(
      new RegExp(`^<h3>❌ discord\\.place: failed</h3>\n<p>❌ <strong>Error:</strong> Inputs? &#39;${input}&#39;`)
    )
    // Each secret is masked whole, and line by line as the runner masks; no form or piece of it may show.
    const secrets = [inputs['api-key']!, inputs['discord-token'] ?? '', JOB_TOKEN].flatMap(s => [
      s,
      ...s.split(/\r?\n/).map(line => line.trim())
    ])
    expect(findLeaks(result, [...new Set(secrets.filter(s => s.length >= 8))])).toEqual([])
  })
})
