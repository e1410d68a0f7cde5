import { resolve } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ActionError } from '../../src/errors.js'
import { maskSecret } from '../../src/secrets.js'
import {
  parseSettings,
  readSettings,
  tokenBotId,
  type Settings,
  type StatsSettings,
  type VoteSettings
} from '../../src/settings.js'
import { tokenOf } from '../support/cases.js'
import { BOT, KEY } from '../support/inprocess.js'

/** Settings of either mode with each mode's fields readable (absent in the other mode). */
type Either = Settings & Partial<Omit<StatsSettings, 'mode'>> & Partial<Omit<VoteSettings, 'mode'>>
type Inputs = Record<string, string>

/** action.yml's defaults: what the runner passes for an input the workflow leaves out. */
const ACTION_DEFAULTS: Inputs = {
  mode: 'stats',
  'count-subcommands': 'false',
  'fail-if-not-voted': 'false',
  'base-url': 'https://api.discord.place',
  'dry-run': 'false',
  'cooldown-check': 'true',
  'discord-api-url': 'https://discord.com/api/v10'
}

/**
 * A workflow's `with:` block that parses: a bot, a key and one count. Each test gives only what it
 * changes.
 */
const VALID: Inputs = { 'bot-id': BOT, 'api-key': KEY, 'command-count': '12' }
/** What turns VALID into a vote check of one user; what leaves it without a count. */
const IN_VOTE: Inputs = { mode: 'vote-check', 'user-id': '987654321098765432', 'command-count': '' }
const NO_COUNT: Inputs = { 'command-count': '' }

const OWN_TOKEN = tokenOf(BOT)
const OTHER_TOKEN = tokenOf('223456789012345678')
const PLACE_KEY = 'a3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6'
/** A fine-grained GitHub token's shape. */
const GITHUB_PAT = `github_pat_${'11AB2CD3E'.repeat(4)}`
/** A GitHub token as the runner passes the job's. */
const JOB = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a'
const userIds = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(100000000000000000n + BigInt(i)))

/**
 * parseSettings on action.yml's defaults, VALID and the change, each read back trimmed like
 * `core.getInput`.
 */
function read(change: Inputs, mask: (secret: string) => void, env: Inputs = {}): Either {
  const inputs: Inputs = { ...ACTION_DEFAULTS, ...VALID, ...change }
  return parseSettings(name => (inputs[name] ?? '').trim(), mask, env) as Either
}

const parse = (change: Inputs, env: Inputs = {}): Either => read(change, () => {}, env)

function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}

/**
 * Runs parseSettings expecting the refusal of `input`, which every refusal must look like: names
 * the input first, on one line, with the summary's headline naming it and the bot once its ID was
 * read; each secret given masked (as the action masks) before, and none shown.
 */
function refuse(
  change: Inputs,
  input: string,
  secrets: string[] = [],
  env: Inputs = {}
): { error: ActionError; masked: string[] } {
  const masked: string[] = []
  const error = thrownBy(() =>
    read(change, secret => maskSecret(secret, part => masked.push(part)), env)
  )
  if (!(error instanceof ActionError))
    throw new Error(`expected the inputs to be refused: ${JSON.stringify(change)}`, {
      cause: error
    })
  expect(
    error.message.startsWith(`Input '${input}' `) ||
      error.message.startsWith(`Inputs '${input}', `),
    error.message
  ).toBe(true)
  expect(error.message).not.toMatch(/[\r\n]/)
  expect(error.headline).toBe(
    error.message.startsWith('Inputs') ? 'no count to send' : `bad input '${input}'`
  )
  // Every input but bot-id itself is read after it.
  expect(error.botId).toBe(input === 'bot-id' ? undefined : BOT)
  for (const secret of [change['api-key'] ?? KEY, change['discord-token'] ?? '', ...secrets].filter(
    s => s !== ''
  )) {
    expect(error.message).not.toContain(secret)
    expect(masked).toContain(secret)
  }
  return { error, masked }
}

// ---------------------------------------------------------------------------------------
// Refusals by structure: the input named and the branch that refused it, by a short fragment.
// Their words are pinned once, in "every refusal, word for word" below. test/support/cases.ts
// runs a refusal of each kind through run(), and a line break with workflow commands in each
// one-line input (INJECTIONS): those are not repeated here.
// ---------------------------------------------------------------------------------------

type Refusal = [input: string, value: string, fragment: string, more?: Inputs]

const NOT_AN_ID = 'must be a Discord ID of 17 to 20 digits'
const ROUNDED = 'looks like a number that YAML rounded'
const NOT_A_USER = 'which is not a Discord user ID'
const SECONDS = 'must be a whole number of seconds from 1 to 21600'
const BOOLEAN = 'must be true or false'
const PLAIN_HTTP = 'uses plain http to'
const STATS_ONLY = 'belongs to mode: stats'

