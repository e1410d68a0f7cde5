/**
 * Runs the committed bundle the way the GitHub Actions runner does: `node dist/index.js` with the
 * `INPUT_*` variables the runner derives from action.yml (test/support/runner.ts), `GITHUB_OUTPUT`
 * and `GITHUB_STEP_SUMMARY` files, the workspace as working directory, and no other environment
 * than a runner gives.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ActionTemplate } from '@actions/workflow-parser/actions/action-template'
import { inputEnvironment, inputVariable, parseActionFile } from './runner.js'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const BUNDLE = join(ROOT, 'dist/index.js')

/**
 * The Node the end-to-end tests run the bundle on: Node 24, the runtime action.yml declares
 * (`runs.using: node24`), and the only one a runner uses for it. scripts/node24.mjs finds it
 * (NODE24, this machine's own, or its cache; `npm test` fetches it into the cache first), or
 * gives undefined (the reason on stderr): then vitest.config.ts leaves the end-to-end tests out.
 */
export const NODE24: string | undefined = (() => {
  const located = spawnSync(process.execPath, [join(ROOT, 'scripts/node24.mjs'), '--locate'], {
    encoding: 'utf8'
  })
  return located.status === 0 && located.stdout.trim() !== '' ? located.stdout.trim() : undefined
})()

/**
 * action.yml as the runner loads it: through GitHub's own parser, which refuses the file on
 * any error (as "Fail to load action.yml" does before any step runs), so no end-to-end run
 * can pass on metadata a real runner would not load.
 */
let metadata: ActionTemplate | undefined
export async function actionMetadata(): Promise<ActionTemplate> {
  if (metadata === undefined) {
    const parsed = parseActionFile('action.yml', await readFile(join(ROOT, 'action.yml'), 'utf8'))
    if (parsed.template === undefined)
      throw new Error(`a runner would not load action.yml:\n${parsed.errors.join('\n')}`)
    metadata = parsed.template
  }
  return metadata
}

/** The job token the harness stands in for `${{ github.token }}`, and the commit it runs at. */
export const JOB_TOKEN = 'ghs_JobTokenForTestsQ7x9Zk2mV4pL8rT1wN'
export const GITHUB_SHA = '0123456789abcdef0123456789abcdef01234567'

export interface RunOptions {
  /** The step's `with:`: only inputs action.yml declares. */
  inputs: Record<string, string>
  /** The job's token, what `${{ github.token }}` evaluates to; JOB_TOKEN unless given. */
  jobToken?: string
  /** The workspace's files, by path relative to it. */
  files?: Record<string, string>
  /** Prepares the workspace further (links, pipes, sparse files) before the process starts. */
  setup?: (workspace: string) => Promise<unknown>
  /** Called with the started process, e.g. to signal it at a known moment. */
  control?: (child: ChildProcess) => void
  /** Extra environment, on top of what a runner sets. */
  env?: Record<string, string>
  node?: string
  /** Another copy of the bundle to run instead of dist/index.js. */
  bundle?: string
  /**
   * The process is killed if it has not exited by then, and the run fails with an error that
   * says so (a hung action fails an assertion, not the test's own timeout). Default 10 s.
   */
  timeoutMs?: number
}

/** A workflow command as the runner reads it from a line of stdout. */
export interface WorkflowCommand {
  /** Its name, lower case: `error`, `add-mask`, `set-output`, ... */
  command: string
  /** Its value, unescaped. */
  message: string
  properties: Record<string, string>
  /**
   * `::` for `::cmd props::value` at a line's start, `##[` for the legacy `##[cmd props]value`
   * anywhere in a line.
   */
  syntax: '::' | '##['
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  /** Workflow commands the runner would read from stdout, in either syntax (see parseCommands). */
  commands: WorkflowCommand[]
  /**
   * The stdout lines a person would see in the log (workflow commands other than annotations
   * hidden).
   */
  log: string[]
  durationMs: number
}

/**
 * Everything a run needs before the process starts, as the runner sets it up: a temporary
 * directory with the workspace (and its files), the `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`
 * files, and the environment (`INPUT_*` with action.yml's defaults applied). `cleanup`
 * removes the directory. Exported for the benchmark, which starts the process itself.
 */
