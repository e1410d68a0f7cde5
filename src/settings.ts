import { resolve } from 'node:path'
import * as core from '@actions/core'
import { ActionError, InputError } from './errors.js'
import { proxyCredentials, registerSecret, unwrapSecret } from './secrets.js'
import { CONTROL_CHARACTER } from './text.js'
import { COMMAND_COUNT_MAX, SERVER_COUNT_MAX } from './limits.js'

interface CommonSettings {
  readonly botId: string
  /** Absent only in a dry run without a key. */
  readonly apiKey: string | undefined
  /** The service's base address without a trailing slash; may carry a path prefix. */
  readonly baseUrl: string
  readonly dryRun: boolean
  /** One request attempt: connect, send, read the whole answer. */
  readonly requestTimeoutMs: number
  /** The whole step, waits and retries included. */
  readonly timeoutMs: number
  /** What the log should say about how the inputs were taken. */
  readonly notes: readonly string[]
}

export interface StatsSettings extends CommonSettings {
  readonly mode: 'stats'
  readonly cooldownCheck: boolean
  /**
   * Hours a listing may go without an update before a passing failure of the service fails the
   * step; undefined: off.
   */
  readonly staleAfter: number | undefined
  readonly commandCount: number | undefined
  readonly serverCount: number | undefined
  /** The commands-file input as given (for messages) and resolved against the workspace. */
  readonly commandsFile: { readonly given: string; readonly path: string } | undefined
  readonly countSubcommands: boolean
  readonly discordToken: string | undefined
  /** Discord's API base address without a trailing slash; '' without a Discord token. */
  readonly discordApiUrl: string
  /** Reads a manifest from the repository when the workspace has no checkout. */
  readonly github: GitHubContext
}

export interface VoteSettings extends CommonSettings {
  readonly mode: 'vote-check'
  /** The users to check, de-duplicated. */
  readonly userIds: readonly string[]
  readonly failIfNotVoted: boolean
  /** The longest total wait for the service's rate limit. */
  readonly rateLimitWaitMs: number
}

/** Everything the run needs from its inputs: read once, validated, frozen; one shape per mode. */
export type Settings = StatsSettings | VoteSettings

export type Mode = Settings['mode']

export const DEFAULT_BASE_URL = 'https://api.discord.place'

/**
 * Set by the reusable workflow (stats.yml) on its step: inside it, GITHUB_WORKFLOW_REF names the
 * caller's workflow.
 */
export const REUSABLE_WORKFLOW_MARK = 'DISCORD_PLACE_STATS_REUSABLE_WORKFLOW'

/** Where the workflow runs: what a manifest fallback needs to read the repository. */
export interface GitHubContext {
  readonly token: string | undefined
  readonly workspace: string
  readonly repository: string | undefined
  readonly sha: string | undefined
  /** GitHub's REST API: GITHUB_API_URL, which GitHub Enterprise Server sets to its own. */
  readonly apiUrl: string
  /** In the project's reusable workflow, advice speaks to its caller. */
  readonly inReusableWorkflow: boolean
  /**
   * The workflow that ran the step (`owner/repo/path@ref`), its commit, and the job: read after a
   * strike.
   */
  readonly workflowRef?: string | undefined
  readonly workflowSha?: string | undefined
  readonly job?: string | undefined
  /**
   * The event that started the run (GITHUB_EVENT_NAME; in a reusable workflow, its caller's) and
   * the file holding its payload (GITHUB_EVENT_PATH): a scheduled run warns before GitHub disables
   * its schedule.
   */
  readonly eventName?: string | undefined
  readonly eventPath?: string | undefined
}

/** Reads one input by name, trimmed; `''` when unset. */
export type InputReader = (name: string) => string

type Env = Readonly<Record<string, string | undefined>>

/**
 * Reads and validates every input, masking the secrets first: the only caller of `core.getInput`.
 */
export function readSettings(): Settings {
  return parseSettings(core.getInput, secret => registerSecret(secret, core.setSecret), process.env)
}

/**
 * Builds Settings from raw inputs. Secrets are handed to `mask` before any validation, so that
 * no later message can print them. Throws an InputError for the first bad input.
 */
