/**
 * Discord's API as a source of the counts (src/stats/discord.ts): its answers and limits, in
 * process against Discord's fake and the service emulator on a clock the test controls. A 429
 * with Discord's rate-limit headers is waited out, a 503 or a dropped connection retried; a 429
 * without them is an IP ban, which stops the run before anything is sent to the service. Every
 * refusal stops the run before the update, in its own words (pinned here, once) and headline.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DiscordFake } from '../support/fakes.js'
import {
  BOT,
  DISCORD_TOKEN,
  discordFake,
  emulatedBot,
  statsInputs,
  TestClock,
  unreachableUrl
} from '../support/inprocess.js'
import type { Fault } from '../../scripts/emulator/server.js'
import { expectCleanFailure, type StatsStep, statsStep } from '../support/step.js'

const NOT_SENT = 'Nothing was sent to the service'
const APPLICATION = 'GET /applications/@me'
const COMMANDS = `GET /applications/${BOT}/commands`

/** What Discord's fake is given for one run, and the run's own inputs. */
interface Scene {
  /** Discord's next answers to /applications/@me and to the global commands. */
  application?: Fault[]
  commands?: Fault[]
  /** Discord's global commands and server count (the fake's defaults: none, 1,250). */
  globalCommands?: unknown[]
  guildCount?: number
  /** Appended to the fake's address to make discord-api-url (a wrong one, say). */
  apiPath?: string
  /** Inputs over a command count of 1 (the server count is then Discord's). */
  inputs?: Record<string, string>
  /** The bot's real server count, which the service checks a server count against. */
  realServerCount?: number
}

/**
 * A stats step whose server count (and, with command-count left empty, command count) comes from
 * Discord's fake; what Discord and the service received.
 */
async function discordStep(scene: Scene = {}) {
  const clock = new TestClock()
  const emulator = await emulatedBot(clock, {
    seed: scene.realServerCount === undefined ? {} : { realServerCount: scene.realServerCount }
  })
  const fake = await discordFake(scene.globalCommands, scene.guildCount)
  for (const fault of scene.application ?? []) fake.inject('application', fault)
  for (const fault of scene.commands ?? []) fake.inject('commands', fault)
  const inputs = {
    'command-count': '1',
    'cooldown-check': 'false',
    'discord-token': DISCORD_TOKEN,
    'discord-api-url': `${fake.url}${scene.apiPath ?? ''}`,
    ...scene.inputs
  }
  const step = await statsStep(statsInputs(emulator, inputs), clock)
  const sent = emulator.received('stats').map(r => JSON.parse(r.body) as unknown)
  const asked = fake.requests.map(r => `${r.method} ${r.path.replace(/^\/api\/v10/, '')}`)
  return { step, fake, emulator, sent, asked }
}

/** Discord's answer to /applications/@me with these fields in place of its own. */
function application(fields: Record<string, unknown>): Fault {
  const body = { id: BOT, name: 'Example Bot', approximate_guild_count: 1250, ...fields }
  return { kind: 'answer', status: 200, headers: JSON_TYPE, body: JSON.stringify(body) }
}
const JSON_TYPE = { 'Content-Type': 'application/json' }
const json = (status: number, body: unknown): Fault => ({
  kind: 'answer',
  status,
  headers: JSON_TYPE,
  body: JSON.stringify(body)
})

/** The failure's headline as the step's summary shows it, after "failed: ". */
function headline(step: StatsStep): string | undefined {
  return /<h3>❌ [^\n]*: failed: ([^<]*)<\/h3>/.exec(step.summary)?.[1]
}

