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
 * it starts; a hostile file of this size parses in about 0.3 s, within the deadline and a stop.
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
    const text = await workflowText(path, settings.github, deps.requests).catch((error) => {
        // The stop or the deadline, met while the file came through GitHub's API; anything else leaves
        // it unread.
        if (error instanceof _errors_js__WEBPACK_IMPORTED_MODULE_2__/* .ActionError */ .lZ)
            throw error;
        return undefined;
    });
    if (text === undefined)
        return undefined;
    deps.requests.throwIfOver(what);
    const { describeFindings, inspectWorkflow } = await Promise.all(/* import() */[__webpack_require__.e(815), __webpack_require__.e(18)]).then(__webpack_require__.bind(__webpack_require__, 6018));
    const findings = inspectWorkflow(text, github.job, settings.cooldownCheck);
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
 * The workflow file's text: from the workspace when it is checked out, else from the repository at
 * the workflow's commit.
 */
async function workflowText(path, github, requests) {
    const local = (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(github.workspace, path);
    const found = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.stat)(local).catch(() => undefined);
    if (found?.isFile())
        return found.size <= MAX_WORKFLOW_BYTES ? (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.readFile)(local, 'utf8') : undefined;
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
    return bytes.length <= MAX_WORKFLOW_BYTES ? bytes.toString('utf8') : undefined;
}


/***/ })

};
