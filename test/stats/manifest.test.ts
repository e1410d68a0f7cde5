/**
 * Command manifests (src/stats/manifest.ts, commands.ts), in process: the shapes and counts, every
 * refusal's sentence (pinned once, in a table), the file in the workspace or read from the
 * repository, and the bytes people's tools write, which read the same both ways.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { chmod, mkdir, open, symlink, writeFile } from 'node:fs/promises'
import * as http from 'node:http'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { countCommands } from '../../src/stats/commands.js'
import { countManifest, countManifestText, type ManifestPlan } from '../../src/stats/manifest.js'
import { ActionError } from '../../src/errors.js'
import { Requests } from '../../src/http/client.js'
import { readRepositoryFile } from '../../src/stats/github.js'
import { CONTROL_CHARACTER } from '../../src/text.js'
import { PERMISSIONS_BIND, tempWorkspace, unprivileged } from '../support/inprocess.js'
import { afterTest, listenForTest } from '../support/teardown.js'

const FIXTURES = fileURLToPath(new URL('../fixtures/manifests/', import.meta.url))
const fixtureBytes = (name: string): Buffer => readFileSync(join(FIXTURES, name))
const fixture = (name: string): string => fixtureBytes(name).toString('utf8')
const ORIGIN = "Input 'commands-file' (commands.json)"
const FIVE_MB = 5 * 1024 * 1024
const SHA = '0123456789abcdef0123456789abcdef01234567'
const TOKEN = 'ghs_manifestJobToken0123456789'
const count = (text: string, countSubcommands = false) =>
  countManifestText(text, ORIGIN, countSubcommands)

/** What `run` threw, at once or in time: an ActionError with a one-line message. */
async function refusal(run: () => unknown): Promise<ActionError> {
  const caught: unknown = await Promise.resolve()
    .then(run)
    .catch((error: unknown) => error)
  expect(caught).toBeInstanceOf(ActionError)
  expect((caught as ActionError).message).not.toMatch(/[\r\n]/)
  return caught as ActionError
}
const message = async (run: () => unknown): Promise<string> => (await refusal(run)).message

