// Types of scripts/node24.mjs for the tests that import it.
export function packageNames(): string[]
export function cacheDir(): string
export function locate(): string | undefined
export function install(): string
export function ready(): string | undefined
