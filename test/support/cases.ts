/**
 * Tables of runs that differ only in what they are given (a refused input, a secret in the wrong
 * input, text that tries to start a workflow command, a secret echoed back by the service), each
 * with the check of its run. test/shared/cases.test.ts runs every case in process; the end-to-end
 * files run a few through dist/ on Node 24, for what only the bundle in a process of its own
 * shows. Both harnesses sweep every run for the secrets it was given. Each input's refusal, word
 * for word, is pinned by test/shared/settings.test.ts: these check the run around it.
 */
import { expect } from 'vitest'
import { DiscordFake } from './fakes.js'
import {
  errorsOf,
  findLeaks,
  JOB_TOKEN,
  leakForms,
  type RunOptions,
  type RunResult
} from './action.js'
import { BOT, DISCORD_TOKEN, emulatedBot, KEY } from './inprocess.js'
import type { ServiceEmulator } from '../../scripts/emulator/service.js'
import { afterTest } from './teardown.js'

/** Runs a step with these options: runInProcess, or runAction on Node 24. */
export type Runner = (options: RunOptions) => Promise<RunResult>

/** The example bot on the real clock, last updated 7 hours ago, closed when the test finishes. */
const service = (): Promise<ServiceEmulator> => emulatedBot({ now: Date.now })

const stepInputs = (
  service: ServiceEmulator,
  more: Record<string, string> = {}
): Record<string, string> => ({
  'bot-id': BOT,
  'api-key': KEY,
  'base-url': service.url,
  'cooldown-check': 'false',
  ...more
})

/** A refused run: exit 1, one error that names the input, the result output failed. */
async function refusedRun(
  runner: Runner,
  inputs: Record<string, string>,
  input: string
): Promise<RunResult> {
  const result = await runner({ inputs })
  expect(result.code).toBe(1)
  expect(errorsOf(result), 'exactly one error, for the input').toEqual([
    expect.stringMatching(new RegExp(`^Inputs? '${input}'`))
  ])
  expect(result.outputs['result']).toBe('failed')
  return result
}

// ---------------------------------------------------------------------------------------------
// Refused inputs: one ::error:: line naming the input, before any request. A run for each way
// the run around a refusal differs (no bot named, no count, a secret on two lines or with its
// scheme word); every other input's refusal is the same run, and is tested in settings.test.ts.

/** [case, inputs to change, the input the error must name, what it must say] */
export type Refusal = [string, Record<string, string>, string, RegExp?]

export const REFUSALS: Refusal[] = [
  ['bot-id not digits', { 'bot-id': 'my-bot' }, 'bot-id'],
  ['command-count decimal', { 'command-count': '12.5' }, 'command-count'],
  ['no count at all', { 'command-count': '' }, 'command-count'],
  [
    'api-key with a line break inside',
    { 'api-key': 'sk_4f3e2d1c\r\nX-Injected: 9a8b7c6d5e' },
    'api-key'
  ],
  [
    'discord-token with the "Bot " prefix',
    { 'discord-token': 'Bot MTIz.Gx7kQ2.vN4pL8rT1wZ9' },
    'discord-token'
  ]
]

export const tokenOf = (id: string): string =>
  `${Buffer.from(id).toString('base64url')}.Gx7kQ2.vN4pL8rT1wZ9qA3sD5fG7hJ9kL1zX`

/**
 * Credentials that belong elsewhere (interface.md, "The key's guardian"): refused before any
 * request to either remote, the value masked, never shown. The forms people paste them in are
 * tested in settings.test.ts.
 */
export const MIX_UPS: Refusal[] = [
  [
    "api-key holding this bot's Discord token",
    { 'api-key': tokenOf(BOT) },
    'api-key',
    /looks like a Discord bot token/
  ],
  // The job's own token, as the runner passes github-token by default.
  [
    'api-key the same as github-token',
    { 'api-key': JOB_TOKEN },
    'api-key',
    /same secret as github-token/
  ],
  [
    'discord-token of another bot',
    { 'discord-token': tokenOf('223456789012345678'), 'command-count': '' },
    'discord-token',
    /another bot/
  ],
  // A wrapper no pasted form explains: the token would otherwise go to discord.place as the key.
  [
    "api-key holding this bot's Discord token with a comma after it, the token in discord-token too",
    { 'api-key': `${tokenOf(BOT)},`, 'discord-token': tokenOf(BOT) },
    'api-key',
    /looks like a Discord bot token/
  ]
]

/**
 * A refused input: exit 1, one error naming the input, nothing sent to either remote, result
 * failed, a headline that says why, no secret shown.
 */