export function parseSettings(
  raw: InputReader,
  mask: (secret: string) => void,
  env: Env = {}
): Settings {
  try {
    return parseAll(raw, mask, env)
  } catch (error) {
    // The failed run's headline names the bot when its ID is valid (it is read first).
    if (error instanceof ActionError && SNOWFLAKE.test(raw('bot-id'))) error.botId ??= raw('bot-id')
    throw error
  }
}

/**
 * An empty key's fix fits the caller. A caller of the reusable workflow most often gave
 * `secrets: inherit`, which passes nothing to a workflow of another owner (a personal account's
 * repository calling this one), so its fix is to pass the secret by name.
 */
function emptyApiKey(inReusableWorkflow: boolean): InputError {
  const fix = inReusableWorkflow
    ? 'The calling workflow passes it by name: secrets: DISCORD_PLACE_API_KEY: ${{ secrets.DISCORD_PLACE_API_KEY }} ' +
      '(secrets: inherit passes nothing to a workflow of another owner).'
    : "Pass the bot's API key from a repository secret, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }} " +
      "(create the key on the bot's manage page on discord.place)."
  return new InputError(
    'api-key',
    'is empty',
    `${fix} Secrets are not given to workflows run from forks.`
  )
}

function parseAll(raw: InputReader, mask: (secret: string) => void, env: Env): Settings {
  const apiKey = raw('api-key')
  const discordToken = raw('discord-token')
  const githubToken = parseGitHubToken(raw('github-token'))
  for (const secret of [apiKey, discordToken, githubToken, ...proxyCredentials(env)])
    if (secret !== '') mask(secret)
  // Every other input is echoed in messages: none may carry a line break (`::` after one is a
  // workflow command).
  const get = oneLineInputs(raw)

  const botId = parseSnowflake('bot-id', get('bot-id'))
  const mode = parseMode(get('mode'))
  const dryRun = parseBoolean('dry-run', get('dry-run'))
  const cooldownCheck = parseBoolean('cooldown-check', get('cooldown-check'))
  const baseUrl = parseServiceUrl('base-url', get('base-url'), DEFAULT_BASE_URL)
  if (apiKey === '' && !dryRun) throw emptyApiKey(env[REUSABLE_WORKFLOW_MARK] === 'true')
  refuseMisplacedSecrets(apiKey, discordToken, githubToken, botId)
  const key = headerSafe(
    'api-key',
    apiKey,
    "Copy the key again from the bot's manage page on discord.place and store it in the secret as a single line."
  )
  const timeoutMs = seconds('timeout', get('timeout'), 900, MAX_TIMEOUT_SECONDS)
  const requestTimeoutMs = seconds(
    'request-timeout',
    get('request-timeout'),
    30,
    MAX_TIMEOUT_SECONDS
  )
  // request-timeout has a default (30 s): a workflow that sets only a short timeout is not refused
  // for it, the request time is cut to the step's, and the log says so.
  const notes: string[] = []
  if (requestTimeoutMs > timeoutMs) {
    notes.push(
      `request-timeout (${requestTimeoutMs / 1000} s) is longer than timeout (${timeoutMs / 1000} s), ` +
        `so each request may take at most ${timeoutMs / 1000} s, the time the whole step may take.`
    )
  }
  const common: CommonSettings = {
    botId,
    apiKey: key,
    baseUrl,
    dryRun,
    requestTimeoutMs: Math.min(requestTimeoutMs, timeoutMs),
    timeoutMs,
    notes: Object.freeze(notes)
  }
  if (mode === 'stats') {
    refuseOtherMode(get, VOTE_INPUTS, 'vote-check')
    return Object.freeze({
      ...common,
      mode,
      cooldownCheck,
      ...parseStatsInputs(get, env, githubToken)
    })
  }
  refuseOtherMode(get, STATS_INPUTS, 'stats')
  const failIfNotVoted = parseBoolean('fail-if-not-voted', get('fail-if-not-voted'))
  const userIds = parseUserIds(get('user-id'))
  const wait = parseCount(
    'rate-limit-wait',
    get('rate-limit-wait'),
    MAX_RATE_LIMIT_WAIT_SECONDS,
    "the action's"
  )
  return Object.freeze({
    ...common,
    mode,
    userIds,
    failIfNotVoted,
    rateLimitWaitMs: (wait ?? 600) * 1000
  })
}

