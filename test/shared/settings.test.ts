import { afterEach, describe, expect, it, vi } from 'vitest'
import { ActionError } from '../../src/errors.js'
import { maskSecret } from '../../src/secrets.js'
import { parseSettings, readSettings, type Settings, type StatsSettings, type VoteSettings } from '../../src/settings.js'
import { BOT, KEY } from '../support/inprocess.js'

/** Settings of either mode with each mode's fields readable (absent in the other mode). */
type Either = Settings & Partial<Omit<StatsSettings, 'mode'>> & Partial<Omit<VoteSettings, 'mode'>>

/** action.yml's defaults: what the runner passes for an input the workflow leaves out. */
const ACTION_DEFAULTS: Record<string, string> = {
  mode: 'stats',
  'count-subcommands': 'false',
  'fail-if-not-voted': 'false',
  'base-url': 'https://api.discord.place',
  'dry-run': 'false',
  'cooldown-check': 'true',
  'discord-api-url': 'https://discord.com/api/v10'
}

/** A workflow's `with:` block that parses: a bot, a key and one count. */
const VALID: Record<string, string> = { 'bot-id': BOT, 'api-key': KEY, 'command-count': '12' }

/**
 * Inputs as the runner gives them: action.yml defaults, overridden by `with`, read back
 * trimmed like `core.getInput`; `''` when unset.
 */
function inputs(withBlock: Record<string, string>): Map<string, string> {
  return new Map(Object.entries({ ...ACTION_DEFAULTS, ...withBlock }))
}

function parse(withBlock: Record<string, string>): { settings: Either; masked: string[] } {
  const map = inputs(withBlock)
  const masked: string[] = []
  const settings = parseSettings(
    name => (map.get(name) ?? '').trim(),
    secret => maskSecret(secret, part => masked.push(part))
  )
  return { settings, masked }
}

/** Runs parseSettings expecting a refusal; returns the error and what was masked before it. */
function refuse(withBlock: Record<string, string>): { error: ActionError; masked: string[] } {
  const map = inputs(withBlock)
  const masked: string[] = []
  try {
    parseSettings(
      name => (map.get(name) ?? '').trim(),
      secret => maskSecret(secret, part => masked.push(part))
    )
  } catch (error) {
    expect(error).toBeInstanceOf(ActionError)
    return { error: error as ActionError, masked }
  }
  throw new Error(`expected the inputs to be refused: ${JSON.stringify(withBlock)}`)
}

/** What every refusal must look like: names the input in quotes, one line, no secret. */
function expectRefusal(error: ActionError, input: string, secrets: string[] = [KEY]): void {
  expect(error.message).toContain(`'${input}'`)
  expect(error.message).not.toMatch(/[\r\n]/)
  for (const secret of secrets) expect(error.message).not.toContain(secret)
}

type Refusal = [label: string, withBlock: Record<string, string>, input: string, problem: RegExp]

/** A vote check that parses: a bot, a key and one user. */
const VOTE: Record<string, string> = { 'bot-id': BOT, 'api-key': KEY, mode: 'vote-check', 'user-id': '987654321098765432' }

const withValid = (over: Record<string, string>): Record<string, string> => ({ ...VALID, ...over })

