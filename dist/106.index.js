export const id = 106;
export const ids = [106];
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

/***/ 3106:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   manifestCount: () => (/* binding */ manifestCount)
/* harmony export */ });
/* unused harmony exports countManifest, decodeManifest, countManifestText */
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(6760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_2___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_2__);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(3916);
/* harmony import */ var _text_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(8992);
/* harmony import */ var _commands_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(1305);






const NOT_FOUND = 'commands-file not found';
/** A manifest larger than this is not a command manifest. */
const MAX_MANIFEST_BYTES = 5 * 1024 * 1024;
/**
 * Counts the manifest that commands-file names, from the workspace or, failing that, the
 * repository.
 */
async function manifestCount(file, inputs, deps) {
    const { token, repository, sha, workspace, apiUrl, inReusableWorkflow } = inputs.github;
    const canFallBack = token !== undefined && repository !== undefined && sha !== undefined;
    const label = canFallBack ? `${repository} at ${sha.slice(0, 12)}` : undefined;
    deps.log(`Counting the commands in ${file.path}.`);
    return countManifest({
        ...file,
        countSubcommands: inputs.countSubcommands,
        workspace,
        repositoryLabel: label,
        inReusableWorkflow,
        fromRepository: canFallBack
            ? async (path) => {
                deps.log(`commands-file ${file.given} is not in the workspace; reading it from ${label} through the GitHub API.`);
                const { readRepositoryFile } = await Promise.all(/* import() */[__webpack_require__.e(119), __webpack_require__.e(413), __webpack_require__.e(584)]).then(__webpack_require__.bind(__webpack_require__, 4584));
                return readRepositoryFile({ token, repository, ref: sha, path, apiUrl }, deps.requests);
            }
            : undefined
    });
}
const CHECKOUT = 'Add an actions/checkout step before this one';
/**
 * Reads a command manifest and counts it. The file comes from the workspace; when a scheduled
 * workflow has no checkout, from the repository at the run's commit.
 */