describe('waits and retries', () => {
  const BAN =
    "Discord refused the request with a 429 that carries no rate-limit headers: the runner's IP address is temporarily banned by " +
    'Discord (common on shared runners). It was not retried; run again later, or give the counts as inputs for now.'

  it.each<{ label: string; faults: Fault[]; statuses: number[]; waits: number[] }>([
    {
      label: 'waits the retry_after of a 429, then goes on',
      faults: [DiscordFake.rateLimited(0.3)],
      statuses: [429, 200],
      waits: [300]
    },
    {
      label: "waits a 429's Retry-After alone (a proxy's), which is not a ban",
      faults: [{ kind: 'answer', status: 429, headers: { 'Retry-After': '2' }, body: '' }],
      statuses: [429, 200],
      waits: [2000]
    },
    {
      label: "waits a 429 with Discord's X-RateLimit headers and no Retry-After: its retry_after",
      faults: [
        {
          kind: 'answer',
          status: 429,
          headers: { ...JSON_TYPE, 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset-After': '0.5' },
          body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.5 })
        }
      ],
      statuses: [429, 200],
      waits: [500]
    },
    {
      label: 'retries a 503 and a dropped connection',
      faults: [{ kind: 'answer', status: 503, body: 'upstream connect error' }, { kind: 'reset' }],
      statuses: [503, 0, 200],
      waits: [expect.any(Number), expect.any(Number)]
    }
  ])('$label', async ({ faults, statuses, waits }) => {
    const { step, fake, sent } = await discordStep({ application: faults })
    expect(fake.requests.map(r => r.status)).toEqual(statuses)
    expect(step.waits).toEqual(waits)
    expect(step.failure).toBeUndefined()
    expect(sent).toEqual([{ command_count: 1, server_count: 1250 }])
  })

  it('stops at once on a 429 without rate-limit headers (an IP ban), before any request to the service', async () => {
    const { step, fake, emulator } = await discordStep({ application: [DiscordFake.banned] })
    expect(fake.requests.map(r => r.status)).toEqual([429])
    expect(step.waits).toEqual([])
    expect(expectCleanFailure(step)).toBe(BAN)
    expect(headline(step)).toBe('Discord rate limit (IP ban)')
    expect(emulator.requests).toEqual([])
  })

  const LIMITED = `Discord answered 429 to ${APPLICATION} ("You are being rate limited."): rate limited for longer than the action waits. ${NOT_SENT}; run again later.`
  it.each<{ label: string; faults: Fault[]; waits: number[] }>([
    {
      label: 'a 429 asking for more than a minute: not waited',
      faults: [DiscordFake.rateLimited(61)],
      waits: []
    },
    {
      label: 'four 429s in a row: three waited, then given up',
      faults: Array.from({ length: 4 }, () => DiscordFake.rateLimited(1)),
      waits: [1000, 1000, 1000]
    }
  ])('a rate limit that outlasts the waits, $label', async ({ faults, waits }) => {
    const { step, fake, emulator } = await discordStep({ application: faults })
    expect(step.waits).toEqual(waits)
    expect(fake.requests).toHaveLength(waits.length + 1)
    expect(expectCleanFailure(step)).toBe(LIMITED)
    expect(headline(step)).toBe('Discord counts unreadable')
    expect(emulator.requests).toEqual([])
  })

  it('a 500 four times: given up after 4 tries, the next run to try again', async () => {
    const failing = json(500, { message: 'Service Unavailable' })
    const { step, asked, emulator } = await discordStep({ application: Array(4).fill(failing) })
    expect(asked).toEqual(Array(4).fill(APPLICATION))
    expect(expectCleanFailure(step)).toBe(
      `Discord answered 500 to ${APPLICATION} ("Service Unavailable") after 4 tries. ${NOT_SENT}; the next run will try again.`
    )
    expect(headline(step)).toBe('Discord counts unreadable')
    expect(emulator.requests).toEqual([])
  })

  it("a wait past the step's time limit ends the run, naming Discord's API", async () => {
    const { step, fake } = await discordStep({
      application: [DiscordFake.rateLimited(30)],
      inputs: { timeout: '20' }
    })
    expect(fake.requests).toHaveLength(1)
    expect(expectCleanFailure(step)).toMatch(
      / leaves no room for a wait of 30 s during Discord's API\. /
    )
  })

  it('unreachable: each read retried, then one error naming the network failure', async () => {
    const clock = new TestClock()
    const url = await unreachableUrl(clock)
    const { step, emulator } = await discordStep({ inputs: { 'discord-api-url': url } })
    expect(step.waits).toHaveLength(3)
    // The connection's failure in the transport's words (transport.test.ts), then the advice.
    const prefix = `Could not read counts from Discord: could not connect to ${new URL(url).host}: `
    expect(expectCleanFailure(step).slice(0, prefix.length)).toBe(prefix)
    expect(headline(step)).toBe('Discord unreachable')
    expect(emulator.requests).toEqual([])
  })
})