describe('parseSettings refuses', () => {
  const botIds: Refusal[] = [
    ['16 digits', withValid({ 'bot-id': '1234567890123456' }), 'bot-id', /17 to 20/],
    ['21 digits', withValid({ 'bot-id': '123456789012345678901' }), 'bot-id', /17 to 20/],
    ['a letter', withValid({ 'bot-id': '12345678901234567a' }), 'bot-id', /17 to 20/],
    ['a sign', withValid({ 'bot-id': '-12345678901234567' }), 'bot-id', /17 to 20/],
    ['non-ASCII digits', withValid({ 'bot-id': '١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧' }), 'bot-id', /17 to 20/],
    ['an inner newline', withValid({ 'bot-id': '123456789\n012345678' }), 'bot-id', /line break/],
    ['a mention', withValid({ 'bot-id': '<@123456789012345678>' }), 'bot-id', /17 to 20/],
    ['empty', withValid({ 'bot-id': '' }), 'bot-id', /17 to 20/],
    ['only whitespace', withValid({ 'bot-id': '   ' }), 'bot-id', /17 to 20/]
  ]

  const countFormats = ['-1', '12.5', '1e3', '0x10', 'twelve', '+5', '1,260', ' 5 6', '٥']
  const counts: Refusal[] = [
    ...countFormats.map((raw): Refusal => [
      `command-count ${JSON.stringify(raw)}`,
      withValid({ 'command-count': raw }),
      'command-count',
      /\b1,?000\b/
    ]),
    ...countFormats.map((raw): Refusal => [
      `server-count ${JSON.stringify(raw)}`,
      withValid({ 'command-count': '', 'server-count': raw }),
      'server-count',
      /\b10,?000,?000\b/
    ]),
    ['command-count 1001', withValid({ 'command-count': '1001' }), 'command-count', /\b1,?000\b/],
    ['server-count 10000001', withValid({ 'server-count': '10000001' }), 'server-count', /\b10,?000,?000\b/],
    ['server-count beyond any integer', withValid({ 'server-count': '99999999999999999999999' }), 'server-count', /\b10,?000,?000\b/]
  ]

  const noCount: Refusal[] = [
    ['no count at all', withValid({ 'command-count': '' }), 'command-count', /server-count/],
    ['no count at all, in a dry run', { 'bot-id': BOT, 'dry-run': 'true' }, 'command-count', /server-count/]
  ]

  const apiKeys: Refusal[] = [
    ['api-key empty', withValid({ 'api-key': '' }), 'api-key', /secret/],
    ['api-key with a space', withValid({ 'api-key': 'dp_K3y 0f-Th3-B0t' }), 'api-key', /white space inside it/],
    ['api-key with a tab', withValid({ 'api-key': 'dp_K3y\t0f-Th3-B0t' }), 'api-key', /white space inside it/],
    ['api-key with a newline', withValid({ 'api-key': 'dp_K3y\n0f-Th3-B0t' }), 'api-key', /white space inside it/],
    ['api-key with a CR LF', withValid({ 'api-key': 'dp_K3y\r\n0f-Th3-B0t' }), 'api-key', /white space inside it/],
    ['api-key with a control char', withValid({ 'api-key': 'dp_K3y\u00070f-Th3-B0t' }), 'api-key', /control/],
    ['api-key with DEL', withValid({ 'api-key': 'dp_K3y\u007f0f-Th3-B0t' }), 'api-key', /control/],
    ['api-key with NUL', withValid({ 'api-key': 'dp_K3y\u00000f-Th3-B0t' }), 'api-key', /control/],
    ['api-key non-ASCII', withValid({ 'api-key': 'dp_K3y-0f-Thé-B0t' }), 'api-key', /non-ASCII/],
    ['api-key with a no-break space', withValid({ 'api-key': 'dp_K3y\u00a00f-Th3-B0t' }), 'api-key', /white space inside it/],
    ['api-key with an emoji', withValid({ 'api-key': 'dp_K3y-🔑-B0t' }), 'api-key', /non-ASCII/]
  ]

  const baseUrls: Refusal[] = [
    ['base-url empty', withValid({ 'base-url': '' }), 'base-url', /https/],
    ['base-url without a scheme', withValid({ 'base-url': 'api.discord.place' }), 'base-url', /absolute/],
    ['base-url relative path', withValid({ 'base-url': '/api' }), 'base-url', /absolute/],
    ['base-url ftp:', withValid({ 'base-url': 'ftp://files.example.com' }), 'base-url', /https/],
    ['base-url file:', withValid({ 'base-url': 'file:///etc/passwd' }), 'base-url', /https/],
    ['base-url javascript:', withValid({ 'base-url': 'javascript:alert(1)' }), 'base-url', /https/],
    ['base-url http to the live service', withValid({ 'base-url': 'http://api.discord.place' }), 'base-url', /https/],
    ['base-url http to a LAN host', withValid({ 'base-url': 'http://192.168.1.10:8080' }), 'base-url', /https/],
    [
      'base-url http to a name that starts like loopback',
      withValid({ 'base-url': 'http://127.0.0.1.nip.example.com' }),
      'base-url',
      /https/
    ],
    ['base-url http to localhost.<domain>', withValid({ 'base-url': 'http://localhost.example.com' }), 'base-url', /https/],
    ['base-url with user:pass', withValid({ 'base-url': 'https://user:pass@api.example.com' }), 'base-url', /password/],
    ['base-url with a user', withValid({ 'base-url': 'https://user@api.example.com' }), 'base-url', /user/],
    ['base-url with a query', withValid({ 'base-url': 'https://api.example.com/?x=1' }), 'base-url', /query/],
    ['base-url with a fragment', withValid({ 'base-url': 'https://api.example.com/#top' }), 'base-url', /fragment/]
  ]

  const modes: Refusal[] = [
    ['mode "update"', withValid({ mode: 'update' }), 'mode', /stats/],
    ['mode "votes"', withValid({ mode: 'votes' }), 'mode', /stats/],
    ['mode "stats,vote-check"', withValid({ mode: 'stats,vote-check' }), 'mode', /stats/]
  ]

  const booleanInputs: [string, Record<string, string>][] = [
    ['dry-run', VALID],
    ['cooldown-check', VALID],
    ['count-subcommands', VALID],
    ['fail-if-not-voted', VOTE]
  ]
  const booleans: Refusal[] = booleanInputs.flatMap(([input, base]) =>
    ['yes', '1', 'on', 'tru', 'false!'].map((raw): Refusal => [
      `${input} ${JSON.stringify(raw)}`,
      { ...base, [input]: raw },
      input,
      /true or false/
    ])
  )

  const sources: Refusal[] = [
    [
      'commands-file with command-count',
      withValid({ 'commands-file': 'commands.json' }),
      'commands-file',
      /cannot be combined with 'command-count'/
    ],
    [
      'discord-token with the "Bot " prefix',
      withValid({ 'discord-token': 'Bot MTIz.discord-token.xyz' }),
      'discord-token',
      /the word "Bot" in front/
    ],
    ['discord-token with a line break', withValid({ 'discord-token': 'MTIz.discord\r\nX: y' }), 'discord-token', /white space inside it/],
    [
      'discord-api-url over plain http to a remote host',
      withValid({ 'discord-token': 'MTIz.discord-token.xyz', 'discord-api-url': 'http://discord.com/api/v10' }),
      'discord-api-url',
      /plain http/
    ],
    [
      'discord-api-url not absolute',
      withValid({ 'discord-token': 'MTIz.discord-token.xyz', 'discord-api-url': 'discord.com' }),
      'discord-api-url',
      /absolute/
    ]
  ]

  const otherMode: Refusal[] = [
    ['user-id in stats mode', withValid({ 'user-id': '987654321098765432' }), 'user-id', /belongs to mode: vote-check/],
    [
      'fail-if-not-voted=true in stats mode',
      withValid({ 'fail-if-not-voted': 'true' }),
      'fail-if-not-voted',
      /belongs to mode: vote-check/
    ],
    [
      'count-subcommands=true without a source',
      withValid({ 'count-subcommands': 'true' }),
      'count-subcommands',
      /commands-file or discord-token/
    ],
    ['command-count in vote-check mode', { ...VOTE, 'command-count': '3' }, 'command-count', /belongs to mode: stats/],
    ['discord-token in vote-check mode', { ...VOTE, 'discord-token': 'MTIz.abc.def' }, 'discord-token', /belongs to mode: stats/],
    ['commands-file in vote-check mode', { ...VOTE, 'commands-file': 'c.json' }, 'commands-file', /belongs to mode: stats/]
  ]

  const userIds: Refusal[] = [
    ['user-id empty in vote-check mode', { ...VOTE, 'user-id': '' }, 'user-id', /is empty/],
    ['user-id too short', { ...VOTE, 'user-id': '1234567890123456' }, 'user-id', /"1234567890123456" \(entry 1\)/],
    ['the second user-id invalid', { ...VOTE, 'user-id': '987654321098765432, @someone' }, 'user-id', /"@someone" \(entry 2\)/],
    [
      'more than 1000 users',
      { ...VOTE, 'user-id': Array.from({ length: 1001 }, (_, i) => String(100000000000000000n + BigInt(i))).join(',') },
      'user-id',
      /1001 users/
    ],
    ['rate-limit-wait not a number', { ...VOTE, 'rate-limit-wait': '5m' }, 'rate-limit-wait', /whole number/],
    ['rate-limit-wait above an hour', { ...VOTE, 'rate-limit-wait': '3601' }, 'rate-limit-wait', /maximum of 3600/]
  ]

  // A line break followed by `::` would be a workflow command if the value were ever printed.
  const injection = '\n::error::injected%0A::add-mask::Bot\n::stop-commands::x'
  const controlCharacters: Refusal[] = [
    ...(
      [
        ['bot-id', BOT],
        ['command-count', '12'],
        ['commands-file', 'commands.json'],
        ['base-url', 'https://api.discord.place'],
        ['mode', 'stats'],
        ['dry-run', 'false'],
        ['cooldown-check', 'true'],
        ['count-subcommands', 'false'],
        ['timeout', '900'],
        ['request-timeout', '30'],
        ['discord-api-url', 'https://discord.com/api/v10']
      ] as const
    ).map(([input, good]): Refusal => {
      const over: Record<string, string> =
        input === 'commands-file' ? { 'command-count': '' } : input === 'discord-api-url' ? { 'discord-token': 'MTIz.abc.def-token' } : {}
      return [`${input} with a line break and workflow commands`, withValid({ ...over, [input]: good + injection }), input, /line break/]
    }),
    ['base-url with a tab (which URL parsing would drop)', withValid({ 'base-url': 'https://api.discord\t.place' }), 'base-url', /control/],
    ['commands-file with a NUL', withValid({ 'command-count': '', 'commands-file': 'a\u0000b.json' }), 'commands-file', /control/],
    [
      'commands-file with an escape sequence',
      withValid({ 'command-count': '', 'commands-file': '\u001b[31mred.json' }),
      'commands-file',
      /control/
    ]
  ]

  describe.each([
    ['control characters', controlCharacters],
    ['bot-id', botIds],
    ['counts', counts],
    ['a missing count', noCount],
    ['api-key', apiKeys],
    ['base-url', baseUrls],
    ['mode', modes],
    ['booleans', booleans],
    ['count sources', sources],
    ['inputs of the other mode', otherMode],
    ['vote-check inputs', userIds]
  ])('%s', (_group, table) => {
    it.each(table)('%s', (_label, withBlock, input, problem) => {
      const { error } = refuse(withBlock)
      const secrets = [KEY, withBlock['api-key'], withBlock['discord-token']].filter((s): s is string => s !== undefined && s.length > 0)
      expectRefusal(error, input, secrets)
      expect(error.message).toMatch(problem)
    })
  })

  it('an api-key refusal never shows the key or any part of it', () => {
    const key = 'dp_first-half second_half\tthird_part'
    const { error } = refuse(withValid({ 'api-key': key }))
    expectRefusal(error, 'api-key', [key, 'dp_first-half', 'second_half', 'third_part'])
  })
})

