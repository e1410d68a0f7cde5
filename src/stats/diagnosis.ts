import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ActionError } from '../errors.js'
import type { Deps } from '../http/client.js'
import type { StatsSettings } from '../settings.js'

/**
 * The largest workflow file read: several times a large workflow. Parsing cannot be cut off once
 * it starts, so its time is bounded by construction (workflow.ts): the slowest files of this size
 * measured (128 KiB of `]`, an error at each character; thousands of anchors) parse in about a
 * quarter of a second on Node 24, within the deadline and a second of a stop.
 */
export const MAX_WORKFLOW_BYTES = 128 * 1024

/**
 * What the run already knows, which decides the one cause the file can show: `dry-run`, what could
 * cost a strike later; `unchecked`, a strike sent without reading the record (only a schedule
 * explains it); `allowed`, a strike the record allowed (another update came first).
 */
export type Evidence = 'dry-run' | 'unchecked' | 'allowed'

/**
 * What the workflow that ran the step (GITHUB_WORKFLOW_REF, job GITHUB_JOB) shows, in words, or
 * undefined. The file comes from the workspace after a checkout, else through GitHub's API with
 * github-token; one that cannot be read or parsed changes nothing. A stop or the deadline end it
 * with their error, and the caller says the workflow was not checked.
 */
export async function diagnoseWorkflow(
  settings: Pick<StatsSettings, 'botId' | 'cooldownCheck' | 'github'>,
  deps: Deps,
  evidence: Evidence
): Promise<string | undefined> {
  const { github, botId } = settings
  const group = `discord-place-stats-${botId}`
  if (github.inReusableWorkflow) {
    // GITHUB_WORKFLOW_REF names the caller there; the reusable workflow's own job is always in the
    // group.
    return evidence === 'allowed'
      ? `The step ran in the reusable workflow, whose job is always in the concurrency group ${group}: ` +
          'the other update came from a workflow outside that group, a manual update, or the bot itself.'
      : undefined
  }
  const path = /^[^/]+\/[^/]+\/(.+?)@/.exec(github.workflowRef ?? '')?.[1]
  if (path === undefined || github.job === undefined) return undefined
  const what = 'reading the workflow that ran this step'
  deps.requests.throwIfOver(what)
  const file = await workflowFile(path, settings.github, deps.requests).catch((error: unknown) => {
    // The stop or the deadline, met while the file came through GitHub's API; anything else leaves
    // it unread.
    if (error instanceof ActionError) throw error
    return undefined
  })
  if (file === undefined) return undefined
  if (file.text === undefined) {
    deps.log(
      `The workflow that ran this step (${path}) is larger than ${MAX_WORKFLOW_BYTES / 1024} KiB, so its schedule and concurrency group were not checked.`
    )
    return undefined
  }
  deps.requests.throwIfOver(what)
  const { describeFindings, inspectWorkflow } = await import('./workflow.js')
  const findings = inspectWorkflow(file.text, github.job, settings.cooldownCheck)
  // The parse holds the event loop, and the deadline may have passed during it, or a stop signal
  // come: either ends the check as it would a request.
  await signalsRead()
  deps.requests.throwIfOver(what)
  if (findings === undefined) return undefined
  const where = `${path}, job ${github.job}`
  // One cause, the one the evidence shows: an update sent unchecked is explained by its schedule
  // alone (a concurrency group would not have stopped it); one the record allowed, by the group.
  if (evidence === 'unchecked')
    return describeFindings({ noGroup: false, tooOften: findings.tooOften }, where, botId)
  if (evidence === 'dry-run' || findings.noGroup)
    return describeFindings(findings, where, botId, evidence === 'dry-run' ? 'dry-run' : 'strike')
  return (
    `The workflow that ran this step (${where}) has a concurrency group, so the other update came from another workflow, ` +
    `a manual run, or the bot itself: give every job that updates this bot the concurrency group ${group}.`
  )
}

/**
 * Lets the event loop read a signal that came while it was held: the first turn ends the phase it
 * was held in, the second passes through the poll phase, where signals are read.
 */
async function signalsRead(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise(resolve => setImmediate(resolve))
}

/**
 * The workflow file, from the workspace when it is checked out, else from the repository at the
 * workflow's commit: its text, or no text when it is over the size limit.
 */
async function workflowFile(
  path: string,
  github: StatsSettings['github'],
  requests: Deps['requests']
): Promise<{ readonly text?: string } | undefined> {
  const local = join(github.workspace, path)
  const found = await stat(local).catch(() => undefined)
  if (found?.isFile())
    return found.size <= MAX_WORKFLOW_BYTES ? { text: await readFile(local, 'utf8') } : {}
  const commit = github.workflowSha ?? github.sha
  if (github.token === undefined || github.repository === undefined || commit === undefined)
    return undefined
  const { readRepositoryFile } = await import('./github.js')
  const bytes = await readRepositoryFile(
    {
      token: github.token,
      repository: github.repository,
      ref: commit,
      path,
      apiUrl: github.apiUrl
    },
    requests
  )
  return bytes.length <= MAX_WORKFLOW_BYTES ? { text: bytes.toString('utf8') } : {}
}