describe('parseSettings refuses', () => {
  it.each<Refusal>([
    ['commands-file', '\u001b[31mred.json', '(at character 1)', NO_COUNT],
    ...['1234567890123456', '123456789012345678901', '123456789012345678a', 'my-bot'].map(
      (raw): Refusal => ['bot-id', raw, NOT_AN_ID]
    ),
    // The forms YAML gives a large unquoted number (the one with "E+" is in the word-for-word
    // table).
    ...['1.2345678901234568e17', '1e+17', '123456789012345678.0'].map((raw): Refusal => [
      'bot-id',
      raw,
      ROUNDED
    ]),
    ['user-id', '1234567890123456', '"1234567890123456" (entry 1)', IN_VOTE],
    ...['123456789012345678901', 'a12345678901234567', '12345678901234567a'].map((raw): Refusal => [
      'user-id',
      raw,
      NOT_A_USER,
      IN_VOTE
    ]),
    // No sign, exponent, hex prefix or thousands separator (the decimal point is in the
    // word-for-word table).
    ...['-1', '+5', '1e3', '0x10', '1,260'].map((raw): Refusal => [
      'command-count',
      raw,
      'written in plain digits'
    ]),
    ['server-count', '10000001', 'maximum of 10000000'],
    ['server-count', '1,260', 'written in plain digits'],
    ['rate-limit-wait', '5m', 'from 0 to 3600 written in plain digits', IN_VOTE],
    ...['1.5', '21601'].map((raw): Refusal => ['timeout', raw, SECONDS]),
    ...['+5', '0'].map((raw): Refusal => ['request-timeout', raw, SECONDS]),
    ['mode', 'x'.repeat(40), `got "${'x'.repeat(40)}".`],
    ['cooldown-check', 'on', BOOLEAN],
    ['count-subcommands', '1', BOOLEAN],
    ['fail-if-not-voted', 'yes', BOOLEAN, IN_VOTE],
    ['api-key', 'dp_K3y\u007f0f-Th3-B0t', 'a control character'],
    ...['https://user@api.example.com', 'https://:pass@api.example.com'].map((url): Refusal => [
      'base-url',
      url,
      'user name or password'
    ]),
    ['base-url', 'https://api.example.com/#top', 'query or fragment'],
    // Names that only start like a loopback host, a LAN host, an IPv6 host other than [::1].
    ...[
      'http://127.0.0.1.evil.com',
      'http://localhost.evil.com',
      'http://192.168.1.10:8080',
      'http://[::2]'
    ].map((url): Refusal => ['base-url', url, PLAIN_HTTP]),
    ['discord-api-url', 'http://discord.com/api/v10', PLAIN_HTTP, { 'discord-token': OWN_TOKEN }],
    ['fail-if-not-voted', 'true', 'belongs to mode: vote-check'],
    ['command-count', '3', STATS_ONLY, IN_VOTE],
    ['commands-file', 'c.json', STATS_ONLY, IN_VOTE],
    ['discord-token', OWN_TOKEN, STATS_ONLY, IN_VOTE],
    ['count-subcommands', 'TRUE', STATS_ONLY, IN_VOTE],
    ['stale-after', '48', STATS_ONLY, IN_VOTE],
    ...['6', '721', '48h', '4.5e1'].map((raw): Refusal => [
      'stale-after',
      raw,
      'must be a whole number of hours from 7 to 720'
    ])
  ])('%s %j', (input, value, fragment, more = {}) => {
    expect(refuse({ ...more, [input]: value }, input).error.message).toContain(fragment)
  })

  // interface.md, "What people paste, what files say": a secret in the wrong input, or with
  // something around it, is refused before any request; it is masked as pasted and inside,
  // and never shown, nor the bot ID a token names.
  it.each<[input: string, secret: string, problem: RegExp, more?: Inputs]>([
    ['api-key', OTHER_TOKEN, /looks like a Discord bot token/, IN_VOTE],
    [
      'api-key',
      `export DISCORD_TOKEN="${OWN_TOKEN}"`,
      /bot token.*holds a variable name and "=" in front and quotes around it/
    ],
    [
      'api-key',
      `"${PLACE_KEY}"`,
      /same secret as discord-token.*also holds quotes around it/,
      { 'discord-token': PLACE_KEY }
    ],
    [
      'discord-token',
      `DISCORD_PLACE_API_KEY=${PLACE_KEY}`,
      /looks like a discord\.place API key.*also holds a variable name/
    ],
    ['discord-token', PLACE_KEY.toUpperCase(), /looks like a discord\.place API key/],
    // A secret of another kind, by its shape, in an input of its own: it would go to the wrong
    // party. Plain, or in base64 (as for a Basic header).
    ['github-token', OWN_TOKEN, /holds a Discord bot token, which belongs in discord-token/],
    ['github-token', PLACE_KEY, /holds a discord\.place API key .*, which belongs in api-key/],
    ['api-key', GITHUB_PAT, /holds a GitHub token, which belongs in github-token/],
    ['discord-token', `ghp_${'a1B2'.repeat(9)}`, /holds a GitHub token, which belongs in github/],
    [
      'api-key',
      Buffer.from(OWN_TOKEN).toString('base64'),
      /holds a Discord bot token, which belongs in discord-token/
    ],
    [
      'api-key',
      Buffer.from(`bot:${OWN_TOKEN}`).toString('base64'),
      /holds a Discord bot token, which belongs in discord-token/
    ],
    // The other party's secret in a wrapper no pasted form explains, the other input empty: it is
    // still never sent.
    ...[
      `${OWN_TOKEN},`,
      `${OWN_TOKEN};`,
      `${OWN_TOKEN}.`,
      `Zq.${OWN_TOKEN}`,
      `NAME:${OWN_TOKEN}`,
      `<${OWN_TOKEN}>`
    ].map((secret): [string, string, RegExp] => [
      'api-key',
      secret,
      /looks like a Discord bot token/
    ]),
    ...[`${PLACE_KEY},`, `NAME:${PLACE_KEY}`, `<${PLACE_KEY}>`].map(
      (secret): [string, string, RegExp] => [
        'discord-token',
        secret,
        /looks like a discord\.place API key/
      ]
    ),
    ['discord-token', `'${OTHER_TOKEN}'`, /token of another bot.*also holds quotes around it/],
    ['api-key', `Bearer ${PLACE_KEY}`, /than the secret \(the word "Bearer" in front\)/],
    ['api-key', `${PLACE_KEY}=`, /than the secret \("=" inside it\)/],
    [
      'discord-token',
      `DISCORD_TOKEN=${OWN_TOKEN}`,
      /than the secret \(a variable name and "=" in front\)/
    ],
    [
      'discord-token',
      'Authorization: Bot MTIz.abc.def',
      /than the secret \(white space inside it\)/
    ],
    ['github-token', '"ghs_0123456789abcdefABCDEF"', /than the secret \(quotes around it\)/],
    // One secret in two inputs, or inside another in a wrapper no pasted form explains: each pair,
    // either way round, named by the input that holds the other.
    [
      'api-key',
      'Mfa-not-a-token-but-long,',
      /holds the secret given as discord-token/,
      { 'discord-token': 'Mfa-not-a-token-but-long' }
    ],
    [
      'discord-token',
      `<${PLACE_KEY}>`,
      /holds the secret given as api-key/,
      { 'api-key': PLACE_KEY }
    ],
    [
      'discord-token',
      OWN_TOKEN,
      /is the same secret as github-token/,
      { 'github-token': OWN_TOKEN }
    ],
    [
      'github-token',
      `GH:${OWN_TOKEN}`,
      /holds the secret given as discord-token/,
      { 'discord-token': OWN_TOKEN }
    ],
    [
      'api-key',
      `'${JOB}'`,
      /same secret as github-token.*also holds quotes/,
      { 'github-token': JOB }
    ],
    [
      'github-token',
      `${PLACE_KEY};`,
      /holds the secret given as api-key/,
      { 'api-key': PLACE_KEY }
    ],
    // 16 characters of the key as github-token: the shortest value looked for inside another.
    [
      'api-key',
      PLACE_KEY,
      /holds the secret given as github-token/,
      { 'github-token': PLACE_KEY.slice(0, 16) }
    ],
    // The same value in two inputs, however short.
    ['api-key', 'dp_short', /is the same secret as github-token/, { 'github-token': 'dp_short' }]
  ])('%s %j', (input, secret, problem, more = {}) => {
    const inner = secret
      .replace(/^(export )?[A-Z_]+=/, '')
      .replace(/^["']|["']$/g, '')
      .replace(/^Bearer /, '')
    const { error } = refuse({ ...more, [input]: secret }, input, [secret, inner])
    expect(error.message).toMatch(problem)
    for (const hidden of [inner.split('.')[0]!, tokenBotId(inner) ?? ''])
      if (hidden !== '') expect(error.message).not.toContain(hidden)
  })
})

describe('parseSettings masks the secrets before validating anything', () => {
  it('each secret whole and line by line (never word by word), and a proxy password, when the first input read is refused', () => {
    const env = { HTTPS_PROXY: 'http://proxyuser:p%40ss%3Aw0rd-secret@proxy.example:3128' }
    const secrets = {
      'api-key': 'dp_first-half second_half\r\nthird_part',
      'discord-token': OWN_TOKEN,
      'github-token': 'ghs_01234567'
    }
    const { masked } = refuse(
      { ...secrets, 'bot-id': 'not-an-id' },
      'bot-id',
      Object.values(secrets),
      env
    )
    const proxy = ['p%40ss%3Aw0rd-secret', 'p@ss:w0rd-secret', 'proxyuser:p@ss:w0rd-secret']
    expect(masked).toEqual(
      expect.arrayContaining(['dp_first-half second_half', 'third_part', ...proxy])
    )
    for (const word of ['dp_first-half', 'second_half', 'proxyuser'])
      expect(masked).not.toContain(word)
  })

  it('never an empty secret, nor the words of an unexpanded ${{ github.token }} (what local runners pass), which is no token', () => {
    const mask = vi.fn()
    const settings = read(
      {
        'api-key': '',
        'dry-run': 'true',
        'discord-token': '',
        'github-token': '${{ github.token }}'
      },
      mask
    )
    expect(mask).not.toHaveBeenCalled()
    expect(settings.github?.token).toBeUndefined()
  })
})

describe('parseSettings accepts', () => {
  // toEqual: no field but these, those left out undefined.
  const COMMON = {
    botId: BOT,
    apiKey: KEY,
    baseUrl: 'https://api.discord.place',
    dryRun: false,
    requestTimeoutMs: 30_000,
    timeoutMs: 900_000,
    notes: []
  }

  it('the minimal stats inputs with the action defaults; workflow variables set but empty count as unset', () => {
    const empty = [
      'WORKSPACE',
      'REPOSITORY',
      'SHA',
      'API_URL',
      'WORKFLOW_REF',
      'WORKFLOW_SHA',
      'JOB',
      'EVENT_NAME',
      'EVENT_PATH'
    ].map(name => [`GITHUB_${name}`, ''])
    // The reusable workflow is marked only by "true".
    expect(
      parse({}, { ...Object.fromEntries(empty), DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: '1' })
    ).toEqual({
      ...COMMON,
      mode: 'stats',
      cooldownCheck: true,
      commandCount: 12,
      countSubcommands: false,
      discordApiUrl: '',
      github: {
        workspace: process.cwd(),
        apiUrl: 'https://api.github.com',
        inReusableWorkflow: false
      }
    })
  })

  it('the minimal vote-check inputs with the defaults, holding only what vote-check uses', () => {
    expect(parse(IN_VOTE)).toEqual({
      ...COMMON,
      mode: 'vote-check',
      userIds: ['987654321098765432'],
      failIfNotVoted: false,
      rateLimitWaitMs: 600_000
    })
  })

  it('the workflow context from the environment, and a commands-file resolved against its workspace', () => {
    const workflowRef = 'example/bot/.github/workflows/stats.yml@refs/heads/main'
    const settings = parse(
      { ...NO_COUNT, 'commands-file': 'build/commands.json', 'github-token': 'ghs_x' },
      {
        GITHUB_WORKSPACE: '/w',
        GITHUB_REPOSITORY: 'example/bot',
        GITHUB_SHA: 'abc123',
        GITHUB_API_URL: 'https://ghes.example/api/v3',
        GITHUB_WORKFLOW_REF: workflowRef,
        GITHUB_WORKFLOW_SHA: 'def456',
        GITHUB_JOB: 'stats',
        GITHUB_EVENT_NAME: 'schedule',
        GITHUB_EVENT_PATH: '/runner/event.json',
        DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: 'true'
      }
    )
    expect(settings.commandsFile).toEqual({
      given: 'build/commands.json',
      path: '/w/build/commands.json'
    })
    expect(settings.github).toEqual({
      token: 'ghs_x',
      workspace: '/w',
      repository: 'example/bot',
      sha: 'abc123',
      apiUrl: 'https://ghes.example/api/v3',
      inReusableWorkflow: true,
      workflowRef,
      workflowSha: 'def456',
      job: 'stats',
      eventName: 'schedule',
      eventPath: '/runner/event.json'
    })
  })

  const PRINTABLE = '!#$%&()*+,-./09:;<>?@AZ[\\]^_az{|}~'
  const namesNoBot = (decoded: string): string =>
    `${Buffer.from(decoded).toString('base64url')}.GpRxYz.abc`
  type Accepted = { change: Inputs; expected: Record<string, unknown> }
  it.each<Accepted>([
    { change: { 'bot-id': '12345678901234567' }, expected: { botId: '12345678901234567' } },
    { change: { 'bot-id': '12345678901234567890' }, expected: { botId: '12345678901234567890' } },
    {
      change: { 'command-count': '0', 'server-count': '0' },
      expected: { commandCount: 0, serverCount: 0 }
    },
    {
      change: { 'command-count': '1000', 'server-count': '10000000' },
      expected: { commandCount: 1000, serverCount: 10_000_000 }
    },
    { change: { 'stale-after': '7' }, expected: { staleAfter: 7 } },
    { change: { 'stale-after': '720' }, expected: { staleAfter: 720 } },
    // A request-timeout equal to timeout is no note.
    {
      change: { timeout: '1', 'request-timeout': '1' },
      expected: { timeoutMs: 1000, requestTimeoutMs: 1000, notes: [] }
    },
    {
      change: { timeout: '21600', 'request-timeout': '21600' },
      expected: { timeoutMs: 21_600_000, notes: [] }
    },
    {
      change: { 'dry-run': 'True', 'cooldown-check': 'False' },
      expected: { dryRun: true, cooldownCheck: false, apiKey: KEY }
    },
    {
      change: { 'dry-run': 'TRUE', 'cooldown-check': 'FALSE' },
      expected: { dryRun: true, cooldownCheck: false }
    },
    {
      change: { 'dry-run': 'true', 'api-key': '', ...NO_COUNT, 'server-count': '5' },
      expected: { apiKey: undefined, serverCount: 5 }
    },
    // An input of the other mode set to false is not set.
    {
      change: { 'fail-if-not-voted': 'false', 'count-subcommands': 'false' },
      expected: { mode: 'stats' }
    },
    {
      change: { 'fail-if-not-voted': 'False', 'count-subcommands': 'False' },
      expected: { mode: 'stats' }
    },
    {
      change: { 'fail-if-not-voted': 'FALSE', 'count-subcommands': 'FALSE' },
      expected: { mode: 'stats' }
    },
    { change: { 'api-key': PRINTABLE }, expected: { apiKey: PRINTABLE } },
    {
      change: { 'api-key': PLACE_KEY, 'discord-token': OWN_TOKEN },
      expected: { apiKey: PLACE_KEY, discordToken: OWN_TOKEN }
    },
    // A value shorter than 16 characters is never taken for a secret inside another: 15 characters
    // of the key as github-token.
    {
      change: { 'api-key': PLACE_KEY, 'github-token': PLACE_KEY.slice(0, 15) },
      expected: { github: expect.objectContaining({ token: PLACE_KEY.slice(0, 15) }) }
    },
    // Tokens whose first part names no bot ID; near misses of a discord.place key's shape.
    ...[
      'not-an-id.GpRxYz.abc',
      namesNoBot(`x${BOT}`),
      namesNoBot(`${BOT}x`),
      'a'.repeat(63),
      'a'.repeat(65),
      `g${'a'.repeat(63)}`
    ].map((token): Accepted => ({
      change: { 'discord-token': token },
      expected: { discordToken: token }
    })),
    {
      change: { ...NO_COUNT, 'commands-file': 'c.json', 'count-subcommands': 'true' },
      expected: {
        commandsFile: { given: 'c.json', path: resolve('c.json') },
        countSubcommands: true
      }
    },
    {
      change: {
        ...NO_COUNT,
        'discord-token': OWN_TOKEN,
        'count-subcommands': 'true',
        'discord-api-url': 'http://127.0.0.1:9/api/v10/'
      },
      expected: {
        commandCount: undefined,
        discordToken: OWN_TOKEN,
        discordApiUrl: 'http://127.0.0.1:9/api/v10',
        countSubcommands: true
      }
    },
    { change: { 'discord-api-url': 'not a url' }, expected: { discordApiUrl: '' } },
    {
      change: { 'github-token': '${{github.token}}x' },
      expected: { github: { token: '${{github.token}}x' } }
    },
    {
      change: { 'github-token': 'x${{github.token}}' },
      expected: { github: { token: 'x${{github.token}}' } }
    },
    // Trailing slashes dropped, a port and a path prefix kept; plain http only to a loopback host.
    {
      change: { 'base-url': 'https://api.discord.place/' },
      expected: { baseUrl: 'https://api.discord.place' }
    },
    {
      change: { 'base-url': 'https://x.example:8443/a/b//' },
      expected: { baseUrl: 'https://x.example:8443/a/b' }
    },
    {
      change: { 'base-url': 'http://127.0.0.1:8080' },
      expected: { baseUrl: 'http://127.0.0.1:8080' }
    },
    {
      change: { 'base-url': 'http://127.10.200.255:9' },
      expected: { baseUrl: 'http://127.10.200.255:9' }
    },
    { change: { 'base-url': 'http://localhost' }, expected: { baseUrl: 'http://localhost' } },
    { change: { 'base-url': 'http://[::1]:9' }, expected: { baseUrl: 'http://[::1]:9' } },
    {
      change: { 'base-url': 'http://LOCALHOST:3000/v1/' },
      expected: { baseUrl: 'http://localhost:3000/v1' }
    },
    {
      change: {
        ...IN_VOTE,
        'user-id': '987654321098765432, 887654321098765432  787654321098765432\n987654321098765432,'
      },
      expected: { userIds: ['987654321098765432', '887654321098765432', '787654321098765432'] }
    },
    {
      change: { ...IN_VOTE, 'user-id': '12345678901234567,12345678901234567890' },
      expected: { userIds: ['12345678901234567', '12345678901234567890'] }
    },
    {
      change: { ...IN_VOTE, 'fail-if-not-voted': 'true', 'rate-limit-wait': '3600' },
      expected: { failIfNotVoted: true, rateLimitWaitMs: 3_600_000 }
    },
    { change: { ...IN_VOTE, 'rate-limit-wait': '0' }, expected: { rateLimitWaitMs: 0 } }
  ])('$change', ({ change, expected }) => {
    expect(parse(change)).toMatchObject(expected)
  })

  it('1000 users, the most one run checks, counted once each', () => {
    const ids = userIds(1000)
    expect(parse({ ...IN_VOTE, 'user-id': [...ids, ids[0]].join('\n') }).userIds).toEqual(ids)
  })

  it('a request-timeout above timeout, cut to it, with a note that says so', () => {
    const settings = parse({ timeout: '10', 'request-timeout': '11' })
    expect(settings.requestTimeoutMs).toBe(10_000)
    // The note's words are pinned by main.test.ts, where the log shows it.
    expect(settings.notes).toEqual([
      expect.stringMatching(
        /^request-timeout \(11 s\) is longer than timeout \(10 s\), .* at most 10 s,/
      )
    ])
  })

  it('and returns them frozen, with their lists and the workflow context', () => {
    const stats = parse({ timeout: '10' })
    const vote = parse(IN_VOTE)
    for (const part of [stats, stats.notes, stats.github, vote, vote.userIds])
      expect(Object.isFrozen(part)).toBe(true)
  })
})

describe('parseSettings and its callers', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.restoreAllMocks()
  })

  it('readSettings trims the inputs through @actions/core and masks the key with ::add-mask:: before anything else is written', () => {
    const written: string[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    const stub = {
      ...ACTION_DEFAULTS,
      'bot-id': `  ${BOT}  `,
      'api-key': ` ${KEY}\n`,
      'server-count': ' 1260 '
    }
    for (const [name, value] of Object.entries(stub))
      vi.stubEnv(`INPUT_${name.toUpperCase()}`, value)
    expect(readSettings()).toMatchObject({ botId: BOT, apiKey: KEY, serverCount: 1260 })
    expect(written[0]).toContain(`::add-mask::${KEY}`)
  })

  it('passes a failure that is not a refusal (a bug in the reader) on as it is, naming no bot', () => {
    const bug = new TypeError('the reader broke')
    const reader = (name: string): string => {
      if (name === 'mode') throw bug
      return VALID[name] ?? ACTION_DEFAULTS[name] ?? ''
    }
    expect(thrownBy(() => parseSettings(reader, () => {}))).toBe(bug)
    expect(bug).not.toHaveProperty('botId')
  })
})