describe('parseSettings masks the secrets before validating anything', () => {
  it('masks the key when another input is refused', () => {
    const { error, masked } = refuse(withValid({ 'bot-id': 'not-an-id' }))
    expectRefusal(error, 'bot-id')
    expect(masked).toContain(KEY)
  })

  it.each([
    ['mode', { mode: 'nope' }],
    ['dry-run', { 'dry-run': 'maybe' }],
    ['base-url', { 'base-url': 'http://example.com' }],
    ['command-count', { 'command-count': '12.5' }]
  ])('masks the key when %s is the first bad input', (_input, over) => {
    const { masked } = refuse(withValid(over))
    expect(masked).toContain(KEY)
  })

  it('masks the discord-token and github-token even when another input is refused', () => {
    const token = 'MTIzNDU2Nzg5.GhIjKl.discord-token-value'
    const { error, masked } = refuse(withValid({ 'discord-token': token, 'github-token': 'ghs_0123456789abcdef', mode: 'nope' }))
    expectRefusal(error, 'mode', [KEY, token, 'ghs_0123456789abcdef'])
    expect(masked).toContain('ghs_0123456789abcdef')
    expect(masked).toContain(token)
    expect(masked).toContain(KEY)
  })

  it.each([
    ['a space', 'dp_first-half second_half'],
    ['a tab', 'dp_first-half\tsecond_half']
  ])('masks a key with %s as a whole, not word by word', (_label, key) => {
    const { error, masked } = refuse(withValid({ 'api-key': key }))
    expectRefusal(error, 'api-key', [key, 'dp_first-half', 'second_half'])
    expect(masked).toEqual([key])
  })

  it.each([
    ['a newline', 'dp_first-half\nsecond_half'],
    ['a CR LF', 'dp_first-half\r\nsecond_half']
  ])('masks a key with %s as a whole and each line, as the runner masks line by line', (_label, key) => {
    const { error, masked } = refuse(withValid({ 'api-key': key }))
    expectRefusal(error, 'api-key', [key, 'dp_first-half', 'second_half'])
    expect(masked).toEqual([key, 'dp_first-half', 'second_half'])
  })

  it.each([
    ['Bot ', 'Bot MTIzNDU2Nzg5.GhIjKl.discord-token-value'],
    ['bot ', 'bot MTIzNDU2Nzg5.GhIjKl.discord-token-value'],
    ['Bearer ', 'Bearer MTIzNDU2Nzg5.GhIjKl.discord-token-value']
  ])('masks a discord-token written with %s with and without the word, never the word itself', (_label, token) => {
    const { error, masked } = refuse(withValid({ 'discord-token': token }))
    expectRefusal(error, 'discord-token', [token, 'MTIzNDU2Nzg5.GhIjKl.discord-token-value'])
    expect(masked).toEqual(expect.arrayContaining([token, 'MTIzNDU2Nzg5.GhIjKl.discord-token-value']))
    expect(
      masked.filter(m => /^(bot|bearer)$/i.test(m.trim())),
      'no mask for a common word'
    ).toEqual([])
    expect(masked.every(m => m.length >= 8)).toBe(true)
  })

  it('masks a proxy password and user:password pair, as written and decoded, from every proxy variable', () => {
    const map = inputs(VALID)
    const masked: string[] = []
    parseSettings(
      name => map.get(name) ?? '',
      secret => maskSecret(secret, part => masked.push(part)),
      { HTTPS_PROXY: 'http://proxyuser:p%40ss%3Aw0rd-secret@proxy.example:3128', http_proxy: 'http://other:plain-pass-2@p:1' }
    )
    expect(masked).toEqual(
      expect.arrayContaining(['p%40ss%3Aw0rd-secret', 'p@ss:w0rd-secret', 'proxyuser:p@ss:w0rd-secret', 'plain-pass-2'])
    )
    expect(masked, 'a user name alone is no secret, and a common word').not.toContain('proxyuser')
  })

  it('masks a valid key', () => {
    const { masked } = parse(VALID)
    expect(masked).toEqual([KEY])
  })

  it('masks nothing when no secret is given', () => {
    const { masked } = parse({ 'bot-id': BOT, 'dry-run': 'true', 'server-count': '5' })
    expect(masked).toEqual([])
  })
})

