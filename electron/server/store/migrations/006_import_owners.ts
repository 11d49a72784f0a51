/**
 * Who runs an EVE import under way (issue 10): several can stage at once (the command's
 * `--follow` beside the app's upload), so a new import drops only the staging of imports that
 * are no longer running, known by their process and the last time they staged. Rows from before
 * this step have no owner: their import is over.
 */
export const importOwners = `
ALTER TABLE eve_import ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE eve_import ADD COLUMN touched INTEGER NOT NULL DEFAULT 0;
`;