// ---------------------------------------------------------------------------------------
// What a user reads when an input is refused: the whole message, word for word (the input, the
// problem, the fix). The one place these sentences are pinned.
// ---------------------------------------------------------------------------------------

describe('every refusal, word for word', () => {
  const URL_FIX =
    'Use https://api.discord.place (the default) or the https address of a compatible service.'
  const KEY_FIX =
    "Pass the bot's API key from its manage page on discord.place, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }}."
  const HEADER_SAFE = 'contains whitespace, a control character or a non-ASCII character'
  const TAKES_KEY =
    "api-key takes the bot's API key from its manage page on discord.place, for example ${{ secrets.DISCORD_PLACE_API_KEY }}"
  const TAKES_TOKEN = "discord-token takes the bot's token from the Discord Developer Portal"
  const TAKES_JOB = "github-token takes GitHub's token for the job, by default ${{ github.token }}"
  const SWAPPED =
    'looks like a Discord bot token (three dot-separated parts, the first naming a bot ID), not a discord.place API key, so nothing was sent. The secrets are probably swapped, or the wrong secret is named. ' +
    `${KEY_FIX} The Discord token goes in discord-token.`

  /** Each message, and the inputs that make it. */
  const MESSAGES: Record<string, Inputs> = {
    "Input 'timeout' contains a line break or another control character (at character 2). Give the value on one line, without control characters; in YAML, quote it or use a plain scalar.":
      { timeout: '9\n00' },
    "Input 'bot-id' is empty. Set it to the bot's Discord ID, 17 to 20 digits (Developer Portal, Application ID).":
      { 'bot-id': '' },
    "Input 'bot-id' looks like a number that YAML rounded (\"1.2345678901234568E+17\"). YAML read this as a number: put the ID in quotes, for example bot-id: '123456789012345678'.":
      { 'bot-id': '1.2345678901234568E+17' },
    "Input 'bot-id' must be a Discord ID of 17 to 20 digits, got \"a123456789012345678\". Copy the bot's Application ID from the Discord Developer Portal or from its page on discord.place.":
      { 'bot-id': 'a123456789012345678' },
    [`Input 'mode' must be "stats" or "vote-check", got "${'x'.repeat(40)}…". Use mode: stats to update the counts, or mode: vote-check to check votes.`]:
      { mode: 'x'.repeat(41) },
    'Input \'dry-run\' must be true or false, got "yes". Write dry-run: true or dry-run: false.': {
      'dry-run': 'yes'
    },
    [`Input 'base-url' is empty. ${URL_FIX}`]: { 'base-url': '' },
    [`Input 'base-url' is not an absolute URL: "api.discord.place". ${URL_FIX}`]: {
      'base-url': 'api.discord.place'
    },
    [`Input 'base-url' contains a user name or password. Remove them; the secret is sent in a header. ${URL_FIX}`]:
      {
        'base-url': 'https://user:pass@api.example.com'
      },
    [`Input 'base-url' uses "ftp:", not https. ${URL_FIX}`]: {
      'base-url': 'ftp://files.example.com'
    },
    "Input 'base-url' uses plain http to api.discord.place:8080, which would send a secret unencrypted. Use https, or a loopback host (127.0.0.1, localhost or [::1]) for a local test server.":
      { 'base-url': 'http://api.discord.place:8080' },
    "Input 'base-url' has a query or fragment. Give only the scheme, host and optional path prefix.":
      {
        'base-url': 'https://api.example.com/?x=1'
      },
    "Input 'api-key' is empty. Pass the bot's API key from a repository secret, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }} (create the key on the bot's manage page on discord.place). Secrets are not given to workflows run from forks.":
      { 'api-key': '' },
    "Input 'api-key' holds more than the secret (white space inside it), so nothing was sent. Store only the key in the secret, as the bot's manage page on discord.place shows it; the action sends it as it is.":
      { 'api-key': 'dp_K3y 0f-Th3-B0t' },
    [`Input 'api-key' ${HEADER_SAFE} (at character 1). Copy the key again from the bot's manage page on discord.place and store it in the secret as a single line.`]:
      { 'api-key': 'é_K3y-0f-Th3-B0t' },
    [`Input 'api-key' ${SWAPPED}`]: { 'api-key': OWN_TOKEN },
    [`Input 'api-key' ${SWAPPED} The secret also holds quotes around it, which does not belong in it.`]:
      { 'api-key': `"${OWN_TOKEN}"` },
    [`Input 'api-key' is the same secret as discord-token, so nothing was sent. One of the two names the wrong secret: ${TAKES_KEY}, and ${TAKES_TOKEN}.`]:
      { 'api-key': 'dp_same-secret-in-both', 'discord-token': 'dp_same-secret-in-both' },
    [`Input 'api-key' is the same secret as github-token, so nothing was sent. One of the two names the wrong secret: ${TAKES_KEY}, and ${TAKES_JOB}.`]:
      {
        'api-key': 'ghs_0123456789abcdef',
        'github-token': 'ghs_0123456789abcdef'
      },
    [`Input 'discord-token' holds the secret given as github-token, so nothing was sent. One of the two names the wrong secret: ${TAKES_TOKEN}, and ${TAKES_JOB}.`]:
      { 'discord-token': `${JOB}.`, 'github-token': JOB },
    [`Input 'github-token' holds a Discord bot token, which belongs in discord-token, so nothing was sent. ${TAKES_JOB}.`]:
      { 'github-token': OWN_TOKEN },
    'Input \'timeout\' must be a whole number of seconds from 1 to 21600, got "0". Write it like 900.':
      { timeout: '0' },
    'Input \'stale-after\' must be a whole number of hours from 7 to 720, got "0". Write it like 48, a few schedule periods long, or leave it empty.':
      { 'stale-after': '0' },
    'Input \'request-timeout\' must be a whole number of seconds from 1 to 21600, got "21601". Write it like 30.':
      {
        'request-timeout': '21601'
      },
    "Input 'user-id' is set, but it belongs to mode: vote-check. Remove it, or set mode: vote-check.":
      { 'user-id': '987654321098765432' },
    "Input 'server-count' is set, but it belongs to mode: stats. Remove it, or set mode: stats.": {
      ...IN_VOTE,
      'server-count': '5'
    },
    "Input 'commands-file' cannot be combined with 'command-count': both give the command count. Keep one of them: commands-file to count the manifest, or command-count to send a fixed number.":
      { 'commands-file': 'commands.json' },
    'Input \'discord-token\' holds more than the secret (the word "Bot" in front), so nothing was sent. Store only the token in the secret, as the Bot page of the Discord Developer Portal shows it; the action adds the "Bot " prefix.':
      { 'discord-token': 'Bot MTIz.abc.def' },
    [`Input 'discord-token' ${HEADER_SAFE} (at character 11). Copy the token again from the Bot page of the Discord Developer Portal and store it in the secret as a single line.`]:
      { 'discord-token': 'MTIz.abc.défg' },
    "Input 'discord-token' looks like a discord.place API key (64 hexadecimal digits), not a Discord bot token, so it was not sent to Discord. The secrets are probably swapped: pass the discord.place key as api-key, and the bot token from the Discord Developer Portal (Bot page) as discord-token.":
      { 'discord-token': PLACE_KEY },
    "Input 'discord-token' is the token of another bot: its first part names a bot ID other than bot-id, so the counts Discord gives for it are not this bot's. Pass this bot's own token (Developer Portal, the bot's application, Bot page), or check bot-id.":
      { 'discord-token': OTHER_TOKEN },
    "Input 'discord-api-url' is empty. Use https://discord.com/api/v10 (the default) or the https address of a compatible service.":
      {
        'discord-token': OWN_TOKEN,
        'discord-api-url': ''
      },
    "Input 'count-subcommands' is true, but it only applies to counts read from commands-file or discord-token. Set commands-file or discord-token, or remove count-subcommands.":
      { 'count-subcommands': 'true' },
    "Input 'github-token' holds more than the secret (white space inside it), so nothing was sent. Pass only the token, for example the default ${{ github.token }}.":
      { 'github-token': 'ghs_a b' },
    [`Input 'github-token' ${HEADER_SAFE} (at character 5). Pass a GitHub token, for example the default \${{ github.token }}.`]:
      {
        'github-token': 'ghs_\u0007x'
      },
    'Input \'command-count\' must be a whole number from 0 to 1000 written in plain digits, got "12.5". Write it like 42: no sign, decimal point, exponent, hex prefix or thousands separator.':
      { 'command-count': '12.5' },
    "Input 'command-count' is \"1001\", above the service's maximum of 1000. Send a whole number from 0 to 1000.":
      {
        'command-count': '1001'
      },
    "Input 'user-id' is empty, and mode: vote-check needs at least one user. Set user-id to one or more Discord user IDs, separated by commas, spaces or newlines.":
      { ...IN_VOTE, 'user-id': '' },
    'Input \'user-id\' has "@someone" (entry 2), which is not a Discord user ID of 17 to 20 digits. Give user IDs (Developer Mode in Discord, then Copy User ID), separated by commas, spaces or newlines.':
      { ...IN_VOTE, 'user-id': '987654321098765432, @someone' },
    "Input 'user-id' lists 1001 users, more than the 1000 one run checks. Split the users over several steps or runs.":
      {
        ...IN_VOTE,
        'user-id': userIds(1001).join(',')
      },
    // No count at all: the headline says there is no count to send.
    "Inputs 'command-count', 'server-count', 'commands-file' and 'discord-token' are all empty, so there is no count to send. Set at least one of them, for example command-count: 42.":
      NO_COUNT,
    "Input 'rate-limit-wait' is \"3601\", above the action's maximum of 3600. Send a whole number from 0 to 3600.":
      {
        ...IN_VOTE,
        'rate-limit-wait': '3601'
      }
  }

  it.each(Object.entries(MESSAGES))('%s', (message, change) => {
    expect(refuse(change, /^Inputs? '([^']+)'/.exec(message)![1]!).error.message).toBe(message)
  })

  it('an empty api-key in the reusable workflow: the caller passes the secret by name', () => {
    const env = { DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: 'true' }
    expect(refuse({ 'api-key': '' }, 'api-key', [], env).error.message).toBe(
      "Input 'api-key' is empty. The calling workflow passes it by name: secrets: DISCORD_PLACE_API_KEY: ${{ secrets.DISCORD_PLACE_API_KEY }} (secrets: inherit passes nothing to a workflow of another owner). Secrets are not given to workflows run from forks."
    )
  })
  it("GITHUB_API_URL in plain http to a host that is not loopback, with a github-token: GitHub's API named, not an input", () => {
    const error = thrownBy(() =>
      parse({ 'github-token': JOB }, { GITHUB_API_URL: 'http://ghes.example/api/v3' })
    )
    expect(error).toMatchObject({
      message:
        "GITHUB_API_URL (GitHub's API, where github-token goes; the runner sets it) uses plain http to ghes.example, which " +
        'would send a secret unencrypted. Use https, or a loopback host (127.0.0.1, localhost or [::1]) for a local test ' +
        "server. Or pass no github-token (github-token: '') and check out the repository, so that nothing is sent there.",
      headline: 'bad GITHUB_API_URL',
      botId: BOT
    })
  })
})