async function countManifest(plan) {
    const origin = `Input 'commands-file' (${plan.given})`;
    const local = await readLocal(plan, origin);
    if (local !== undefined)
        return { ...countManifestText(local, origin, plan.countSubcommands), readFrom: 'workspace' };
    const inRepository = (0,node_path__WEBPACK_IMPORTED_MODULE_2__.relative)(plan.workspace, plan.path);
    const outside = isOutside(plan.workspace, plan.path);
    const notFound = `${origin}: no file at ${plan.path}`;
    // A checked-out workspace holds the repository already: the file is missing because of a typo or
    // a build step that did not write it, and the repository would not have it either.
    if (!outside && (await isCheckedOut(plan.workspace))) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${notFound}. The workspace is checked out; ${await nearestFolder(plan.workspace, plan.path)}. ` +
            'Check the path for a typo, and that the step that writes the file runs before this one.', { headline: NOT_FOUND });
    }
    const fix = plan.inReusableWorkflow
        ? "This job is the reusable workflow's, which cannot check out and build your code: commit the manifest to the " +
            "repository (it is read at the run's commit), or run the action in a job of your own after actions/checkout and " +
            'the step that writes the file.'
        : `${CHECKOUT}, or grant the job \`permissions: contents: read\`.`;
    if (plan.fromRepository === undefined || outside) {
        const why = outside
            ? 'the path is outside the workspace'
            : 'the repository and a github-token are needed';
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${notFound}, and it could not be read from the repository (${why}). ${fix}`, { headline: NOT_FOUND });
    }
    const bytes = await plan
        .fromRepository(inRepository.split('\\').join('/'))
        .catch((error) => {
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ)
            throw error;
        const reason = error instanceof Error ? error.message : String(error);
        if (error.network === true) {
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${notFound}, and GitHub's API could not be reached to read it from the repository (${reason}). ` +
                "Check the runner's network and proxy settings; the next run will try again.", { headline: 'GitHub unreachable' });
        }
        // A redirect is not followed, so that the token never goes to another address; no
        // permission changes that, but a checkout reads the file from the workspace instead.
        const redirected = error.redirect === true;
        const advice = redirected && !plan.inReusableWorkflow ? `${CHECKOUT}.` : fix;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${notFound}, and reading ${inRepository} from ${plan.repositoryLabel ?? 'the repository'} through the GitHub API failed (${reason}). ${advice}`, { headline: NOT_FOUND });
    });
    if (bytes.length > MAX_MANIFEST_BYTES)
        throw tooLarge(origin);
    return {
        ...countManifestText(decodeManifest(bytes, origin), origin, plan.countSubcommands),
        readFrom: 'repository'
    };
}
/**
 * The file's text, or undefined when there is no such file. The file is untrusted: it is read only
 * if it is a regular file inside the workspace once links are resolved (a link must not lead the
 * action to read, and quote, a file elsewhere on the runner), it is opened without blocking
 * (opening a FIFO would otherwise wait forever for a writer), and no more than the size limit is
 * ever read, whatever size the file claims.
 */
async function readLocal(plan, origin) {
    const real = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.realpath)(plan.path).catch(({ code }) => {
        if (code === 'ENOENT' || code === 'ENOTDIR')
            return undefined;
        throw cannotRead(origin, plan.path, code);
    });
    if (real === undefined)
        return undefined;
    const workspace = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.realpath)(plan.workspace).catch(() => plan.workspace);
    if (isOutside(workspace, real)) {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin}: ${plan.path} resolves to ${real}, outside the workspace ${workspace}. ` +
            'Give the path of a file in the repository; a symbolic link may not point out of the workspace.');
    }
    let handle;
    try {
        handle = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.open)(real, node_fs__WEBPACK_IMPORTED_MODULE_0__.constants.O_RDONLY | (node_fs__WEBPACK_IMPORTED_MODULE_0__.constants.O_NONBLOCK ?? 0));
        const stats = await handle.stat();
        if (stats.isDirectory())
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin}: ${plan.path} is a directory; give the path of the JSON file.`);
        if (!stats.isFile()) {
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin}: ${plan.path} is not a regular file (${fileKind(stats)}); give the path of the JSON file.`);
        }
        const bytes = await readAtMost(handle, MAX_MANIFEST_BYTES + 1);
        if (bytes.length > MAX_MANIFEST_BYTES)
            throw tooLarge(origin);
        return decodeManifest(bytes, origin);
    }
    catch (error) {
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ)
            throw error;
        throw cannotRead(origin, plan.path, error.code);
    }
    finally {
        await handle?.close();
    }
}
/**
 * Reads up to `limit` bytes: a file that grows while it is read cannot make the action read more.
 */
async function readAtMost(handle, limit) {
    const buffer = Buffer.alloc(limit);
    let length = 0;
    while (length < limit) {
        const { bytesRead } = await handle.read(buffer, length, limit - length, null);
        if (bytesRead === 0)
            break;
        length += bytesRead;
    }
    return buffer.subarray(0, length);
}
/** Whether a checkout put the repository in the workspace: it then holds a `.git`. */
async function isCheckedOut(workspace) {
    return (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.stat)((0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(workspace, '.git')).then(() => true, () => false);
}
/** The nearest folder of `path` that exists in the workspace, and what it holds (a few names). */
async function nearestFolder(workspace, path) {
    const SHOWN = 10;
    for (let folder = (0,node_path__WEBPACK_IMPORTED_MODULE_2__.dirname)(path); !isOutside(workspace, folder); folder = (0,node_path__WEBPACK_IMPORTED_MODULE_2__.dirname)(folder)) {
        const entries = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.readdir)(folder, { withFileTypes: true }).catch(() => undefined);
        if (entries === undefined)
            continue;
        const names = entries
            .filter(entry => entry.name !== '.git')
            .map(entry => (entry.isDirectory() ? `${entry.name}/` : entry.name))
            .sort();
        const label = folder === workspace
            ? 'the workspace root'
            : `${(0,node_path__WEBPACK_IMPORTED_MODULE_2__.relative)(workspace, folder).split('\\').join('/')}/`;
        if (names.length === 0)
            return `the nearest existing folder, ${label}, is empty`;
        const more = names.length > SHOWN ? ` and ${names.length - SHOWN} more` : '';
        return `the nearest existing folder, ${label}, holds ${names.slice(0, SHOWN).join(', ')}${more}`;
    }
    return 'the workspace cannot be listed';
}
/** Whether `path` resolves outside `root`: `..generated/` is a folder's name, not a step up. */
function isOutside(root, path) {
    const inside = (0,node_path__WEBPACK_IMPORTED_MODULE_2__.relative)(root, path);
    return /^\.\.(?:[\\/]|$)/.test(inside) || (0,node_path__WEBPACK_IMPORTED_MODULE_2__.isAbsolute)(inside);
}
/**
 * A manifest's bytes as text, as the tools people use write them: UTF-8, with or without a byte
 * order mark, and UTF-16 with one (Windows PowerShell 5.1's `>` and `Out-File` write UTF-16 LE with
 * a BOM). Anything else is refused, naming the encoding and the fix, rather than read as garbage
 * and quoted in an error.
 */
