export const id = 943;
export const ids = [943];
export const modules = {

/***/ 1305:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   e: () => (/* binding */ countCommands)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _limits_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(351);


/** Discord's application command types. An absent `type` means chat input (builders' v1 output). */
const COMMAND_TYPES = {
    1: 'chat input',
    2: 'user',
    3: 'message',
    4: 'entry point'
};
const SUB_COMMAND = 1;
const SUB_COMMAND_GROUP = 2;
/**
 * Counts each distinct command (type and name) once, or each leaf subcommand with
 * `countSubcommands`; throws at the first bad one.
 */
function countCommands(list, countSubcommands) {
    const seen = new Map();
    let count = 0;
    for (const { label, value } of list.entries) {
        const { name, type, options } = checkCommand(value, label, list.origin);
        const key = `${type}:${name}`;
        const times = (seen.get(key)?.times ?? 0) + 1;
        seen.set(key, { type, name, times });
        if (times > 1)
            continue;
        count +=
            countSubcommands && type === 1 ? Math.max(1, leafSubcommands(options, label, list.origin)) : 1;
    }
    // One warning for all duplicates: a manifest built twice over would fill the annotations (ten per
    // step) with one per command.
    const duplicates = [...seen.values()]
        .filter(({ times }) => times > 1)
        .map(({ type, name, times }) => `the ${COMMAND_TYPES[type]} command "${name}" ${times} times`);
    const SHOWN = 20;
    const more = duplicates.length > SHOWN ? `, and ${duplicates.length - SHOWN} more` : '';
    const warnings = duplicates.length === 0
        ? []
        : [
            `${list.origin} lists ${duplicates.slice(0, SHOWN).join(', ')}${more}; each was counted once.`
        ];
    if (count > _limits_js__WEBPACK_IMPORTED_MODULE_1__/* .COMMAND_COUNT_MAX */ .T) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${list.origin} counts ${count} commands${countSubcommands ? ' (with subcommands)' : ''}, more than the ` +
            `service's maximum of ${_limits_js__WEBPACK_IMPORTED_MODULE_1__/* .COMMAND_COUNT_MAX */ .T}.${countSubcommands ? ' Set count-subcommands: false to count top-level commands.' : ''}`);
    }
    return { count, warnings };
}
function checkCommand(value, label, origin) {
    const where = `${origin}: ${label}`;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${where} is ${kind(value)}; expected a command object with a "name".`);
    }
    const fields = value;
    if (!('name' in fields))
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${where} has no "name".`);
    if (typeof fields['name'] !== 'string' || fields['name'] === '') {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${where} has a "name" that is ${kind(fields['name'])}; expected a non-empty string.`);
    }
    const name = fields['name'];
    const type = fields['type'] ?? 1;
    if (typeof type !== 'number' || !(type in COMMAND_TYPES)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${where} ("${name}") has "type": ${quote(type)}; expected 1 (chat input), 2 (user), 3 (message) or 4 (entry point).`);
    }
    const options = fields['options'] ?? [];
    if (!Array.isArray(options))
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${where} ("${name}") has "options" that is ${kind(options)}; expected an array.`);
    return { name, type, options };
}
/**
 * Subcommands (type 1), directly or in groups (type 2): no deeper than Discord allows, whatever the
 * input's nesting.
 */
function leafSubcommands(options, label, origin) {
    let leaves = 0;
    options.forEach((option, i) => {
        const type = optionType(option, `${label}.options[${i}]`, origin);
        if (type === SUB_COMMAND)
            leaves += 1;
        if (type === SUB_COMMAND_GROUP) {
            const inner = option.options ?? [];
            if (!Array.isArray(inner))
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${origin}: ${label}.options[${i}] has "options" that is not an array.`);
            inner.forEach((sub, j) => {
                if (optionType(sub, `${label}.options[${i}].options[${j}]`, origin) === SUB_COMMAND)
                    leaves += 1;
            });
        }
    });
    return leaves;
}
function optionType(option, label, origin) {
    const type = typeof option === 'object' && option !== null ? option.type : undefined;
    if (typeof type !== 'number' || !Number.isInteger(type)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${origin}: ${label} has no integer "type"; expected an application command option.`);
    }
    return type;
}
/**
 * A number or a short string as written, else its kind: never JSON.stringify of a Discord answer,
 * which is not depth-checked.
 */
function quote(value) {
    if (typeof value === 'number' || typeof value === 'boolean')
        return String(value);
    if (typeof value === 'string')
        return value.length > 40
            ? `${JSON.stringify(value.slice(0, 40)).slice(0, -1)}…"`
            : JSON.stringify(value);
    return kind(value);
}
function kind(value) {
    if (value === null)
        return 'null';
    if (Array.isArray(value))
        return 'an array';
    return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}


/***/ }),

/***/ 5943:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   fillFromDiscord: () => (/* binding */ fillFromDiscord)
/* harmony export */ });
/* unused harmony export DISCORD_POLICY */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);
/* harmony import */ var _http_transport_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1517);
/* harmony import */ var _http_client_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3329);
/* harmony import */ var _text_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(8992);
/* harmony import */ var _version_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(1013);
/* harmony import */ var _commands_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(1305);
/* harmony import */ var _limits_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(351);







/**
 * How Discord's API is read: 429s and 5xx retried (after their Retry-After), answers kept up to
 * their size.
 */
