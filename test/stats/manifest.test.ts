import { readFileSync } from 'node:fs'
import { mkdir, open, rm, writeFile } from 'node:fs/promises'
import * as http from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { countCommands } from '../../src/stats/commands.js'
import { countManifest, countManifestText, type ManifestPlan } from '../../src/stats/manifest.js'
import { ActionError } from '../../src/errors.js'
import { Requests } from '../../src/http/client.js'
import { readRepositoryFile } from '../../src/stats/github.js'
import { CONTROL_CHARACTER } from '../../src/text.js'
import { GitHubFake } from '../support/fakes.js'
import { tempWorkspace } from '../support/inprocess.js'
import { type Fault, listenForTest } from '../support/server.js'
import { afterTest } from '../support/teardown.js'

const FIXTURES = fileURLToPath(new URL('../fixtures/manifests/', import.meta.url))
const fixtureBytes = (name: string): Buffer => readFileSync(join(FIXTURES, name))
const fixture = (name: string): string => fixtureBytes(name).toString('utf8')
const ORIGIN = "Input 'commands-file' (commands.json)"

/** The service's maximum, and the size limit, as the issue states them. */
const MAX_COMMANDS = 1000
const FIVE_MB = 5 * 1024 * 1024

/** The message of what was thrown (undefined when nothing was): an ActionError's, on one line. */
function oneLineError(caught: unknown): string {
  expect(caught).toBeInstanceOf(ActionError)
  const message = (caught as ActionError).message
  expect(message).not.toMatch(/[\r\n]/)
  return message
}

/** Runs `run`, expects an ActionError with a one-line message, and returns the message. */
function actionError(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    return oneLineError(error)
  }
  return oneLineError(undefined)
}

/** The same for a run that rejects. */
function actionErrorAsync(run: () => Promise<unknown>): Promise<string> {
  return Promise.resolve()
    .then(run)
    .then(() => oneLineError(undefined), oneLineError)
}

const SHA = '0123456789abcdef0123456789abcdef01234567'
const TOKEN = 'ghs_manifestJobToken0123456789'

/** GitHub's contents API answering `bytes` raw, as GitHub does (GitHubFake holds its files as text). */
async function apiServing(bytes: Buffer): Promise<string> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/vnd.github.raw' }).end(bytes))
  return `http://127.0.0.1:${await listenForTest(server)}`
}

/** commands.json in `workspace`, read through GitHub's API at `apiUrl` when it is not there, as manifestCount does. */
function planVia(workspace: string, apiUrl: string): ManifestPlan {
  const requests = new Requests({ attemptTimeoutMs: 5_000, totalMs: 60_000 })
  return {
    given: 'commands.json',
    path: join(workspace, 'commands.json'),
    countSubcommands: false,
    workspace,
    fromRepository: path => readRepositoryFile({ token: TOKEN, repository: 'example/bot', ref: SHA, path, apiUrl }, requests)
  }
}