describe('parseSettings accepts', () => {
  it('the minimal stats inputs with the action defaults', () => {
    const { settings } = parse(VALID)
    expect(settings).toEqual({
      mode: 'stats',
      botId: BOT,
      apiKey: KEY,
      commandCount: 12,
      serverCount: undefined,
      commandsFile: undefined,
      countSubcommands: false,
      discordToken: undefined,
      discordApiUrl: '',
      github: {
        token: undefined,
        workspace: process.cwd(),
        repository: undefined,
        sha: undefined,
        apiUrl: 'https://api.github.com',
        inReusableWorkflow: false
      },
      baseUrl: 'https://api.discord.place',
      dryRun: false,
      cooldownCheck: true,
      requestTimeoutMs: 30_000,
      timeoutMs: 900_000,
      notes: []
    })
  })

  it('a commands-file resolved against the workspace, with the repository context and GitHub Enterprise Server API', () => {
    const map = inputs({ 'bot-id': BOT, 'api-key': KEY, 'commands-file': 'build/commands.json', 'github-token': 'ghs_x' })
    const env = {
      GITHUB_WORKSPACE: '/home/runner/work/bot/bot',
      GITHUB_REPOSITORY: 'example/bot',
      GITHUB_SHA: 'abc123',
      GITHUB_API_URL: 'https://ghes.example/api/v3'
    }
    const settings = parseSettings(
      name => (map.get(name) ?? '').trim(),
      () => {},
      env
    ) as Either
    expect(settings.commandsFile).toEqual({ given: 'build/commands.json', path: '/home/runner/work/bot/bot/build/commands.json' })
    expect(settings.github).toEqual({
      token: 'ghs_x',
      workspace: '/home/runner/work/bot/bot',
      repository: 'example/bot',
      sha: 'abc123',
      apiUrl: 'https://ghes.example/api/v3',
      inReusableWorkflow: false
    })
    expect(settings.commandCount).toBeUndefined()
  })

  it('cuts a request-timeout longer than timeout to timeout, and says so', () => {
    const { settings } = parse({ ...VALID, timeout: '10' })
    expect(settings.requestTimeoutMs).toBe(10_000)
    expect(settings.notes).toEqual([expect.stringMatching(/^request-timeout \(30 s\) is longer than timeout \(10 s\)/)])
    expect(parse(VALID).settings.notes).toEqual([])
  })

  it('takes an unexpanded ${{ github.token }} (as local runners pass the default) as no token, and masks none of its words', () => {
    const { settings, masked } = parse({
      'bot-id': BOT,
      'api-key': KEY,
      'commands-file': 'c.json',
      'github-token': '${{ github.token }}'
    })
    expect(settings.github?.token).toBeUndefined()
    expect(masked).toEqual([KEY])
  })

  it('a discord-token as the only source, with a loopback discord-api-url', () => {
    const settings = parse({
      'bot-id': BOT,
      'api-key': KEY,
      'discord-token': 'MTIz.abc.def',
      'discord-api-url': 'http://127.0.0.1:9/api/v10/'
    }).settings
    expect(settings.discordToken).toBe('MTIz.abc.def')
    expect(settings.discordApiUrl).toBe('http://127.0.0.1:9/api/v10')
  })

  it('count-subcommands with a commands-file', () => {
    expect(parse({ 'bot-id': BOT, 'api-key': KEY, 'commands-file': 'c.json', 'count-subcommands': 'true' }).settings.countSubcommands).toBe(
      true
    )
  })

  it.each([
    ['17 digits', '12345678901234567'],
    ['18 digits', BOT],
    ['20 digits', '12345678901234567890'],
    ['surrounded by whitespace (trimmed by the reader)', `  ${BOT}\n`]
  ])('a bot-id of %s', (_label, raw) => {
    expect(parse(withValid({ 'bot-id': raw })).settings.botId).toBe(raw.trim())
  })

  it.each([
    ['command-count', '0', 0],
    ['command-count', '1000', 1000],
    ['server-count', '0', 0],
    ['server-count', '1260', 1260],
    ['server-count', '10000000', 10_000_000]
  ])('%s %s as the integer %d', (input, raw, value) => {
    const { settings } = parse({ 'bot-id': BOT, 'api-key': KEY, [input]: raw })
    const got = input === 'command-count' ? settings.commandCount : settings.serverCount
    expect(got).toBe(value)
    expect(Number.isInteger(got)).toBe(true)
  })

  it('both counts at once', () => {
    const { settings } = parse(withValid({ 'command-count': '14', 'server-count': '1260' }))
    expect([settings.commandCount, settings.serverCount]).toEqual([14, 1260])
  })

  it.each([
    ['the default', 'https://api.discord.place', 'https://api.discord.place'],
    ['a trailing slash', 'https://api.discord.place/', 'https://api.discord.place'],
    ['a path prefix with a trailing slash', 'https://x.example/api/', 'https://x.example/api'],
    ['a deeper path prefix', 'https://x.example/a/b', 'https://x.example/a/b'],
    ['an https port', 'https://x.example:8443/api', 'https://x.example:8443/api'],
    ['http to 127.0.0.1 with a port', 'http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http to another 127/8 address', 'http://127.1.2.3:9', 'http://127.1.2.3:9'],
    ['http to localhost', 'http://localhost', 'http://localhost'],
    ['http to localhost with a path', 'http://localhost:3000/v1/', 'http://localhost:3000/v1'],
    ['http to [::1]', 'http://[::1]:9', 'http://[::1]:9']
  ])('a base-url with %s', (_label, raw, normalized) => {
    expect(parse(withValid({ 'base-url': raw })).settings.baseUrl).toBe(normalized)
  })

  it.each([
    ['true', true],
    ['True', true],
    ['TRUE', true],
    ['false', false],
    ['False', false],
    ['FALSE', false]
  ])('the boolean %s', (raw, value) => {
    expect(parse(withValid({ 'dry-run': raw })).settings.dryRun).toBe(value)
    expect(parse(withValid({ 'cooldown-check': raw })).settings.cooldownCheck).toBe(value)
  })

  it.each(['false', 'False', 'FALSE'])('count-subcommands and fail-if-not-voted set to %s', raw => {
    expect(() => parse(withValid({ 'count-subcommands': raw, 'fail-if-not-voted': raw }))).not.toThrow()
  })

  it.each(['true', 'True', 'TRUE'])('a dry run (%s) without an api-key', raw => {
    const { settings, masked } = parse({ 'bot-id': BOT, 'dry-run': raw, 'server-count': '1260' })
    expect(settings.dryRun).toBe(true)
    expect(settings.apiKey).toBeUndefined()
    expect(masked).toEqual([])
  })

  it('a dry run with an api-key keeps the key', () => {
    const { settings } = parse(withValid({ 'dry-run': 'true' }))
    expect(settings.apiKey).toBe(KEY)
  })

  it('a key made of any printable ASCII characters but quotes, = and white space', () => {
    const key = '!#$%&()*+,-./09:;<>?@AZ[\\]^_az{|}~'
    expect(parse(withValid({ 'api-key': key })).settings.apiKey).toBe(key)
  })
})

describe('the settings returned', () => {
  it('are frozen', () => {
    const { settings } = parse(VALID)
    expect(Object.isFrozen(settings)).toBe(true)
    expect(() => {
      ;(settings as { botId: string }).botId = '999999999999999999'
    }).toThrow(TypeError)
    expect(settings.botId).toBe(BOT)
  })
})

describe('readSettings through @actions/core', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.restoreAllMocks()
  })

  function stubInputs(withBlock: Record<string, string>): void {
    for (const [name, value] of inputs(withBlock)) vi.stubEnv(`INPUT_${name.toUpperCase()}`, value)
  }

  it('trims the inputs and masks the key with ::add-mask:: before anything else is written', () => {
    const written: string[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    stubInputs({ 'bot-id': `  ${BOT}  `, 'api-key': ` ${KEY}\n`, 'server-count': ' 1260 ' })
    const settings = readSettings() as Either
    expect(settings.botId).toBe(BOT)
    expect(settings.apiKey).toBe(KEY)
    expect(settings.serverCount).toBe(1260)
    expect(written[0]).toContain(`::add-mask::${KEY}`)
  })

  it('masks the key even when an input is refused', () => {
    const written: string[] = []
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    stubInputs({ 'bot-id': '42', 'api-key': KEY, 'server-count': '1260' })
    expect(() => readSettings()).toThrow(/'bot-id'/)
    expect(written.join('')).toContain(`::add-mask::${KEY}`)
  })
})

describe('parseSettings in vote-check mode', () => {
  it.each([
    ['one user', '987654321098765432', ['987654321098765432']],
    ['commas', '987654321098765432,887654321098765432', ['987654321098765432', '887654321098765432']],
    [
      'commas and spaces',
      '987654321098765432, 887654321098765432  787654321098765432',
      ['987654321098765432', '887654321098765432', '787654321098765432']
    ],
    ['newlines, as a YAML block gives them', '987654321098765432\n887654321098765432\n', ['987654321098765432', '887654321098765432']],
    [
      'duplicates, dropped in order',
      '987654321098765432,887654321098765432,987654321098765432',
      ['987654321098765432', '887654321098765432']
    ]
  ])('reads user-id with %s', (_label, raw, expected) => {
    expect(parse({ ...VOTE, 'user-id': raw }).settings.userIds).toEqual(expected)
  })

  it('takes fail-if-not-voted and rate-limit-wait (default 600 s)', () => {
    expect(parse({ ...VOTE, 'fail-if-not-voted': 'true' }).settings).toMatchObject({
      mode: 'vote-check',
      failIfNotVoted: true,
      rateLimitWaitMs: 600_000
    })
    expect(parse({ ...VOTE, 'rate-limit-wait': '0' }).settings.rateLimitWaitMs).toBe(0)
  })

  it('needs no count, and holds only what vote-check uses', () => {
    const { settings } = parse(VOTE)
    expect(Object.keys(settings).sort()).toEqual(
      [
        'apiKey',
        'baseUrl',
        'botId',
        'dryRun',
        'failIfNotVoted',
        'mode',
        'notes',
        'rateLimitWaitMs',
        'requestTimeoutMs',
        'timeoutMs',
        'userIds'
      ].sort()
    )
  })
})

