/** The action's name and version, as sent in the User-Agent. A test keeps them equal to package.json. */
export const ACTION_NAME = 'discord-place-bot-stats'
export const ACTION_VERSION = '1.0.0'
export const USER_AGENT = `${ACTION_NAME}/${ACTION_VERSION}`
/** Where the action is published; Discord asks bots' HTTP clients to name theirs. */
export const PROJECT_URL = 'https://github.com/marketplace/actions/discord-place-bot-stats'