export interface PreparedRun {
  node: string
  bundle: string
  env: Record<string, string>
  /** The workspace: the working directory of the process. */
  workspace: string
  outputFile: string
  summaryFile: string
  cleanup: () => Promise<void>
}

export async function prepareRun(options: RunOptions): Promise<PreparedRun> {
  // Refuses an input action.yml does not declare before anything is set up.
  const inputs = inputEnvironment(await actionMetadata(), options.inputs, {
    github: { token: options.jobToken ?? JOB_TOKEN }
  })

  const work = await mkdtemp(join(tmpdir(), 'action-run-'))
  const workspace = join(work, 'workspace')
  await mkdir(workspace)
  const [outputFile, summaryFile] = [join(work, 'output'), join(work, 'summary')]
  await Promise.all([outputFile, summaryFile].map(file => writeFile(file, '')))
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: work,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: 'example/bot',
    // The runner always sets it; here a loopback port where nothing listens, so that a run
    // that reads the repository without a fake of GitHub's API (GITHUB_API_URL in `env`)
    // is refused at once and never reaches the network.
    GITHUB_API_URL: 'http://127.0.0.1:9',
    GITHUB_SHA,
    RUNNER_TEMP: work,
    RUNNER_OS: 'Linux',
    ...inputs
  }
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(dirname(join(workspace, path)), { recursive: true })
    await writeFile(join(workspace, path), content)
  }
  await options.setup?.(workspace)
  Object.assign(env, options.env)

  const node = options.node ?? process.execPath
  if (!existsSync(node)) throw new Error(`no Node binary at ${node}: run npm ci`)
  const cleanup = (): Promise<void> => rm(work, { recursive: true, force: true })
  return {
    node,
    bundle: options.bundle ?? BUNDLE,
    env,
    workspace,
    outputFile,
    summaryFile,
    cleanup
  }
}

/** Runs dist/index.js once and collects everything a workflow would see. */
export async function runAction(options: RunOptions): Promise<RunResult> {
  const { node, bundle, env, workspace, outputFile, summaryFile, cleanup } =
    await prepareRun(options)
  const timeoutMs = options.timeoutMs ?? 10_000
  const started = performance.now()
  try {
    const child = spawn(node, [bundle], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] })
    options.control?.(child)
    let [stdout, stderr, killed] = ['', '', false]
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => (killed = child.kill('SIGKILL')), timeoutMs)
    const code = await new Promise<number | null>((done, reject) =>
      child.on('error', reject).on('close', done)
    )
    clearTimeout(timer)
    const durationMs = performance.now() - started
    if (killed)
      throw new Error(
        `the action did not exit within ${timeoutMs / 1000} s and was killed; its output so far:\n${stdout}\n${stderr}`
      )
    const outputs = parseOutputFile(await readFile(outputFile, 'utf8'))
    const result = {
      code,
      stdout,
      stderr,
      outputs,
      summary: await readFile(summaryFile, 'utf8'),
      ...parseCommands(stdout),
      durationMs
    }
    sweepSecrets(result, env)
    return result
  } finally {
    await cleanup()
  }
}

/**
 * The secrets sweep: every run of every end-to-end test (and of runInProcess) is checked for the
 * secrets it was given (the API key, the Discord token, the GitHub token), in stdout, stderr, the
 * summary and the outputs. A leak fails the test that made the run, whatever it asserts itself.
 */
export function sweepSecrets(result: RunResult, env: Record<string, string>): void {
  const secrets = ['api-key', 'discord-token', 'github-token']
    .map(name => env[inputVariable(name)] ?? '')
    .filter(s => s.length >= 6)
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) {
    const password = env[name] ? new URL(env[name]).password : ''
    if (password) secrets.push(decodeURIComponent(password))
  }
  const leaks = findLeaks(result, secrets)
  if (leaks.length > 0)
    throw new Error(
      `secrets sweep: a secret given to the run showed up (${leaks.join(', ')}):\n${result.stdout}`
    )
}