const STATS_INPUTS = [
  'command-count',
  'server-count',
  'commands-file',
  'discord-token',
  'count-subcommands',
  'stale-after'
]
const VOTE_INPUTS = ['user-id', 'fail-if-not-voted']

/**
 * An input of the other mode is most likely a mistake (a copied step), so it is refused, not
 * ignored; a false boolean is unset.
 */
function refuseOtherMode(get: InputReader, inputs: string[], mode: Mode): void {
  for (const input of inputs) {
    const value = get(input)
    if (value === '' || FALSE.includes(value)) continue
    throw new InputError(
      input,
      `is set, but it belongs to mode: ${mode}`,
      `Remove it, or set mode: ${mode}.`
    )
  }
}

type StatsInputs = Omit<StatsSettings, keyof CommonSettings | 'mode' | 'cooldownCheck'>

function parseStatsInputs(get: InputReader, env: Env, githubToken: string): StatsInputs {
  const staleAfter = get('stale-after')
  if (
    staleAfter !== '' &&
    !(/^\d+$/.test(staleAfter) && Number(staleAfter) >= 7 && Number(staleAfter) <= 720)
  ) {
    throw new InputError(
      'stale-after',
      `must be a whole number of hours from 7 to 720, got ${show(staleAfter)}`,
      'Write it like 48, a few schedule periods long, or leave it empty.'
    )
  }
  const countSubcommands = parseBoolean('count-subcommands', get('count-subcommands'))
  const commandCount = parseCount('command-count', get('command-count'), COMMAND_COUNT_MAX)
  const serverCount = parseCount('server-count', get('server-count'), SERVER_COUNT_MAX)
  const commandsFile = get('commands-file')
  if (commandsFile !== '' && commandCount !== undefined) {
    throw new InputError(
      'commands-file',
      "cannot be combined with 'command-count': both give the command count",
      'Keep one of them: commands-file to count the manifest, or command-count to send a fixed number.'
    )
  }
  // A bot token goes into a header: printable ASCII only (what it may hold is checked with the
  // other secrets).
  const token = headerSafe(
    'discord-token',
    get('discord-token'),
    'Copy the token again from the Bot page of the Discord Developer Portal and store it in the secret as a single line.'
  )
  const discordApiUrl =
    token === undefined
      ? ''
      : parseServiceUrl('discord-api-url', get('discord-api-url'), 'https://discord.com/api/v10')
  if (countSubcommands && commandsFile === '' && token === undefined) {
    throw new InputError(
      'count-subcommands',
      'is true, but it only applies to counts read from commands-file or discord-token',
      'Set commands-file or discord-token, or remove count-subcommands.'
    )
  }
  if (
    commandCount === undefined &&
    serverCount === undefined &&
    commandsFile === '' &&
    token === undefined
  ) {
    throw new ActionError(
      "Inputs 'command-count', 'server-count', 'commands-file' and 'discord-token' are all empty, so there is no " +
        'count to send. Set at least one of them, for example command-count: 42.',
      { headline: 'no count to send' }
    )
  }
  const workspace = env['GITHUB_WORKSPACE'] || process.cwd()
  const gitHubToken = headerSafe(
    'github-token',
    githubToken,
    'Pass a GitHub token, for example the default ${{ github.token }}.'
  )
  return {
    staleAfter: staleAfter === '' ? undefined : Number(staleAfter),
    commandCount,
    serverCount,
    commandsFile:
      commandsFile === ''
        ? undefined
        : { given: commandsFile, path: resolve(workspace, commandsFile) },
    countSubcommands,
    discordToken: token,
    discordApiUrl,
    github: Object.freeze({
      token: gitHubToken,
      workspace,
      repository: env['GITHUB_REPOSITORY'] || undefined,
      sha: env['GITHUB_SHA'] || undefined,
      apiUrl: parseGitHubApiUrl(env['GITHUB_API_URL'], gitHubToken),
      inReusableWorkflow: env[REUSABLE_WORKFLOW_MARK] === 'true',
      workflowRef: env['GITHUB_WORKFLOW_REF'] || undefined,
      workflowSha: env['GITHUB_WORKFLOW_SHA'] || undefined,
      job: env['GITHUB_JOB'] || undefined,
      eventName: env['GITHUB_EVENT_NAME'] || undefined,
      eventPath: env['GITHUB_EVENT_PATH'] || undefined
    })
  }
}

