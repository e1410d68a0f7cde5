import { resolve } from 'node:path'
import * as core from '@actions/core'
import { ActionError, InputError } from './errors.js'

export type Mode = 'stats' | 'vote-check'

/** Everything the run needs from its inputs: read once, validated, frozen. */
export interface Settings {
  readonly mode: Mode
  readonly botId: string
  /** Absent only in a dry run without a key. */
  readonly apiKey: string | undefined
  readonly commandCount: number | undefined
  readonly serverCount: number | undefined
  /** The commands-file input as given (for messages) and resolved against the workspace. */
  readonly commandsFile: { readonly given: string; readonly path: string } | undefined
  readonly countSubcommands: boolean
  readonly discordToken: string | undefined
  /** Discord's API base address without a trailing slash. */
  readonly discordApiUrl: string
  /** Reads a manifest from the repository when the workspace has no checkout. */
  readonly github: GitHubContext
  /** The service's base address without a trailing slash; may carry a path prefix. */
  readonly baseUrl: string
  readonly dryRun: boolean
  readonly cooldownCheck: boolean
}

/** The service's accepted ranges (the OpenAPI document's `minimum`/`maximum`). */
export const COMMAND_COUNT_MAX = 1_000
export const SERVER_COUNT_MAX = 10_000_000

export const DEFAULT_BASE_URL = 'https://api.discord.place'

/** Where the workflow runs: what a manifest fallback needs to read the repository. */
export interface GitHubContext {
  readonly token: string | undefined
  readonly workspace: string
  /** `owner/name` and the commit of the run, when known. */
  readonly repository: string | undefined
  readonly sha: string | undefined
}

/** Reads one input by name, trimmed; `''` when unset. */
export type InputReader = (name: string) => string

/**
 * Reads and validates every input, masking the secrets before anything else happens.
 * The only caller of `core.getInput` in the action.
 */
export function readSettings(): Settings {
  return parseSettings(name => core.getInput(name), core.setSecret, process.env)
}

/**
 * Builds Settings from raw inputs. Secrets are handed to `mask` before any validation,
 * so that no later message can print them. Throws an InputError for the first bad input.
 */
export function parseSettings(
  get: InputReader,
  mask: (secret: string) => void,
  env: Readonly<Record<string, string | undefined>> = {}
): Settings {
  const apiKey = get('api-key')
  const discordToken = get('discord-token')
  const githubToken = get('github-token')
  for (const secret of [apiKey, discordToken, githubToken]) maskSecret(secret, mask)

  const mode = parseMode(get('mode'))
  const dryRun = parseBoolean('dry-run', get('dry-run'))
  const cooldownCheck = parseBoolean('cooldown-check', get('cooldown-check'))
  const countSubcommands = parseBoolean('count-subcommands', get('count-subcommands'))
  const failIfNotVoted = parseBoolean('fail-if-not-voted', get('fail-if-not-voted'))
  const botId = parseSnowflake('bot-id', get('bot-id'))
  const baseUrl = parseBaseUrl(get('base-url'))
  const key = parseApiKey(apiKey, dryRun)
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
  const token = parseDiscordToken(discordToken)
  const discordApiUrl = token === undefined ? '' : parseServiceUrl('discord-api-url', get('discord-api-url'), 'https://discord.com/api/v10')
  notYetSupported('user-id', get('user-id') !== '')
  notYetSupported('fail-if-not-voted', failIfNotVoted)
  if (countSubcommands && commandsFile === '' && token === undefined) {
    throw new InputError(
      'count-subcommands',
      'is true, but it only applies to counts read from commands-file or discord-token',
      'Set commands-file or discord-token, or remove count-subcommands.'
    )
  }

  if (commandCount === undefined && serverCount === undefined && commandsFile === '' && token === undefined) {
    throw new ActionError(
      "Inputs 'command-count', 'server-count', 'commands-file' and 'discord-token' are all empty, so there is no " +
        'count to send. Set at least one of them, for example command-count: 42.',
      { input: 'command-count' }
    )
  }

  const workspace = env['GITHUB_WORKSPACE'] || process.cwd()
  return Object.freeze({
    mode,
    botId,
    apiKey: key,
    commandCount,
    serverCount,
    commandsFile: commandsFile === '' ? undefined : { given: commandsFile, path: resolve(workspace, commandsFile) },
    countSubcommands,
    discordToken: token,
    discordApiUrl,
    github: Object.freeze({
      token: githubToken === '' ? undefined : githubToken,
      workspace,
      repository: env['GITHUB_REPOSITORY'] || undefined,
      sha: env['GITHUB_SHA'] || undefined
    }),
    baseUrl,
    dryRun,
    cooldownCheck
  })
}

/**
 * Masks a secret as a whole and, if it spans several lines or words, each part as well:
 * the runner masks line by line, and a refused value is still a secret.
 */
function maskSecret(secret: string, mask: (secret: string) => void): void {
  if (secret === '') return
  mask(secret)
  const parts = secret.split(/\s+/).filter(part => part.length > 0 && part !== secret)
  for (const part of parts) mask(part)
}

