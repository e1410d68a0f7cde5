/**
 * The service's documented ranges for the counts (the OpenAPI document's `minimum`/`maximum`),
 * at the top of src/ so that settings (which refuses inputs out of range) and the stats mode
 * (which checks counts read from a manifest or Discord) both read them without an import that
 * runs back up.
 */
export const COMMAND_COUNT_MAX = 1_000
export const SERVER_COUNT_MAX = 10_000_000