describe("Discord's answers that stop the run before the update", () => {
  const TOKEN =
    ": the discord-token is invalid. Store the bot's token from the Bot page of the Discord Developer Portal in the secret " +
    `(reset it there if it was leaked). ${NOT_SENT}.`
  const NO_GUILD_COUNT =
    "Discord's /applications/@me answer has no approximate_guild_count; the server count cannot be read from Discord."
  const NO_ID =
    "Discord's /applications/@me answer has no application id; the commands cannot be read from Discord."
  const commandsToo = { 'command-count': '' }

  it.each<{ label: string; scene: Scene; asked: string[]; says: string; headline: string }>([
    {
      label: 'a token Discord refuses (401): not tried again',
      scene: { inputs: { 'discord-token': 'MTIz.wrong.token' } },
      asked: [APPLICATION],
      says: `Discord answered 401 to ${APPLICATION} ("401: Unauthorized")${TOKEN}`,
      headline: 'Discord token refused'
    },
    {
      label: 'a token without access to the commands (403)',
      scene: {
        inputs: commandsToo,
        commands: [json(403, { message: 'Missing Access', code: 50001 })]
      },
      asked: [APPLICATION, COMMANDS],
      says: `Discord answered 403 to ${COMMANDS} ("Missing Access")${TOKEN}`,
      headline: 'Discord token refused'
    },
    {
      label: 'no approximate_guild_count',
      scene: { application: [application({ approximate_guild_count: undefined })] },
      asked: [APPLICATION],
      says: NO_GUILD_COUNT,
      headline: 'Discord counts unreadable'
    },
    {
      label: 'a server count of 10,000,001, over the service’s maximum',
      scene: { guildCount: 10_000_001 },
      asked: [APPLICATION],
      says:
        "Discord reports an approximate_guild_count of 10000001, above the service's maximum server count of 10000000; " +
        'nothing was sent. Set server-count to send a count yourself.',
      headline: 'Discord counts unreadable'
    },
    {
      label: 'no application id',
      scene: { inputs: commandsToo, application: [application({ id: undefined })] },
      asked: [APPLICATION],
      says: NO_ID,
      headline: 'Discord counts unreadable'
    },
    {
      label: 'global commands that are not a JSON array',
      scene: { inputs: commandsToo, commands: [json(200, { commands: [] })] },
      asked: [APPLICATION, COMMANDS],
      says: "Discord's list of global commands was not a JSON array.",
      headline: 'Discord counts unreadable'
    },
    {
      label: 'a global command without a name, named by its place in the list',
      scene: { inputs: commandsToo, globalCommands: [{ name: 'ping' }, { type: 1 }] },
      asked: [APPLICATION, COMMANDS],
      says: `Discord's global commands: [1] has no "name".`,
      headline: 'Discord counts unreadable'
    },
    {
      label: 'a wrong discord-api-url (404): check it',
      scene: { apiPath: '/v9' },
      asked: ['GET /v9/applications/@me'],
      says: `Discord answered 404 to ${APPLICATION} ("404: Not Found"). ${NOT_SENT}; check discord-api-url.`,
      headline: 'Discord counts unreadable'
    },
    {
      label: 'a web page where the API should be (200 without JSON): check discord-api-url',
      scene: {
        application: [{ kind: 'answer', status: 200, headers: {}, body: '<html>Discord</html>' }]
      },
      asked: [APPLICATION],
      says: `Discord answered 200 to ${APPLICATION}. ${NOT_SENT}; check discord-api-url.`,
      headline: 'Discord counts unreadable'
    }
  ])('$label', async ({ scene, asked: expected, says, headline: words }) => {
    const { step, asked, emulator } = await discordStep(scene)
    expect(asked).toEqual(expected)
    expect(expectCleanFailure(step)).toBe(says)
    expect(headline(step)).toBe(words)
    expect(emulator.requests, 'nothing sent, not even the record read').toEqual([])
  })

  // The same refusal as a missing count: only a whole number that is not negative is a count.
  it.each([['1250'], [12.5], [-1], [null]])(
    'refuses an approximate_guild_count of %j as none',
    async count => {
      const { step } = await discordStep({
        application: [application({ approximate_guild_count: count })]
      })
      expect(step.failure).toBe(NO_GUILD_COUNT)
    }
  )

  it.each([['123'], [Number(BOT)], [`${BOT}x`], [`x${BOT}`], ['1'.repeat(21)]])(
    'refuses an application id of %j as none',
    async id => {
      const { step } = await discordStep({
        inputs: commandsToo,
        application: [application({ id })]
      })
      expect(step.failure).toBe(NO_ID)
    }
  )
})

