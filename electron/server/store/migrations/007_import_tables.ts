/**
 * Each EVE import stages into tables of its own (`eve_staged_value_<pk>`, `eve_staged_host_<pk>`,
 * store/evidence.ts), created when it begins and dropped when it ends: dropping a table frees its
 * pages at once, where deleting a large import's staged rows one by one took 0.4 s of its final
 * transaction. The shared staging tables go; the staging of an import that was under way when
 * this step ran goes with them, and that import's row is dropped by the next import as over.
 */
export const importTables = `
DROP TABLE eve_staged_value;
DROP TABLE eve_staged_host;
`;