export async function expectRefused(
  runner: Runner,
  [, change, input, problem]: Refusal
): Promise<void> {
  const emulator = await service()
  const discord = await DiscordFake.start({
    token: tokenOf(BOT),
    applicationId: BOT,
    guildCount: 1262,
    commands: []
  })
  afterTest(() => discord.close())
  const inputs = stepInputs(emulator, {
    'command-count': '14',
    'discord-api-url': discord.url,
    ...change
  })
  const result = await refusedRun(runner, inputs, input)
  const [error] = errorsOf(result)
  expect(error).not.toContain('\n')
  if (problem) expect(error).toMatch(problem)
  expect(result.stdout + result.stderr, 'no stack trace').not.toMatch(/\n\s+at .+:\d+:\d+/)
  expect([...emulator.requests, ...discord.requests], 'nothing sent').toEqual([])
  // The headline names the bot once its ID was read, and says why in a few words.
  const who = input === 'bot-id' ? 'discord\\.place' : `Bot ${BOT}`
  const why =
    input === 'command-count' && change['command-count'] === ''
      ? 'no count to send'
      : `bad input &#39;${input}&#39;`
  expect(result.summary).toMatch(
    new RegExp(
      `^<h3>❌ ${who}: failed: ${why}</h3>\n<p>❌ <strong>Error:</strong> Inputs? &#39;${input}&#39;`
    )
  )
  // Each secret is masked whole, and line by line as the runner masks; no form or piece of it may
  // show.
  const secrets = [inputs['api-key'] ?? '', inputs['discord-token'] ?? '', JOB_TOKEN].flatMap(s => [
    s,
    ...s.split(/\r?\n/).map(line => line.trim())
  ])
  expect(findLeaks(result, [...new Set(secrets.filter(s => s.length >= 8))])).toEqual([])
}

/** A credential in the wrong input: the same run as any refused input. */
export const expectMixUpRefused = expectRefused

// ---------------------------------------------------------------------------------------------
// Workflow commands in what the action is given: inputs that try to start one.

/**
 * What the runner parsed from stdout is only the action's own: masks for the secrets it was
 * given (never the word "Bot"), at most one error, debug lines; no command in the legacy syntax,
 * no line of the log holding `##[`, no output set by the remote.
 */
export function expectInert(result: RunResult): void {
  expect(
    result.stdout.split('\n').filter(line => line.includes('##[')),
    'no line holds the legacy ##[ syntax'
  ).toEqual([])
  const kinds = [...new Set(result.commands.map(c => c.command))]
  expect(
    kinds.filter(kind => !['add-mask', 'error', 'debug'].includes(kind)),
    'commands the action never writes'
  ).toEqual([])
  expect(result.commands.filter(c => c.command === 'add-mask').map(c => c.message)).not.toContain(
    'Bot'
  )
  expect(
    result.commands.filter(c => c.syntax !== '::'),
    'no command in the legacy syntax'
  ).toEqual([])
  // The one error may quote the refused value (escaped, so it is text); nothing else may carry it.
  expect(
    result.commands.filter(c => c.command !== 'error' && /INJECTED|pwned/.test(c.message))
  ).toEqual([])
  expect(result.outputs['result'], 'no output set by the remote').toBe('failed')
}

/** What an injected line would do if the runner read it as a command. */
const INJECTION =
  '\n::error::INJECTED\n::add-mask::Bot\n::set-output name=result::updated\n::stop-commands::pwned ##[set-output name=result;]updated ##[add-mask]Bot'

const VOTE = { mode: 'vote-check', 'command-count': '', 'user-id': '223456789012345678' }

/** [the input, the inputs to change] */
export type Injection = [string, Record<string, string>]

