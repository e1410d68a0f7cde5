/** The action's name and version, as sent in the User-Agent. A test keeps it equal to package.json. */
export const ACTION_NAME = 'discord-place-bot-stats'
export const ACTION_VERSION = '0.1.0'
export const USER_AGENT = `${ACTION_NAME}/${ACTION_VERSION}`