const MAX_TIMEOUT_SECONDS = 6 * 3_600

/** A duration input in whole seconds, at least 1; the default when unset. */
function seconds(input: string, raw: string, fallback: number, max: number): number {
  if (raw === '') return fallback * 1000
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new InputError(
      input,
      `must be a whole number of seconds from 1 to ${max}, got ${show(raw)}`,
      `Write it like ${fallback}.`
    )
  }
  return Number(raw) * 1000
}

/**
 * The most users one run checks; at the live service's 100 checks per 5 minutes, already 50
 * minutes.
 */
const MAX_USERS = 1_000
const MAX_RATE_LIMIT_WAIT_SECONDS = 3_600

/** One or more user IDs separated by commas, spaces or newlines; duplicates dropped, order kept. */
function parseUserIds(raw: string): readonly string[] {
  const ids = raw.split(/[\s,]+/).filter(id => id !== '')
  if (ids.length === 0) {
    throw new InputError(
      'user-id',
      'is empty, and mode: vote-check needs at least one user',
      'Set user-id to one or more Discord user IDs, separated by commas, spaces or newlines.'
    )
  }
  const bad = ids.findIndex(id => !SNOWFLAKE.test(id))
  if (bad >= 0) {
    throw new InputError(
      'user-id',
      `has ${show(ids[bad]!)} (entry ${bad + 1}), which is not a Discord user ID of 17 to 20 digits`,
      'Give user IDs (Developer Mode in Discord, then Copy User ID), separated by commas, spaces or newlines.'
    )
  }
  const unique = [...new Set(ids)]
  if (unique.length > MAX_USERS) {
    throw new InputError(
      'user-id',
      `lists ${unique.length} users, more than the ${MAX_USERS} one run checks`,
      'Split the users over several steps or runs.'
    )
  }
  return Object.freeze(unique)
}

/** User IDs may be separated by newlines; secrets are checked by headerSafe. */
const MULTILINE_INPUTS = new Set(['user-id', 'api-key', 'discord-token', 'github-token'])

function oneLineInputs(get: InputReader): InputReader {
  return name => {
    const value = get(name)
    const bad = MULTILINE_INPUTS.has(name) ? -1 : value.search(CONTROL_CHARACTER)
    if (bad >= 0) {
      throw new InputError(
        name,
        `contains a line break or another control character (at character ${bad + 1})`,
        'Give the value on one line, without control characters; in YAML, quote it or use a plain scalar.'
      )
    }
    return value
  }
}

/**
 * Local runners (`@github/local-action`, act) pass the default `${{ github.token }}` unexpanded:
 * that is no token.
 */
function parseGitHubToken(raw: string): string {
  return /^\$\{\{[^}]*\}\}$/.test(raw) ? '' : raw
}

function parseMode(raw: string): Mode {
  if (raw === 'stats' || raw === 'vote-check') return raw
  throw new InputError(
    'mode',
    `must be "stats" or "vote-check", got ${show(raw)}`,
    'Use mode: stats to update the counts, or mode: vote-check to check votes.'
  )
}

const FALSE = ['false', 'False', 'FALSE']

/** YAML 1.2 core-schema booleans, as `core.getBooleanInput` takes them, with a one-line error. */
function parseBoolean(input: string, raw: string): boolean {
  if (['true', 'True', 'TRUE'].includes(raw)) return true
  if (FALSE.includes(raw)) return false
  throw new InputError(
    input,
    `must be true or false, got ${show(raw)}`,
    `Write ${input}: true or ${input}: false.`
  )
}

/** A Discord ID: 17 to 20 decimal digits (the OpenAPI document's DiscordSnowflake). */
const SNOWFLAKE = /^\d{17,20}$/

