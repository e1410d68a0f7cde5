// Types of scripts/release.mjs for the tests that import it.
export const STATS_WORKFLOW: string
export const PLACEHOLDER: string
export function releaseProblems(files: {
  version: string | undefined
  readme: string
  workflow: string
  repository: string | undefined
  tagged?: boolean
}): string[]
export function fillRepository(workflow: string, repository: string): string
export function repositoryOfRemote(url: string): string | undefined
export function changelogFor(changelog: string, version: string): string
