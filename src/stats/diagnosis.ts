import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Requests } from '../http/client.js'
import type { StatsSettings } from '../settings.js'

/** The largest workflow file read: far more than any workflow. */
const MAX_WORKFLOW_BYTES = 1024 * 1024

/**
 * After a strike (`strike`), or in a dry run as a set-up check (`dry-run`): what the workflow
 * that ran the step shows of the cause, in words, or undefined when it shows nothing to say.
 * The runner names the workflow (GITHUB_WORKFLOW_REF: `owner/repo/path@ref`) and the job
 * (GITHUB_JOB); the file comes from the workspace after a checkout, else through GitHub's API
 * with github-token, within the step's deadline. A file that cannot be read or parsed changes
 * nothing, and neither does a stop: the strike is reported as it is. The YAML parser is loaded
 * only here.
 */
export async function diagnoseWorkflow(
  settings: Pick<StatsSettings, 'botId' | 'cooldownCheck' | 'github'>,
  deps: { readonly requests: Requests },
  when: 'strike' | 'dry-run'
): Promise<string | undefined> {
  const { github } = settings
  if (github.inReusableWorkflow) {
    // GITHUB_WORKFLOW_REF names the caller there; the reusable workflow's own job is always in the group.
    return when === 'strike'
      ? `The step ran in the reusable workflow, whose job is always in the concurrency group discord-place-stats-${settings.botId}: ` +
          'the other update came from a workflow outside that group, a manual update, or the bot itself.'
      : undefined
  }
  const ref = /^[^/]+\/[^/]+\/(.+?)@/.exec(github.workflowRef ?? '')
  const path = ref?.[1]
  if (path === undefined || github.job === undefined) return undefined
  const text = await workflowText(path, settings, deps).catch(() => undefined)
  if (text === undefined) return undefined
  const { describeFindings, inspectWorkflow } = await import('./workflow.js')
  const findings = inspectWorkflow(text, github.job, settings.cooldownCheck)
  if (findings === undefined) return undefined
  const said = describeFindings(findings, `${path}, job ${github.job}`, settings.botId, when)
  if (said !== undefined || when === 'dry-run') return said
  return (
    `The workflow that ran this step (${path}, job ${github.job}) has a concurrency group and no frequent schedule with ` +
    'cooldown-check: false, so the other update came from another workflow, a manual run, or the bot itself: give every ' +
    `job that updates this bot the concurrency group discord-place-stats-${settings.botId}.`
  )
}

/** The workflow file's text: from the workspace when it is checked out, else from the repository at the workflow's commit. */
async function workflowText(
  path: string,
  settings: Pick<StatsSettings, 'github'>,
  deps: { readonly requests: Requests }
): Promise<string | undefined> {
  const { github } = settings
  const local = join(github.workspace, path)
  const found = await stat(local).catch(() => undefined)
  if (found?.isFile() && found.size <= MAX_WORKFLOW_BYTES) return readFile(local, 'utf8')
  const commit = github.workflowSha ?? github.sha
  if (github.token === undefined || github.repository === undefined || commit === undefined) return undefined
  const { readRepositoryFile } = await import('./github.js')
  const text = await readRepositoryFile(
    { token: github.token, repository: github.repository, ref: commit, path, apiUrl: github.apiUrl },
    deps.requests
  )
  // Bytes, as the workspace's copy is measured: a character outside ASCII takes more than one.
  return Buffer.byteLength(text, 'utf8') <= MAX_WORKFLOW_BYTES ? text : undefined
}