/** The 1-based line and column just past the last character of `text`. */
describe('countManifestText: fixtures', () => {
  // fixture, count by default, count with count-subcommands
  const table: [string, number, number][] = [
    ['discordjs-v1.json', 5, 1 + 1 + 1 + 5 + 4],
    ['discordjs-v2.json', 6, 1 + 3 + 1 + 1 + 1 + 1],
    ['rest-body.json', 7, 7],
    ['saved-get.json', 10, 6 + 3 + 1 + 1 + 1],
    ['wrapped.json', 3, 3],
    ['keyed.json', 3, 1 + 2 + 1],
    ['duplicates.json', 4, 4]
  ]

  it.each(table)('%s counts %i, or %i with subcommands', (name, plain, withSubcommands) => {
    const text = fixture(name)
    expect(countManifestText(text, ORIGIN, false).count).toBe(plain)
    expect(countManifestText(text, ORIGIN, true).count).toBe(withSubcommands)
  })

  it.each(table.filter(([name]) => name !== 'duplicates.json'))('%s gives no warnings', name => {
    expect(countManifestText(fixture(name), ORIGIN, false).warnings).toEqual([])
    expect(countManifestText(fixture(name), ORIGIN, true).warnings).toEqual([])
  })

  it.each([false, true])('duplicates.json warns once, naming "ping" (count-subcommands %s)', countSubcommands => {
    const { warnings } = countManifestText(fixture('duplicates.json'), ORIGIN, countSubcommands)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('"ping"')
    // The two "Report" commands differ by type, so neither is a duplicate; "help" is listed once.
    expect(warnings[0]).not.toContain('Report')
    expect(warnings[0]).not.toContain('help')
  })

  it('lists every duplicate in one warning, not one warning per command', () => {
    const names = Array.from({ length: 25 }, (_, i) => `cmd${String(i).padStart(2, '0')}`)
    const text = JSON.stringify([...names, ...names, 'cmd00'].map(name => ({ name, description: 'd' })))
    const { count, warnings } = countManifestText(text, ORIGIN, false)
    expect(count).toBe(25)
    expect(warnings, 'one warning for all duplicates').toHaveLength(1)
    expect(warnings[0]).toContain('the chat input command "cmd00" 3 times')
    expect(warnings[0]).toContain('the chat input command "cmd01" 2 times')
    expect(warnings[0]).toContain('"cmd19"')
    expect(warnings[0], 'at most 20 named, the rest counted').not.toContain('"cmd20"')
    expect(warnings[0]).toMatch(/, and 5 more; each was counted once\.$/)
  })

  it('treats an absent "type" as chat input when looking for duplicates', () => {
    const text = JSON.stringify([
      { name: 'ping', description: 'a' },
      { type: 1, name: 'ping', description: 'b' }
    ])
    const { count, warnings } = countManifestText(text, ORIGIN, false)
    expect(count).toBe(1)
    expect(warnings).toHaveLength(1)
  })

  it('accepts a UTF-8 byte order mark', () => {
    const text = `\uFEFF${fixture('discordjs-v2.json')}`
    expect(countManifestText(text, ORIGIN, false)).toEqual({ count: 6, warnings: [] })
    expect(countManifestText(text, ORIGIN, true).count).toBe(8)
  })

  it('does not inspect options unless subcommands are counted', () => {
    const text = JSON.stringify([{ name: 'config', description: 'Configure', options: [{ name: 'show', description: 'Show' }] }])
    expect(countManifestText(text, ORIGIN, false).count).toBe(1)
  })
})

describe('countManifestText: limits', () => {
  const commands = (n: number, subcommands = 0): string =>
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({
        type: 1,
        name: `command-${i}`,
        description: `Command number ${i}`,
        options: Array.from({ length: subcommands }, (_, j) => ({ type: 1, name: `sub-${j}`, description: `Subcommand ${j}` }))
      }))
    )

  it(`accepts exactly ${MAX_COMMANDS} commands`, () => {
    expect(countManifestText(commands(MAX_COMMANDS), ORIGIN, false).count).toBe(MAX_COMMANDS)
    expect(countManifestText(commands(MAX_COMMANDS), ORIGIN, true).count).toBe(MAX_COMMANDS)
  })

  it.each([false, true])(`refuses ${MAX_COMMANDS + 1} commands (count-subcommands %s)`, countSubcommands => {
    const message = actionError(() => countManifestText(commands(MAX_COMMANDS + 1), ORIGIN, countSubcommands))
    expect(message).toMatch(/1,?000/)
  })

  it('refuses 600 commands of 2 subcommands each only when counting subcommands (1200 > 1000)', () => {
    const text = commands(600, 2)
    expect(countManifestText(text, ORIGIN, false).count).toBe(600)
    const message = actionError(() => countManifestText(text, ORIGIN, true))
    expect(message).toMatch(/1,?000/)
  })
})

