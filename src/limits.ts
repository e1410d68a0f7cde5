/**
 * The service's documented maxima for the counts (its OpenAPI document), here so that settings
 * (inputs) and the stats mode (counts read from a manifest or Discord) both read them without an
 * import that runs back up.
 */
export const COMMAND_COUNT_MAX = 1_000
export const SERVER_COUNT_MAX = 10_000_000