describe('counting', () => {
  it.each([
    // fixture, count by default, count with count-subcommands
    ['discordjs-v1.json', 5, 1 + 1 + 1 + 5 + 4],
    ['discordjs-v2.json', 6, 1 + 3 + 1 + 1 + 1 + 1],
    ['rest-body.json', 7, 7],
    ['saved-get.json', 10, 6 + 3 + 1 + 1 + 1],
    ['wrapped.json', 3, 3],
    ['keyed.json', 3, 1 + 2 + 1]
  ])(
    '%s counts %i, or %i with subcommands, with or without a byte order mark',
    (name, plain, withSubcommands) => {
      for (const text of [fixture(name), `\uFEFF${fixture(name)}`]) {
        expect(count(text)).toEqual({ count: plain, warnings: [] })
        expect(count(text, true)).toEqual({ count: withSubcommands, warnings: [] })
      }
    }
  )

  it.each([false, true])(
    'duplicates.json counts 4 and warns once, of "ping" only: the two "Report" differ by type',
    sub => {
      const warning = `${ORIGIN} lists the chat input command "ping" 2 times; each was counted once.`
      expect(count(fixture('duplicates.json'), sub)).toEqual({ count: 4, warnings: [warning] })
    }
  )

  it('names at most 20 duplicates in its one warning, an absent "type" being chat input', () => {
    const names = Array.from({ length: 25 }, (_, i) => `cmd${String(i).padStart(2, '0')}`)
    const text = JSON.stringify([
      ...names.map(name => ({ name })),
      ...names.map(name => ({ type: 1, name })),
      { name: 'cmd00' }
    ])
    const { count: counted, warnings } = count(text)
    expect(counted).toBe(25)
    const named =
      / lists the chat input command "cmd00" 3 times, the chat input command "cmd01" 2 times, .*"cmd19" 2 times, and 5 more; /
    expect(warnings).toEqual([expect.stringMatching(named)])
    expect(warnings[0]).not.toContain('"cmd20"')
  })

  it("refuses more than the service's 1,000 commands, subcommands counting only with count-subcommands", async () => {
    const commands = (n: number, subcommands = 0): string =>
      JSON.stringify(
        Array.from({ length: n }, (_, i) => ({
          name: `command-${i}`,
          options: Array.from({ length: subcommands }, (_, j) => ({ type: 1, name: `sub-${j}` }))
        }))
      )
    expect(count(commands(1000)).count).toBe(1000)
    expect(count(commands(1000), true).count).toBe(1000)
    expect(count(commands(600, 2)).count).toBe(600)
    expect(await message(() => count(commands(1001)))).toBe(
      `${ORIGIN} counts 1001 commands, more than the service's maximum of 1000.`
    )
    expect(await message(() => count(commands(600, 2), true))).toBe(
      `${ORIGIN} counts 1200 commands (with subcommands), more than the service's maximum of 1000. ` +
        'Set count-subcommands: false to count top-level commands.'
    )
  })

  it('reads a command ConvertTo-Json cut at its default depth, and says so with -Depth when the lost options matter', async () => {
    const cut = JSON.stringify([
      { name: 'admin', options: ['@{name=ban; type=1; options=System.Object[]}'] }
    ])
    expect(count(cut).count).toBe(1)
    const error = await refusal(() => count(cut, true))
    expect(error.message).toBe(
      `${ORIGIN}: [0].options[0] has no integer "type"; expected an application command option. The manifest looks cut short by ` +
        "PowerShell's ConvertTo-Json, which writes objects deeper than its -Depth (2 by default) as text like " +
        '"@{name=ban; type=1; options=System.Objec": add -Depth 20 to ConvertTo-Json.'
    )
    expect(error.headline).toBe('commands-file cut by ConvertTo-Json')
  })
})

