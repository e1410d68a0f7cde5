export const id = 798;
export const ids = [798];
export const modules = {

/***/ 4798:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   diagnoseWorkflow: () => (/* binding */ diagnoseWorkflow)
/* harmony export */ });
/* unused harmony export MAX_WORKFLOW_BYTES */
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(6760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(3916);



/**
 * The largest workflow file read: several times a large workflow. Parsing cannot be cut off once
 * it starts, so its time is bounded by construction (workflow.ts): the slowest files of this size
 * measured (128 KiB of `]`, an error at each character; thousands of anchors) parse in about a
 * quarter of a second on Node 24, within the deadline and a second of a stop.
 */
const MAX_WORKFLOW_BYTES = 128 * 1024;
/**
 * What the workflow that ran the step (GITHUB_WORKFLOW_REF, job GITHUB_JOB) shows, in words, or
 * undefined. The file comes from the workspace after a checkout, else through GitHub's API with
 * github-token; one that cannot be read or parsed changes nothing. A stop or the deadline end it
 * with their error, and the caller says the workflow was not checked.
 */
async function diagnoseWorkflow(settings, deps, evidence) {
    const { github, botId } = settings;
    const group = `discord-place-stats-${botId}`;
    if (github.inReusableWorkflow) {
        // GITHUB_WORKFLOW_REF names the caller there; the reusable workflow's own job is always in the
        // group.
        return evidence === 'allowed'
            ? `The step ran in the reusable workflow, whose job is always in the concurrency group ${group}: ` +
                'the other update came from a workflow outside that group, a manual update, or the bot itself.'
            : undefined;
    }
    const path = /^[^/]+\/[^/]+\/(.+?)@/.exec(github.workflowRef ?? '')?.[1];
    if (path === undefined || github.job === undefined)
        return undefined;
    const what = 'reading the workflow that ran this step';
    deps.requests.throwIfOver(what);
    const file = await workflowFile(path, settings.github, deps.requests).catch((error) => {
        // The stop or the deadline, met while the file came through GitHub's API; anything else leaves
        // it unread.
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_2__/* .ActionError */ .lZ)
            throw error;
        return undefined;
    });
    if (file === undefined)
        return undefined;
    if (file.text === undefined) {
        deps.log(`The workflow that ran this step (${path}) is larger than ${MAX_WORKFLOW_BYTES / 1024} KiB, so its schedule and concurrency group were not checked.`);
        return undefined;
    }
    deps.requests.throwIfOver(what);
    const { describeFindings, inspectWorkflow } = await Promise.all(/* import() */[__webpack_require__.e(815), __webpack_require__.e(18)]).then(__webpack_require__.bind(__webpack_require__, 6018));
    const findings = inspectWorkflow(file.text, github.job, settings.cooldownCheck);
    // The parse holds the event loop, and the deadline may have passed during it, or a stop signal
    // come: either ends the check as it would a request.
    await signalsRead();
    deps.requests.throwIfOver(what);
    if (findings === undefined)
        return undefined;
    const where = `${path}, job ${github.job}`;
    // One cause, the one the evidence shows: an update sent unchecked is explained by its schedule
    // alone (a concurrency group would not have stopped it); one the record allowed, by the group.
    if (evidence === 'unchecked')
        return describeFindings({ noGroup: false, tooOften: findings.tooOften }, where, botId);
    if (evidence === 'dry-run' || findings.noGroup)
        return describeFindings(findings, where, botId, evidence === 'dry-run' ? 'dry-run' : 'strike');
    return (`The workflow that ran this step (${where}) has a concurrency group, so the other update came from another workflow, ` +
        `a manual run, or the bot itself: give every job that updates this bot the concurrency group ${group}.`);
}
/**
 * Lets the event loop read a signal that came while it was held: the first turn ends the phase it
 * was held in, the second passes through the poll phase, where signals are read.
 */
async function signalsRead() {
    for (let turn = 0; turn < 2; turn++)
        await new Promise(resolve => setImmediate(resolve));
}
/**
 * The workflow file, from the workspace when it is checked out, else from the repository at the
 * workflow's commit: its text, or no text when it is over the size limit.
 */
async function workflowFile(path, github, requests) {
    const local = (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(github.workspace, path);
    const found = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.stat)(local).catch(() => undefined);
    if (found?.isFile())
        return found.size <= MAX_WORKFLOW_BYTES ? { text: await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.readFile)(local, 'utf8') } : {};
    const commit = github.workflowSha ?? github.sha;
    if (github.token === undefined || github.repository === undefined || commit === undefined)
        return undefined;
    const { readRepositoryFile } = await Promise.all(/* import() */[__webpack_require__.e(119), __webpack_require__.e(413), __webpack_require__.e(584)]).then(__webpack_require__.bind(__webpack_require__, 4584));
    const bytes = await readRepositoryFile({
        token: github.token,
        repository: github.repository,
        ref: commit,
        path,
        apiUrl: github.apiUrl
    }, requests);
    return bytes.length <= MAX_WORKFLOW_BYTES ? { text: bytes.toString('utf8') } : {};
}


/***/ })

};
