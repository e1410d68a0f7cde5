// Types of scripts/release.mjs for the tests that import it.
export const STATS_WORKFLOW: string
export function documentedFiles(root?: string): string[]
export function homeOf(packageJson: { repository?: string | { url?: string } }): string | undefined
export function releaseProblems(options: {
  version: string | undefined
  files: Record<string, string>
  home: string | undefined
  repository: string | undefined
}): string[]
export function repositoryOfRemote(url: string): string | undefined
export function changelogFor(changelog: string, version: string): string
export const MARKETPLACE_TEST: string