function parseSnowflake(input: string, raw: string): string {
  if (raw === '') {
    throw new InputError(
      input,
      'is empty',
      "Set it to the bot's Discord ID, 17 to 20 digits (Developer Portal, Application ID)."
    )
  }
  // An unquoted ID in YAML is a number, and a number that large arrives rounded, as
  // 1.2345678901234568e+17.
  if (/^\d+(?:\.\d+)?(?:e\+?\d+)?$/i.test(raw) && !/^\d+$/.test(raw)) {
    throw new InputError(
      input,
      `looks like a number that YAML rounded (${show(raw)})`,
      `YAML read this as a number: put the ID in quotes, for example ${input}: '123456789012345678'.`
    )
  }
  if (!SNOWFLAKE.test(raw)) {
    throw new InputError(
      input,
      `must be a Discord ID of 17 to 20 digits, got ${show(raw)}`,
      "Copy the bot's Application ID from the Discord Developer Portal or from its page on discord.place."
    )
  }
  return raw
}

/**
 * A count in plain decimal digits within range: `12.5`, `1e3`, `0x10` and `-1` are refused, not
 * rounded.
 */
function parseCount(
  input: string,
  raw: string,
  max: number,
  whose = "the service's"
): number | undefined {
  if (raw === '') return undefined
  const range = `a whole number from 0 to ${max}`
  if (!/^\d+$/.test(raw)) {
    throw new InputError(
      input,
      `must be ${range} written in plain digits, got ${show(raw)}`,
      'Write it like 42: no sign, decimal point, exponent, hex prefix or thousands separator.'
    )
  }
  const value = Number(raw)
  if (value > max)
    throw new InputError(
      input,
      `is ${show(raw)}, above ${whose} maximum of ${max}`,
      `Send ${range}.`
    )
  return value
}

/**
 * A discord.place key (64 hexadecimal digits) anywhere in a value, not touching more of them:
 * `KEY,`, `<KEY>`, `NAME:KEY`. A Discord token never holds one, its parts being shorter.
 */
