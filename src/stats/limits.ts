/** The service's accepted ranges for the counts (the OpenAPI document's `minimum`/`maximum`). */
export const COMMAND_COUNT_MAX = 1_000
export const SERVER_COUNT_MAX = 10_000_000