const DISCORD_POLICY = {
    ..._http_client_js__WEBPACK_IMPORTED_MODULE_2__/* .READ_DEFAULTS */ .qW,
    name: "Discord's API",
    attempts: 4,
    retryStatuses: [429, ..._http_client_js__WEBPACK_IMPORTED_MODULE_2__/* .SERVER_ERRORS */ .Qx],
    maxBodyBytes: 4 * 1024 * 1024
};
/**
 * Fills in the counts still missing (counts.ts decides whether any is) from Discord, read with the
 * bot's `token`, with only the calls needed: the server count from `/applications/@me`
 * (`approximate_guild_count`, the figure the service checks server counts against), the command
 * count from the global commands.
 */
async function fillFromDiscord(inputs, token, counts, deps) {
    let { command, server, warnings } = counts;
    deps.log(`Reading ${[server ? '' : 'the server count', command ? '' : 'the command count'].filter(Boolean).join(' and ')} from Discord.`);
    const get = (path) => discordGet(`${inputs.discordApiUrl}${path}`, path, token, deps.requests);
    try {
        // One call serves both counts: it holds the server count, and the application ID that the
        // route of the global commands needs.
        const app = ((await get('/applications/@me')) ?? {});
        if (server === undefined) {
            const count = app['approximate_guild_count'];
            if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ("Discord's /applications/@me answer has no approximate_guild_count; the server count cannot be read from Discord.");
            }
            // Checked like the input: the service refuses more with a 400, so nothing is sent.
            if (count > _limits_js__WEBPACK_IMPORTED_MODULE_6__/* .SERVER_COUNT_MAX */ .Z) {
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`Discord reports an approximate_guild_count of ${count}, above the service's maximum server count of ${_limits_js__WEBPACK_IMPORTED_MODULE_6__/* .SERVER_COUNT_MAX */ .Z}; ` +
                    'nothing was sent. Set server-count to send a count yourself.');
            }
            server = { value: count, source: 'Discord (approximate_guild_count)', read: true };
        }
        if (command === undefined) {
            const id = app['id'];
            if (typeof id !== 'string' || !/^\d{17,20}$/.test(id)) {
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ("Discord's /applications/@me answer has no application id; the commands cannot be read from Discord.");
            }
            const list = await get(`/applications/${id}/commands`);
            if (!Array.isArray(list))
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ("Discord's list of global commands was not a JSON array.");
            const entries = list.map((value, i) => ({ label: `[${i}]`, value }));
            const commands = (0,_commands_js__WEBPACK_IMPORTED_MODULE_5__/* .countCommands */ .e)({ origin: "Discord's global commands", entries }, inputs.countSubcommands);
            command = { value: commands.count, source: 'Discord (global commands)', read: true };
            warnings = [...warnings, ...commands.warnings];
        }
    }
    catch (error) {
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ)
            error.headline ??= 'Discord counts unreadable';
        throw error;
    }
    return { command, server, warnings };
}
async function discordGet(url, path, token, requests) {
    // The User-Agent is in the form Discord requires of bots' HTTP clients.
    const headers = {
        Authorization: `Bot ${token}`,
        Accept: 'application/json',
        'User-Agent': `DiscordBot (${_version_js__WEBPACK_IMPORTED_MODULE_4__/* .PROJECT_URL */ .w5}, ${_version_js__WEBPACK_IMPORTED_MODULE_4__/* .ACTION_VERSION */ .Yt})`
    };
    const answer = await requests
        .send({ method: 'GET', url, headers }, DISCORD_POLICY, { refuse: refuseBan })
        .catch((error) => {
        if (error instanceof _http_transport_js__WEBPACK_IMPORTED_MODULE_1__/* .NetworkError */ .Dr) {
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`Could not read counts from Discord: ${error.message}.`, {
                cause: error,
                headline: 'Discord unreachable'
            });
        }
        throw error;
    });
    if (answer.status === 200 && answer.json !== undefined)
        return answer.json;
    const message = answer.json?.message;
    const said = `Discord answered ${answer.status} to GET ${path}${typeof message === 'string' ? ` ("${(0,_text_js__WEBPACK_IMPORTED_MODULE_3__/* .excerpt */ .Kb)(message)}")` : ''}`;
    if (answer.status === 401 || answer.status === 403) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${said}: the discord-token is invalid. Store the bot's token from the Bot page of the Discord Developer ` +
            'Portal in the secret (reset it there if it was leaked). Nothing was sent to the service.', { headline: 'Discord token refused' });
    }
    if (answer.status === 429)
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${said}: rate limited for longer than the action waits. Nothing was sent to the service; run again later.`);
    if (answer.status >= 500)
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${said} after ${DISCORD_POLICY.attempts} tries. Nothing was sent to the service; the next run will try again.`);
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ(`${said}. Nothing was sent to the service; check discord-api-url.`);
}
/**
 * A 429 without Discord's rate-limit headers comes from Cloudflare, not from a rate limit:
 * the runner's IP address is banned for a while, and retrying makes it longer.
 */
function refuseBan(answer) {
    if (answer.status !== 429 ||
        Object.keys(answer.headers).some(h => h.startsWith('x-ratelimit-') || h === 'retry-after'))
        return undefined;
    return new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .ActionError */ .lZ("Discord refused the request with a 429 that carries no rate-limit headers: the runner's IP address is " +
        'temporarily banned by Discord (common on shared runners). It was not retried; run again later, or give the ' +
        'counts as inputs for now.', { headline: 'Discord rate limit (IP ban)' });
}


/***/ })

};