describe('refusals of the text', () => {
  const TYPES = 'expected 1 (chat input), 2 (user), 3 (message) or 4 (entry point).'
  const SHAPES =
    'expected a JSON array of commands, an object with a "commands" array, or an object keyed by command name.'
  const OPTION = 'has no integer "type"; expected an application command option.'
  const group = (inner: string): string =>
    `[{"name":"config","options":[{"type":2,"name":"log",${inner}}]}]`
  // The manifest, whether the message needs count-subcommands, and the message after ORIGIN.
  it.each([
    ['no-name.json', false, ': commands[3] has no "name".'],
    ['[1]', false, ': [0] is a number; expected a command object with a "name".'],
    ['[{"name":"ping"}, null]', false, ': [1] is null; expected a command object with a "name".'],
    ['[{"name":42}]', false, ': [0] has a "name" that is a number; expected a non-empty string.'],
    ['[{"name":"ping","type":7}]', false, `: [0] ("ping") has "type": 7; ${TYPES}`],
    [
      '[{"name":"ping","type":"CHAT_INPUT"}]',
      false,
      `: [0] ("ping") has "type": "CHAT_INPUT"; ${TYPES}`
    ],
    [
      '[{"name":"ping","options":{"type":3}}]',
      false,
      ': [0] ("ping") has "options" that is an object; expected an array.'
    ],
    [
      '[{"name":"ping"},{"name":"config","options":[{"type":1,"name":"show"},{"name":"reset"}]}]',
      true,
      `: [1].options[1] ${OPTION}`
    ],
    [group('"options":[{"type":"1","name":"on"}]'), true, `: [0].options[0].options[0] ${OPTION}`],
    [group('"options":{}'), true, ': [0].options[0] has "options" that is not an array.'],
    ['"ping"', false, ` holds a string; ${SHAPES}`],
    ['42', false, ` holds a number; ${SHAPES}`],
    ['null', false, ` holds null; ${SHAPES}`],
    ['true', false, ` holds a boolean; ${SHAPES}`],
    ['{"ping":"Check the latency"}', false, ` holds an object that is neither; ${SHAPES}`],
    ['{"commands":"ping"}', false, ` holds an object that is neither; ${SHAPES}`],
    ['{"ping":{},"version":2}', false, ` holds an object that is neither; ${SHAPES}`],
    ['{"ping":{"type":7}}', false, `: ["ping"] ("ping") has "type": 7; ${TYPES}`]
  ])('refuses %s (count-subcommands %s)', async (given, countSubcommands, expected) => {
    const text = given.endsWith('.json') ? fixture(given) : given
    expect(await message(() => count(text, countSubcommands))).toBe(`${ORIGIN}${expected}`)
    // Options are read only to count subcommands.
    if (countSubcommands) expect(count(text).count).toBeGreaterThan(0)
  })

  const twoCommands =
    '[\n  {"name": "ping", "description": "Check the latency"},\n  {"name": "help", "description": "List the commands"}'
  it.each([
    [
      'a trailing comma in an object',
      fixture('invalid-json.json'),
      /^Expected double-quoted property name in JSON at position \d+/
    ],
    [
      'a trailing comma, after a byte order mark',
      `\uFEFF${fixture('invalid-json.json')}`,
      /at position \d+/
    ],
    [
      'a trailing comma in an array',
      `${twoCommands},\n]`,
      /Unexpected token '\]', .*is not valid JSON/
    ],
    [
      'a // comment',
      `[\n  // utility commands\n${twoCommands.slice(2)}\n]`,
      /Unexpected token '\/', "\[ \/\/ utility/
    ],
    ['a misspelt literal', `${twoCommands.slice(0, -1)}, "nsfw": tru}\n]`, /Unexpected token '}'/],
    ['an empty file', '', /^Unexpected end of JSON input$/],
    [
      'a file that ends early',
      fixture('discordjs-v1.json').slice(0, 200),
      /Unexpected end of JSON input|position 200/
    ]
  ])("refuses %s as invalid JSON, saying where in Node's words", async (_, text, where) => {
    const said = await message(() => count(text))
    const prefix = `${ORIGIN} is not valid JSON: `
    expect(said.slice(0, prefix.length)).toBe(prefix)
    expect(said.slice(prefix.length)).toMatch(where)
  })

  // V8 quotes the offending character raw, and the text around it with its line breaks.
  it.each([['{"a":1\r,"b"\r:\rtru}'], ['["a\rb"]'], ['[1,\x1b]'], ['[1,\u009b]'], ['[1,\u2028]']])(
    'shows no raw control character of the file: %j',
    async text => expect(await message(() => count(text))).not.toMatch(CONTROL_CHARACTER)
  )

  const DEEP = 100_000
  const field = `[\n  {"name": "ping", "description": "Pong", "extra": ${'['.repeat(DEEP)}${']'.repeat(DEEP)}}\n]`
  it.each([
    ['[ (broken JSON)', '['.repeat(DEEP), 'line 1, column 101'],
    ['[ across lines', '[\n'.repeat(DEEP), 'line 101, column 1'],
    ['{"a":', '{"a":'.repeat(DEEP), 'line 1, column 501'],
    ['arrays (valid JSON)', `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`, 'line 1, column 101'],
    [
      "a command's field (valid JSON)",
      field,
      `line 2, column ${field.split('\n')[1]!.indexOf('[') + 99}`
    ]
  ])(
    'refuses %s nested 100,000 deep where it passes 100 levels, not with a stack overflow',
    async (_, text, where) => {
      expect(await message(() => count(text, true))).toBe(
        `${ORIGIN} is nested more than 100 levels deep at ${where}; a command manifest is about 12 levels deep. Check the path and the file.`
      )
    }
  )

  it('accepts nesting 100 deep, and counts brackets inside strings as text', async () => {
    const nested = (depth: number): string =>
      `[{"name":"ping","description":"${'[{'.repeat(500)}","x":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}]`
    expect(count(nested(100), true).count).toBe(1)
    // An escaped quote does not end the string: the brackets after it are still text.
    const escaped = `[{"name":"ping","description":"\\"${'['.repeat(DEEP)}"}]`
    expect(count(escaped).count).toBe(1)
    expect(await message(() => count(nested(101), true))).toContain(
      'nested more than 100 levels deep at line 1, column'
    )
  })

  it('a Discord answer, not depth-checked: a deep or long "type" named by its kind or cut short; options read no deeper than Discord\'s', async () => {
    const discord = (value: object, countSubcommands = false) =>
      countCommands(
        { origin: "Discord's global commands", entries: [{ label: '[0]', value }] },
        countSubcommands
      )
    let deep: unknown = 1
    for (let i = 0; i < DEEP; i++) deep = [deep]
    const TYPE = `Discord's global commands: [0] ("ping") has "type"`
    expect(await message(() => discord({ name: 'ping', type: deep }))).toBe(
      `${TYPE}: an array; ${TYPES}`
    )
    expect(await message(() => discord({ name: 'ping', type: 'x'.repeat(10_000) }))).toBe(
      `${TYPE}: "${'x'.repeat(40)}…"; ${TYPES}`
    )
    const command = {
      name: 'config',
      options: [{ type: 2, name: 'log', options: [{ type: 1, name: 'on', options: deep }] }]
    }
    expect(discord(command, true).count).toBe(1)
  })
})