// ---------------------------------------------------------------------------------------
// Credentials that belong elsewhere (interface.md, "The key's guardian"): refused before any
// request, naming the input and the likely mix-up, never showing the value.
// ---------------------------------------------------------------------------------------

describe('credentials that belong elsewhere', () => {
  /** A Discord bot token's shape: the bot's ID in base64url, a timestamp part, an HMAC part. */
  const tokenOf = (id: string): string => `${Buffer.from(id).toString('base64url')}.GpRxYz.Wd3kV9qB6mT1xH4zN7sF_42abcdefghijk`
  const OWN_TOKEN = tokenOf(BOT)
  const OTHER_TOKEN = tokenOf('223456789012345678')
  const PLACE_KEY = 'a3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6'

  it("api-key holding this bot's Discord token (secrets swapped): refused, names the mix-up, masks it", () => {
    const { error, masked } = refuse(withValid({ 'api-key': OWN_TOKEN }))
    expectRefusal(error, 'api-key', [OWN_TOKEN])
    expect(error.message).toMatch(/looks like a Discord bot token .*not a discord\.place API key, so nothing was sent/)
    expect(error.message).toMatch(/secrets are probably swapped/)
    expect(masked).toContain(OWN_TOKEN)
  })

  it("api-key holding another bot's Discord token is refused too, in both modes", () => {
    expectRefusal(refuse(withValid({ 'api-key': OTHER_TOKEN })).error, 'api-key', [OTHER_TOKEN])
    expectRefusal(refuse({ ...VOTE, 'api-key': OTHER_TOKEN }).error, 'api-key', [OTHER_TOKEN])
  })

  it('api-key equal to discord-token: refused as the same secret', () => {
    const same = 'dp_same-secret-in-both-0123456789'
    const { error } = refuse(withValid({ 'api-key': same, 'discord-token': same }))
    expectRefusal(error, 'api-key', [same])
    expect(error.message).toMatch(/is the same secret as discord-token/)
  })

  it('api-key equal to github-token: refused as the same secret, in both modes', () => {
    const token = 'ghs_0123456789abcdefABCDEF'
    for (const block of [withValid({ 'api-key': token, 'github-token': token }), { ...VOTE, 'api-key': token, 'github-token': token }]) {
      const { error } = refuse(block)
      expectRefusal(error, 'api-key', [token])
      expect(error.message).toMatch(/is the same secret as github-token/)
    }
  })

  it("discord-token of another bot: refused, since its counts are not this bot's; the decoded ID is not shown", () => {
    const { error, masked } = refuse(withValid({ 'discord-token': OTHER_TOKEN }))
    expectRefusal(error, 'discord-token', [OTHER_TOKEN, '223456789012345678', OTHER_TOKEN.split('.')[0]!])
    expect(error.message).toMatch(/is the token of another bot/)
    expect(masked).toContain(OTHER_TOKEN)
  })

  it('discord-token of this bot is taken; one whose first part names no ID (an older or test token) is taken too', () => {
    expect(parse(withValid({ 'discord-token': OWN_TOKEN })).settings.discordToken).toBe(OWN_TOKEN)
    expect(parse(withValid({ 'discord-token': 'not-an-id.GpRxYz.abc' })).settings.discordToken).toBe('not-an-id.GpRxYz.abc')
  })

  it.each([PLACE_KEY, PLACE_KEY.toUpperCase()])(
    'discord-token shaped like a discord.place key (%s): refused, never sent to Discord',
    key => {
      const { error, masked } = refuse(withValid({ 'discord-token': key }))
      expectRefusal(error, 'discord-token', [key])
      expect(error.message).toMatch(/looks like a discord\.place API key \(64 hexadecimal digits\).*not sent to Discord/)
      expect(masked).toContain(key)
    }
  )

  it('a discord.place key as api-key and the own token as discord-token: taken', () => {
    const { settings } = parse(withValid({ 'api-key': PLACE_KEY, 'discord-token': OWN_TOKEN }))
    expect(settings).toMatchObject({ apiKey: PLACE_KEY, discordToken: OWN_TOKEN })
  })

  // interface.md, "What people paste, what files say": the checks read the value as pasted, then
  // anything around a secret is refused. The words are pinned in "every refusal, word for word".
  it.each<[label: string, block: Record<string, string>, input: string, mixUp: RegExp | undefined, around: RegExp]>([
    [
      'the Discord token in double quotes as api-key',
      { 'api-key': `"${OWN_TOKEN}"` },
      'api-key',
      /looks like a Discord bot token/,
      /quotes around it/
    ],
    [
      'the Discord token in single quotes as api-key',
      { 'api-key': `'${OWN_TOKEN}'` },
      'api-key',
      /looks like a Discord bot token/,
      /quotes around it/
    ],
    [
      'a whole .env line as api-key',
      { 'api-key': `DISCORD_TOKEN=${OWN_TOKEN}` },
      'api-key',
      /looks like a Discord bot token/,
      /variable name and "=" in front/
    ],
    [
      'an exported, quoted .env line as api-key',
      { 'api-key': `export DISCORD_TOKEN="${OWN_TOKEN}"` },
      'api-key',
      /looks like a Discord bot token/,
      /variable name .* and quotes/
    ],
    [
      'the key quoted in discord-token',
      { 'discord-token': `"${PLACE_KEY}"` },
      'discord-token',
      /looks like a discord\.place API key/,
      /quotes around it/
    ],
    [
      'a .env line of the key in discord-token',
      { 'discord-token': `DISCORD_PLACE_API_KEY=${PLACE_KEY}` },
      'discord-token',
      /looks like a discord\.place API key/,
      /variable name/
    ],
    [
      "another bot's token quoted in discord-token",
      { 'discord-token': `'${OTHER_TOKEN}'` },
      'discord-token',
      /token of another bot/,
      /quotes around it/
    ],
    [
      'the same secret, one of them quoted',
      { 'api-key': `"${PLACE_KEY}"`, 'discord-token': PLACE_KEY },
      'api-key',
      /same secret as discord-token/,
      /quotes around it/
    ],
    ['the key in quotes', { 'api-key': `"${PLACE_KEY}"` }, 'api-key', undefined, /\(quotes around it\)/],
    [
      'the key as a .env line',
      { 'api-key': `DISCORD_PLACE_API_KEY=${PLACE_KEY}` },
      'api-key',
      undefined,
      /\(a variable name and "=" in front\)/
    ],
    ['the key with a scheme word', { 'api-key': `Bearer ${PLACE_KEY}` }, 'api-key', undefined, /\(the word "Bearer" in front\)/],
    ['the key with an = inside', { 'api-key': `${PLACE_KEY}=` }, 'api-key', undefined, /\("=" inside it\)/],
    ['the own token in quotes', { 'discord-token': `"${OWN_TOKEN}"` }, 'discord-token', undefined, /\(quotes around it\)/],
    [
      'the own token as a .env line',
      { 'discord-token': `DISCORD_TOKEN=${OWN_TOKEN}` },
      'discord-token',
      undefined,
      /\(a variable name and "=" in front\)/
    ],
    ['a GitHub token in quotes', { 'github-token': '"ghs_0123456789abcdefABCDEF"' }, 'github-token', undefined, /\(quotes around it\)/]
  ])('%s: refused before any request, naming the input and what to remove, never the value', (_label, block, input, mixUp, around) => {
    for (const inputs of [withValid(block), ...('discord-token' in block ? [] : [{ ...VOTE, ...block }])]) {
      const { error, masked } = refuse(inputs)
      const secret = block[input]!
      const inner = secret
        .replace(/^(export )?[A-Z_]+=/, '')
        .replace(/^["']|["']$/g, '')
        .replace(/^Bearer /, '')
      expectRefusal(error, input, [secret, inner])
      if (mixUp !== undefined) expect(error.message).toMatch(mixUp)
      expect(error.message).toMatch(around)
      expect(masked).toEqual(expect.arrayContaining([secret, inner]))
    }
  })
})

// ---------------------------------------------------------------------------------------
// What a user reads when an input is refused: the whole message, word for word (the input, the
// problem, the fix), and the summary's headline naming the input and the bot once it is known.
// ---------------------------------------------------------------------------------------

describe('every refusal, word for word', () => {
  const URL_FIX = 'Use https://api.discord.place (the default) or the https address of a compatible service.'
  const KEY_FIX = "Pass the bot's API key from its manage page on discord.place, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }}."
  const HEADER_SAFE = 'contains whitespace, a control character or a non-ASCII character'
  const ownToken = `${Buffer.from(BOT).toString('base64url')}.GpRxYz.Wd3kV9qB6mT1xH4zN7sF_42abcdefghijk`
  const otherToken = `${Buffer.from('223456789012345678').toString('base64url')}.GpRxYz.Wd3kV9qB6mT1xH4zN7sF_42abcdefghijk`
  const placeKey = 'a3f1c9e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6'
  const TOO_MANY = Array.from({ length: 1001 }, (_, i) => String(100000000000000000n + BigInt(i))).join(',')

  it.each<[label: string, withBlock: Record<string, string>, message: string]>([
    [
      'a line break inside a value',
      withValid({ timeout: '9\n00' }),
      "Input 'timeout' contains a line break or another control character (at character 2). Give the value on one line, without control characters; in YAML, quote it or use a plain scalar."
    ],
    [
      'bot-id empty',
      withValid({ 'bot-id': '' }),
      "Input 'bot-id' is empty. Set it to the bot's Discord ID, 17 to 20 digits (Developer Portal, Application ID)."
    ],
    [
      'bot-id rounded by YAML',
      withValid({ 'bot-id': '1.2345678901234568E+17' }),
      "Input 'bot-id' looks like a number that YAML rounded (\"1.2345678901234568E+17\"). YAML read this as a number: put the ID in quotes, for example bot-id: '123456789012345678'."
    ],
    [
      'bot-id with a letter',
      withValid({ 'bot-id': 'a123456789012345678' }),
      "Input 'bot-id' must be a Discord ID of 17 to 20 digits, got \"a123456789012345678\". Copy the bot's Application ID from the Discord Developer Portal or from its page on discord.place."
    ],
    [
      'mode unknown',
      withValid({ mode: 'update' }),
      'Input \'mode\' must be "stats" or "vote-check", got "update". Use mode: stats to update the counts, or mode: vote-check to check votes.'
    ],
    [
      'dry-run not a boolean',
      withValid({ 'dry-run': 'yes' }),
      'Input \'dry-run\' must be true or false, got "yes". Write dry-run: true or dry-run: false.'
    ],
    ['base-url empty', withValid({ 'base-url': '' }), `Input 'base-url' is empty. ${URL_FIX}`],
    [
      'base-url not absolute',
      withValid({ 'base-url': 'api.discord.place' }),
      `Input 'base-url' is not an absolute URL: "api.discord.place". ${URL_FIX}`
    ],
    [
      'base-url with a user and password',
      withValid({ 'base-url': 'https://user:pass@api.example.com' }),
      `Input 'base-url' contains a user name or password. Remove them; the secret is sent in a header. ${URL_FIX}`
    ],
    [
      'base-url with a password alone',
      withValid({ 'base-url': 'https://:pass@api.example.com' }),
      `Input 'base-url' contains a user name or password. Remove them; the secret is sent in a header. ${URL_FIX}`
    ],
    ['base-url ftp:', withValid({ 'base-url': 'ftp://files.example.com' }), `Input 'base-url' uses "ftp:", not https. ${URL_FIX}`],
    [
      'base-url over plain http to a remote host',
      withValid({ 'base-url': 'http://api.discord.place:8080' }),
      "Input 'base-url' uses plain http to api.discord.place:8080, which would send a secret unencrypted. Use https, or a loopback host (127.0.0.1, localhost or [::1]) for a local test server."
    ],
    [
      'base-url with a query',
      withValid({ 'base-url': 'https://api.example.com/?x=1' }),
      "Input 'base-url' has a query or fragment. Give only the scheme, host and optional path prefix."
    ],
    [
      'api-key empty',
      withValid({ 'api-key': '' }),
      "Input 'api-key' is empty. Pass the bot's API key from a repository secret, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }} (create the key on the bot's manage page on discord.place). Secrets are not given to workflows run from forks."
    ],
    [
      'api-key with a space',
      withValid({ 'api-key': 'dp_K3y 0f-Th3-B0t' }),
      "Input 'api-key' holds more than the secret (white space inside it), so nothing was sent. Store only the key in the secret, as the bot's manage page on discord.place shows it; the action sends it as it is."
    ],
    [
      'api-key starting with a non-ASCII character',
      withValid({ 'api-key': 'é_K3y-0f-Th3-B0t' }),
      `Input 'api-key' ${HEADER_SAFE} (at character 1). Copy the key again from the bot's manage page on discord.place and store it in the secret as a single line.`
    ],
    [
      "api-key holding the bot's Discord token",
      withValid({ 'api-key': ownToken }),
      "Input 'api-key' looks like a Discord bot token (three dot-separated parts, the first naming a bot ID), not a discord.place API key, so nothing was sent. " +
        `The secrets are probably swapped, or the wrong secret is named. ${KEY_FIX} The Discord token goes in discord-token.`
    ],
    [
      'api-key the same as discord-token',
      withValid({ 'api-key': 'dp_same-secret-in-both', 'discord-token': 'dp_same-secret-in-both' }),
      `Input 'api-key' is the same secret as discord-token, so nothing was sent. One of the two names the wrong secret. ${KEY_FIX} discord-token takes the bot's Discord token.`
    ],
    [
      'api-key the same as github-token',
      withValid({ 'api-key': 'ghs_0123456789abcdef', 'github-token': 'ghs_0123456789abcdef' }),
      `Input 'api-key' is the same secret as github-token (GitHub's token for the job), so nothing was sent. ${KEY_FIX}`
    ],
    [
      'timeout 0',
      withValid({ timeout: '0' }),
      'Input \'timeout\' must be a whole number of seconds from 1 to 21600, got "0". Write it like 900.'
    ],
    [
      'request-timeout above 6 hours',
      withValid({ 'request-timeout': '21601' }),
      'Input \'request-timeout\' must be a whole number of seconds from 1 to 21600, got "21601". Write it like 30.'
    ],
    [
      'user-id in stats mode',
      withValid({ 'user-id': '987654321098765432' }),
      "Input 'user-id' is set, but it belongs to mode: vote-check. Remove it, or set mode: vote-check."
    ],
    [
      'server-count in vote-check mode',
      { ...VOTE, 'server-count': '5' },
      "Input 'server-count' is set, but it belongs to mode: stats. Remove it, or set mode: stats."
    ],
    [
      'count-subcommands in vote-check mode',
      { ...VOTE, 'count-subcommands': 'TRUE' },
      "Input 'count-subcommands' is set, but it belongs to mode: stats. Remove it, or set mode: stats."
    ],
    [
      'commands-file with command-count',
      withValid({ 'commands-file': 'commands.json' }),
      "Input 'commands-file' cannot be combined with 'command-count': both give the command count. Keep one of them: commands-file to count the manifest, or command-count to send a fixed number."
    ],
    [
      'discord-token with the "Bot " prefix',
      withValid({ 'discord-token': 'Bot MTIz.abc.def' }),
      'Input \'discord-token\' holds more than the secret (the word "Bot" in front), so nothing was sent. Store only the token in the secret, as the Bot page of the Discord Developer Portal shows it; the action adds the "Bot " prefix.'
    ],
    [
      'discord-token holding a whole Authorization header',
      withValid({ 'discord-token': 'Authorization: Bot MTIz.abc.def' }),
      'Input \'discord-token\' holds more than the secret (white space inside it), so nothing was sent. Store only the token in the secret, as the Bot page of the Discord Developer Portal shows it; the action adds the "Bot " prefix.'
    ],
    [
      'discord-token shaped like a discord.place key',
      withValid({ 'discord-token': placeKey }),
      "Input 'discord-token' looks like a discord.place API key (64 hexadecimal digits), not a Discord bot token, so it was not sent to Discord. " +
        'The secrets are probably swapped: pass the discord.place key as api-key, and the bot token from the Discord Developer Portal (Bot page) as discord-token.'
    ],
    [
      'discord-token of another bot',
      withValid({ 'discord-token': otherToken }),
      "Input 'discord-token' is the token of another bot: its first part names a bot ID other than bot-id, so the counts Discord gives for it are not this bot's. " +
        "Pass this bot's own token (Developer Portal, the bot's application, Bot page), or check bot-id."
    ],
    [
      'discord-api-url empty',
      withValid({ 'discord-token': ownToken, 'discord-api-url': '' }),
      "Input 'discord-api-url' is empty. Use https://discord.com/api/v10 (the default) or the https address of a compatible service."
    ],
    [
      'count-subcommands without a source to count',
      withValid({ 'count-subcommands': 'true' }),
      "Input 'count-subcommands' is true, but it only applies to counts read from commands-file or discord-token. Set commands-file or discord-token, or remove count-subcommands."
    ],
    [
      'github-token with a space',
      withValid({ 'github-token': 'ghs_a b' }),
      "Input 'github-token' holds more than the secret (white space inside it), so nothing was sent. Pass only the token, for example the default ${{ github.token }}."
    ],
    [
      'command-count not in plain digits',
      withValid({ 'command-count': '12.5' }),
      'Input \'command-count\' must be a whole number from 0 to 1000 written in plain digits, got "12.5". Write it like 42: no sign, decimal point, exponent, hex prefix or thousands separator.'
    ],
    [
      'command-count above the maximum',
      withValid({ 'command-count': '1001' }),
      "Input 'command-count' is \"1001\", above the service's maximum of 1000. Send a whole number from 0 to 1000."
    ],
    [
      'server-count above the maximum',
      withValid({ 'server-count': '10000001' }),
      "Input 'server-count' is \"10000001\", above the service's maximum of 10000000. Send a whole number from 0 to 10000000."
    ],
    [
      'user-id empty',
      { ...VOTE, 'user-id': '' },
      "Input 'user-id' is empty, and mode: vote-check needs at least one user. Set user-id to one or more Discord user IDs, separated by commas, spaces or newlines."
    ],
    [
      'a user-id that is not an ID',
      { ...VOTE, 'user-id': '987654321098765432, @someone' },
      'Input \'user-id\' has "@someone" (entry 2), which is not a Discord user ID of 17 to 20 digits. Give user IDs (Developer Mode in Discord, then Copy User ID), separated by commas, spaces or newlines.'
    ],
    [
      'more users than one run checks',
      { ...VOTE, 'user-id': TOO_MANY },
      "Input 'user-id' lists 1001 users, more than the 1000 one run checks. Split the users over several steps or runs."
    ],
    [
      'rate-limit-wait not in plain digits',
      { ...VOTE, 'rate-limit-wait': '5m' },
      'Input \'rate-limit-wait\' must be a whole number from 0 to 3600 written in plain digits, got "5m". Write it like 42: no sign, decimal point, exponent, hex prefix or thousands separator.'
    ],
    [
      'rate-limit-wait above an hour',
      { ...VOTE, 'rate-limit-wait': '3601' },
      "Input 'rate-limit-wait' is \"3601\", above the action's maximum of 3600. Send a whole number from 0 to 3600."
    ]
  ])('%s', (_label, withBlock, message) => {
    const { error } = refuse(withBlock)
    expect(error.message).toBe(message)
    const input = /^Input '([^']+)'/.exec(message)![1]!
    expect(error.headline).toBe(`bad input '${input}'`)
    // The headline names the bot once its ID was read: every input but bot-id itself comes after it.
    expect(error.botId).toBe(input === 'bot-id' ? undefined : BOT)
  })

  it('no count at all: says which inputs give one, with an example; the headline says there is no count to send', () => {
    const { error } = refuse(withValid({ 'command-count': '' }))
    expect(error.message).toBe(
      "Inputs 'command-count', 'server-count', 'commands-file' and 'discord-token' are all empty, so there is no count to send. " +
        'Set at least one of them, for example command-count: 42.'
    )
    expect(error.headline).toBe('no count to send')
    expect(error.botId).toBe(BOT)
  })

  it.each([
    ['40 characters, quoted whole', 'x'.repeat(40), `"${'x'.repeat(40)}"`],
    ['41 characters, cut at 40', 'x'.repeat(41), `"${'x'.repeat(40)}…"`]
  ])('a value of %s', (_label, raw, quoted) => {
    expect(refuse(withValid({ mode: raw })).error.message).toBe(
      `Input 'mode' must be "stats" or "vote-check", got ${quoted}. Use mode: stats to update the counts, or mode: vote-check to check votes.`
    )
  })
})