function parseMode(raw: string): Mode {
  if (raw === 'stats') return 'stats'
  if (raw === 'vote-check') {
    throw new InputError(
      'mode',
      'is "vote-check", which this version of the action does not support yet',
      'Use mode: stats.'
    )
  }
  throw new InputError('mode', `must be "stats" or "vote-check", got ${show(raw)}`, 'Use mode: stats to update the counts.')
}

function notYetSupported(input: string, given: boolean): void {
  if (!given) return
  throw new InputError(
    input,
    'is set, but this version of the action does not support it yet (it belongs to vote-check mode)',
    'Remove it.'
  )
}

/** A bot token goes into a header: printable ASCII only, and without the "Bot " scheme word. */
function parseDiscordToken(token: string): string | undefined {
  if (token === '') return undefined
  if (/^Bot\s/i.test(token)) {
    throw new InputError('discord-token', 'starts with "Bot "', 'Store only the token itself in the secret; the action adds the "Bot " prefix.')
  }
  const bad = [...token].findIndex(ch => !/^[\x21-\x7e]$/.test(ch))
  if (bad >= 0) {
    throw new InputError(
      'discord-token',
      `contains whitespace, a control character or a non-ASCII character (at character ${bad + 1})`,
      "Copy the token again from the Bot page of the Discord Developer Portal and store it in the secret as a single line."
    )
  }
  return token
}

/** YAML 1.2 core-schema booleans, as `core.getBooleanInput` takes them, with a one-line error. */
export function parseBoolean(input: string, raw: string): boolean {
  if (['true', 'True', 'TRUE'].includes(raw)) return true
  if (['false', 'False', 'FALSE'].includes(raw)) return false
  throw new InputError(input, `must be true or false, got ${show(raw)}`, `Write ${input}: true or ${input}: false.`)
}

/** A Discord ID: 17 to 20 decimal digits (the OpenAPI document's DiscordSnowflake). */
export function parseSnowflake(input: string, raw: string): string {
  if (raw === '') {
    throw new InputError(input, 'is empty', "Set it to the bot's Discord ID, 17 to 20 digits (Developer Portal, Application ID).")
  }
  if (!/^\d{17,20}$/.test(raw)) {
    throw new InputError(
      input,
      `must be a Discord ID of 17 to 20 digits, got ${show(raw)}`,
      "Copy the bot's Application ID from the Discord Developer Portal or from its page on discord.place."
    )
  }
  return raw
}

/**
 * A count as plain decimal digits within the service's range. No `parseInt`, no
 * `Number` on anything but digits: `12.5`, `1e3`, `0x10` and `-1` are refused, not rounded.
 */
export function parseCount(input: string, raw: string, max: number): number | undefined {
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
  if (value > max) {
    throw new InputError(input, `is ${show(raw)}, above the service's maximum of ${max}`, `Send ${range}.`)
  }
  return value
}

function parseApiKey(key: string, dryRun: boolean): string | undefined {
  if (key === '') {
    if (dryRun) return undefined
    throw new InputError(
      'api-key',
      'is empty',
      "Pass the bot's API key from a repository secret, for example api-key: ${{ secrets.DISCORD_PLACE_API_KEY }} " +
        "(create the key on the bot's manage page on discord.place). Secrets are not given to workflows run from forks."
    )
  }
  // The key goes into an HTTP header as it is: anything but printable ASCII would be
  // refused by the HTTP stack or, worse, split the header. Its value is never shown.
  const bad = [...key].findIndex(ch => !/^[\x21-\x7e]$/.test(ch))
  if (bad >= 0) {
    throw new InputError(
      'api-key',
      `contains whitespace, a control character or a non-ASCII character (at character ${bad + 1})`,
      "Copy the key again from the bot's manage page on discord.place and store it in the secret as a single line."
    )
  }
  return key
}

/** The service's base address: absolute, https unless loopback, no credentials, query or fragment. */
export function parseBaseUrl(raw: string): string {
  return parseServiceUrl('base-url', raw, DEFAULT_BASE_URL)
}

/**
 * An API base address that a secret will be sent to: absolute, https unless the host is
 * loopback (a secret never crosses a network in clear text), no credentials, query or fragment.
 */
function parseServiceUrl(input: string, raw: string, standard: string): string {
  const fix = `Use ${standard} (the default) or the https address of a compatible service.`
  if (raw === '') throw new InputError(input, 'is empty', fix)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new InputError(input, `is not an absolute URL: ${show(raw)}`, fix)
  }
  if (url.username !== '' || url.password !== '') {
    throw new InputError(input, 'contains a user name or password', `Remove them; the secret is sent in a header. ${fix}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError(input, `uses ${show(url.protocol)}, not https`, fix)
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new InputError(
      input,
      `uses plain http to ${url.host}, which would send a secret unencrypted`,
      'Use https, or a loopback host (127.0.0.1, localhost or [::1]) for a local test server.'
    )
  }
  if (url.search !== '' || url.hash !== '') {
    throw new InputError(input, 'has a query or fragment', 'Give only the scheme, host and optional path prefix.')
  }
  return url.origin + url.pathname.replace(/\/+$/, '')
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

/** A value quoted for an error message: JSON-escaped (no control characters reach the log) and cut short. */
function show(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)
}
