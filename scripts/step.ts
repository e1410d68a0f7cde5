/**
 * Runs dist/index.js once as a workflow step would, for `npm start` and `npm run bench`: the
 * `INPUT_*` variables from the step's `with:` and action.yml's defaults, the `GITHUB_OUTPUT` and
 * `GITHUB_STEP_SUMMARY` files, and a workspace of its own as the working directory. The tests run
 * the bundle through their own harness (test/support/action.ts), which reads action.yml with
 * GitHub's parser and searches every run for the secrets it was given; a script only shows a run.
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const BUNDLE = fileURLToPath(new URL('../dist/index.js', import.meta.url))
const ACTION = fileURLToPath(new URL('../action.yml', import.meta.url))

export interface Step {
  /** The step's `with:`: only inputs action.yml declares. */
  inputs: Record<string, string>
  /** The workspace's files, by path relative to it. */
  files?: Record<string, string> | undefined
  /** More of the runner's environment, such as the event that started the run. */
  env?: Record<string, string> | undefined
}

/** What a workflow shows of a run: its exit code, outputs, summary and annotations. */
export interface StepResult {
  code: number | null
  outputs: Record<string, string>
  summary: string
  /** The annotations (`error`, `warning`, `notice`) among the workflow commands. */
  commands: { command: string; message: string }[]
  /** From the process's start to its end. */
  durationMs: number
}

/**
 * Runs `script` (the bundle, or the benchmark's fetch script) on `node` as one step. Undefined when
 * the process had not exited after `timeoutMs` and was killed: its output so far is not shown, as
 * it holds the `::add-mask::` lines.
 */
export async function runStep(
  node: string,
  step: Step,
  timeoutMs: number,
  script = BUNDLE
): Promise<StepResult | undefined> {
  const work = await mkdtemp(join(tmpdir(), 'action-step-'))
  try {
    const { env, workspace, outputFile, summaryFile } = await prepare(step, work)
    const started = performance.now()
    const child = spawn(node, [script], {
      cwd: workspace,
      env,
      stdio: ['ignore', 'pipe', 'inherit']
    })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    const [code, signal] = await new Promise<[number | null, string | null]>((done, fail) =>
      child.on('error', fail).on('close', (code, signal) => done([code, signal]))
    )
    const durationMs = performance.now() - started
    clearTimeout(timer)
    if (signal === 'SIGKILL') return undefined
    return {
      code,
      outputs: outputsOf(await readFile(outputFile, 'utf8')),
      summary: await readFile(summaryFile, 'utf8'),
      commands: annotationsOf(stdout),
      durationMs
    }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

/**
 * The step's environment and workspace under `work`, as the runner sets them up before the process
 * starts: `INPUT_*` from the step's `with:`, else action.yml's default.
 */
async function prepare(step: Step, work: string) {
  const declared = (parse(await readFile(ACTION, 'utf8')) as { inputs: Record<string, object> })
    .inputs
  const unknown = Object.keys(step.inputs).filter(name => !(name in declared))
  if (unknown.length > 0) throw new Error(`inputs not in action.yml: ${unknown.join(', ')}`)
  const workspace = join(work, 'workspace')
  const [outputFile, summaryFile] = [join(work, 'output'), join(work, 'summary')]
  await mkdir(workspace)
  await Promise.all([writeFile(outputFile, ''), writeFile(summaryFile, '')])
  for (const [path, content] of Object.entries(step.files ?? {})) {
    await mkdir(dirname(join(workspace, path)), { recursive: true })
    await writeFile(join(workspace, path), content)
  }
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: work,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_REPOSITORY: 'example/bot',
    // A loopback port where nothing listens: a run that reads the repository (the workflow read
    // after a strike) is refused at once and never reaches GitHub.
    GITHUB_API_URL: 'http://127.0.0.1:9',
    RUNNER_TEMP: work,
    ...step.env
  }
  for (const [name, input] of Object.entries(declared)) {
    const fallback = String((input as { default?: unknown }).default ?? '')
    // `${{ github.token }}`: a script has no job, so no job token.
    env[`INPUT_${name.toUpperCase()}`] =
      step.inputs[name] ?? (fallback.startsWith('${{') ? '' : fallback)
  }
  return { env, workspace, outputFile, summaryFile }
}

/** The annotations among the workflow commands a run printed, as the runner reads them. */
function annotationsOf(stdout: string): StepResult['commands'] {
  return stdout.split(/\r?\n/).flatMap(line => {
    const annotation = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/.exec(line)
    if (annotation === null) return []
    // The runner's escapes in a command's value, `%25` undone last.
    const message = annotation[2]!.replace(/%0D/g, '\r').replace(/%0A/g, '\n')
    return [{ command: annotation[1]!, message: message.replace(/%25/g, '%') }]
  })
}

/** `name<<DELIMITER`, the value's lines, then `DELIMITER`: how @actions/core writes an output. */
function outputsOf(file: string): Record<string, string> {
  const records = file.matchAll(/^([^\n<]+)<<(.+)\n([\s\S]*?)\n?\2$/gm)
  return Object.fromEntries([...records].map(([, name, , value]) => [name!, value!]))
}