describe('the bounds of each input', () => {
  it.each([
    ['1', 1_000],
    ['21600', 21_600_000]
  ])('a timeout and a request-timeout of %s s are taken', (raw, ms) => {
    const { settings } = parse(withValid({ timeout: raw, 'request-timeout': raw }))
    expect([settings.timeoutMs, settings.requestTimeoutMs]).toEqual([ms, ms])
    expect(settings.notes, 'a request-timeout equal to timeout is no note').toEqual([])
  })

  it.each(['0', '21601', '1.5', '1e3', '0x10', '-5', '+5', '5s', 's5'])('a timeout or request-timeout of %s is refused', raw => {
    for (const input of ['timeout', 'request-timeout']) {
      expect(refuse(withValid({ [input]: raw })).error.message).toMatch(
        new RegExp(`^Input '${input}' must be a whole number of seconds from 1 to 21600`)
      )
    }
  })

  it('a request-timeout above timeout is cut to it, and the note says so in full', () => {
    const { settings } = parse(withValid({ timeout: '10', 'request-timeout': '11' }))
    expect(settings.requestTimeoutMs).toBe(10_000)
    expect(settings.notes).toEqual([
      'request-timeout (11 s) is longer than timeout (10 s), so each request may take at most 10 s, the time the whole step may take.'
    ])
  })

  it.each([
    ['with a letter before', 'a123456789012345678'],
    ['with a letter after', '123456789012345678a'],
    ['of 16 digits', '1234567890123456'],
    ['of 21 digits', '123456789012345678901']
  ])('a bot-id or user-id %s is refused', (_label, id) => {
    expect(refuse(withValid({ 'bot-id': id })).error.message).toMatch(/^Input 'bot-id' must be a Discord ID of 17 to 20 digits/)
    expect(refuse({ ...VOTE, 'user-id': id }).error.message).toMatch(
      /^Input 'user-id' has ".*" \(entry 1\), which is not a Discord user ID/
    )
  })

  it.each(['12345678901234567', '12345678901234567890'])('a user-id of %s (17 and 20 digits) is taken', id => {
    expect(parse({ ...VOTE, 'user-id': id }).settings.userIds).toEqual([id])
  })

  it('1000 users, the most one run checks, are taken', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => String(100000000000000000n + BigInt(i)))
    expect(parse({ ...VOTE, 'user-id': ids.join('\n') }).settings.userIds).toEqual(ids)
  })

  it.each([
    ['in exponent form', '1.2345678901234568E+17'],
    ['with a lower-case exponent and no plus sign', '1.2345678901234568e17'],
    ['without a decimal point', '1e+17'],
    ['with a decimal point and no exponent', '123456789012345678.0']
  ])('a bot-id that YAML read as a number (%s) is refused with the advice to quote it', (_label, raw) => {
    expect(refuse(withValid({ 'bot-id': raw })).error.message).toMatch(
      /^Input 'bot-id' looks like a number that YAML rounded .* put the ID in quotes/
    )
  })
})