/** Each input holding lines that would be workflow commands. */
export const INJECTIONS: Injection[] = [
  ['bot-id', { 'bot-id': BOT + INJECTION }],
  ['command-count', { 'command-count': '12' + INJECTION }],
  ['server-count', { 'server-count': '1000' + INJECTION }],
  ['commands-file', { 'commands-file': 'commands.json' + INJECTION }],
  ['base-url', { 'base-url': 'https://api.discord.place' + INJECTION, 'command-count': '12' }],
  [
    'discord-api-url',
    { 'discord-token': DISCORD_TOKEN, 'discord-api-url': 'https://discord.com/api/v10' + INJECTION }
  ],
  ['mode', { mode: 'stats' + INJECTION, 'command-count': '12' }],
  ['dry-run', { 'dry-run': 'true' + INJECTION, 'command-count': '12' }],
  ['cooldown-check', { 'cooldown-check': 'true' + INJECTION, 'command-count': '12' }],
  ['timeout', { timeout: '60' + INJECTION, 'command-count': '12' }],
  ['request-timeout', { 'request-timeout': '30' + INJECTION, 'command-count': '12' }],
  [
    'count-subcommands',
    { 'count-subcommands': 'true' + INJECTION, 'commands-file': 'c.json', 'command-count': '' }
  ],
  ['user-id', { ...VOTE, 'user-id': '223456789012345678' + INJECTION }],
  ['fail-if-not-voted', { ...VOTE, 'fail-if-not-voted': 'true' + INJECTION }],
  ['rate-limit-wait', { ...VOTE, 'rate-limit-wait': '60' + INJECTION }]
]

/** Each input holding the legacy `##[` syntax on one line. */
export const LEGACY_INJECTIONS: Injection[] = [
  [
    'commands-file',
    { 'commands-file': 'build/##[set-output name=result;]updated ##[add-mask]Bot.json' }
  ],
  ['bot-id', { 'bot-id': `${BOT}##[set-output name=result;]updated`, 'command-count': '12' }],
  ['user-id', { mode: 'vote-check', 'user-id': '223456789012345678 ##[add-mask]Bot' }]
]

/**
 * An input holding workflow-command lines, or `##[` on one line: refused by name, nothing sent,
 * nothing read as a command; the error quotes a one-line value with the syntax broken (`# #[`).
 */
export async function expectInjectionRefused(
  runner: Runner,
  [input, change]: Injection
): Promise<void> {
  const emulator = await service()
  const result = await refusedRun(runner, stepInputs(emulator, change), input)
  expectInert(result)
  expect(emulator.requests, 'nothing sent').toEqual([])
  if (!change[input]!.includes('\n')) expect(errorsOf(result)[0]).toContain('# #[')
}

export const expectLegacyInjectionRefused = expectInjectionRefused

// ---------------------------------------------------------------------------------------------
// The API key echoed back by the service in its error text, in every form a plain mask misses.

/** [case, the service's error text] */
export type Echo = [string, string]

export const ECHOES: Echo[] = [
  ['as it is', `Invalid key ${KEY} for this bot`],
  ['URL-encoded', `bad key ${encodeURIComponent(KEY)}&x=1`],
  ['JSON-escaped inside a string', `got "${JSON.stringify(KEY).slice(1, -1)}"`],
  ['in HTML', `<b>${KEY}</b> was refused`],
  ['where a long text is cut', `${'x'.repeat(290)} ${KEY} and more`],
  ['as the first half only', `key starts ${KEY.slice(0, 14)}`],
  ['as base64', `token ${Buffer.from(KEY).toString('base64')}`],
  // The forms a plain mask misses (interface.md, secrets "in any form"), each echoed whole.
  ...leakForms(KEY)
    .filter(
      ([form]) => !/^(raw|fragment|Markdown|HTML-escaped|URL-encoded|JSON|base64$)/.test(form)
    )
    .map(([form, text]): Echo => [`in the form "${form}"`, `the key was ${text} here`])
]

/**
 * The service refuses the update with the key in its text: the sweep finds no form or piece of it;
 * what is left says `***`.
 */
export async function expectEchoRedacted(runner: Runner, [, text]: Echo): Promise<void> {
  const emulator = await service()
  emulator.inject('stats', {
    kind: 'answer',
    status: 500,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ success: false, error: text, status: 500 })
  })
  const result = await runner({ inputs: stepInputs(emulator, { 'command-count': '12' }) })
  // The sweep in both harnesses already failed the test if any form or piece leaked; what is left
  // is said.
  expect(result.code).toBe(1)
  expect(
    emulator.requests.filter(r => r.method === 'PATCH').length,
    'one PATCH, never resent'
  ).toBe(1)
  expect(errorsOf(result)).toHaveLength(1)
  expect(errorsOf(result)[0]).toContain('***')
  expect(result.summary).toContain('***')
}

/**
 * The cases of `table` with these names, for the end-to-end files; a name that is not in the table
 * is an error, not a case left out.
 */
export function pick<T extends [string, ...unknown[]]>(
  table: readonly T[],
  names: readonly string[]
): T[] {
  const missing = names.filter(name => !table.some(([caseName]) => caseName === name))
  if (missing.length > 0) throw new Error(`no such case: ${missing.join(', ')}`)
  return table.filter(([name]) => names.includes(name))
}