/** Parses `name<<DELIMITER\nvalue\nDELIMITER` records, as the runner does. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name, delimiter] = heredoc
      const value: string[] = []
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i]!)
      outputs[name!] = value.join('\n')
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
    }
  }
  return outputs
}

/**
 * The commands the runner registers (actions/runner, ActionCommandManager and its extensions);
 * a line naming any other is printed as it is. `stop-commands` is handled there too.
 */
const RUNNER_COMMANDS = new Set([
  ...[
    'add-mask',
    'add-path',
    'add-matcher',
    'debug',
    'echo',
    'endgroup',
    'error',
    'group',
    'internal-set-repo-path'
  ],
  ...['notice', 'remove-matcher', 'save-state', 'set-env', 'set-output', 'stop-commands', 'warning']
])

/**
 * Reads stdout as the runner does (actions/runner, ActionCommand.TryParseV2 then TryParse):
 * - `::name props::value` where a line starts with `::` after leading whitespace, properties
 *   `key=value` separated by `,`;
 * - the legacy `##[name props]value` wherever `##[` appears in a line, properties separated by `;`.
 * Only registered names are commands. Annotations show in `log` as `error: message`; other
 * commands are consumed by the runner and do not show.
 */
export function parseCommands(stdout: string): Pick<RunResult, 'commands' | 'log'> {
  const commands: WorkflowCommand[] = []
  const log: string[] = []
  for (const line of stdout.split(/\r?\n/)) {
    const command = parseCommandLine(line)
    if (command !== undefined) {
      commands.push(command)
      if (['error', 'warning', 'notice'].includes(command.command))
        log.push(`${command.command}: ${command.message}`)
    } else if (line !== '') {
      log.push(line)
    }
  }
  return { commands, log }
}

function parseCommandLine(line: string): WorkflowCommand | undefined {
  const trimmed = line.trimStart()
  const end = trimmed.startsWith('::') ? trimmed.indexOf('::', 2) : -1
  const command =
    end < 0 ? undefined : commandOf('::', trimmed.slice(2, end), trimmed.slice(end + 2))
  if (command !== undefined) return command
  const start = line.indexOf('##[')
  const close = start < 0 ? -1 : line.indexOf(']', start)
  return close < 0
    ? undefined
    : commandOf('##[', line.slice(start + 3, close), line.slice(close + 1))
}

/** The command from its `name properties` part and its value, if the runner registers the name. */
function commandOf(
  syntax: WorkflowCommand['syntax'],
  info: string,
  value: string
): WorkflowCommand | undefined {
  const space = info.indexOf(' ')
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase()
  if (!RUNNER_COMMANDS.has(name)) return undefined
  const legacy = syntax === '##['
  const properties: Record<string, string> = {}
  for (const pair of (space < 0 ? '' : info.slice(space + 1)).split(legacy ? ';' : ',')) {
    const equals = pair.indexOf('=')
    if (equals > 0)
      properties[pair.slice(0, equals)] = unescape(
        pair.slice(equals + 1),
        legacy ? ESCAPES.legacy : ESCAPES.property
      )
  }
  return {
    command: name,
    message: unescape(value, legacy ? ESCAPES.legacy : ESCAPES.value),
    properties,
    syntax
  }
}

/**
 * The runner's escapes, undone in its order, `%25` last: a `::` command's value, its properties,
 * and the legacy syntax's.
 */
const ESCAPES = {
  value: ['%0A', '%0D'],
  property: ['%3A', '%2C', '%0A', '%0D'],
  legacy: ['%3B', '%0D', '%0A', '%5D']
}
const unescape = (text: string, codes: string[]): string =>
  [...codes, '%25'].reduce(
    (unescaped, code) => unescaped.replaceAll(code, decodeURIComponent(code)),
    text
  )

/** The messages of the `::error::` commands a run printed. */
export function errorsOf(result: RunResult): string[] {
  return result.commands.filter(c => c.command === 'error').map(c => c.message)
}

/**
 * Asserts that a secret appears nowhere a person or a later step could read it: stdout
 * (except the `::add-mask::` command the runner consumes, which must come first),
 * stderr, the summary and the outputs.
 */