const PLACE_KEY = /(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/i

/**
 * The bot ID a Discord bot token names (three base64url parts, the first an ID), or undefined for
 * another shape.
 */
export function tokenBotId(text: string): string | undefined {
  const parts = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(text)
  if (parts === null) return undefined
  const id = Buffer.from(parts[1]!, 'base64url').toString('latin1')
  return SNOWFLAKE.test(id) ? id : undefined
}

/**
 * A Discord bot token anywhere in a value (`TOKEN,`, `x.TOKEN`, `<TOKEN>`, `NAME:TOKEN`): any
 * three dot-separated parts in a row whose first names a bot ID. No discord.place key holds one
 * by chance, so such a value is the token, pasted with something around it.
 */
function holdsToken(text: string): boolean {
  for (const [run] of text.matchAll(/[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+){2,}/g)) {
    const parts = run.split('.')
    for (let i = 0; i + 3 <= parts.length; i++)
      if (tokenBotId(parts.slice(i, i + 3).join('.')) !== undefined) return true
  }
  return false
}

/** What each secret's refusal asks the person to store, in the order they are checked. */
const STORE_ALONE = {
  'api-key':
    "Store only the key in the secret, as the bot's manage page on discord.place shows it; the action sends it as it is.",
  'discord-token':
    'Store only the token in the secret, as the Bot page of the Discord Developer Portal shows it; the action adds the "Bot " prefix.',
  'github-token': 'Pass only the token, for example the default ${{ github.token }}.'
} as const

type SecretInput = keyof typeof STORE_ALONE

/** What each secret input takes, for a refusal that finds one secret in two of them. */
const TAKES: Record<SecretInput, string> = {
  'api-key':
    "api-key takes the bot's API key from its manage page on discord.place, for example ${{ secrets.DISCORD_PLACE_API_KEY }}",
  'discord-token': "discord-token takes the bot's token from the Discord Developer Portal",
  'github-token': "github-token takes GitHub's token for the job, by default ${{ github.token }}"
}

/** A GitHub token: a classic one's prefix (`ghp_`, `ghs_` and the others) or a fine-grained one. */
const GITHUB_TOKEN = /(?:^|[^A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{22,})/

/**
 * The shapes that tell whose a secret is, wherever it was pasted and in whatever wrapper, plain or
 * in base64: each belongs in one input, and in any other it would go to the wrong party. Checked
 * after the refusals that name a swap more precisely.
 */
const OWNERS: readonly { input: SecretInput; what: string; holds: (value: string) => boolean }[] = [
  { input: 'discord-token', what: 'a Discord bot token', holds: inPlainOrBase64(holdsToken) },
  {
    input: 'api-key',
    what: 'a discord.place API key (64 hexadecimal digits)',
    holds: inPlainOrBase64(value => PLACE_KEY.test(value))
  },
  {
    input: 'github-token',
    what: 'a GitHub token',
    holds: inPlainOrBase64(value => GITHUB_TOKEN.test(value))
  }
]

/**
 * A shape test that also looks inside the value read as base64 (`NAME:secret`, encoded for a Basic
 * header, is a common paste). Text that is not base64 decodes to noise, which none of the shapes
 * can match by chance.
 */
function inPlainOrBase64(test: (value: string) => boolean): (value: string) => boolean {
  return value => test(value) || test(Buffer.from(value, 'base64').toString('latin1'))
}

/** Every pair of secret inputs, each compared both ways. */
const SECRET_PAIRS: readonly (readonly [SecretInput, SecretInput])[] = [
  ['api-key', 'discord-token'],
  ['api-key', 'github-token'],
  ['discord-token', 'github-token']
]

/**
 * The shortest secret looked for inside another input. Every real one is far longer (a
 * discord.place key has 64 characters, a Discord bot token about 70, a GitHub token at least 40),
 * and a run of 16 characters from one cannot appear in another by chance; a shorter value (a test's
 * placeholder) is never taken for a secret inside another. Two inputs holding the same value are
 * one secret in two places whatever its length, but an empty one (no github-token) is no secret.
 */
const MIN_SECRET_INSIDE = 16

/**
 * Whether one secret input holds another's value (each as pasted forms are taken off it): `same`,
 * `inside` the first, or `reversed` (the first inside the second); undefined for neither.
 */
function oneSecretInTwo(first: string, second: string): 'same' | 'inside' | 'reversed' | undefined {
  if (first === '' || second === '') return undefined
  if (first === second) return 'same'
  if (second.length >= MIN_SECRET_INSIDE && first.includes(second)) return 'inside'
  return first.length >= MIN_SECRET_INSIDE && second.includes(first) ? 'reversed' : undefined
}

/**
 * A secret that belongs elsewhere (swapped, one secret in two inputs or inside another, another
 * bot's token) is never sent. The checks read the value as people paste it (quotes, `NAME=`, a
 * scheme word around it), so a quoted Discord token is named as one; then anything around a secret
 * is refused.
 */
function refuseMisplacedSecrets(
  apiKey: string,
  discordToken: string,
  githubToken: string,
  botId: string
): void {
  const api = unwrapSecret(apiKey)
  const discord = unwrapSecret(discordToken)
  const github = unwrapSecret(githubToken)
  const also = (found: { extra: string[] }): string =>
    found.extra.length === 0
      ? ''
      : ` The secret also holds ${found.extra.join(' and ')}, which does not belong in it.`
  const fix =
    "Pass the bot's API key from its manage page on discord.place, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }}."
  if (holdsToken(api.value)) {
    throw new InputError(
      'api-key',
      'looks like a Discord bot token (three dot-separated parts, the first naming a bot ID), not a discord.place API key, so nothing was sent',
      `The secrets are probably swapped, or the wrong secret is named. ${fix} The Discord token goes in discord-token.${also(api)}`
    )
  }
  const unwrapped = { 'api-key': api, 'discord-token': discord, 'github-token': github }
  for (const [holder, other] of SECRET_PAIRS) {
    const found = oneSecretInTwo(unwrapped[holder].value, unwrapped[other].value)
    if (found === undefined) continue
    // Named by the input that holds the other's value.
    const [input, given] = found === 'reversed' ? [other, holder] : [holder, other]
    const problem =
      found === 'same' ? `is the same secret as ${given}` : `holds the secret given as ${given}`
    throw new InputError(
      input,
      `${problem}, so nothing was sent`,
      `One of the two names the wrong secret: ${TAKES[input]}, and ${TAKES[given]}.${also(unwrapped[input])}`
    )
  }
  if (PLACE_KEY.test(discord.value)) {
    throw new InputError(
      'discord-token',
      'looks like a discord.place API key (64 hexadecimal digits), not a Discord bot token, so it was not sent to Discord',
      'The secrets are probably swapped: pass the discord.place key as api-key, and the bot token from the Discord ' +
        `Developer Portal (Bot page) as discord-token.${also(discord)}`
    )
  }
  const named = tokenBotId(discord.value)
  if (named !== undefined && named !== botId) {
    throw new InputError(
      'discord-token',
      "is the token of another bot: its first part names a bot ID other than bot-id, so the counts Discord gives for it are not this bot's",
      `Pass this bot's own token (Developer Portal, the bot's application, Bot page), or check bot-id.${also(discord)}`
    )
  }
  const pasted = { 'api-key': apiKey, 'discord-token': discordToken, 'github-token': githubToken }
  for (const input of Object.keys(TAKES) as SecretInput[]) {
    // As pasted too: base64's `=` padding reads as a variable's `=` once unwrapped.
    const holds = (kind: (typeof OWNERS)[number]): boolean =>
      kind.holds(unwrapped[input].value) || kind.holds(pasted[input])
    const owner = OWNERS.find(kind => kind.input !== input && holds(kind))
    if (owner !== undefined)
      throw new InputError(
        input,
        `holds ${owner.what}, which belongs in ${owner.input}, so nothing was sent`,
        `${TAKES[input]}.${also(unwrapped[input])}`
      )
  }
  for (const [input, fix] of Object.entries(STORE_ALONE)) {
    const { extra } = unwrapped[input as SecretInput]
    if (extra.length > 0)
      throw new InputError(
        input,
        `holds more than the secret (${extra.join(' and ')}), so nothing was sent`,
        fix
      )
  }
}

/**
 * A secret goes into an HTTP header as it is: anything but printable ASCII would be refused, or
 * split the header.
 */
function headerSafe(input: string, secret: string, fix: string): string | undefined {
  if (secret === '') return undefined
  const bad = [...secret].findIndex(ch => !/^[\x21-\x7e]$/.test(ch))
  if (bad >= 0) {
    throw new InputError(
      input,
      `contains whitespace, a control character or a non-ASCII character (at character ${bad + 1})`,
      fix
    )
  }
  return secret
}

/**
 * An API base address a secret is sent to: absolute, https unless the host is loopback, no
 * credentials, query or fragment. `refuse` makes the error (an input's, unless told).
 */
function parseServiceUrl(
  input: string,
  raw: string,
  standard: string,
  refuse = (problem: string, fix: string): ActionError => new InputError(input, problem, fix)
): string {
  const fix = `Use ${standard} (the default) or the https address of a compatible service.`
  if (raw === '') throw refuse('is empty', fix)
  if (!URL.canParse(raw)) throw refuse(`is not an absolute URL: ${show(raw)}`, fix)
  const url = new URL(raw)
  if (url.username !== '' || url.password !== '')
    throw refuse(
      'contains a user name or password',
      `Remove them; the secret is sent in a header. ${fix}`
    )
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse(`uses ${show(url.protocol)}, not https`, fix)
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw refuse(
      `uses plain http to ${url.host}, which would send a secret unencrypted`,
      'Use https, or a loopback host (127.0.0.1, localhost or [::1]) for a local test server.'
    )
  }
  if (url.search !== '' || url.hash !== '')
    throw refuse('has a query or fragment', 'Give only the scheme, host and optional path prefix.')
  return url.origin + url.pathname.replace(/\/+$/, '')
}

/**
 * GitHub's API, where github-token goes: the runner's GITHUB_API_URL (GitHub Enterprise Server sets
 * its own), held to the rule of the inputs' addresses. Not an input, so its error says who set it;
 * without a token nothing is sent there, and it is not read.
 */
function parseGitHubApiUrl(raw: string | undefined, token: string | undefined): string {
  const standard = 'https://api.github.com'
  if (!raw) return standard
  if (token === undefined) return raw
  return parseServiceUrl(
    'GITHUB_API_URL',
    raw,
    standard,
    (problem, fix) =>
      new ActionError(
        `GITHUB_API_URL (GitHub's API, where github-token goes; the runner sets it) ${problem}. ${fix} ` +
          "Or pass no github-token (github-token: '') and check out the repository, so that nothing is sent there.",
        { headline: 'bad GITHUB_API_URL' }
      )
  )
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  )
}

/**
 * A value quoted for an error message: JSON-escaped (no control characters reach the log) and cut
 * short.
 */
function show(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)
}
