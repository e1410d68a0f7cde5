/**
 * End to end: every refused input fails the bundled action with one `::error::` line that
 * names the input, before any request reaches the service.
 */
import { describe, expect, it } from 'vitest'
import { findLeaks, JOB_TOKEN, NODES, runAction } from '../support/action.js'
import { ServiceEmulator } from '../support/emulator.js'
import { DiscordFake } from '../support/fakes.js'

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
    // The headline names the bot once its ID was read, and says why in a few words.
    const who = input === 'bot-id' ? 'discord\\.place' : `Bot ${BOT}`
    const why = input === 'command-count' && change['command-count'] === '' ? 'no count to send' : `bad input &#39;${input}&#39;`
    expect(result.summary).toMatch(
      new RegExp(`^<h3>❌ ${who}: failed: ${why}</h3>\n<p>❌ <strong>Error:</strong> Inputs? &#39;${input}&#39;`)
    )
    // Each secret is masked whole, and line by line as the runner masks; no form or piece of it may show.
    const secrets = [inputs['api-key']!, inputs['discord-token'] ?? '', JOB_TOKEN].flatMap(s => [
      s,
      ...s.split(/\r?\n/).map(line => line.trim())
    ])
    expect(findLeaks(result, [...new Set(secrets.filter(s => s.length >= 8))])).toEqual([])
  })
})

/**
 * Secrets that belong elsewhere (interface.md, "The key's guardian"): refused before any
 * request, so a Discord token never reaches discord.place and a discord.place key never reaches
 * Discord. The request counts of both fakes prove it; the value is masked and never shown.
 */
const tokenOf = (id: string): string => `${Buffer.from(id).toString('base64url')}.Gx7kQ2.vN4pL8rT1wZ9qA3sD5fG7hJ9kL1zX`
const PLACE_KEY = '9f2c4e6a8b0d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a'
const MIX_UPS: [string, Record<string, string>, string, RegExp][] = [
  ["api-key holding this bot's Discord token", { 'api-key': tokenOf(BOT) }, 'api-key', /looks like a Discord bot token/],
  [
    'api-key and discord-token the same secret',
    { 'api-key': 'dp_same-secret-0123456789', 'discord-token': 'dp_same-secret-0123456789' },
    'api-key',
    /same secret as discord-token/
  ],
  ['api-key the same as github-token', { 'api-key': JOB_TOKEN }, 'api-key', /same secret as github-token/],
  [
    'discord-token holding a discord.place key',
    { 'discord-token': PLACE_KEY, 'command-count': '' },
    'discord-token',
    /looks like a discord\.place API key/
  ],
  [
    'discord-token of another bot',
    { 'discord-token': tokenOf('223456789012345678'), 'command-count': '' },
    'discord-token',
    /token of another bot/
  ]
]

describe.concurrent.each(NODES)('credentials that belong elsewhere on $name', ({ path: node }) => {
  it.for(MIX_UPS)('%s: refused before any request', async ([, change, input, problem], { onTestFinished }) => {
    const service = await ServiceEmulator.start({ bots: [{ id: BOT, apiKey: KEY }] })
    onTestFinished(() => service.close())
    const discord = await DiscordFake.start({ token: tokenOf(BOT), applicationId: BOT, guildCount: 1262, commands: [] })
    onTestFinished(() => discord.close())
    const inputs: Record<string, string> = { ...valid(service), 'discord-api-url': discord.url, ...change }
    const result = await runAction({ node, inputs })

    expect(result.code).toBe(1)
    const errors = result.commands.filter(c => c.command === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toMatch(new RegExp(`^Input '${input}' `))
    expect(errors[0]!.message).toMatch(problem)
    expect(service.requests, 'nothing sent to discord.place').toEqual([])
    expect(discord.requests, 'nothing sent to Discord').toEqual([])
    const secrets = [inputs['api-key']!, inputs['discord-token'] ?? '', JOB_TOKEN].filter(s => s.length >= 8)
    expect(findLeaks(result, secrets)).toEqual([])
  })
})