function decodeManifest(bytes, origin) {
    const fix = 'Write the file as UTF-8: in PowerShell, Out-File -Encoding utf8 or Set-Content -Encoding utf8 instead of >.';
    const refuse = (what) => new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin} ${what}, which is not read. ${fix}`, {
        headline: 'commands-file not UTF-8'
    });
    // The ASCII of JSON leaves three bytes in four zero in UTF-32, every other byte in UTF-16.
    const sample = bytes.subarray(0, 64);
    const zeros = sample.filter(byte => byte === 0).length;
    // UTF-32 first: its little-endian byte order mark, FF FE 00 00, begins with UTF-16's.
    if (bytes.length >= 4 && (bytes.readUInt32LE(0) === 0xfeff || bytes.readUInt32BE(0) === 0xfeff))
        throw refuse('is UTF-32');
    if (sample.length >= 4 && zeros >= (sample.length * 3) / 4)
        throw refuse('looks like UTF-32 (three bytes in four are zero)');
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    if (bytes[0] === 0xff && bytes[1] === 0xfe)
        return bytes.subarray(2).toString('utf16le');
    if (bytes[0] === 0xfe && bytes[1] === 0xff) {
        // swap16 throws on an odd length: a last odd byte is dropped, as the little-endian decoding
        // drops it.
        const swapped = Buffer.from(bytes.subarray(2, bytes.length & ~1)).swap16();
        return swapped.toString('utf16le');
    }
    if (!bom && sample.length >= 4 && zeros >= sample.length / 4) {
        throw refuse('looks like UTF-16 without a byte order mark (every other byte is zero)');
    }
    try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bom ? bytes.subarray(3) : bytes);
    }
    catch {
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin} is not UTF-8 (a legacy code page such as Windows-1252, or a binary file?), so it is not read. ${fix}`, { headline: 'commands-file not UTF-8' });
    }
}
function fileKind(stats) {
    if (stats.isFIFO())
        return 'a named pipe';
    if (stats.isCharacterDevice() || stats.isBlockDevice())
        return 'a device';
    if (stats.isSocket())
        return 'a socket';
    return 'not a file';
}
function cannotRead(origin, path, code) {
    return new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin}: ${path} cannot be read (${code ?? 'error'}). Check the path and the file's permissions.`);
}
function tooLarge(origin) {
    return new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin} is larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MB, too large for a command manifest. Check the path.`);
}
/** Parses a manifest's text in any of the accepted shapes and counts its commands. */
function countManifestText(text, origin, countSubcommands) {
    // A manifest that lists no commands is valid: whether its 0 is sent is withoutErasure's call
    // (counts.ts), made once the listing's count is known.
    const json = parseJson(text.replace(/^\uFEFF/, ''), origin);
    try {
        return (0,_commands_js__WEBPACK_IMPORTED_MODULE_5__/* .countCommands */ .e)(manifestEntries(json, origin), countSubcommands);
    }
    catch (error) {
        const cut = error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ ? powerShellCut(json) : undefined;
        if (cut === undefined)
            throw error;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${error.message} The manifest looks cut short by PowerShell's ConvertTo-Json, ` +
            `which writes objects deeper than its -Depth (2 by default) as text like ${(0,_text_js__WEBPACK_IMPORTED_MODULE_4__/* .excerpt */ .Kb)(JSON.stringify(cut))}: add -Depth 20 to ConvertTo-Json.`, { headline: 'commands-file cut by ConvertTo-Json' });
    }
}
/**
 * A string where ConvertTo-Json gave up at its depth limit (`@{name=…}`, `System.Object[]`), if the
 * JSON holds one.
 */
