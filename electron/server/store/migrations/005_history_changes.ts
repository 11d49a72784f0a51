/**
 * The field-level changes of each write, kept with its history entry (issue 11): a JSON list of
 * `{field, from?, to?, secret?}` written by the write's own INSERT, so inside its transaction.
 * NULL for entries made before this step and for actions that change no field (imports,
 * syncs). Not part of the API's entry (api.md §5); the app serves it (`/app/history/<pk>/changes`).
 */
export const historyChanges = `
ALTER TABLE user_action ADD COLUMN changes TEXT;
`;
