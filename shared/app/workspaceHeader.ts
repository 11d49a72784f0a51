/**
 * The header the app's pages send with every request: the workspace the page was loaded for
 * (URL-encoded). The server refuses a write naming another workspace than the open one (409).
 */
export const WORKSPACE_HEADER = 'X-Outpost-Workspace';