function powerShellCut(json, depth = 0) {
    if (typeof json === 'string')
        return /^@\{.*\}$|^System\.(?:Object\[\]|Collections\.)/s.test(json)
            ? json.slice(0, 40)
            : undefined;
    if (typeof json !== 'object' || json === null || depth > 20)
        return undefined;
    for (const value of Object.values(json)) {
        const found = powerShellCut(value, depth + 1);
        if (found !== undefined)
            return found;
    }
    return undefined;
}
/**
 * The accepted shapes, all seen in real projects: an array of command objects (what a deploy script
 * sends to Discord, or a saved GET of the commands); an object with a `commands` array; an object
 * keyed by command name whose values are command objects.
 */
function manifestEntries(json, origin) {
    const list = (items, prefix = '') => ({
        origin,
        entries: items.map((value, i) => ({ label: `${prefix}[${i}]`, value }))
    });
    if (Array.isArray(json))
        return list(json);
    if (typeof json === 'object' && json !== null) {
        const fields = json;
        if (Array.isArray(fields['commands']))
            return list(fields['commands'], 'commands');
        const values = Object.entries(fields);
        if (values.every(([, value]) => typeof value === 'object' && value !== null && !Array.isArray(value))) {
            return {
                origin,
                // A keyed entry may leave its name to the key.
                entries: values.map(([key, value]) => ({
                    label: `[${(0,_text_js__WEBPACK_IMPORTED_MODULE_4__/* .excerpt */ .Kb)(JSON.stringify(key))}]`,
                    value: { name: key, ...value }
                }))
            };
        }
    }
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin} holds ${unexpectedShape(json)}; ` +
        'expected a JSON array of commands, an object with a "commands" array, or an object keyed by command name.');
}
/** What a manifest that is no accepted shape holds, in words (an array is always accepted). */
function unexpectedShape(json) {
    if (json === null)
        return 'null';
    if (typeof json === 'object')
        return 'an object that is neither';
    return `a ${typeof json}`;
}
/**
 * Nesting allowed in a manifest. A command manifest is about 12 levels deep at most (command,
 * group, subcommand, option, choice, localisations); far deeper text is not one, and nothing built
 * on it should have to walk that deep.
 */
const MAX_DEPTH = 100;
/** JSON.parse, refusing nesting no manifest has before it is walked; a failure in Node's words. */
function parseJson(text, origin) {
    const deep = tooDeepAt(text);
    if (deep !== undefined) {
        const before = text.slice(0, deep).split('\n');
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin} is nested more than ${MAX_DEPTH} levels deep at line ${before.length}, column ${before.at(-1).length + 1}; a command manifest is about 12 levels deep. Check the path and the file.`);
    }
    try {
        return JSON.parse(text);
    }
    catch (error) {
        // Node's message says where: a position (line and column on Node 24) or the text around a
        // token, escaped.
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_3__/* .ActionError */ .lZ(`${origin} is not valid JSON: ${(0,_text_js__WEBPACK_IMPORTED_MODULE_4__/* .excerpt */ .Kb)(error instanceof Error ? error.message : String(error), 200)}`);
    }
}
/**
 * The offset of the first `[` or `{` (outside strings) that opens more than MAX_DEPTH levels, if
 * any.
 */
function tooDeepAt(text) {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const char = text.charCodeAt(i);
        if (inString) {
            if (char === 0x5c /* \ */)
                i++;
            else if (char === 0x22 /* " */)
                inString = false;
        }
        else if (char === 0x22) {
            inString = true;
        }
        else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
            if (++depth > MAX_DEPTH)
                return i;
        }
        else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
            depth--;
        }
    }
    return undefined;
}


/***/ })

};