describe('addresses a secret may be sent to', () => {
  it.each([
    ['http to a 127/8 address with several digits in each part', 'http://127.10.200.255:9', 'http://127.10.200.255:9'],
    ['http to localhost in capitals', 'http://LOCALHOST:3000', 'http://localhost:3000'],
    ['several trailing slashes', 'https://x.example/api//', 'https://x.example/api']
  ])('a base-url with %s', (_label, raw, normalized) => {
    expect(parse(withValid({ 'base-url': raw })).settings.baseUrl).toBe(normalized)
  })

  it.each(['http://127.0.0.1.evil.com', 'http://localhost.evil.com', 'http://[::2]'])('plain http to %s is refused', raw => {
    expect(refuse(withValid({ 'base-url': raw })).error.message).toMatch(
      /^Input 'base-url' uses plain http to .*, which would send a secret unencrypted/
    )
  })

  it('discord-api-url is not read without a discord-token, whatever it holds', () => {
    expect(parse(withValid({ 'discord-api-url': 'not a url' })).settings.discordApiUrl).toBe('')
  })
})

describe('what is and is not a token', () => {
  const ownToken = `${Buffer.from(BOT).toString('base64url')}.GpRxYz.Wd3kV9qB6mT1xH4zN7sF_42abcdefghijk`

  it.each([
    ['four dot-separated parts, a token after the first', `x.${ownToken}`],
    ['four dot-separated parts, a token before the last', `${ownToken}.x`]
  ])('an api-key of %s is a key, not a token', (_label, key) => {
    expect(parse(withValid({ 'api-key': key })).settings.apiKey).toBe(key)
  })

  it.each([
    ['a letter before the ID', `x${BOT}`],
    ['a letter after the ID', `${BOT}x`]
  ])('a discord-token whose first part decodes to %s names no bot, so it is taken', (_label, decoded) => {
    const token = `${Buffer.from(decoded).toString('base64url')}.GpRxYz.abc`
    expect(parse(withValid({ 'discord-token': token })).settings.discordToken).toBe(token)
  })

  it.each(['a'.repeat(63), 'a'.repeat(65), `g${'a'.repeat(63)}`])('a discord-token of %s is not a discord.place key', token => {
    expect(parse(withValid({ 'discord-token': token })).settings.discordToken).toBe(token)
  })

  it('count-subcommands with a discord-token as the only source', () => {
    const { settings } = parse({ 'bot-id': BOT, 'api-key': KEY, 'discord-token': ownToken, 'count-subcommands': 'true' })
    expect(settings).toMatchObject({ countSubcommands: true, discordToken: ownToken, discordApiUrl: 'https://discord.com/api/v10' })
  })

  it.each(['${{github.token}}x', 'x${{github.token}}'])('a github-token of %s is a token, not an unexpanded expression', token => {
    expect(parse(withValid({ 'github-token': token })).settings.github?.token).toBe(token)
  })
})