describe('countManifestText: invalid JSON', () => {
  const invalid = fixture('invalid-json.json')
  // Node's own message says where: the position (with its line and column on Node 24, which the
  // end-to-end tests check), or the text around an unexpected token, escaped.
  const twoCommands = '[\n  {"name": "ping", "description": "Check the latency"},\n  {"name": "help", "description": "List the commands"}'
  it.each([
    [
      'a trailing comma in an object (the fixture)',
      invalid,
      /not valid JSON: Expected double-quoted property name in JSON at position \d+/
    ],
    ['a trailing comma, after a byte order mark', `\uFEFF${invalid}`, /at position \d+/],
    ['a trailing comma in an array', `${twoCommands},\n]`, /Unexpected token '\]', .*is not valid JSON/],
    ['a // comment', `[\n  // utility commands\n${twoCommands.slice(2)}\n]`, /Unexpected token '\/', "\[ \/\/ utility/],
    ['a misspelt literal', `${twoCommands.slice(0, -1)}, "nsfw": tru}\n]`, /Unexpected token '}'/],
    ['an empty file', '', /not valid JSON: Unexpected end of JSON input/],
    [
      'a file that ends early',
      fixture('discordjs-v1.json').slice(0, 200),
      /not valid JSON: (?:Unexpected end of JSON input|.*position 200)/
    ]
  ])("refuses %s, saying where in Node's words", (_, text, where) => {
    const message = actionError(() => countManifestText(text, ORIGIN, false))
    expect(message).toContain(ORIGIN)
    expect(message).toMatch(where)
  })

  // V8 quotes the offending character raw, and the text around it with its line breaks.
  it.each([
    ['a carriage return before the mistake', '{"a":1\r,"b"\r:\rtru}'],
    ['a carriage return in a string', '["a\rb"]'],
    ['an escape character', '[1,\x1b]'],
    ['a C1 control character', '[1,\u009b]'],
    ['a line separator', '[1,\u2028]']
  ])('shows no raw control character of the file in the message (%s)', (_, text) => {
    expect(actionError(() => countManifestText(text, ORIGIN, false))).not.toMatch(CONTROL_CHARACTER)
  })
})

describe('countManifestText: deep nesting', () => {
  /** Nesting far deeper than any command manifest (about 12 levels). */
  const MAX_DEPTH = 100
  const DEEP = 100_000

  /** A located error that says what is wrong, never the engine's own stack overflow. */
  function expectLocated(text: string, where: string): string {
    const message = actionError(() => countManifestText(text, ORIGIN, true))
    expect(message).toContain(ORIGIN)
    expect(message).toContain(where)
    expect(message).not.toMatch(/call stack/i)
    return message
  }

  it(`refuses ${DEEP} nested [ (broken JSON) with its line and column`, () => {
    const message = expectLocated('['.repeat(DEEP), `line 1, column ${MAX_DEPTH + 1}`)
    expect(message).toMatch(/nested more than 100 levels/)
  })

  it(`refuses ${DEEP} nested [ across lines (broken JSON) with its line and column`, () => {
    expectLocated('[\n'.repeat(DEEP), `line ${MAX_DEPTH + 1}, column 1`)
  })

  it(`refuses ${DEEP} nested {"a": (broken JSON) with its line and column`, () => {
    expectLocated('{"a":'.repeat(DEEP), `line 1, column ${5 * MAX_DEPTH + 1}`)
  })

  it(`refuses ${DEEP} nested arrays (valid JSON) with their line and column`, () => {
    expectLocated(`${'['.repeat(DEEP)}${']'.repeat(DEEP)}`, `line 1, column ${MAX_DEPTH + 1}`)
  })

  it(`refuses a command with a field nested ${DEEP} deep (valid JSON) with its line and column`, () => {
    const text = `[\n  {"name": "ping", "description": "Pong", "extra": ${'['.repeat(DEEP)}${']'.repeat(DEEP)}}\n]`
    expectLocated(text, `line 2, column ${text.split('\n')[1]!.indexOf('[') + MAX_DEPTH - 1}`)
  })

  it(`accepts nesting ${MAX_DEPTH} deep, and counts brackets inside strings as text`, () => {
    const nested = (depth: number): string =>
      `[{"name":"ping","description":"${'[{'.repeat(500)}","x":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}]`
    expect(countManifestText(nested(MAX_DEPTH), ORIGIN, true).count).toBe(1)
    expectLocated(nested(MAX_DEPTH + 1), 'line 1, column')
  })
})

describe('countCommands: values nested deep (a Discord answer is not read through the manifest check)', () => {
  const ORIGIN_DISCORD = "Discord's global commands"
  const deep = (depth: number): unknown => {
    let value: unknown = 1
    for (let i = 0; i < depth; i++) value = [value]
    return value
  }

  it('refuses a "type" nested 100,000 deep, naming the element and what it is', () => {
    let caught: unknown
    try {
      countCommands({ origin: ORIGIN_DISCORD, entries: [{ label: '[0]', value: { name: 'ping', type: deep(100_000) } }] }, false)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ActionError)
    expect((caught as ActionError).message).toMatch(/\[0\] \("ping"\) has "type": an array/)
  })

  it('reads options at most three levels down (command > group > subcommand), whatever lies below', () => {
    const command = {
      name: 'config',
      type: 1,
      options: [{ type: 2, name: 'log', options: [{ type: 1, name: 'on', options: deep(100_000) }] }]
    }
    expect(countCommands({ origin: ORIGIN_DISCORD, entries: [{ label: '[0]', value: command }] }, true).count).toBe(1)
  })

  it('quotes a "type" that is a long string cut short', () => {
    let caught: unknown
    try {
      countCommands({ origin: ORIGIN_DISCORD, entries: [{ label: '[0]', value: { name: 'ping', type: 'x'.repeat(10_000) } }] }, false)
    } catch (error) {
      caught = error
    }
    expect((caught as ActionError).message.length).toBeLessThan(400)
  })
})

describe('countManifestText: wrong shapes', () => {
  it('names the element without a "name"', () => {
    const message = actionError(() => countManifestText(fixture('no-name.json'), ORIGIN, false))
    expect(message).toContain(ORIGIN)
    expect(message).toContain('commands[3] has no "name"')
  })

  const cases: [string, string, boolean, RegExp[]][] = [
    ['an element that is a number', '[1]', false, [/\[0\]/, /object/]],
    ['an element that is null', '[{"name":"ping"}, null]', false, [/\[1\]/, /object/]],
    ['a name that is not a string', '[{"name":42}]', false, [/\[0\]/, /"name"/]],
    ['an unknown command type', '[{"name":"ping","description":"Pong","type":7}]', false, [/\[0\]/, /"type"/, /7/]],
    ['a type that is a string', '[{"name":"ping","description":"Pong","type":"CHAT_INPUT"}]', false, [/\[0\]/, /"type"/]],
    [
      'options that are not an array',
      '[{"name":"ping","description":"Pong","options":{"type":3}}]',
      false,
      [/\[0\]/, /"options"/, /array/]
    ],
    [
      'a subcommand option without an integer type',
      '[{"name":"ping","description":"Pong"},{"name":"config","description":"Configure","options":[{"type":1,"name":"show","description":"Show"},{"name":"reset","description":"Reset"}]}]',
      true,
      [/\[1\]\.options\[1\]/, /"type"/]
    ],
    [
      'an option inside a group without an integer type',
      '[{"name":"config","description":"Configure","options":[{"type":2,"name":"log","description":"Log","options":[{"type":"1","name":"on","description":"On"}]}]}]',
      true,
      [/\[0\]\.options\[0\]\.options\[0\]/, /"type"/]
    ],
    ['a string', '"ping"', false, [/string/]],
    ['a number', '42', false, [/number/]],
    ['null', 'null', false, [/null/]],
    ['true', 'true', false, [/boolean/]],
    ['an object of strings', '{"ping":"Check the latency"}', false, [/expected/]],
    ['a "commands" object of strings', '{"commands":"ping"}', false, [/expected/]]
  ]

  it.each(cases)('refuses %s', (_, text, countSubcommands, patterns) => {
    const message = actionError(() => countManifestText(text, ORIGIN, countSubcommands))
    expect(message).toContain(ORIGIN)
    for (const pattern of patterns) expect(message).toMatch(pattern)
  })
})

describe('countManifest: files', () => {
  /** The test's own workspace folder, removed when it finishes. */
  let workspace: string
  beforeEach(async () => {
    workspace = await tempWorkspace()
  })

  const plan = (given: string, extra: Partial<ManifestPlan> = {}): ManifestPlan => ({
    given,
    path: join(workspace, given),
    countSubcommands: false,
    workspace,
    ...extra
  })

  it('reads the file from the workspace', async () => {
    await mkdir(join(workspace, 'bot'))
    await writeFile(join(workspace, 'bot', 'commands.json'), fixture('discordjs-v1.json'))
    const fromRepository = vi.fn(async () => Buffer.from('[]'))
    expect(await countManifest(plan('bot/commands.json', { fromRepository }))).toEqual({ count: 5, warnings: [], readFrom: 'workspace' })
    expect(await countManifest(plan('bot/commands.json', { countSubcommands: true, fromRepository }))).toMatchObject({
      count: 12,
      readFrom: 'workspace'
    })
    expect(fromRepository).not.toHaveBeenCalled()
  })

  it('passes warnings through', async () => {
    await writeFile(join(workspace, 'commands.json'), fixture('duplicates.json'))
    const result = await countManifest(plan('commands.json'))
    expect(result.count).toBe(4)
    expect(result.warnings).toHaveLength(1)
    expect(result.warnings[0]).toContain('"ping"')
  })

  it('refuses a missing file when the repository cannot be tried', async () => {
    const p = plan('config/commands.json')
    const message = await actionErrorAsync(() => countManifest(p))
    expect(message).toContain(p.path)
    expect(message).toContain('actions/checkout')
  })

  it('in a checked-out workspace, names the nearest existing folder and what it holds, not a checkout step', async () => {
    await mkdir(join(workspace, '.git'))
    await mkdir(join(workspace, 'build', 'out'), { recursive: true })
    await writeFile(join(workspace, 'build', 'comands.json'), '[]')
    await writeFile(join(workspace, 'build', 'index.js'), '')
    const fromRepository = vi.fn(async (_path: string) => Buffer.from('[]'))
    const p = plan('build/gen/commands.json', { fromRepository })
    const message = await actionErrorAsync(() => countManifest(p))
    expect(fromRepository, 'no repository read: a checkout holds the repository already').not.toHaveBeenCalled()
    expect(message).toContain(`no file at ${p.path}`)
    expect(message).toContain('the nearest existing folder, build/, holds comands.json, index.js, out/')
    expect(message).toContain('Check the path for a typo')
    expect(message).not.toContain('actions/checkout')
  })

  it('in a checked-out workspace, says when the nearest folder is the root, lists at most 10 names, or is empty', async () => {
    await mkdir(join(workspace, '.git'))
    const root = await actionErrorAsync(() => countManifest(plan('missing/commands.json')))
    expect(root).toContain('the nearest existing folder, the workspace root, is empty')
    for (let i = 0; i < 12; i++) await writeFile(join(workspace, `f${String(i).padStart(2, '0')}.txt`), '')
    const many = await actionErrorAsync(() => countManifest(plan('commands.json')))
    expect(many).toContain('the workspace root, holds f00.txt, f01.txt')
    expect(many).toContain('f09.txt and 2 more')
    expect(many).not.toContain('f10.txt')
    expect(many, 'the .git folder is not listed').not.toContain('.git')
  })

  it('reads a missing file from the repository, by its path relative to the workspace', async () => {
    const fromRepository = vi.fn(async (_path: string) => fixtureBytes('saved-get.json'))
    const p = plan('config/bot/commands.json', { fromRepository, repositoryLabel: 'example/bot at 0123abc' })
    expect(await countManifest(p)).toEqual({ count: 10, warnings: [], readFrom: 'repository' })
    expect(fromRepository).toHaveBeenCalledTimes(1)
    expect(fromRepository).toHaveBeenCalledWith('config/bot/commands.json')
    expect(await countManifest({ ...p, countSubcommands: true })).toMatchObject({ count: 12, readFrom: 'repository' })
  })

  it('also finds a path given as absolute inside the workspace in the repository', async () => {
    const fromRepository = vi.fn(async (_path: string) => fixtureBytes('keyed.json'))
    const path = join(workspace, 'data', 'commands.json')
    expect(await countManifest({ given: path, path, countSubcommands: true, workspace, fromRepository })).toMatchObject({
      count: 4,
      readFrom: 'repository'
    })
    expect(fromRepository).toHaveBeenCalledWith('data/commands.json')
  })

  it('refuses text from the repository that is not a valid manifest', async () => {
    const fromRepository = async (): Promise<Buffer> => fixtureBytes('no-name.json')
    const message = await actionErrorAsync(() => countManifest(plan('commands.json', { fromRepository })))
    expect(message).toContain('commands[3] has no "name"')
  })

  it('refuses text from the repository over 5 MB', async () => {
    const fromRepository = async (): Promise<Buffer> => Buffer.from(`[${' '.repeat(FIVE_MB)}]`)
    const message = await actionErrorAsync(() => countManifest(plan('commands.json', { fromRepository })))
    expect(message).toContain('larger than 5 MB')
  })

  it('says what was tried and how to fix it when the repository fails too', async () => {
    const fromRepository = vi.fn(async (_path: string): Promise<Buffer> => {
      throw new Error('HttpError: Not Found (404)')
    })
    const p = plan('config/commands.json', { fromRepository, repositoryLabel: 'example/bot at 0123abc' })
    const message = await actionErrorAsync(() => countManifest(p))
    expect(fromRepository).toHaveBeenCalledWith('config/commands.json')
    expect(message).toContain(p.path)
    expect(message).toContain('config/commands.json')
    expect(message).toContain('example/bot at 0123abc')
    expect(message).toContain('HttpError: Not Found (404)')
    expect(message).toContain('actions/checkout')
    expect(message).toContain('contents: read')
  })

  it('does not try the repository for a missing path outside the workspace', async () => {
    const fromRepository = vi.fn(async (_path: string) => fixtureBytes('rest-body.json'))
    const path = '/etc/discord-place-no-such-dir/commands.json'
    const message = await actionErrorAsync(() =>
      countManifest({ given: path, path, countSubcommands: false, workspace, fromRepository, repositoryLabel: 'example/bot at 0123abc' })
    )
    expect(fromRepository).not.toHaveBeenCalled()
    expect(message).toContain(path)
  })

  it('refuses a directory', async () => {
    await mkdir(join(workspace, 'commands'))
    const fromRepository = vi.fn(async (_path: string) => Buffer.from('[]'))
    const message = await actionErrorAsync(() => countManifest(plan('commands', { fromRepository })))
    expect(message).toContain('is a directory')
    expect(fromRepository).not.toHaveBeenCalled()
  })

  it('refuses a file over 5 MB', async () => {
    const path = join(workspace, 'huge.json')
    const handle = await open(path, 'w')
    try {
      await handle.truncate(FIVE_MB + 1) // sparse: no 5 MB written to disk
    } finally {
      await handle.close()
    }
    try {
      const message = await actionErrorAsync(() => countManifest(plan('huge.json')))
      expect(message).toContain('larger than 5 MB')
    } finally {
      await rm(path, { force: true })
    }
  })

  it('accepts a file with a byte order mark', async () => {
    await writeFile(join(workspace, 'commands.json'), `\uFEFF${fixture('wrapped.json')}`)
    expect(await countManifest(plan('commands.json'))).toEqual({ count: 3, warnings: [], readFrom: 'workspace' })
  })

  it('a missing file fails with the headline "commands-file not found"', async () => {
    await expect(countManifest(plan('config/commands.json'))).rejects.toMatchObject({ headline: 'commands-file not found' })
  })

  it('a folder whose name starts with two dots is inside the workspace, not a step up', async () => {
    await mkdir(join(workspace, '..generated'))
    await writeFile(join(workspace, '..generated', 'commands.json'), fixture('wrapped.json'))
    expect(await countManifest(plan('..generated/commands.json'))).toEqual({ count: 3, warnings: [], readFrom: 'workspace' })
    // A missing one is looked up in the repository too: it is in the workspace.
    const fromRepository = vi.fn(async (_path: string) => fixtureBytes('wrapped.json'))
    expect(await countManifest(plan('..generated/other.json', { fromRepository }))).toMatchObject({ count: 3, readFrom: 'repository' })
    expect(fromRepository).toHaveBeenCalledWith('..generated/other.json')
  })

  it('inside the reusable workflow, a missing manifest gets advice its caller can follow: no checkout step to add', async () => {
    const fromRepository = vi.fn(async (_path: string): Promise<Buffer> => {
      throw new Error('404: Not Found')
    })
    const message = await actionErrorAsync(() =>
      countManifest(plan('dist/commands.json', { fromRepository, repositoryLabel: 'example/bot at 0123abc', inReusableWorkflow: true }))
    )
    expect(message).toMatch(/This job is the reusable workflow's, which cannot check out and build your code: commit the manifest/)
    expect(message).not.toMatch(/Add an actions\/checkout step before this one|grant the job/)
  })

  it("GitHub's API unreachable: network advice, not checkout advice", async () => {
    const fromRepository = vi.fn(async (_path: string): Promise<Buffer> => {
      throw Object.assign(new Error('could not connect to api.github.com: the host name could not be resolved'), { network: true })
    })
    const error = await countManifest(plan('commands.json', { fromRepository, repositoryLabel: 'example/bot at 0123abc' })).catch(e => e)
    expect(error).toBeInstanceOf(ActionError)
    expect(error.message).toMatch(
      /GitHub's API could not be reached to read it from the repository \(could not connect .*\)\. Check the runner's network/
    )
    expect(error.message).not.toMatch(/actions\/checkout/)
    expect(error.headline).toBe('GitHub unreachable')
  })
})

describe("countManifest: files as people's tools write them", () => {
  /** The test's own workspace folder, removed when it finishes. */
  let workspace: string
  beforeEach(async () => {
    workspace = await tempWorkspace()
  })
  /**
   * Counts `bytes` as commands.json in the workspace, and through GitHub's API from a workspace
   * without it: one reading, or one refusal (thrown), both ways.
   */
  const read = async (bytes: Buffer): Promise<unknown> => {
    await writeFile(join(workspace, 'commands.json'), bytes)
    const apiUrl = await apiServing(bytes)
    const [local, api] = await Promise.all(
      [workspace, await tempWorkspace()].map(dir => countManifest(planVia(dir, apiUrl)).catch((error: unknown) => error))
    )
    if (local instanceof Error) {
      expect(api, "the same refusal through GitHub's API").toStrictEqual(local)
      throw local
    }
    expect(api, "the same count through GitHub's API").toEqual({ ...(local as object), readFrom: 'repository' })
    return local
  }
  // What Windows PowerShell 5.1's `ConvertTo-Json | Out-File` writes: CRLF, indented.
  const windows = fixture('wrapped.json').replace(/\r?\n/g, '\r\n')
  /** `text` in UTF-32, as PowerShell's -Encoding utf32 (LE) writes it. */
  const utf32 = (text: string, order: 'LE' | 'BE'): Buffer =>
    Buffer.concat(
      [...text].map(char => {
        const bytes = Buffer.alloc(4)
        bytes[`writeUInt32${order}`](char.codePointAt(0)!)
        return bytes
      })
    )

  it.each([
    ['UTF-16 LE with a byte order mark (Windows PowerShell 5.1 `>` and Out-File)', [0xff, 0xfe], Buffer.from(windows, 'utf16le')],
    ['UTF-16 BE with a byte order mark', [0xfe, 0xff], Buffer.from(windows, 'utf16le').swap16()],
    ['UTF-16 BE with a stray last byte', [0xfe, 0xff], Buffer.concat([Buffer.from(windows, 'utf16le').swap16(), Buffer.of(0x0a)])],
    ['UTF-8 with a byte order mark and CRLF line ends', [0xef, 0xbb, 0xbf], Buffer.from(windows)]
  ])('%s is read', async (_, bom, body) => {
    expect(await read(Buffer.concat([Buffer.from(bom), body]))).toEqual({ count: 3, warnings: [], readFrom: 'workspace' })
  })

  it.each([
    ['LE with a byte order mark', utf32(`\ufeff${windows}`, 'LE')],
    ['BE with a byte order mark', utf32(`\ufeff${windows}`, 'BE')],
    ['LE without one', utf32(windows, 'LE')]
  ])('UTF-32 %s is refused by name, with the fix, not taken for UTF-16', async (_, bytes) => {
    const message = await actionErrorAsync(() => read(bytes))
    expect(message).toMatch(/ UTF-32\b.*Out-File -Encoding utf8/)
    expect(message).not.toMatch(/UTF-16|JSON/)
  })

  it('UTF-16 without a byte order mark is refused, naming it and the fix, with no raw NUL in the message', async () => {
    const message = await actionErrorAsync(() => read(Buffer.from(windows, 'utf16le')))
    expect(message).toMatch(/looks like UTF-16 without a byte order mark .* Out-File -Encoding utf8/)
    expect(message.includes('\u0000') || message.includes('\ufffd')).toBe(false)
  })

  it('a legacy code page (Windows-1252 "é" as one byte) is refused, naming UTF-8 and the fix', async () => {
    const bytes = Buffer.from('[{"name":"caf\xe9"}]', 'latin1')
    const message = await actionErrorAsync(() => read(bytes))
    expect(message).toMatch(/is not UTF-8 \(a legacy code page such as Windows-1252/)
    expect(message).not.toMatch(/\ufffd/)
  })

  it('a manifest that ConvertTo-Json cut at its default depth says so, with -Depth, when the lost options matter', () => {
    // ConvertTo-Json -Depth 2 (the default) writes the options of each command as text.
    const cut = JSON.stringify([{ name: 'admin', options: ['@{name=ban; type=1; options=System.Object[]}'] }])
    const message = actionError(() => countManifestText(cut, ORIGIN, true))
    expect(message).toMatch(/looks cut short by PowerShell's ConvertTo-Json, .*add -Depth 20 to ConvertTo-Json\.$/)
    // Without subcommands the top-level count is whole.
    expect(countManifestText(cut, ORIGIN, false).count).toBe(1)
  })
})

describe("countManifest through GitHub's API", () => {
  /** GitHub's fake, whose next answer is `fault`'s, closed when the test finishes. */
  async function gitHubAnswering(fault: Fault): Promise<GitHubFake> {
    const github = await GitHubFake.start({ repository: 'example/bot', sha: SHA, token: TOKEN, files: {} })
    afterTest(() => github.close())
    github.inject('contents', fault)
    return github
  }

  it("GitHub's deprecation notice, which quotes its headers, prints nothing; the file is still read", async () => {
    // Octokit's request writes the notice with console.warn unless given a log of its own.
    const github = await gitHubAnswering({
      kind: 'answer',
      status: 200,
      headers: {
        'Content-Type': 'application/vnd.github.raw',
        Deprecation: 'true',
        Sunset: '::warning::x',
        Link: '<##[error]y>; rel="deprecation"'
      },
      body: fixture('wrapped.json')
    })
    const warn = vi.spyOn(console, 'warn')
    const stderr = vi.spyOn(process.stderr, 'write')
    afterTest(() => [warn, stderr].forEach(spy => spy.mockRestore()))
    expect(await countManifest(planVia(await tempWorkspace(), github.url))).toMatchObject({ count: 3, readFrom: 'repository' })
    expect(github.requests.map(r => r.status)).toEqual([200])
    expect(warn).not.toHaveBeenCalled()
    expect(stderr).not.toHaveBeenCalled()
  })

  it('refuses a directory, which GitHub lists as JSON', async () => {
    const listing = JSON.stringify([{ type: 'file', name: 'commands.json', path: 'commands.json/commands.json' }])
    const github = await gitHubAnswering({
      kind: 'answer',
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: listing
    })
    const plan = planVia(await tempWorkspace(), github.url)
    expect(await actionErrorAsync(() => countManifest(plan))).toContain('(the path is not a file)')
  })
})