describe('counts read from Discord', () => {
  // 5 commands, 12 with their subcommands.
  const COMMANDS_V1 = JSON.parse(
    readFileSync(new URL('../fixtures/manifests/discordjs-v1.json', import.meta.url), 'utf8')
  ) as unknown[]

  it.each([
    { countSubcommands: 'false', count: 5 },
    { countSubcommands: 'true', count: 12 }
  ])(
    'count-subcommands: $countSubcommands counts $count of the global commands',
    async ({ countSubcommands, count }) => {
      const { step, sent, asked } = await discordStep({
        globalCommands: COMMANDS_V1,
        inputs: { 'command-count': '', 'count-subcommands': countSubcommands }
      })
      expect(step.failure).toBeUndefined()
      expect(asked).toEqual([APPLICATION, COMMANDS])
      expect(sent).toEqual([{ command_count: count, server_count: 1250 }])
      expect(step.outcome.counts?.command).toEqual({
        value: count,
        source: 'Discord (global commands)',
        read: true
      })
    }
  )

  it('a server count of exactly 10,000,000 is sent', async () => {
    const { step, sent } = await discordStep({
      guildCount: 10_000_000,
      realServerCount: 10_000_000
    })
    expect(step.failure).toBeUndefined()
    expect(sent).toEqual([{ command_count: 1, server_count: 10_000_000 }])
  })

  it("a server count of 0 is Discord's word, and is sent", async () => {
    const { sent } = await discordStep({ guildCount: 0, realServerCount: 0 })
    expect(sent).toEqual([{ command_count: 1, server_count: 0 }])
  })

  it("Discord's duplicate commands are counted once, with a warning naming Discord's list", async () => {
    const { step, sent } = await discordStep({
      globalCommands: [{ name: 'ping' }, { name: 'ping' }, { name: 'help' }],
      inputs: { 'command-count': '' }
    })
    expect(sent).toEqual([{ command_count: 2, server_count: 1250 }])
    expect(step.outcome.counts?.warnings).toEqual([
      `Discord's global commands lists the chat input command "ping" 2 times; each was counted once.`
    ])
  })

  it('asks as a bot, for JSON, with the User-Agent Discord requires of bots', async () => {
    const { fake } = await discordStep({ inputs: { 'command-count': '' } })
    for (const request of fake.requests) {
      expect(request.headers).toMatchObject({
        authorization: `Bot ${DISCORD_TOKEN}`,
        accept: 'application/json',
        'user-agent': expect.stringMatching(/^DiscordBot \(https:\/\/\S+, \d+\.\d+\.\d+\)$/)
      })
    }
    expect(fake.requests).toHaveLength(2)
  })
})