export function findLeaks(result: RunResult, secrets: string[]): string[] {
  const leaks: string[] = []
  const lines = result.stdout.split('\n')
  const maskLines = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.startsWith('::add-mask::'))
  const firstOther = lines.findIndex(line => line !== '' && !line.startsWith('::add-mask::'))
  const visible = lines.filter(line => !line.startsWith('::add-mask::')).join('\n')
  for (const secret of secrets.filter(s => s !== '')) {
    const mask = maskLines.find(
      ({ line }) => unescape(line.slice('::add-mask::'.length), ESCAPES.value) === secret
    )
    if (mask === undefined) leaks.push('never masked')
    else if (firstOther >= 0 && firstOther < mask.index)
      leaks.push('a line was printed before the mask')
    const places: [string, string][] = [
      ['stdout', visible],
      ['stderr', result.stderr],
      ['summary', result.summary],
      ['outputs', Object.values(result.outputs).join('\n')]
    ]
    for (const [form, text] of leakForms(secret)) {
      for (const [place, content] of places)
        if (content.includes(text)) leaks.push(`${place} (${form})`)
    }
  }
  return [...new Set(leaks)]
}

/** The shortest piece of a secret that counts as a leak. */
const FRAGMENT = 10

/**
 * Every form in which a printed secret could still be read: as it is, escaped for Markdown or
 * HTML, URL- or JSON-encoded, base64 (at any alignment, URL-safe too), with its case changed, as
 * hex, fully percent-encoded, as HTML references or `\u` escapes, cut with spaces, line breaks or
 * invisible characters, and any FRAGMENT characters of it (a cut copy).
 */
export function leakForms(secret: string): [string, string][] {
  const forms: [string, string][] = [
    ['raw', secret],
    ['Markdown-escaped', secret.replace(/([\\`*_[\]|~#!():@<>&"])/g, '\\$1')],
    [
      'HTML-escaped',
      secret
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
    ],
    ['URL-encoded', encodeURIComponent(secret)],
    ['JSON-encoded', JSON.stringify(secret).slice(1, -1)],
    ['base64', Buffer.from(secret).toString('base64').replace(/=+$/, '')]
  ]
  const bytes = [...Buffer.from(secret)]
  const hex = (byte: number): string => byte.toString(16).padStart(2, '0')
  const more: [string, string][] = [
    ['upper case', secret.toUpperCase()],
    ['lower case', secret.toLowerCase()],
    ['hex', Buffer.from(secret).toString('hex')],
    ['hex, upper case', Buffer.from(secret).toString('hex').toUpperCase()],
    ['fully percent-encoded', bytes.map(b => `%${hex(b).toUpperCase()}`).join('')],
    ['fully percent-encoded, lower case', bytes.map(b => `%${hex(b)}`).join('')],
    ['HTML decimal references', bytes.map(b => `&#${b};`).join('')],
    ['HTML hex references', bytes.map(b => `&#x${hex(b)};`).join('')],
    ['\\u escapes', bytes.map(b => `\\u00${hex(b)}`).join('')],
    ['cut by spaces', secret.replace(/(.{5})(?=.)/g, '$1 ')],
    ['cut by line breaks', secret.replace(/(.{5})(?=.)/g, '$1\n')],
    ['zero-width spaces between characters', [...secret].join('\u200B')],
    ['soft hyphens between characters', [...secret].join('\u00AD')]
  ]
  // Base64 with 0, 1 or 2 bytes of other text before the secret: the characters that hold only its
  // bits.
  for (let before = 0; before < 3; before++) {
    const encoded = Buffer.from('\0'.repeat(before) + secret).toString('base64')
    const interior = encoded.slice(
      Math.ceil((before * 8) / 6),
      Math.floor(((before + bytes.length) * 8) / 6)
    )
    more.push(
      [`base64 after ${before} bytes`, interior],
      [`URL-safe base64 after ${before} bytes`, interior.replace(/\+/g, '-').replace(/\//g, '_')]
    )
  }
  // Shorter forms could be found in any text; the raw secret above covers a short secret.
  forms.push(...more.filter(([, text]) => text.length >= FRAGMENT))
  for (let i = 0; i + FRAGMENT <= secret.length; i++)
    forms.push([`fragment at ${i}`, secret.slice(i, i + FRAGMENT)])
  return forms
}