describe('the workflow context, from the environment', () => {
  const read = (env: Record<string, string>): Either =>
    parseSettings(
      name => inputs(VALID).get(name) ?? '',
      () => {},
      env
    ) as Either

  it('the workflow, its commit and the job (read after a strike), and the mark of the reusable workflow', () => {
    const settings = read({
      GITHUB_WORKSPACE: '/w',
      GITHUB_REPOSITORY: 'example/bot',
      GITHUB_SHA: 'abc123',
      GITHUB_API_URL: 'https://ghes.example/api/v3',
      GITHUB_WORKFLOW_REF: 'example/bot/.github/workflows/stats.yml@refs/heads/main',
      GITHUB_WORKFLOW_SHA: 'def456',
      GITHUB_JOB: 'stats',
      DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: 'true'
    })
    expect(settings.github).toEqual({
      token: undefined,
      workspace: '/w',
      repository: 'example/bot',
      sha: 'abc123',
      apiUrl: 'https://ghes.example/api/v3',
      inReusableWorkflow: true,
      workflowRef: 'example/bot/.github/workflows/stats.yml@refs/heads/main',
      workflowSha: 'def456',
      job: 'stats'
    })
    expect(Object.isFrozen(settings.github)).toBe(true)
  })

  it('variables set but empty count as unset; the reusable workflow is marked only by "true"', () => {
    const settings = read({
      GITHUB_WORKSPACE: '',
      GITHUB_REPOSITORY: '',
      GITHUB_SHA: '',
      GITHUB_API_URL: '',
      GITHUB_WORKFLOW_REF: '',
      GITHUB_WORKFLOW_SHA: '',
      GITHUB_JOB: '',
      DISCORD_PLACE_STATS_REUSABLE_WORKFLOW: '1'
    })
    expect(settings.github).toEqual({
      token: undefined,
      workspace: process.cwd(),
      repository: undefined,
      sha: undefined,
      apiUrl: 'https://api.github.com',
      inReusableWorkflow: false,
      workflowRef: undefined,
      workflowSha: undefined,
      job: undefined
    })
  })
})

describe('parseSettings and its callers', () => {
  it('never asks to mask an empty secret', () => {
    const mask = vi.fn()
    parseSettings(name => inputs({ 'bot-id': BOT, 'dry-run': 'true', 'server-count': '5', 'discord-token': '' }).get(name) ?? '', mask)
    expect(mask).not.toHaveBeenCalled()
  })

  it('passes a failure that is not a refusal (a bug in the reader) on as it is, naming no bot', () => {
    const bug = new TypeError('the reader broke')
    const map = inputs(VALID)
    const thrown = (() => {
      try {
        parseSettings(
          name => {
            if (name === 'mode') throw bug
            return map.get(name) ?? ''
          },
          () => {}
        )
      } catch (error) {
        return error
      }
      return undefined
    })()
    expect(thrown).toBe(bug)
    expect(thrown).not.toHaveProperty('botId')
  })
})
