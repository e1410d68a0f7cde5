import { getOctokit } from '@actions/github'

export interface RepositoryFile {
  readonly token: string
  /** `owner/name`. */
  readonly repository: string
  readonly ref: string
  readonly path: string
  readonly timeoutMs: number
}

/**
 * Reads one file of the repository at a commit through GitHub's contents API (raw media
 * type, so files over 1 MB come whole). Loaded only when a manifest is not in the workspace.
 * The API address comes from GITHUB_API_URL, so GitHub Enterprise Server works too.
 */
export async function readRepositoryFile(file: RepositoryFile): Promise<string> {
  const [owner, repo] = file.repository.split('/')
  const octokit = getOctokit(file.token)
  try {
    const response = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
      owner: owner ?? '',
      repo: repo ?? '',
      path: file.path,
      ref: file.ref,
      headers: { accept: 'application/vnd.github.raw+json' },
      request: { signal: AbortSignal.timeout(file.timeoutMs) }
    })
    if (typeof response.data !== 'string') throw new Error('the path is not a file')
    return response.data
  } catch (error) {
    // Octokit's errors carry the request; only the status and GitHub's words are passed on.
    const status = (error as { status?: unknown }).status
    const message = error instanceof Error ? error.message.split(' - ')[0] : String(error)
    throw new Error(typeof status === 'number' ? `${status}: ${message}` : message)
  }
}
