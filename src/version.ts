import metadata from '../package.json' with { type: 'json' }

/**
 * The action's name and version, as sent in the User-Agent: package.json's, read when the bundle is
 * built.
 */
export const ACTION_VERSION = metadata.version
export const USER_AGENT = `${metadata.name}/${ACTION_VERSION}`
/** Where the action is published; Discord asks bots' HTTP clients to name theirs. */
export const PROJECT_URL = 'https://github.com/marketplace/actions/discord-place-bot-stats'
