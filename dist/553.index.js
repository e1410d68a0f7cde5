export const id = 553;
export const ids = [553];
export const modules = {

/***/ 6553:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   readRepositoryFile: () => (/* binding */ readRepositoryFile)
/* harmony export */ });
/* harmony import */ var _actions_github__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(2413);

/**
 * Reads one file of the repository at a commit through GitHub's contents API (raw media
 * type, so files over 1 MB come whole). Loaded only when a manifest is not in the workspace.
 * The API address comes from GITHUB_API_URL, so GitHub Enterprise Server works too.
 */
async function readRepositoryFile(file) {
    const [owner, repo] = file.repository.split('/');
    const octokit = (0,_actions_github__WEBPACK_IMPORTED_MODULE_0__/* .getOctokit */ .Q)(file.token);
    try {
        const response = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
            owner: owner ?? '',
            repo: repo ?? '',
            path: file.path,
            ref: file.ref,
            headers: { accept: 'application/vnd.github.raw+json' },
            request: { signal: AbortSignal.timeout(file.timeoutMs) }
        });
        if (typeof response.data !== 'string')
            throw new Error('the path is not a file');
        return response.data;
    }
    catch (error) {
        // Octokit's errors carry the request; only the status and GitHub's words are passed on.
        const status = error.status;
        const message = error instanceof Error ? error.message.split(' - ')[0] : String(error);
        throw new Error(typeof status === 'number' ? `${status}: ${message}` : message);
    }
}


/***/ })

};
