import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ActionError } from '../errors.js'
import type { Requests } from '../http/client.js'
import type { StatsSettings } from '../settings.js'

/**
 * The largest workflow file read: several times a large workflow. Parsing cannot be cut off once
 * it starts; a hostile file of this size parses in about 0.3 s, within the deadline and a stop.
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
  deps: { readonly requests: Requests },
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
  const text = await workflowText(path, settings.github, deps.requests).catch((error: unknown) => {
    // The stop or the deadline, met while the file came through GitHub's API; anything else leaves
    // it unread.
    if (error instanceof ActionError) throw error
    return undefined
  })
  if (text === undefined) return undefined
  deps.requests.throwIfOver(what)
  const { describeFindings, inspectWorkflow } = await import('./workflow.js')
  const findings = inspectWorkflow(text, github.job, settings.cooldownCheck)
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
 * The workflow file's text: from the workspace when it is checked out, else from the repository at
 * the workflow's commit.
 */
async function workflowText(
  path: string,
  github: StatsSettings['github'],
  requests: Requests
): Promise<string | undefined> {
  const local = join(github.workspace, path)
  const found = await stat(local).catch(() => undefined)
  if (found?.isFile()) return found.size <= MAX_WORKFLOW_BYTES ? readFile(local, 'utf8') : undefined
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
  return bytes.length <= MAX_WORKFLOW_BYTES ? bytes.toString('utf8') : undefined
}