describe('GITHUB_API_URL, where github-token goes: the rule of base-url and discord-api-url', () => {
  it.each<{ url: string; token?: string; apiUrl?: string; problem?: string }>([
    { url: 'https://ghes.example/api/v3/', apiUrl: 'https://ghes.example/api/v3' },
    { url: 'http://127.0.0.1:8080', apiUrl: 'http://127.0.0.1:8080' },
    { url: 'http://192.168.1.10', problem: 'uses plain http to 192.168.1.10' },
    { url: 'https://user:pass@ghes.example', problem: 'contains a user name or password' },
    { url: 'ftp://ghes.example', problem: 'uses "ftp:", not https' },
    { url: 'ghes.example', problem: 'is not an absolute URL: "ghes.example"' },
    // Without a token nothing is sent there: not checked.
    { url: 'http://ghes.example', token: '', apiUrl: 'http://ghes.example' }
  ])('$url, github-token $token', ({ url, token = JOB, apiUrl, problem }) => {
    const env = { GITHUB_API_URL: url }
    if (problem === undefined) {
      expect(parse({ 'github-token': token }, env).github?.apiUrl).toBe(apiUrl)
      return
    }
    const error = thrownBy(() => parse({ 'github-token': token }, env))
    expect(error).toBeInstanceOf(ActionError)
    const { message } = error as Error
    expect(message.startsWith('GITHUB_API_URL ')).toBe(true)
    expect(message).toContain(problem)
  })
})
