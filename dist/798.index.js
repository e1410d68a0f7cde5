export const id = 798;
export const ids = [798];
export const modules = {

/***/ 4798:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   diagnoseWorkflow: () => (/* binding */ diagnoseWorkflow)
/* harmony export */ });
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(6760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_1__);


/** The largest workflow file read: far more than any workflow. */
const MAX_WORKFLOW_BYTES = 1024 * 1024;
/**
 * After a strike (`strike`), or in a dry run as a set-up check (`dry-run`): what the workflow
 * that ran the step shows of the cause, in words, or undefined when it shows nothing to say.
 * The runner names the workflow (GITHUB_WORKFLOW_REF: `owner/repo/path@ref`) and the job
 * (GITHUB_JOB); the file comes from the workspace after a checkout, else through GitHub's API
 * with github-token, within the step's deadline. A file that cannot be read or parsed changes
 * nothing, and neither does a stop: the strike is reported as it is. The YAML parser is loaded
 * only here.
 */
async function diagnoseWorkflow(settings, deps, when) {
    const { github } = settings;
    if (github.inReusableWorkflow) {
        // GITHUB_WORKFLOW_REF names the caller there; the reusable workflow's own job is always in the group.
        return when === 'strike'
            ? `The step ran in the reusable workflow, whose job is always in the concurrency group discord-place-stats-${settings.botId}: ` +
                'the other update came from a workflow outside that group, a manual update, or the bot itself.'
            : undefined;
    }
    const ref = /^[^/]+\/[^/]+\/(.+?)@/.exec(github.workflowRef ?? '');
    const path = ref?.[1];
    if (path === undefined || github.job === undefined)
        return undefined;
    const text = await workflowText(path, settings, deps).catch(() => undefined);
    if (text === undefined)
        return undefined;
    const { describeFindings, inspectWorkflow } = await Promise.all(/* import() */[__webpack_require__.e(815), __webpack_require__.e(18)]).then(__webpack_require__.bind(__webpack_require__, 6018));
    const findings = inspectWorkflow(text, github.job, settings.cooldownCheck);
    if (findings === undefined)
        return undefined;
    const said = describeFindings(findings, `${path}, job ${github.job}`, settings.botId, when);
    if (said !== undefined || when === 'dry-run')
        return said;
    return (`The workflow that ran this step (${path}, job ${github.job}) has a concurrency group and no frequent schedule with ` +
        'cooldown-check: false, so the other update came from another workflow, a manual run, or the bot itself: give every ' +
        `job that updates this bot the concurrency group discord-place-stats-${settings.botId}.`);
}
/** The workflow file's text: from the workspace when it is checked out, else from the repository at the workflow's commit. */
async function workflowText(path, settings, deps) {
    const { github } = settings;
    const local = (0,node_path__WEBPACK_IMPORTED_MODULE_1__.join)(github.workspace, path);
    const found = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.stat)(local).catch(() => undefined);
    if (found?.isFile() && found.size <= MAX_WORKFLOW_BYTES)
        return (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_0__.readFile)(local, 'utf8');
    const commit = github.workflowSha ?? github.sha;
    if (github.token === undefined || github.repository === undefined || commit === undefined)
        return undefined;
    const { readRepositoryFile } = await Promise.all(/* import() */[__webpack_require__.e(119), __webpack_require__.e(413), __webpack_require__.e(584)]).then(__webpack_require__.bind(__webpack_require__, 4584));
    const text = await readRepositoryFile({ token: github.token, repository: github.repository, ref: commit, path, apiUrl: github.apiUrl }, deps.requests);
    // Bytes, as the workspace's copy is measured: a character outside ASCII takes more than one.
    return Buffer.byteLength(text, 'utf8') <= MAX_WORKFLOW_BYTES ? text : undefined;
}


/***/ })

};
