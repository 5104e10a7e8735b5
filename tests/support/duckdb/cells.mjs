// cells.mjs - a DuckDB value as a cell of dmap's CSV outfiles: NULL as the
// empty string, a value with a comma, a quote or a line break quoted,
// quotes doubled. Shared by query.mjs and kv_oracle.mjs.
export const csvCell = (v) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