describe('the file', () => {
  const plan = (
    workspace: string,
    given: string,
    extra: Partial<ManifestPlan> = {}
  ): ManifestPlan => ({
    given,
    path: resolve(workspace, given),
    countSubcommands: false,
    workspace,
    ...extra
  })
  const unused = () => vi.fn(async (_path: string) => Buffer.from('[]'))

  it.each([
    ['bot/commands.json', 'workspace'],
    ['..generated/commands.json', 'workspace'],
    ['config/bot/commands.json', 'repository'],
    ['..generated/commands.json', 'repository'],
    ['<workspace>/data/commands.json', 'repository']
  ])(
    '%s is read from the %s: the repository only when the file is missing, by its path there',
    async (given, readFrom) => {
      const workspace = await tempWorkspace(
        readFrom === 'workspace' ? { [given]: fixture('discordjs-v1.json') } : {}
      )
      const fromRepository = vi.fn(async (_path: string) => fixtureBytes('discordjs-v1.json'))
      const p = plan(workspace, given.replace('<workspace>', workspace), { fromRepository })
      expect(await countManifest(p)).toEqual({ count: 5, warnings: [], readFrom })
      expect(await countManifest({ ...p, countSubcommands: true })).toMatchObject({
        count: 12,
        readFrom
      })
      const inRepository = given.replace('<workspace>/', '')
      expect(fromRepository.mock.calls).toEqual(
        readFrom === 'repository' ? [[inRepository], [inRepository]] : []
      )
    }
  )

  it('refuses a directory and a file over 5 MB without trying the repository, and more than 5 MB from the repository', async () => {
    const workspace = await tempWorkspace()
    await mkdir(join(workspace, 'commands'))
    const handle = await open(join(workspace, 'huge.json'), 'w')
    await handle.truncate(FIVE_MB + 1) // sparse: no 5 MB written to disk
    await handle.close()
    const fromRepository = unused()
    expect(
      await message(() => countManifest(plan(workspace, 'commands', { fromRepository })))
    ).toBe(
      `Input 'commands-file' (commands): ${join(workspace, 'commands')} is a directory; give the path of the JSON file.`
    )
    const TOO_LARGE = 'is larger than 5 MB, too large for a command manifest. Check the path.'
    expect(
      await message(() => countManifest(plan(workspace, 'huge.json', { fromRepository })))
    ).toBe(`Input 'commands-file' (huge.json) ${TOO_LARGE}`)
    expect(fromRepository).not.toHaveBeenCalled()
    const huge = async (): Promise<Buffer> => Buffer.from(`[${' '.repeat(FIVE_MB)}]`)
    expect(
      await message(() => countManifest(plan(workspace, 'commands.json', { fromRepository: huge })))
    ).toBe(`${ORIGIN} ${TOO_LARGE}`)
  })

  // A manifest is read only as a regular file of the workspace: neither a link out of it nor what
  // would block or is not a file, refused before the repository is tried.
  const POSIX = process.platform !== 'win32'
  it.runIf(POSIX)('a link out of the workspace is refused, naming where it leads', async () => {
    const elsewhere = await tempWorkspace({ 'secret.json': '[{"name":"top-secret"}]' })
    const workspace = await tempWorkspace()
    await symlink(join(elsewhere, 'secret.json'), join(workspace, 'commands.json'))
    const fromRepository = unused()
    const said = await message(() =>
      countManifest(plan(workspace, 'commands.json', { fromRepository }))
    )
    expect(said).toBe(
      `${ORIGIN}: ${join(workspace, 'commands.json')} resolves to ${realpathSync(join(elsewhere, 'secret.json'))}, ` +
        `outside the workspace ${realpathSync(workspace)}. Give the path of a file in the repository; a symbolic link ` +
        'may not point out of the workspace.'
    )
    expect(said).not.toContain('top-secret')
    expect(fromRepository).not.toHaveBeenCalled()
  })

  it.runIf(POSIX)('a named pipe is refused at once, not waited on', async () => {
    const workspace = await tempWorkspace()
    execFileSync('mkfifo', [join(workspace, 'commands.json')])
    expect(await message(() => countManifest(plan(workspace, 'commands.json')))).toBe(
      `${ORIGIN}: ${join(workspace, 'commands.json')} is not a regular file (a named pipe); give the path of the JSON file.`
    )
  })

  const cannotRead = (workspace: string, code: string): string =>
    `${ORIGIN}: ${join(workspace, 'commands.json')} cannot be read (${code}). Check the path and the file's permissions.`

  it.runIf(POSIX)('a link that leads to itself cannot be read, and says why', async () => {
    const workspace = await tempWorkspace()
    await symlink('commands.json', join(workspace, 'commands.json'))
    const fromRepository = unused()
    expect(
      await message(() => countManifest(plan(workspace, 'commands.json', { fromRepository })))
    ).toBe(cannotRead(workspace, 'ELOOP'))
    expect(fromRepository).not.toHaveBeenCalled()
  })

  // The runner's user, not root: a file's mode binds it.
  it.runIf(PERMISSIONS_BIND)(
    'a file its user may not read (EACCES) says so, before the repository is tried',
    async () => {
      const workspace = await tempWorkspace({ 'commands.json': '[{"name":"ping"}]' })
      await chmod(workspace, 0o755)
      await chmod(join(workspace, 'commands.json'), 0o000)
      const fromRepository = unused()
      const p = plan(workspace, 'commands.json', { fromRepository })
      expect(await unprivileged(() => message(() => countManifest(p)))).toBe(
        cannotRead(workspace, 'EACCES')
      )
      expect(fromRepository).not.toHaveBeenCalled()
    }
  )

  it.runIf(PERMISSIONS_BIND)(
    'a missing file in a checked-out workspace its user may not list: the advice without the listing',
    async () => {
      const workspace = await tempWorkspace({ '.git/HEAD': '' })
      await chmod(workspace, 0o711)
      const path = join(workspace, 'config/commands.json')
      const p = plan(workspace, 'commands.json', { path, fromRepository: unused() })
      const error = await unprivileged(() => refusal(() => countManifest(p)))
      expect(error.message).toBe(
        `${ORIGIN}: no file at ${path}. The workspace is checked out; the workspace cannot be listed. ` +
          'Check the path for a typo, and that the step that writes the file runs before this one.'
      )
      expect(error.headline).toBe('commands-file not found')
    }
  )

  it('reads a file of exactly 5 MB, from the workspace and from the repository', async () => {
    const bytes = Buffer.from(`[${' '.repeat(FIVE_MB - 2)}]`)
    const workspace = await tempWorkspace()
    await writeFile(join(workspace, 'commands.json'), bytes)
    const fromRepository = vi.fn(async (_path: string) => bytes)
    expect(await countManifest(plan(workspace, 'commands.json'))).toEqual({
      count: 0,
      warnings: [],
      readFrom: 'workspace'
    })
    expect(
      await countManifest(plan(await tempWorkspace(), 'commands.json', { fromRepository }))
    ).toEqual({ count: 0, warnings: [], readFrom: 'repository' })
  })

  const CHECKOUT =
    'Add an actions/checkout step before this one, or grant the job `permissions: contents: read`.'
  const REUSABLE =
    "This job is the reusable workflow's, which cannot check out and build your code: commit the manifest to the repository " +
    "(it is read at the run's commit), or run the action in a job of your own after actions/checkout and the step that writes the file."
  const TYPO =
    'Check the path for a typo, and that the step that writes the file runs before this one.'
  const failing = (error: Error) =>
    vi.fn(async (_path: string): Promise<Buffer> => Promise.reject(error))
  const files = (names: string[]): Record<string, string> =>
    Object.fromEntries(names.map(name => [name, '']))
  const twelve = files(Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`))
  type Row = Partial<ManifestPlan> & {
    files?: Record<string, string>
    asked?: boolean
    headline?: string
  }
  // What the workspace and the plan hold (the path config/commands.json unless given), and the
  // message after "no file at <path>".
  it.each<[string, Row, string]>([
    [
      'with no repository to try',
      {},
      `, and it could not be read from the repository (the repository and a github-token are needed). ${CHECKOUT}`
    ],
    [
      'outside the workspace',
      { path: '/etc/discord-place-no-such-dir/commands.json', fromRepository: unused() },
      `, and it could not be read from the repository (the path is outside the workspace). ${CHECKOUT}`
    ],
    [
      'in a checked-out workspace: the nearest folder is named, not a checkout step',
      {
        files: files(['.git/HEAD', 'config/comands.json', 'config/index.js', 'config/out/x']),
        path: 'config/gen/c.json',
        fromRepository: unused()
      },
      `. The workspace is checked out; the nearest existing folder, config/, holds comands.json, index.js, out/. ${TYPO}`
    ],
    [
      'in a checked-out empty workspace',
      { files: files(['.git/HEAD']) },
      `. The workspace is checked out; the nearest existing folder, the workspace root, is empty. ${TYPO}`
    ],
    [
      'in a checked-out workspace of 12 files',
      { files: { ...twelve, '.git/HEAD': '' } },
      '. The workspace is checked out; the nearest existing folder, the workspace root, holds ' +
        `f00.txt, f01.txt, f02.txt, f03.txt, f04.txt, f05.txt, f06.txt, f07.txt, f08.txt, f09.txt and 2 more. ${TYPO}`
    ],
    [
      'in a checked-out workspace of 10 files: all named',
      { files: { ...files(Object.keys(twelve).slice(0, 10)), '.git/HEAD': '' } },
      '. The workspace is checked out; the nearest existing folder, the workspace root, holds ' +
        `f00.txt, f01.txt, f02.txt, f03.txt, f04.txt, f05.txt, f06.txt, f07.txt, f08.txt, f09.txt. ${TYPO}`
    ],
    [
      'in a checked-out workspace, two folders down',
      { files: files(['.git/HEAD', 'config/gen/x.json']), path: 'config/gen/out/c.json' },
      `. The workspace is checked out; the nearest existing folder, config/gen/, holds x.json. ${TYPO}`
    ],
    [
      'where a file stands for a folder of its path',
      { files: files(['config']) },
      `, and it could not be read from the repository (the repository and a github-token are needed). ${CHECKOUT}`
    ],
    [
      'nor in a repository it has no name for',
      {
        fromRepository: failing(new Error('HttpError: Not Found (404)')),
        repositoryLabel: undefined,
        asked: true
      },
      `, and reading config/commands.json from the repository through the GitHub API failed (HttpError: Not Found (404)). ${CHECKOUT}`
    ],
    [
      'nor in the repository',
      { fromRepository: failing(new Error('HttpError: Not Found (404)')), asked: true },
      `, and reading config/commands.json from example/bot at 0123abc through the GitHub API failed (HttpError: Not Found (404)). ${CHECKOUT}`
    ],
    [
      'nor in the repository, inside the reusable workflow: advice its caller can follow',
      {
        fromRepository: failing(new Error('404: Not Found')),
        asked: true,
        inReusableWorkflow: true
      },
      `, and reading config/commands.json from example/bot at 0123abc through the GitHub API failed (404: Not Found). ${REUSABLE}`
    ],
    [
      "with GitHub's API unreachable: network advice, not checkout advice",
      {
        fromRepository: failing(
          Object.assign(new Error('could not connect to api.github.com'), { network: true })
        ),
        asked: true,
        headline: 'GitHub unreachable'
      },
      ", and GitHub's API could not be reached to read it from the repository (could not connect to api.github.com). " +
        "Check the runner's network and proxy settings; the next run will try again."
    ]
  ])(
    'a missing file %s',
    async (
      _,
      { files: given = {}, asked, headline = 'commands-file not found', ...extra },
      expected
    ) => {
      const workspace = await tempWorkspace(given)
      const path = resolve(workspace, extra.path ?? 'config/commands.json')
      const p = plan(workspace, 'commands.json', {
        repositoryLabel: 'example/bot at 0123abc',
        ...extra,
        path
      })
      const error = await refusal(() => countManifest(p))
      expect(error.message).toBe(`${ORIGIN}: no file at ${path}${expected}`)
      expect(error.headline).toBe(headline)
      if (p.fromRepository)
        expect(vi.mocked(p.fromRepository).mock.calls).toEqual(
          asked ? [['config/commands.json']] : []
        )
    }
  )
})

/**
 * GitHub's contents API answering every request with `body`, raw unless `headers` say otherwise.
 */
async function gitHub(
  body: Buffer | string,
  headers: Record<string, string> = { 'Content-Type': 'application/vnd.github.raw' }
): Promise<string> {
  const server = http.createServer((_req, res) => res.writeHead(200, headers).end(body))
  return `http://127.0.0.1:${await listenForTest(server)}`
}

/**
 * commands.json in `workspace`, read through GitHub's API at `apiUrl` when it is not there, as
 * manifestCount does.
 */
function planVia(workspace: string, apiUrl: string): ManifestPlan {
  const requests = new Requests({ attemptTimeoutMs: 5_000, totalMs: 60_000 })
  return {
    given: 'commands.json',
    path: join(workspace, 'commands.json'),
    countSubcommands: false,
    workspace,
    fromRepository: path =>
      readRepositoryFile(
        { token: TOKEN, repository: 'example/bot', ref: SHA, path, apiUrl },
        requests
      )
  }
}

describe("files as people's tools write them, the same from the workspace and through GitHub's API", () => {
  /**
   * Counts `bytes` as commands.json in a workspace, and through GitHub's API from one without it:
   * one result or one refusal.
   */
  const read = async (bytes: Buffer): Promise<unknown> => {
    const apiUrl = await gitHub(bytes)
    const workspace = await tempWorkspace()
    await writeFile(join(workspace, 'commands.json'), bytes)
    const [local, api] = await Promise.all(
      [workspace, await tempWorkspace()].map(dir =>
        countManifest(planVia(dir, apiUrl)).catch((error: unknown) => error)
      )
    )
    if (local instanceof Error) {
      expect(api, "the same refusal through GitHub's API").toStrictEqual(local)
      throw local
    }
    expect(api, "the same count through GitHub's API").toEqual({
      ...(local as object),
      readFrom: 'repository'
    })
    return local
  }
  // What Windows PowerShell 5.1's `ConvertTo-Json | Out-File` writes: CRLF, indented.
  const windows = fixture('wrapped.json').replace(/\r?\n/g, '\r\n')
  const utf16 = Buffer.from(windows, 'utf16le')
  const utf32 = (text: string, order: 'LE' | 'BE'): Buffer =>
    Buffer.concat(
      [...text].map(char => {
        const bytes = Buffer.alloc(4)
        bytes[`writeUInt32${order}`](char.codePointAt(0)!)
        return bytes
      })
    )

  it.each([
    [
      'UTF-16 LE with a byte order mark (Windows PowerShell 5.1 `>` and Out-File)',
      [0xff, 0xfe],
      utf16
    ],
    ['UTF-16 BE with a byte order mark', [0xfe, 0xff], Buffer.from(utf16).swap16()],
    [
      'UTF-16 BE with a stray last byte',
      [0xfe, 0xff],
      Buffer.concat([Buffer.from(utf16).swap16(), Buffer.of(0x0a)])
    ],
    ['UTF-8 with a byte order mark and CRLF line ends', [0xef, 0xbb, 0xbf], Buffer.from(windows)]
  ])('%s is read', async (_, bom, body) => {
    expect(await read(Buffer.concat([Buffer.from(bom), body]))).toEqual({
      count: 3,
      warnings: [],
      readFrom: 'workspace'
    })
  })

  const FIX =
    'Write the file as UTF-8: in PowerShell, Out-File -Encoding utf8 or Set-Content -Encoding utf8 instead of >.'
  it.each([
    [
      'UTF-32 LE with a byte order mark',
      utf32(`\ufeff${windows}`, 'LE'),
      'is UTF-32, which is not read.'
    ],
    [
      'UTF-32 BE with a byte order mark',
      utf32(`\ufeff${windows}`, 'BE'),
      'is UTF-32, which is not read.'
    ],
    [
      'UTF-32 LE without one',
      utf32(windows, 'LE'),
      'looks like UTF-32 (three bytes in four are zero), which is not read.'
    ],
    [
      'UTF-16 without a BOM',
      utf16,
      'looks like UTF-16 without a byte order mark (every other byte is zero), which is not read.'
    ],
    [
      'a legacy code page (Windows-1252 "é" as one byte)',
      Buffer.from('[{"name":"caf\xe9"}]', 'latin1'),
      'is not UTF-8 (a legacy code page such as Windows-1252, or a binary file?), so it is not read.'
    ]
  ])('%s is refused by name, with the fix', async (_, bytes, expected) => {
    const error = await refusal(() => read(bytes))
    expect(error.message).toBe(`${ORIGIN} ${expected} ${FIX}`)
    expect(error.headline).toBe('commands-file not UTF-8')
  })
})

describe("GitHub's answers", () => {
  it('a deprecation notice, which quotes its headers, prints nothing; the file is still read', async () => {
    // Octokit's request writes the notice with console.warn unless given a log of its own.
    const headers = {
      'Content-Type': 'application/vnd.github.raw',
      Deprecation: 'true',
      Sunset: '::warning::x',
      Link: '<##[error]y>; rel="deprecation"'
    }
    const apiUrl = await gitHub(fixture('wrapped.json'), headers)
    const spies = [vi.spyOn(console, 'warn'), vi.spyOn(process.stderr, 'write')]
    afterTest(() => spies.forEach(spy => spy.mockRestore()))
    expect(await countManifest(planVia(await tempWorkspace(), apiUrl))).toEqual({
      count: 3,
      warnings: [],
      readFrom: 'repository'
    })
    for (const spy of spies) expect(spy).not.toHaveBeenCalled()
  })

  it('a directory, which GitHub lists as JSON, is refused', async () => {
    const listing = JSON.stringify([
      { type: 'file', name: 'commands.json', path: 'commands.json/commands.json' }
    ])
    const apiUrl = await gitHub(listing, { 'Content-Type': 'application/json; charset=utf-8' })
    expect(
      await message(async () => countManifest(planVia(await tempWorkspace(), apiUrl)))
    ).toContain('(the path is not a file)')
  })
})
